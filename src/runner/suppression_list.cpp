#include "runner/suppression_list.hpp"

#include <fmt/format.h>
#include <filesystem>
#include <unordered_set>

#include "campaign/csv_reader.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

namespace runner {

namespace {

constexpr std::size_t k_examples = 5;
constexpr std::size_t k_max_quoted = 40;  // bytes of a number quoted in a message, as phone.cpp does

// Suppressions are added in batches of this many: one transaction each.
constexpr std::size_t k_import_batch = 10'000;

std::size_t number_column(const campaign::CsvReader& reader) {
    if (auto column = reader.column("wa_id")) {
        return *column;
    }
    return reader.column("phone").value_or(0);
}

util::Result<std::string> normalize_one(const std::string& number, const campaign::PhoneNormalizer& phones,
                                        NumberForm form) {
    if (form == NumberForm::international && !util::trim(number).starts_with('+')) {
        return util::fail(fmt::format("\"{}\" does not start with +: give the number with its country code",
                                      util::clip_utf8(number, k_max_quoted)));
    }
    return phones.normalize(number);
}

}  // namespace

util::Result<ListReading> read_suppression_list(const std::string& path, const campaign::PhoneNormalizer& phones,
                                                const std::function<util::Result<void>(std::string)>& each) {
    TRY_ASSIGN(auto reader, campaign::CsvReader::open(path, ','));
    const std::size_t column = number_column(reader);
    ListReading reading;
    auto note = [&](long long line, const std::string& why) {
        ++reading.problems;
        if (reading.examples.size() < k_examples) {
            reading.examples.push_back(fmt::format("{}:{}: {}", path, line, util::printable(why)));
        }
    };
    campaign::CsvRecord record;
    for (;;) {
        TRY_ASSIGN(const bool found, reader.next(record));
        if (!found) {
            return reading;
        }
        if (!record.problem.empty()) {
            note(record.line, record.problem);
            continue;
        }
        auto number = phones.normalize(record.fields[column]);
        if (!number) {
            note(record.line, number.error().message);
            continue;
        }
        TRY(each(std::move(*number)));
        ++reading.numbers;
    }
}

std::string list_source(const std::string& path) {
    return "file:" + std::filesystem::path(path).filename().string();
}

util::Result<ListImport> import_suppression_list(account::Ledger& ledger, const std::string& path,
                                                 const campaign::PhoneNormalizer& phones, const ListEntry& entry) {
    ListImport import;
    std::vector<account::Suppression> batch;
    auto flush = [&]() -> util::Result<void> {
        if (!batch.empty()) {
            TRY_ASSIGN(const std::size_t added, ledger.suppress(batch));
            import.added += static_cast<std::int64_t>(added);
            batch.clear();
        }
        return {};
    };
    auto each = [&](std::string wa_id) -> util::Result<void> {
        batch.push_back(account::Suppression{std::move(wa_id), entry.reason, entry.since, entry.source});
        return batch.size() >= k_import_batch ? flush() : util::Result<void>{};
    };
    TRY_ASSIGN(import.reading, read_suppression_list(path, phones, each));
    TRY(flush());
    return import;
}

util::Result<std::vector<std::string>> normalize_numbers(const std::vector<std::string>& numbers,
                                                         const campaign::PhoneNormalizer& phones, NumberForm form) {
    std::vector<std::string> wa_ids;
    std::unordered_set<std::string> seen;
    std::string problems;
    for (const auto& number : numbers) {
        auto wa_id = normalize_one(number, phones, form);
        if (!wa_id) {
            problems += (problems.empty() ? "" : "\n") + wa_id.error().message;
        } else if (seen.insert(*wa_id).second) {
            wa_ids.push_back(std::move(*wa_id));
        }
    }
    if (!problems.empty()) {
        return util::fail(std::move(problems));
    }
    return wa_ids;
}

}  // namespace runner
