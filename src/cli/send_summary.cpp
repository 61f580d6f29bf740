#include "cli/send_summary.hpp"

#include <fmt/format.h>

#include <fmt/ranges.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli/send_causes.hpp"
#include "results/retry_rule.hpp"
#include "runner/shown_zone.hpp"
#include "util/text.hpp"
#include "util/time.hpp"
#include "util/zone.hpp"

namespace cli {

namespace {

using nlohmann::ordered_json;
using results::Status;

// What to fix before resuming a run that stopped for `reason`; empty when nothing.
std::string_view what_to_fix(queue::StopReason reason) {
    switch (reason) {
    case queue::StopReason::auth:
        return "the service refused the credentials: fix service.api_key (or the account), then continue";
    case queue::StopReason::spam_limit:
        return "the sending number hit WhatsApp's spam limit: wait for it to lift (hours), then continue";
    case queue::StopReason::account:
        return "WhatsApp refused the account (locked, a payment problem, the number not registered, or marketing "
               "messages disabled): fix it with Meta, then continue";
    case queue::StopReason::tls:
        return "the service's TLS certificate failed verification: fix the server's certificate, or name its CA "
               "in service.ca_file, then continue";
    case queue::StopReason::endpoint:
        return "the service has no such URL: fix service.base_url (the service's root, without the operation's "
               "path), then continue";
    case queue::StopReason::policy_block:
        return "WhatsApp temporarily blocked the account for a policy violation (code 368); the credentials are "
               "fine: wait for the block to end (Meta's Business Support shows until when), then continue";
    case queue::StopReason::template_refused:
        return "WhatsApp refused the template or the rows' values for it (the error above says which): fix "
               "message.template, its variables or the template itself, then run again with --force (the failed "
               "rows are sent again with --retry-failed)";
    case queue::StopReason::template_paused:
        return "Meta paused the template for its low quality (3 h the first time, then 6 h): once the pause is "
               "lifted, continue";
    case queue::StopReason::template_disabled:
        return "Meta disabled the template: a new template is needed: set message.template to another approved "
               "template, then run again with --force";
    case queue::StopReason::failure_threshold:
        return "too many requests failed in a row: fix the cause shown above, then continue";
    case queue::StopReason::throttled:
        return "the service throttled every request for abort.max_throttled: wait, or lower rate.per_second, "
               "then continue";
    case queue::StopReason::log_error:
        return "the result log could not be written: fix the cause shown above (disk space, the log file), then "
               "continue";
    case queue::StopReason::ledger_error:
        return "the account's ledger could not be read or written: fix the cause shown above (disk space, the "
               "file, another process holding it, the database server), then continue";
    case queue::StopReason::too_late:
        return "the campaign is too late (schedule.not_after, or schedule.max_delay after start_at): the rows not "
               "sent are left as they were; to send them anyway, late, continue once with --late-ok (or change the "
               "schedule and run again with --force)";
    case queue::StopReason::temp_file_error:
        return "a temporary file could not be made, written or read back (the cause above); the result log is "
               "fine and every row is as it was: give TMPDIR a folder wacamp can write, with space to spare, then "
               "continue";
    case queue::StopReason::budget:
        return "the next message would have passed the campaign's budget (pricing.budget, or --budget): the rows "
               "not sent are left as they were; to send them, continue with a higher --budget";
    case queue::StopReason::template_changed:
        return "Meta re-categorised the template while the campaign sent, and its price changed with it (the new "
               "estimate is above): the rows not sent are left as they were; to send them at the new price, continue "
               "with a budget (--budget AMOUNT, or pricing.budget), or pin the new category (message.category) and "
               "run again with --force";
    case queue::StopReason::input_error:
        return "the recipient list could not be read to its end: fix the cause shown above (the disk, TMPDIR), "
               "then continue";
    default: return {};
    }
}

// What is left to do after a run, for both formats.
struct NextSteps {
    bool log_started = false;
    std::int64_t unknown = 0;      // rows held or made unknown: resent only when asked
    std::int64_t refused = 0;      // failed rows a resume retries only with --retry-failed
    std::string continue_command;  // empty: nothing to continue
    std::string resend_unknown_command;
    std::string retry_failed_command;
    std::string finish_deletion_command;
};

// The flag a run stopped as too late needs to continue: " --late-ok"; over budget, or after the
// template's category changed: " --budget AMOUNT"; else nothing.
std::string continue_flag(const runner::SendReport& r) {
    switch (r.reason) {
    case queue::StopReason::too_late: return " --late-ok";
    case queue::StopReason::budget:
    case queue::StopReason::template_changed: return " --budget AMOUNT";
    default: return "";
    }
}

NextSteps next_steps_of(const campaign::Campaign& c, const runner::SendReport& r) {
    NextSteps s;
    std::error_code ec;
    const auto size = std::filesystem::file_size(r.results_path, ec);
    s.log_started = !ec && size > 0;
    const bool left = r.reason != queue::StopReason::completed;
    if (r.cleanup.interrupted) {
        s.finish_deletion_command = "wacamp delete-contacts " + r.results_path;
    }
    if (!s.log_started) {
        // Stopped before the log was started (e.g. the template check was refused).
        s.continue_command = left ? "wacamp run " + c.file + continue_flag(r) : "";
        return s;
    }
    // Rows held from earlier runs and rows that became unknown in this one (retry.ambiguous: hold).
    s.unknown = std::max<std::int64_t>(r.held_unknown, r.counts[Status::unknown]);
    if (s.unknown > 0) {
        s.resend_unknown_command = fmt::format("wacamp resume {} --resend-unknown", r.results_path);
    }
    // What a later resume would do with the failed rows: retry them, only when asked, or never.
    const auto failed = results::failed_rows(r.causes);
    s.refused = std::max(r.held_rejected, failed.when_asked);
    if (s.refused > 0) {
        s.retry_failed_command = fmt::format("wacamp resume {} --retry-failed", r.results_path);
    }
    // A run that found nothing to send would find nothing again: no advice that loops.
    if (!r.already_complete && (left || failed.retried > 0)) {
        s.continue_command = "wacamp resume " + r.results_path + continue_flag(r);
    }
    return s;
}

std::string headline(const campaign::Campaign& c, const runner::SendReport& r) {
    if (r.already_complete) {
        return fmt::format("{}: already complete, nothing to send.", c.name);
    }
    std::string how = r.reason == queue::StopReason::completed ? "completed"
                      : r.reason == queue::StopReason::limit   ? "stopped at --limit"
                                                               : "STOPPED";
    return fmt::format("{}: {} in {} ({} sent this run)", c.name, how,
                       util::format_duration(r.duration, util::DurationStyle::compact), r.sent_this_run);
}

// Why it stopped early; empty when it did not.
std::string why(const runner::SendReport& r) {
    if (r.already_complete || r.message.empty() || r.reason == queue::StopReason::completed) {
        return {};
    }
    const auto reason = queue::to_string(r.reason);
    // The message may quote the service: one line, nothing that drives a terminal.
    const auto message = util::printable(r.message);
    return message == reason ? message : fmt::format("{} ({})", message, reason);
}

// The rows a stop left waiting for their recipients' windows, by zone, the next opening first;
// the first few zones.
std::string window_lines(const runner::SendReport& r) {
    constexpr std::size_t k_zones_shown = 5;
    std::int64_t rows = 0;
    for (const auto& wait : r.waiting_for_window) {
        rows += wait.rows;
    }
    if (rows == 0) {
        return {};
    }
    std::string out = fmt::format(
        "  {} row(s) were waiting for their recipients' send windows (not sent, no record: a resume sends them):\n",
        rows);
    for (std::size_t i = 0; i < r.waiting_for_window.size() && i < k_zones_shown; ++i) {
        const auto& wait = r.waiting_for_window[i];
        out += fmt::format("    {}: {} row(s), {}\n", wait.reason, wait.rows,
                           wait.opens ? "opens " + util::format_moment(*wait.opens, wait.zone_name) : "never opens");
    }
    if (r.waiting_for_window.size() > k_zones_shown) {
        out += fmt::format("    and {} more zone(s)\n", r.waiting_for_window.size() - k_zones_shown);
    }
    return out;
}

// The rows a test send (--limit) passed over rather than wait for their recipients' windows;
// empty when it passed over none.
std::string passed_over_lines(const runner::SendReport& r, const util::TimeZone& shown) {
    std::string out;
    if (r.passed_over > 0) {
        out += fmt::format(
            "  passed over: {} row(s) whose recipients' send windows are closed (not sent, no record, not counted "
            "in --limit: a later run sends them){}\n",
            r.passed_over,
            r.passed_over_until ? "; the first opens " + util::format_moment(*r.passed_over_until, shown) : "");
    }
    return out;  // the wait not made for the send window or the day's room is the `why` line
}

// `text` (the `why` line: a message of the dispatcher, the deadline or the ledger, which say a
// moment in UTC as the JSON keeps it) with each UTC timestamp in it ("2026-12-06T14:00:00.000Z")
// on `shown`'s clock beside UTC.
std::string zoned_times(const std::string& text, const util::TimeZone& shown) {
    static const std::regex k_stamp(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z)");
    std::string out;
    auto last = text.cbegin();
    for (std::sregex_iterator it(text.cbegin(), text.cend(), k_stamp), end; it != end; ++it) {
        const auto& match = *it;
        out.append(last, match[0].first);
        const auto moment = util::parse_timestamp(match.str(), util::TimestampSyntax::rfc3339);
        out += moment ? util::format_moment(*moment, shown) : match.str();
        last = match[0].second;
    }
    out.append(last, text.cend());
    return out;
}

std::string summary_text(const campaign::Campaign& c, const runner::SendReport& r, const NextSteps& s,
                         const util::TimeZone& shown) {
    std::string out = headline(c, r) + "\n";
    if (auto because = why(r); !because.empty()) {
        out += fmt::format("  why: {}\n", zoned_times(because, shown));
    }
    const auto& n = r.counts;
    out += fmt::format("  sent {} · failed {} · unknown {} · invalid {} · skipped {}", n[Status::sent],
                       n[Status::failed], n[Status::unknown], n[Status::invalid], n[Status::skipped]);
    // The counts are of the rows the log holds: those the run did not reach are not in them.
    // "remaining" as the live line counts it: rows the log holds no record of yet.
    out += r.not_yet_attempted > 0 ? fmt::format(" · remaining {} (not yet attempted)\n", r.not_yet_attempted) : "\n";
    out += window_lines(r);
    out += passed_over_lines(r, shown);
    if (r.recovered_sent + r.recovered_unknown > 0) {
        out += fmt::format(
            "  recovered from the account's ledger: {} row(s) the ledger holds and the result log did not (an older "
            "copy of the log, its last seconds lost, or another run sending from a copy of it): {} sent (not sent "
            "again), {} unknown (their request may have left)\n",
            r.recovered_sent + r.recovered_unknown, r.recovered_sent, r.recovered_unknown);
    }
    out += cause_lines(r, std::chrono::system_clock::now(), shown);
    if (c.account.ledger) {
        out += fmt::format("  account: {} (ledger {})\n", util::printable(c.account.name), *c.account.ledger);
    }
    if (r.cleanup.ran && r.cleanup.batches_deleted == 0 && r.cleanup.batches_failed == 0 && !r.cleanup.interrupted) {
        out += "  contacts deleted: none left to delete (the deletion step had deleted them all already)\n";
    } else if (r.cleanup.ran) {
        out += fmt::format("  contacts deleted: {} in {} batch{}", r.cleanup.ids_deleted, r.cleanup.batches_deleted,
                           r.cleanup.batches_deleted == 1 ? "" : "es");
        out += r.cleanup.batches_failed > 0 ? fmt::format(", {} batch(es) failed: {}\n", r.cleanup.batches_failed,
                                                          util::printable(r.cleanup.error))
                                            : "\n";
        if (r.cleanup.without_user_id > 0) {
            out += fmt::format(
                "  {} row(s) to delete have an empty user_id (row{} {}{}): their contacts cannot be deleted; fill "
                "in recipients.columns.user_id and run wacamp delete-contacts\n",
                r.cleanup.without_user_id, r.cleanup.without_user_id_rows.size() == 1 ? "" : "s",
                fmt::join(r.cleanup.without_user_id_rows, ", "),
                r.cleanup.without_user_id > static_cast<std::int64_t>(r.cleanup.without_user_id_rows.size()) ? ", …"
                                                                                                             : "");
        }
        if (r.cleanup.interrupted) {
            out += fmt::format("  the deletion step was {}; to finish it: {}\n",
                               r.cleanup.log_error.empty() ? "interrupted" : "stopped: " + r.cleanup.log_error,
                               s.finish_deletion_command);
        }
    }
    if (r.throttled_this_run > 0) {
        // Two figures that differ and say so: the pace the queue set itself (requests started a
        // second, retries and throttled requests included) and the messages the service accepted.
        const double seconds = std::chrono::duration<double>(r.duration).count();
        out += fmt::format(
            "  the service rate limited {} request(s) (retried after its Retry-After, not counted as attempts); "
            "the queue lowered its pace to {:.1f} requests started a second, retries included (rate.per_second: {}); "
            "accepted: {:.1f} messages a second over the run\n",
            r.throttled_this_run, r.rate_in_force,
            c.rate.unlimited() ? std::string("unlimited") : fmt::format("{}", c.rate.per_second),
            seconds > 0 ? static_cast<double>(r.sent_this_run) / seconds : 0.0);
    }
    const auto fix = what_to_fix(r.reason);
    const auto first = fix.empty() ? std::string_view("to continue") : fix;
    if (!s.log_started) {
        return s.continue_command.empty() ? out : out + fmt::format("  {}: {}\n", first, s.continue_command);
    }
    out += fmt::format("  result log: {}\n", r.results_path);
    if (s.unknown > 0) {
        out += fmt::format(
            "  {} recipient(s) unknown: each request went out and got no answer, so the message may well have "
            "been delivered, and resending may deliver it twice. Decide first (the service's own records, "
            "`wacamp report {}` lists them); only to send them again: {}\n",
            s.unknown, r.results_path, s.resend_unknown_command);
    }
    if (r.never_left > 0) {
        out += fmt::format(
            "  {} of them never left: the result log could not be written before they were sent, so they "
            "reached no one (the log shows them unknown)\n",
            r.never_left);
    }
    if (s.refused > 0) {
        out += fmt::format(
            "  {} recipient(s) were refused by the service for good (rejected, undeliverable or outside_window); "
            "to try them again: {}\n",
            s.refused, s.retry_failed_command);
    }
    if (!s.continue_command.empty()) {
        out += fmt::format("  {}: {}\n", first, s.continue_command);
    }
    return out;
}

ordered_json or_null(const std::string& text) {
    return text.empty() ? ordered_json() : ordered_json(text);
}

ordered_json summary_fields(const campaign::Campaign& c, const runner::SendReport& r, const NextSteps& s,
                            int exit_code) {
    const auto& n = r.counts;
    ordered_json waiting = ordered_json::array();
    for (const auto& wait : r.waiting_for_window) {
        waiting.push_back({{"reason", wait.reason},
                           {"rows", wait.rows},
                           {"opens", wait.opens ? ordered_json(util::format_timestamp(*wait.opens)) : ordered_json()}});
    }
    ordered_json cleanup;  // null when the deletion step did not run
    if (r.cleanup.ran) {
        cleanup = {{"ids_deleted", r.cleanup.ids_deleted},       {"batches_deleted", r.cleanup.batches_deleted},
                   {"batches_failed", r.cleanup.batches_failed}, {"error", or_null(r.cleanup.error)},
                   {"interrupted", r.cleanup.interrupted},       {"without_user_id", r.cleanup.without_user_id}};
    }
    return {{"message", headline(c, r)},
            {"campaign", c.name},
            {"account", c.account.ledger ? ordered_json(c.account.name) : ordered_json()},
            {"reason", r.already_complete ? "already_complete" : queue::to_string(r.reason)},
            {"why", or_null(why(r))},
            {"sent", n[Status::sent]},
            {"failed", n[Status::failed]},
            {"unknown", n[Status::unknown]},
            {"invalid", n[Status::invalid]},
            {"skipped", n[Status::skipped]},
            {"not_yet_attempted", r.not_yet_attempted},
            {"held_unknown", r.held_unknown},
            {"recovered_from_ledger", {{"sent", r.recovered_sent}, {"unknown", r.recovered_unknown}}},
            {"never_left", r.never_left},
            {"held_rejected", r.held_rejected},
            {"held_marketing_limit", r.held_marketing_limit},
            {"marketing_limit_until",
             r.marketing_limit_until ? ordered_json(util::format_timestamp(*r.marketing_limit_until)) : ordered_json()},
            {"waiting_for_window", waiting},
            {"passed_over",
             {{"rows", r.passed_over},
              {"first_opens",
               r.passed_over_until ? ordered_json(util::format_timestamp(*r.passed_over_until)) : ordered_json()},
              {"not_waited", or_null(r.not_waited)},
              {"not_waited_until",
               r.not_waited_until ? ordered_json(util::format_timestamp(*r.not_waited_until)) : ordered_json()}}},
            {"causes", cause_counts_json(r.causes)},
            {"sent_this_run", r.sent_this_run},
            {"throttled", r.throttled_this_run},
            {"rate_in_force", std::round(r.rate_in_force * 10) / 10},
            {"duration_ms", r.duration.count()},
            {"cleanup", cleanup},
            {"results", s.log_started ? ordered_json(r.results_path) : ordered_json()},
            {"resume_command", or_null(s.continue_command)},
            {"fix_first", or_null(std::string(what_to_fix(r.reason)))},
            {"resend_unknown_command", or_null(s.resend_unknown_command)},
            {"retry_failed_command", or_null(s.retry_failed_command)},
            {"delete_contacts_command", or_null(s.finish_deletion_command)},
            {"exit_code", exit_code}};
}

// Why a run ends with `exit_code` 1 or 3, in one line for stderr; empty for 0.
std::string reason_line(const runner::SendReport& r, const NextSteps& s, int exit_code, const util::TimeZone& shown) {
    if (exit_code == 0) {
        return {};
    }
    const auto fix = what_to_fix(r.reason);
    const std::string next = s.continue_command.empty()
                                 ? std::string()
                                 : fmt::format("; {}: {}", fix.empty() ? "to continue" : fix, s.continue_command);
    if (r.cleanup.interrupted && r.reason == queue::StopReason::completed) {
        return "the deletion step was interrupted; to finish it: " + s.finish_deletion_command;
    }
    if (exit_code != 1) {
        const auto because = why(r);
        return fmt::format("stopped early: {}{}", because.empty() ? queue::to_string(r.reason) : because, next);
    }
    const auto& n = r.counts;
    const auto causes = failed_causes(r.causes);
    std::string line = fmt::format("{} recipient(s) failed{}, {} unknown", n[Status::failed],
                                   causes.empty() ? "" : " (" + causes + ")", n[Status::unknown]);
    if (auto held = marketing_hold_note(r, std::chrono::system_clock::now(), shown); !held.empty()) {
        line += "; " + held;
    }
    if (r.cleanup.batches_failed > 0) {
        line += fmt::format(", {} deletion batch(es) failed", r.cleanup.batches_failed);
    }
    if (!next.empty()) {
        return line + next;
    }
    if (!s.resend_unknown_command.empty()) {
        return line + "; to send them again: " + s.resend_unknown_command;
    }
    return s.retry_failed_command.empty() ? line : line + "; to try them again: " + s.retry_failed_command;
}

}  // namespace

Level level_for(int exit_code) {
    return exit_code == 0 ? Level::info : exit_code == 1 ? Level::warning : Level::error;
}

void print_send_summary(const campaign::Campaign& c, const runner::SendReport& r, int exit_code, Output& out) {
    const auto steps = next_steps_of(c, r);
    const auto shown = runner::shown_zone(c);
    out.result(level_for(exit_code), "summary", summary_text(c, r, steps, shown),
               summary_fields(c, r, steps, exit_code));
    // A script that keeps only stderr still learns why (the summary is on stdout).
    if (auto line = reason_line(r, steps, exit_code, shown); !line.empty()) {
        out.error(line, static_cast<ExitCode>(exit_code));
    }
}

}  // namespace cli
