#include "cli/run_common.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "results/log_reader.hpp"
#include "util/duration.hpp"
#include "util/env.hpp"

namespace cli {

std::optional<campaign::Campaign> load_campaign_or_report(const std::string& path, campaign::SecretsPolicy secrets,
                                                          util::Redactor& redactor) {
    util::ProcessEnvironment env;
    auto loaded = campaign::load_campaign(path, env, {.secrets = secrets});
    if (!loaded) {
        fmt::print(stderr, "{}\n", redactor.apply(loaded.error().message));
        fmt::print(stderr, "wacamp: error: {} is not usable; nothing was sent\n", path);
        return std::nullopt;
    }
    redactor.add(loaded->service.api_key);
    redactor.add(loaded->service.access_token);
    for (const auto& [name, value] : loaded->service.headers) {
        redactor.add(value);  // extra headers may carry tokens too
    }
    return std::move(*loaded);
}

namespace {

// What to fix before resuming a run that stopped for `reason`.
std::string_view what_to_do_first(queue::StopReason reason) {
    switch (reason) {
    case queue::StopReason::auth:
        return "the service refused the credentials: fix service.api_key (or the account), then continue";
    case queue::StopReason::spam_limit:
        return "the sending number hit WhatsApp's spam limit: wait for it to lift (hours), then continue";
    case queue::StopReason::failure_threshold:
        return "too many requests failed in a row: fix the cause shown above, then continue";
    default: return "to continue";
    }
}

// Where the log is, and the commands that continue the campaign, each with what it is for.
std::string next_steps(const campaign::Campaign& c, const runner::SendReport& r) {
    using results::Status;
    const auto& n = r.counts;
    std::error_code ec;
    const auto size = std::filesystem::file_size(r.results_path, ec);
    if (ec || size == 0) {
        // Stopped before the log was started (e.g. the template check was refused).
        return r.reason == queue::StopReason::completed
                   ? std::string()
                   : fmt::format("  {}: wacamp run {}\n", what_to_do_first(r.reason), c.file);
    }
    std::string out = fmt::format("  result log: {}\n", r.results_path);
    // Rows held from earlier runs and rows that became unknown in this one (retry.ambiguous: hold).
    if (const auto unknown = std::max<std::int64_t>(r.held_unknown, n[Status::unknown]); unknown > 0) {
        out += fmt::format("  {} recipient(s) may or may not have received the message (unknown); "
                           "to send them again: wacamp resume {} --resend-unknown\n",
                           unknown, r.results_path);
    }
    if (r.held_rejected > 0) {
        out += fmt::format("  {} recipient(s) were rejected by the service earlier; to try them again: "
                           "wacamp resume {} --retry-failed\n",
                           r.held_rejected, r.results_path);
    }
    if (r.reason != queue::StopReason::completed || n[Status::failed] > 0) {
        out += fmt::format("  {}: wacamp resume {}\n", what_to_do_first(r.reason), r.results_path);
    }
    return out;
}

} // namespace

void print_send_summary(const campaign::Campaign& c, const runner::SendReport& r, const util::Redactor& redactor) {
    using results::Status;
    std::string out;
    if (r.already_complete) {
        out += fmt::format("{}: already complete, nothing to send.\n", c.name);
    } else {
        std::string how = r.reason == queue::StopReason::completed ? "completed"
                          : r.reason == queue::StopReason::limit   ? "stopped at --limit"
                                                                   : "STOPPED";
        out += fmt::format("{}: {} in {} ({} sent this run)\n", c.name, how, util::format_duration(r.duration),
                           r.sent_this_run);
        if (!r.message.empty() && r.reason != queue::StopReason::completed) {
            const auto reason = queue::to_string(r.reason);
            out += r.message == reason ? fmt::format("  why: {}\n", r.message)
                                       : fmt::format("  why: {} ({})\n", r.message, reason);
        }
    }
    const auto& n = r.counts;
    out += fmt::format("  sent {} · failed {} · unknown {} · invalid {} · skipped {}\n", n[Status::sent],
                       n[Status::failed], n[Status::unknown], n[Status::invalid], n[Status::skipped]);
    if (r.cleanup.ran) {
        out += fmt::format("  contacts deleted: {} in {} batch{}", r.cleanup.ids_deleted, r.cleanup.batches_deleted,
                           r.cleanup.batches_deleted == 1 ? "" : "es");
        out += r.cleanup.batches_failed > 0
                   ? fmt::format(", {} batch(es) failed: {}\n", r.cleanup.batches_failed, r.cleanup.error)
                   : "\n";
        if (r.cleanup.interrupted) {
            out += fmt::format("  the deletion step was interrupted; to finish it: wacamp delete-contacts {}\n",
                               r.results_path);
        }
    }
    if (r.throttled_this_run > 0) {
        out += fmt::format("  the service rate limited {} request(s) (retried after its Retry-After, not counted "
                           "as attempts); the queue slowed down to {:.1f}/s (rate.per_second: {})\n",
                           r.throttled_this_run, r.rate_in_force, c.rate.per_second);
    }
    out += next_steps(c, r);
    print_out(redactor, out);
}


int send_and_summarise(const campaign::Campaign& c, const runner::SendOptions& options, runner::RunUi& ui,
                       const std::atomic<int>& stops, const util::Redactor& redactor) {
    auto report = runner::send_campaign(c, options, ui, stops);
    ui.clear_line();
    if (!report) {
        print_error(redactor, report.error().message);
        print_error(redactor, "nothing was sent");
        return k_exit_bad_input;
    }
    if (report->declined) {
        print_out(redactor, "Not sent.\n");
    } else {
        print_send_summary(c, *report, redactor);
    }
    return exit_code_for(*report);
}

int exit_code_for(const runner::SendReport& r) {
    if (r.declined) {
        return k_exit_stopped;
    }
    if ((r.reason != queue::StopReason::completed && r.reason != queue::StopReason::limit) ||
        r.cleanup.interrupted) {
        return k_exit_stopped;
    }
    if (r.counts[results::Status::failed] > 0 || r.counts[results::Status::unknown] > 0 ||
        r.cleanup.batches_failed > 0) {
        return k_exit_failures;
    }
    return k_exit_done;
}

results::Durability durability_of(const std::string& sync) {
    if (sync == "every") {
        return results::Durability::every_record;
    }
    if (sync == "none") {
        return results::Durability::none;
    }
    return results::Durability::interval;
}

util::Result<std::string> campaign_file_of_log(const std::string& path) {
    auto reader = results::LogReader::open(path);
    if (!reader) {
        return reader.error();
    }
    results::Record record;
    auto got = reader->next(record);
    if (!got) {
        return got.error();
    }
    if (!*got && reader->warning_count() > 0) {
        return util::fail(path + ": not a wacamp result log (no line of it is a record)");
    }
    if (!*got) {
        // Only an older wacamp, killed between creating the log and writing its first line, leaves this.
        return util::fail(path + ": is empty: the run that created it stopped before it recorded anything, so "
                                 "nothing was sent; start the campaign again with: wacamp run CAMPAIGN.yaml");
    }
    const auto* header = std::get_if<results::CampaignHeader>(&record);
    if (header == nullptr) {
        return util::fail(path + ": not a wacamp result log (its first line is not a campaign record)");
    }
    if (header->mode != results::Mode::send) {
        return util::fail(path + ": is the log of a dry run; there is nothing to resume");
    }
    return header->campaign_file;
}

} // namespace cli
