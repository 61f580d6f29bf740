#include "report/open_log.hpp"

#include <fmt/format.h>
#include <utility>
#include <variant>

namespace report {

util::Result<OpenedLog> open_log(const std::string& path) {
    TRY_ASSIGN(auto reader, results::LogReader::open(path));
    results::Record record;
    TRY_ASSIGN(const bool any, reader.next(record));
    if (!any) {
        return util::fail(fmt::format("{}: not a wacamp result log: it holds no campaign record", path));
    }
    // Same rule as results::replay: the header must be line 1, not merely the first good line.
    if (reader.line_number() != 1 || !std::holds_alternative<results::CampaignHeader>(record)) {
        return util::fail(
            fmt::format("{}:1: not a wacamp result log: the first line must be a \"campaign\" record", path));
    }
    return OpenedLog{std::move(reader), std::get<results::CampaignHeader>(std::move(record))};
}

}  // namespace report
