#include "report/carried_columns.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cstring>
#include <optional>

#include "campaign/csv_reader.hpp"
#include "util/sha256.hpp"

namespace report {

namespace {

// The SHA-256 of `file` when it is `sha256`; else why the list cannot be used.
util::Result<void> same_list(const std::string& file, const std::string& sha256) {
    TRY_ASSIGN(const std::string now, util::sha256_file(file));
    if (now != sha256) {
        return util::fail(fmt::format(
            "{}: not the recipient list the log's rows are of (its SHA-256 is {}, the log's {}): its columns would "
            "put one recipient's data on another's row; restore that list, or report without --columns",
            file, now, sha256));
    }
    return {};
}

// The index of each of `names` in `reader`'s header.
util::Result<std::vector<std::size_t>> columns_of(const campaign::CsvReader& reader, const std::string& file,
                                                  const std::vector<std::string>& names) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) !=
            names.begin() + static_cast<std::ptrdiff_t>(i)) {
            return util::fail(fmt::format("--columns: \"{}\" is named twice", names[i]));
        }
        const auto column = reader.column(names[i]);
        if (!column) {
            return util::fail(fmt::format("{}: no column \"{}\" (its columns: {})", file, names[i],
                                          fmt::join(reader.header(), ", ")));
        }
        out.push_back(*column);
    }
    return out;
}

void append_value(std::string& blob, const std::string& value) {
    const auto bytes = static_cast<std::uint32_t>(value.size());
    blob.append(reinterpret_cast<const char*>(&bytes), sizeof bytes);
    blob += value;
}

}  // namespace

util::Result<CarriedColumns> CarriedColumns::read(const std::string& file, const std::string& sha256,
                                                  const CarriedOptions& options) {
    if (sha256.empty()) {
        return util::fail(
            fmt::format("{}: the log does not record the SHA-256 of its recipient list, so it cannot "
                        "be told to be the same list; report without --columns",
                        file));
    }
    // The reader first: it refuses a FIFO or a device, which hashing would wait on.
    TRY_ASSIGN(auto reader, campaign::CsvReader::open(file, options.delimiter));
    TRY(same_list(file, sha256));
    TRY_ASSIGN(const auto columns, columns_of(reader, file, options.names));
    CarriedColumns out;
    out.m_names = options.names;
    TRY_ASSIGN(out.m_bytes, util::TempFile::create({options.temp_dir}));
    util::DiskArrayOptions rows;
    rows.temp_dir = options.temp_dir;
    TRY_ASSIGN(out.m_rows, util::DiskArray<Span>::create(rows));
    campaign::CsvRecord record;
    std::string blob;
    auto more = reader.next(record);
    for (; more && *more; more = reader.next(record)) {
        blob.clear();
        for (const std::size_t column : columns) {
            std::string& value = record.fields[column];
            options.secrets.mask(value);
            append_value(blob, value);
        }
        TRY_ASSIGN(const std::uint64_t offset, out.m_bytes.append(blob.data(), blob.size()));
        TRY(out.m_rows.set(static_cast<std::uint64_t>(record.row - 1),
                           Span{offset, static_cast<std::uint32_t>(blob.size()), 1}));
    }
    TRY(more);
    // Changed while it was read: its rows may be of either version.
    TRY(same_list(file, sha256));
    return out;
}

util::Result<void> CarriedColumns::values(std::int64_t row, std::vector<std::string>& values) const {
    values.assign(m_names.size(), std::string());
    if (row < 1) {
        return {};
    }
    TRY_ASSIGN(const Span span, m_rows.get(static_cast<std::uint64_t>(row - 1)));
    if (span.present == 0) {
        return {};
    }
    std::string blob(span.bytes, '\0');
    TRY(m_bytes.read_at(span.offset, blob.data(), blob.size()));
    std::size_t at = 0;
    for (auto& value : values) {
        std::uint32_t bytes = 0;
        std::memcpy(&bytes, blob.data() + at, sizeof bytes);
        at += sizeof bytes;
        value.assign(blob, at, bytes);
        at += bytes;
    }
    return {};
}

}  // namespace report
