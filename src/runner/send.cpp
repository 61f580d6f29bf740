// A real run, step by step (the steps before sending are in send_prepare.cpp).

#include "runner/send.hpp"

#include <filesystem>

#include "queue/daily_cap.hpp"
#include "queue/deadline.hpp"
#include "queue/rate_limiter.hpp"
#include "queue/retry_policy.hpp"
#include "runner/account_keeper.hpp"
#include "runner/admission_steps.hpp"
#include "runner/budget.hpp"
#include "runner/campaign_jobs.hpp"
#include "runner/cleanup.hpp"
#include "runner/log_observer.hpp"
#include "runner/row_tally.hpp"
#include "runner/send_steps.hpp"
#include "runner/template_recheck.hpp"
#include "runner/warm_up.hpp"

namespace runner {

namespace {

// Records that the log failed after sending began; the first log error is the one reported.
void note_log_error(SendReport& report, const util::Error& error) {
    if (report.reason != queue::StopReason::log_error) {
        report.reason = queue::StopReason::log_error;
        report.message = error.message;
    }
}

// The daily cap of a campaign without a ledger, counting the sends the existing log records
// within its day. With a ledger, the ledger counts per_day over the whole account (the
// AccountKeeper's admission): one or the other is in force, never both.
std::optional<queue::DailyCap> daily_cap_for(const SendRun& run) {
    std::optional<queue::DailyCap> cap;
    if (run.campaign.rate.per_day && !run.book) {
        cap.emplace(*run.campaign.rate.per_day);
        if (run.state) {
            // Counted by minute (RecentSends): each minute's sends at its end, so the cap
            // lifts at most a minute later than to the millisecond, never sooner.
            for (const auto& minute : run.state->recent_sent) {
                cap->record(minute.at, minute.count);
            }
        }
    }
    return cap;
}

// Fills the report from what the dispatcher and the jobs say.
void report_dispatch(SendRun& run, const queue::DispatchResult& result, const CampaignJobs& jobs,
                     const LogObserver& observer) {
    SendReport& report = run.report;
    report.reason = result.reason;
    report.message = run.secrets.apply(result.message);
    report.sent_this_run = result.progress.sent;
    report.never_left = result.never_left;
    report.throttled_this_run = observer.throttled();
    report.rate_in_force = result.progress.rate_in_force;
    report.held_unknown = jobs.held_unknown;
    report.recovered_sent = jobs.recovered_sent + observer.recovered_sent();
    report.recovered_unknown = jobs.recovered_unknown + observer.recovered_unknown();
    report.held_rejected = jobs.held_rejected;
    report.held_marketing_limit = jobs.held_marketing_limit;
    report.marketing_limit_until = jobs.marketing_limit_until;
    report.waiting_for_window = result.waiting;
    for (auto& wait : report.waiting_for_window) {
        if (run.zone_windows && wait.zone >= 0) {
            wait.zone_name = run.zone_windows->window(wait.zone).zone().name();  // its opening on its clock
        }
    }
    report.passed_over = result.passed_over;
    report.passed_over_until = result.passed_over_until;
    if (result.not_waited) {
        report.not_waited = result.not_waited->reason;
        report.not_waited_until = result.not_waited->until;
    }
    run.wrote = result.progress.started > 0 || jobs.records_written > 0 || !run.state;
    report.already_complete = run.state && !run.wrote && report.reason == queue::StopReason::completed;
}

// Tells `observer` and `jobs` what campaign `c` sends with: the rows screened before, the
// template's names, the paused regions, the prices, the budget (made into `budget` when set),
// the recipients' windows, the watch.
void wire(SendRun& run, CampaignJobs& jobs, LogObserver& observer, RowTally& tally,
          std::optional<BudgetGuard>& budget) {
    const auto& c = run.campaign;
    if (run.settled) {
        jobs.none_left();  // the log settles every row: none is read
    }
    observer.count_screened(jobs.held_back);
    observer.label_with(template_names_of(c));
    jobs.label_with(template_names_of(c));
    if (run.paused) {
        jobs.pause_regions(*run.paused);
    }
    if (run.prices) {
        jobs.price_with(*run.prices);
    }
    if (c.pricing.budget) {
        budget.emplace(to_micros(*c.pricing.budget), run.spent_micros, c.pricing.currency);
        observer.spend_with(&*budget);
    }
    if (run.zone_windows) {
        jobs.zone_with(*run.zone_windows);
    }
    observer.report_to(run.parts.watch);
    tally.report_to(run.parts.watch);
}

// Dispatches `jobs` — unless the warm-up's answer refused the key or the account, which stops
// the run before its first send — then records to the ledger (`keeper`) what it has not yet: a
// failure there ends a dispatch that completed with ledger_error.
queue::DispatchResult dispatch_and_record(CampaignJobs& jobs, const queue::DispatchSettings& settings,
                                          const queue::DispatchParts& parts, const std::optional<WarmUp>& warm,
                                          std::optional<AccountKeeper>& keeper) {
    queue::DispatchResult result;
    if (warm && warm->stop) {
        result.reason = *warm->stop;
        result.message = warm->message;
    } else {
        result = queue::dispatch(jobs, settings, parts);
    }
    if (keeper) {
        auto recorded = keeper->record_pending();
        if (!recorded && (result.reason == queue::StopReason::completed || result.reason == queue::StopReason::limit)) {
            // The log holds every answer; the next run folds into the ledger what it missed.
            result.reason = queue::StopReason::ledger_error;
            result.message = recorded.error().message;
        }
    }
    return result;
}

}  // namespace

void send(SendRun& run) {
    const auto& c = run.campaign;
    util::Clock& clock = run.parts.clock;
    queue::RetryPolicy retry(c.retry);
    RowTally tally = run.state ? RowTally(run.state->counts, run.state->causes) : RowTally({}, {});
    LogObserver observer(*run.log, tally, clock, run.parts.ui, run.expected_jobs, run.list_rows, run.secrets);
    CampaignJobs jobs(*run.stream, run.existing(), *run.log, tally, clock, run.options, run.secrets);
    std::optional<BudgetGuard> budget;
    wire(run, jobs, observer, tally, budget);
    std::optional<AccountKeeper> keeper;
    if (run.book) {
        jobs.screen_with(*run.book, run.campaign_key);
        keeper.emplace(*run.book, observer, *run.log, run.campaign_key, clock);
    }
    std::optional<WarmUp> warm;
    if (run.parts.warm == WarmConnections::yes) {
        warm = warm_up(c, run.expected_jobs, run.parts.transport, run.parts.stop_requests);
    }
    // message.recheck: the template list read again while sending, every `recheck` from here (it
    // was read before the question, and by the warm-up).
    std::optional<TemplateRecheck> recheck;
    if (c.message.type == campaign::MessageType::template_message && c.message.templated.recheck &&
        !c.message.templated.id.empty()) {
        recheck.emplace(c, *c.message.templated.recheck, clock.steady_now());
    }
    // The daily cap in force, one count: the ledger's (the keeper reserves each send), else the
    // log's; the campaign's deadline, unless --late-ok waives it for this run.
    AdmissionSteps steps =
        make_steps(c, {.window = run.window         ? static_cast<queue::Admitter*>(&*run.window)
                                 : run.zone_windows ? static_cast<queue::Admitter*>(&*run.zone_windows)
                                                    : nullptr,
                       .ledger = keeper ? &*keeper : nullptr,
                       .cap = daily_cap_for(run),
                       .deadlines = run.options.late_ok == LateOk::no ? Deadlines::apply : Deadlines::waived,
                       .recheck = recheck ? &*recheck : nullptr,
                       .budget = budget ? &*budget : nullptr});
    queue::DispatchSettings settings = dispatch_settings(c);
    settings.limit = run.options.limit;
    if (keeper) {
        // At a paced rate the ledger reserves the sends of the next quarter second in one
        // transaction, not one each (docs/ledger.md "Reserved ahead at a paced rate").
        settings.ask_ahead = AccountKeeper::k_reserve_ahead;
    }
    if (run.options.limit > 0) {
        settings.when_closed = queue::WhenClosed::pass_over;  // a test send ends, it does not wait
    }
    const queue::DispatchParts parts{.service = &c.service,
                                     .transport = &run.parts.transport,
                                     .clock = &clock,
                                     .limiter = &steps.limiter,
                                     .retry = &retry,
                                     .steps = steps.before_pace(),
                                     .observer = keeper ? static_cast<queue::DispatchObserver*>(&*keeper) : &observer,
                                     .stop_requests = &run.parts.stop_requests,
                                     .pace = run.parts.pace,
                                     .side = recheck ? &*recheck : nullptr};
    const auto started = clock.steady_now();
    const queue::DispatchResult result = dispatch_and_record(jobs, settings, parts, warm, keeper);
    run.report.duration = std::chrono::duration_cast<std::chrono::milliseconds>(clock.steady_now() - started);
    observer.report_end(result);
    report_dispatch(run, result, jobs, observer);
    if (recheck && result.reason == queue::StopReason::template_changed) {
        run.changed_category = recheck->category();
    }
    run.report.counts = tally.counts();
    run.report.causes = tally.causes();
    run.report.not_yet_attempted = std::max<std::int64_t>(0, run.stream->survey().rows - run.report.counts.total());
}

void finish(SendRun& run) {
    SendReport& report = run.report;
    // From here on messages may have gone out: a log that fails now stops the run (log_error,
    // exit 3, resumable), never "nothing was sent".
    if (run.wrote) {
        results::EndRecord end{std::string(queue::to_string(report.reason)), report.counts, run.parts.clock.wall_now()};
        if (auto written = run.log->append(results::to_line(end)); !written) {
            note_log_error(report, written.error());
        }
    }
    if (report.reason == queue::StopReason::completed && run.campaign.cleanup.delete_contacts) {
        report.cleanup = delete_contacts(run.campaign, *run.log,
                                         {.transport = run.parts.transport,
                                          .clock = run.parts.clock,
                                          .stop_requests = run.parts.stop_requests,
                                          .replay = run.parts.replay,
                                          // Nothing written since the replay: the log is as it read.
                                          .replayed = run.wrote || !run.state ? nullptr : &*run.state});
    }
    if (auto closed = run.log->close(); !closed) {
        note_log_error(report, closed.error());
    }
}

namespace {

// Prepares, asks, waits, sends and finishes `run`; Next::stop when it ended before the log.
util::Result<Next> run_campaign(SendRun& run) {
    TRY(prepare(run));
    TRY_ASSIGN(const Next next, confirm_and_wait(run));
    if (next == Next::stop) {
        return next;
    }
    TRY(open_log(run));
    send(run);
    finish(run);
    if (!run.changed_category.empty()) {
        estimate_after_change(run, run.changed_category);
    }
    return Next::go_on;
}

// Removes the lock file a run made when it ended before writing its log (declined, refused,
// interrupted while waiting): it leaves the folder as it found it. A lock file that was there
// before stays, and so does one beside a log with content.
void leave_no_lock(SendRun& run) {
    if (!run.lock || run.log || run.lock->earlier_run()) {
        return;
    }
    std::error_code ec;
    const auto size = std::filesystem::file_size(run.lock->log_path(), ec);
    if (ec || size == 0) {
        run.lock->discard();
    }
}

}  // namespace

util::Result<SendReport> send_campaign(const campaign::Campaign& c, const SendOptions& options,
                                       const SendParts& parts) {
    SendRun run(c, options, parts);
    run.report.results_path = options.results_path.empty() ? c.results : options.results_path;
    auto ran = run_campaign(run);
    leave_no_lock(run);
    if (!ran) {
        return ran.error();
    }
    return std::move(run.report);
}

}  // namespace runner
