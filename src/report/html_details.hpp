#pragma once
// What the HTML report shows beyond a Summary: the campaign over time, the slowest
// recipients, and the failed or unknown ones with their latest record. Gathered in a second
// streaming pass over the log, in bounded memory.

#include <vector>

#include "report/html_timeline.hpp"
#include "report/summary.hpp"
#include "results/records.hpp"
#include "util/result.hpp"

namespace report {

struct HtmlDetails {
    static constexpr std::size_t k_slowest = 10;

    Timeline timeline;
    // The results of the slowest requests, one per row, slowest first.
    std::vector<results::ResultRecord> slowest;
    // The latest record of each row in Summary::not_sent_rows, by row. A row whose request
    // was in flight when a run stopped has status unknown and the error saying so.
    std::vector<results::ResultRecord> not_sent;
    // The latest record of each row in Summary::invalid_rows, by row.
    std::vector<results::ResultRecord> invalid;
};

// Reads `summary.log_path` again, up to the records `summary` counted, and returns the
// details. Fails when the log cannot be opened or read, or no longer starts as it did.
util::Result<HtmlDetails> collect_html_details(const Summary& summary);

}  // namespace report
