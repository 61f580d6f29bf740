#include "report/next_steps.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "campaign/csv_reader.hpp"
#include "results/retry_rule.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace report {

namespace {

using results::Status;

// The failed rows of `summary` by what a later resume does with them.
results::FailedRows failed_rows_of(const Summary& summary) {
    results::CauseCounts failed;
    for (const auto& g : summary.errors) {
        if (g.status == Status::failed) {
            failed[g.cause] += g.count;
        }
    }
    return results::failed_rows(failed);
}

// Whether the log's last run stopped before the end of its list.
bool unfinished(const Summary& s) {
    return !s.ended || !s.last_end || s.last_end->reason != "completed" || not_yet_attempted(s) > 0;
}

}  // namespace

ListState look_at_list(const results::CampaignHeader& header) {
    ListState list;
    // The reader first: it refuses a FIFO or a device before opening it, which hashing would not
    // (opening a FIFO waits for a writer: the report would hang).
    auto reader = campaign::CsvReader::open(header.recipients_file, ',');
    if (!reader) {
        list.problem = reader.error().message;
        return list;
    }
    auto hash = util::sha256_file(header.recipients_file);
    if (!hash) {
        list.problem = hash.error().message;
        return list;
    }
    campaign::CsvRecord record;
    auto more = reader->next(record);  // data rows: the reader takes the header row itself
    for (; more && *more; more = reader->next(record)) {
        ++list.rows;
    }
    if (!more) {
        list.problem = more.error().message;
        return list;
    }
    list.found = *hash == header.recipients_sha256 ? ListState::Found::same : ListState::Found::changed;
    return list;
}

std::int64_t not_yet_attempted(const Summary& summary) {
    if (summary.list.found == ListState::Found::missing) {
        return 0;
    }
    return std::max<std::int64_t>(0, summary.list.rows - summary.rows);
}

std::vector<NextStep> next_steps_for(const Summary& s) {
    std::vector<NextStep> steps;
    const std::string& log = s.log_path;
    if (s.header.mode == results::Mode::dry_run) {
        steps.push_back({"to send it", "wacamp run " + s.header.campaign_file});
        return steps;
    }
    if (s.cleanup && s.cleanup->last_failed) {
        steps.push_back({"to finish the deletion step", "wacamp delete-contacts " + log});
    }
    const auto failed = failed_rows_of(s);
    if (s.ended && s.last_end && s.last_end->reason == "too_late") {
        // A plain resume would stop as late again (schedule.not_after, max_delay).
        steps.push_back(
            {"to send the rest anyway, though the campaign is too late", "wacamp resume " + log + " --late-ok"});
    } else if (s.ended && s.last_end && (s.last_end->reason == "budget" || s.last_end->reason == "template_changed")) {
        // A plain resume would stop again: before the next send, or for want of a budget.
        steps.push_back({s.last_end->reason == "budget" ? "to continue with a higher budget"
                                                        : "to continue at the template's new category's price",
                         "wacamp resume " + log + " --budget AMOUNT"});
    } else if (unfinished(s) || failed.retried > 0) {
        steps.push_back({"to continue", "wacamp resume " + log});
    }
    if (const auto unknown = s.counts[Status::unknown]; unknown > 0) {
        steps.push_back({fmt::format("only once you know they did not get it (a request went out for each and got "
                                     "no answer: resending may deliver twice), to send the {} again",
                                     util::counted(unknown, "unknown recipient")),
                         "wacamp resume " + log + " --resend-unknown"});
    }
    if (failed.when_asked > 0) {
        steps.push_back(
            {fmt::format("to try the {} refused for good again", util::counted(failed.when_asked, "recipient")),
             "wacamp resume " + log + " --retry-failed"});
    }
    return steps;
}

}  // namespace report
