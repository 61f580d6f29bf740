#include "report/open_log.hpp"

#include <fmt/format.h>
#include <algorithm>
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

util::Error cannot_report(const util::Error& error) {
    if (error.kind != util::ErrorKind::temp_file) {
        return error;
    }
    return util::fail("cannot report on " + error.message);  // the message names the log first
}

util::Error scratch_failed(const std::string& path, const util::Error& error) {
    return util::fail(fmt::format("cannot report on {}: {}", path, error.message));
}

std::vector<std::string> shown_warnings(const results::LogState& state) {
    const auto shown = std::min(state.warnings.size(), results::LogReader::k_max_warnings);
    return {state.warnings.begin(), state.warnings.begin() + static_cast<std::ptrdiff_t>(shown)};
}

}  // namespace report
