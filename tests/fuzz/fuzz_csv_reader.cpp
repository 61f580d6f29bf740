// libFuzzer harness: campaign::CsvReader over arbitrary bytes. The first two bytes pick the
// delimiter, the field cap and a chunk size; the rest is the CSV. Besides "no crash, no UB, no leak", every
// chunk size must read exactly what the default one reads: chunk boundaries are where a
// streaming reader goes wrong.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "campaign/csv_reader.hpp"

namespace {

// What one pass read: the header error, or the header and every record.
struct Reading {
    std::string error;
    std::vector<std::string> header;
    std::vector<campaign::CsvRecord> records;
};

constexpr char k_delimiters[] = {',', ';', '\t', '|', ' ', ':', 'a', '"', '\n', '\0', '\xE9'};
constexpr std::size_t k_max_records = 10'000;  // libFuzzer inputs are small; this is a guard

Reading read_all(const std::string& text, const campaign::CsvOptions& options) {
    Reading out;
    auto reader = campaign::CsvReader::from_string(text, options, "fuzz.csv");
    if (!reader) {
        out.error = reader.error().message;
        return out;
    }
    out.header = reader->header();
    campaign::CsvRecord record;
    while (out.records.size() < k_max_records) {
        const auto more = reader->next(record);
        if (!more) {
            out.error = more.error().message;  // an in-memory text has no I/O to fail
            break;
        }
        if (!*more) {
            break;
        }
        if (record.fields.size() != out.header.size()) {
            __builtin_trap();  // the contract: one field per header column
        }
        out.records.push_back(record);
    }
    return out;
}

bool same(const Reading& a, const Reading& b) {
    if (a.error != b.error || a.header != b.header || a.records.size() != b.records.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.records.size(); ++i) {
        const auto& x = a.records[i];
        const auto& y = b.records[i];
        if (x.row != y.row || x.line != y.line || x.fields != y.fields || x.problem != y.problem) {
            return false;
        }
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) {
        return 0;
    }
    campaign::CsvOptions options;
    // Mostly the delimiters people use (and some refused ones); sometimes any ASCII byte.
    options.delimiter =
        (data[0] & 0x80) != 0 ? static_cast<char>(data[0] & 0x7F) : k_delimiters[data[0] % sizeof k_delimiters];
    // A small cap sometimes, so that the "too long" path is reachable with small inputs.
    if ((data[1] & 0x80) != 0) {
        options.max_field_bytes = 16;
    }
    const std::string text(reinterpret_cast<const char*>(data) + 2, size - 2);

    const Reading reference = read_all(text, options);
    options.chunk_size = 1 + (data[1] & 0x7F) % 17;
    if (!same(reference, read_all(text, options))) {
        __builtin_trap();
    }
    return 0;
}
