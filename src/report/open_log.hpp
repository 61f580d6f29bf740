#pragma once
// Opening a result log for a report: the checks every format shares.

#include <string>

#include "results/log_reader.hpp"
#include "results/records.hpp"
#include "util/result.hpp"

namespace report {

struct OpenedLog {
    results::LogReader reader;  // positioned after the header
    results::CampaignHeader header;
};

// Opens the log at `path` and reads its first record. Fails, naming `path`, when it cannot
// be opened or read, is empty, or its first line is not a `campaign` record.
util::Result<OpenedLog> open_log(const std::string& path);

}  // namespace report
