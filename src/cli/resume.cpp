// wacamp resume: continue a campaign from its result log.

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/metrics_options.hpp"
#include "cli/output.hpp"
#include "cli/run_common.hpp"
#include "cli/signals.hpp"
#include "cli/terminal_ui.hpp"
#include "results/replay.hpp"
#include "runner/decide.hpp"
#include "util/time.hpp"
#include "util/zone.hpp"

namespace cli {

namespace {

struct ResumeOptions {
    std::string results;
    bool retry_failed = false;
    bool resend_unknown = false;
    bool no_progress = false;
    bool late_ok = false;
    std::optional<double> budget;  // --budget: pricing.budget for this run
    std::string sync = "interval";
    LogOptions log;
    MetricsOptions metrics;
};

// The failed rows of a log, by what a resume does with them at a given time.
struct LogFailures {
    std::int64_t retryable = 0;
    std::int64_t when_asked = 0;  // only with --retry-failed
    std::int64_t never = 0;       // opted out, suppressed, or in a Meta experiment
    std::int64_t marketing_held = 0;
    std::optional<util::TimePoint> marketing_until;  // when the last of those may go
};

void add_failed(LogFailures& f, const results::RowRecord& rec, util::TimePoint now) {
    switch (results::retry_rule(rec.state.cause)) {
    case results::RetryRule::always: ++f.retryable; return;
    case results::RetryRule::when_asked: ++f.when_asked; return;
    case results::RetryRule::never: ++f.never; return;
    case results::RetryRule::after_a_day: {
        const auto at = rec.marketing_limited_at();
        if (!at || now >= *at + results::k_marketing_limit_hold) {
            ++f.retryable;
            return;
        }
        ++f.marketing_held;
        f.marketing_until = std::max(f.marketing_until.value_or(*at), *at + results::k_marketing_limit_hold);
        return;
    }
    }
}

// What the log holds at `now`, in one line; an error when its records cannot be read back (the
// run itself then stops at the first row it cannot read).
util::Result<std::string> describe_log(const results::LogState& state, util::TimePoint now,
                                       const util::TimeZone& shown) {
    std::int64_t sent = 0, unknown = 0, done = 0;
    LogFailures failed;
    for (std::int64_t row = 1; row <= state.max_row(); ++row) {
        TRY_ASSIGN(const results::RowRecord rec, state.record(row));
        const results::RowState& s = rec.state;
        if (s.pending()) {
            continue;
        }
        if (s.ever_sent()) {
            ++sent;
        } else if (s.in_flight() || s.status == results::Status::unknown) {
            ++unknown;
        } else if (s.status == results::Status::failed) {
            add_failed(failed, rec, now);
        } else {
            ++done;
        }
    }
    std::string held;
    if (failed.marketing_held > 0) {
        held += fmt::format(", {} held for WhatsApp's marketing limit until {}", failed.marketing_held,
                            util::format_zoned_time(*failed.marketing_until, now, shown));
    }
    if (failed.never > 0) {
        held += fmt::format(", {} opted out, suppressed or in a Meta experiment (never sent again)", failed.never);
    }
    return fmt::format(
        "the log holds {} sent, {} failed and retryable, {} rejected (retried only with "
        "--retry-failed){}, {} unknown (resent only with --resend-unknown), {} invalid or skipped",
        sent, failed.retryable, failed.when_asked, held, unknown, done);
}

// Says what the log holds before anything is sent, from the state the run reads under its lock
// (reading the whole log a second time only to describe it doubled resume's start-up).
class ResumeUi final : public TerminalUi {
public:
    using TerminalUi::TerminalUi;
    // No question before the sends; one only when the template's category changed (can_ask).
    bool wants_confirmation() const override { return false; }
    void log_read(const results::LogState& state) override {
        auto described = describe_log(state, std::chrono::system_clock::now(), *shown_zone());
        if (described) {
            notice(*described);
        } else {
            warning("the log's state could not be read back: " + described.error().message);
        }
    }
};

int resume(const ResumeOptions& opts, Output& out) {
    const auto metrics = check_metrics_or_report(opts.metrics, out);
    if (!metrics) {
        return k_exit_bad_input;
    }
    auto c = load_campaign_of_log(opts.results, out);
    if (!c) {
        return k_exit_bad_input;
    }
    // --results names the result log in place of the campaign's: nothing may be written over it.
    if (log_file_clashes(*c, out, opts.results) || metrics_file_clashes(*c, *metrics, out, opts.results)) {
        return k_exit_bad_input;
    }
    if (opts.budget) {
        c->pricing.budget = *opts.budget;
    }
    if (auto stopped = resolve_template_or_report(*c, TemplateList::read, out)) {
        return *stopped;
    }
    const auto& stops = install_stop_handlers();
    ResumeUi ui(out, opts.no_progress ? ProgressMode::off : ProgressMode::automatic, AssumeYes::no);
    runner::SendOptions send{
        .results_path = opts.results,
        .retry_rejected = opts.retry_failed ? runner::RetryRejected::yes : runner::RetryRejected::no,
        .resend_unknown = opts.resend_unknown ? runner::ResendUnknown::yes : runner::ResendUnknown::no,
        .durability = durability_of(opts.sync),
        .late_ok = opts.late_ok ? runner::LateOk::yes : runner::LateOk::no};
    return send_and_summarise(*c, send, ui, stops, out, *metrics);
}

}  // namespace

Action add_resume(CLI::App& app) {
    auto opts = std::make_shared<ResumeOptions>();
    auto* sub = app.add_subcommand("resume", "Continue a failed or interrupted campaign from its result log");
    sub->add_option("RESULTS", opts->results, "Result log (JSON Lines)")->required();
    sub->add_flag("--retry-failed", opts->retry_failed, "Also retry recipients the service rejected permanently");
    sub->add_flag("--resend-unknown", opts->resend_unknown,
                  "Also resend recipients whose outcome is unknown (may deliver twice)");
    sub->add_flag("--no-progress", opts->no_progress, "Do not show progress");
    add_late_ok_flag(*sub, opts->late_ok);
    add_budget_option(*sub, opts->budget);
    add_sync_option(*sub, opts->sync);
    add_log_options(*sub, opts->log);
    add_metrics_options(*sub, opts->metrics);
    return [opts] { return with_output(opts->log, {opts->results}, [&](Output& out) { return resume(*opts, out); }); };
}

}  // namespace cli
