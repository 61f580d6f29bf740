#pragma once
// Opening a result log for a report, and what every format says of the replay's failures and
// warnings.

#include <string>
#include <vector>

#include "results/log_reader.hpp"
#include "results/records.hpp"
#include "results/replay.hpp"
#include "util/result.hpp"

namespace report {

struct OpenedLog {
    results::LogReader reader;  // positioned after the header
    results::CampaignHeader header;
};

// Opens the log at `path` and reads its first record. Fails, naming `path`, when it cannot
// be opened or read, is empty, or its first line is not a `campaign` record.
util::Result<OpenedLog> open_log(const std::string& path);

// Returns `error`, a failed replay's, as the report's: one of its temporary files says that it
// cannot report on the log.
util::Error cannot_report(const util::Error& error);

// Says that the replay's per-row state could not be read back (`error`), naming the log `path`.
util::Error scratch_failed(const std::string& path, const util::Error& error);

// Returns the warnings of `state` without the note of how many were left out: a report says
// that itself, from LogState::warning_count.
std::vector<std::string> shown_warnings(const results::LogState& state);

}  // namespace report
