#include "runner/send.hpp"

#include <fmt/format.h>
#include <filesystem>
#include <thread>

#include "campaign/recipients.hpp"
#include "queue/daily_cap.hpp"
#include "queue/rate_limiter.hpp"
#include "queue/retry_policy.hpp"
#include "queue/send_window.hpp"
#include "results/log_writer.hpp"
#include "results/records.hpp"
#include "results/replay.hpp"
#include "results/run_lock.hpp"
#include "results/timestamp.hpp"
#include "runner/campaign_jobs.hpp"
#include "runner/cleanup.hpp"
#include "runner/log_observer.hpp"
#include "runner/log_start.hpp"
#include "runner/preflight.hpp"
#include "runner/row_tally.hpp"
#include "runner/secrets.hpp"
#include "service/curl_transport.hpp"
#include "util/sha256.hpp"

namespace runner {

namespace {

struct Inputs {
    std::string campaign_sha;
    std::string recipients_sha;
};

util::Result<Inputs> hash_inputs(const campaign::Campaign& c) {
    auto campaign_sha = util::sha256_file(c.file);
    if (!campaign_sha) {
        return campaign_sha.error();
    }
    auto recipients_sha = util::sha256_file(c.recipients.file);
    if (!recipients_sha) {
        return recipients_sha.error();
    }
    return Inputs{*campaign_sha, *recipients_sha};
}

results::CampaignHeader make_header(const campaign::Campaign& c, const Inputs& inputs, util::TimePoint now) {
    results::CampaignHeader h;
    h.name = c.name;
    h.campaign_file = std::filesystem::absolute(c.file).lexically_normal().string();
    h.campaign_sha256 = inputs.campaign_sha;
    h.recipients_file = std::filesystem::absolute(c.recipients.file).lexically_normal().string();
    h.recipients_sha256 = inputs.recipients_sha;
    h.started_at = now;
    h.version = WACAMP_VERSION;
    h.mode = results::Mode::send;
    return h;
}

// Refuses to continue a log written for other inputs, unless told to.
util::Result<void> check_inputs(const results::LogState& state, const Inputs& inputs, const std::string& path,
                                const SendOptions& options) {
    const auto& h = state.latest_header;
    if (h.mode != results::Mode::send) {
        return util::fail(fmt::format("{} is a dry-run log; a real run needs its own log", path));
    }
    std::vector<std::string> changed;
    if (h.campaign_sha256 != inputs.campaign_sha) {
        changed.push_back("the campaign file " + h.campaign_file);
    }
    if (h.recipients_sha256 != inputs.recipients_sha) {
        changed.push_back("the recipient list " + h.recipients_file);
    }
    if (changed.empty() || options.changed_inputs == ChangedInputs::accept) {
        return {};
    }
    return util::fail(
        fmt::format("{} changed since {} was started; run again with --force to continue "
                    "with the changed input (recipients already sent are never sent again)",
                    fmt::join(changed, " and "), path));
}

// Waits for schedule.start_at; false when interrupted.
bool wait_for_start(const campaign::Campaign& c, RunUi& ui, const std::atomic<int>& stops) {
    if (!c.schedule.start_at || *c.schedule.start_at <= std::chrono::system_clock::now()) {
        return true;
    }
    ui.notice(
        fmt::format("waiting until {} to start (schedule.start_at)", results::format_timestamp(*c.schedule.start_at)));
    while (std::chrono::system_clock::now() < *c.schedule.start_at) {
        if (stops.load() > 0) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
}

// Records that the log failed after sending began; the first log error is the one reported.
void note_log_error(SendReport& report, const util::Error& error) {
    if (report.reason != queue::StopReason::log_error) {
        report.reason = queue::StopReason::log_error;
        report.message = error.message;
    }
}

}  // namespace

util::Result<SendReport> send_campaign(const campaign::Campaign& c, const SendOptions& options, RunUi& ui,
                                       const std::atomic<int>& stops) {
    util::SystemClock clock;
    const util::Redactor secrets = redactor_for(c);  // the service may echo them in its answers
    SendReport report;
    report.results_path = options.results_path.empty() ? c.results : options.results_path;
    const std::string& path = report.results_path;
    std::optional<queue::SendWindow> window;
    if (c.schedule.window) {
        auto made = queue::SendWindow::make(*c.schedule.window);
        if (!made) {
            return made.error();
        }
        window = std::move(*made);
    }

    auto stream = campaign::RecipientStream::open(c);
    if (!stream) {
        return stream.error();
    }
    auto inputs = hash_inputs(c);
    if (!inputs) {
        return inputs.error();
    }
    auto lock = results::RunLock::acquire(path);
    if (!lock) {
        return lock.error();
    }
    std::optional<results::LogState> state;
    if (std::error_code ec; std::filesystem::file_size(path, ec) > 0 && !ec) {
        auto replayed = results::replay(path, {.now = clock.wall_now()});
        if (!replayed) {
            return replayed.error();
        }
        state = std::move(*replayed);
        for (const auto& w : state->warnings) {
            ui.warning(w);
        }
        if (auto same = check_inputs(*state, *inputs, path, options); !same) {
            return same.error();
        }
    }

    service::CurlTransport transport(
        {.ca_file = c.service.ca_file,
         .max_connections = static_cast<long>(c.rate.concurrency.value_or(c.rate.max_concurrency)) + 4});
    if (c.template_check) {
        auto checked = check_template(c, transport);
        if (!checked) {
            return util::fail(secrets.apply(checked.error().message));
        }
        if (checked->stop) {
            report.reason = *checked->stop;
            report.message = secrets.apply(checked->message);
            return report;
        }
    }

    std::int64_t expected_jobs = 0;  // for progress: remaining and ETA
    if (ui.wants_confirmation()) {
        auto preview = make_preview(c, state ? &*state : nullptr, options, path);
        if (!preview) {
            return preview.error();
        }
        if (preview->to_send > 0 && !ui.confirm(*preview)) {
            report.declined = true;
            return report;
        }
        expected_jobs = preview->to_send;
    } else {
        expected_jobs = estimate_jobs(c, state ? &*state : nullptr, options);
    }
    if (!wait_for_start(c, ui, stops)) {
        report.reason = queue::StopReason::interrupted;
        report.message = "interrupted while waiting for the start time";
        return report;
    }

    const auto header = make_header(c, *inputs, clock.wall_now());
    if (!state) {
        // Never an empty log: a kill before its first record would leave the campaign unreachable.
        if (auto started = start_log(lock->log_path(), results::to_line(header), *lock); !started) {
            return started.error();
        }
    }
    auto log = results::LogWriter::open(
        path, {.durability = options.durability, .sync_interval = std::chrono::milliseconds(1000), .clock = nullptr});
    if (!log) {
        return log.error();
    }
    if (state && (state->latest_header.campaign_sha256 != header.campaign_sha256 ||
                  state->latest_header.recipients_sha256 != header.recipients_sha256)) {
        if (auto written = log->append(results::to_line(header)); !written) {
            return written.error();
        }
        // Changed inputs (--force): replay again so that rows are read against the new
        // recipient list; what was sent is still known by number.
        auto replayed = results::replay(path, {.now = clock.wall_now()});
        if (!replayed) {
            return replayed.error();
        }
        state = std::move(*replayed);
    }
    if (state) {
        ui.log_read(*state);
        ui.notice(fmt::format("continuing from {} ({} recorded)", path, state->counts.total()));
    }

    queue::RateLimiter limiter(c.rate.per_second, c.rate.burst);
    queue::RetryPolicy retry(c.retry);
    std::optional<queue::DailyCap> cap;
    if (c.rate.per_day) {
        cap.emplace(*c.rate.per_day);
        if (state) {
            for (auto at : state->recent_sent) {
                cap->record(at);
            }
        }
    }
    RowTally tally(state ? state->counts : results::StatusCounts{});
    LogObserver observer(*log, tally, clock, ui, expected_jobs, secrets);
    CampaignJobs jobs(*stream, state ? &*state : nullptr, *log, tally, clock, options);
    queue::DispatchSettings settings{.concurrency = c.rate.concurrency,
                                     .max_concurrency = c.rate.max_concurrency,
                                     .ambiguous = c.retry.ambiguous,
                                     .max_consecutive_failures = c.abort.max_consecutive_failures,
                                     .max_throttled = c.abort.max_throttled,
                                     .limit = options.limit};
    queue::DispatchParts parts{.service = &c.service,
                               .transport = &transport,
                               .clock = &clock,
                               .limiter = &limiter,
                               .retry = &retry,
                               .daily_cap = cap ? &*cap : nullptr,
                               .gate = window ? &*window : nullptr,
                               .observer = &observer,
                               .stop_requests = &stops};
    const auto started = clock.steady_now();
    queue::DispatchResult result = queue::dispatch(jobs, settings, parts);
    report.duration = std::chrono::duration_cast<std::chrono::milliseconds>(clock.steady_now() - started);
    report.reason = result.reason;
    report.message = secrets.apply(result.message);
    if (!jobs.error.empty()) {
        report.reason = queue::StopReason::log_error;
        report.message = jobs.error;
    } else if (!jobs.input_error.empty() && report.reason == queue::StopReason::completed) {
        report.reason = queue::StopReason::input_error;
        report.message = jobs.input_error;
    }
    report.sent_this_run = result.progress.sent;
    report.throttled_this_run = observer.throttled();
    report.rate_in_force = result.progress.rate_in_force;
    report.held_unknown = jobs.held_unknown;
    report.held_rejected = jobs.held_rejected;
    const bool wrote = result.progress.started > 0 || jobs.records_written > 0 || !state;
    report.already_complete = state && !wrote && report.reason == queue::StopReason::completed;

    report.counts = tally.counts();
    // From here on messages may have gone out: a log that fails now stops the run (log_error,
    // exit 3, resumable), never "nothing was sent".
    if (wrote) {
        results::EndRecord end{std::string(queue::to_string(report.reason)), report.counts, clock.wall_now()};
        if (auto written = log->append(results::to_line(end)); !written) {
            note_log_error(report, written.error());
        }
    }
    if (report.reason == queue::StopReason::completed && c.cleanup.delete_contacts) {
        report.cleanup = delete_contacts(c, *log, transport, stops);
    }
    if (auto closed = log->close(); !closed) {
        note_log_error(report, closed.error());
    }
    return report;
}

}  // namespace runner
