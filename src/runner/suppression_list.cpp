#include "runner/suppression_list.hpp"

#include <fmt/format.h>

#include "campaign/csv_reader.hpp"
#include "util/text.hpp"

namespace runner {

namespace {

constexpr std::size_t k_examples = 5;

std::size_t number_column(const campaign::CsvReader& reader) {
    if (auto column = reader.column("wa_id")) {
        return *column;
    }
    return reader.column("phone").value_or(0);
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

}  // namespace runner
