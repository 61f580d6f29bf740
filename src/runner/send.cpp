#include "runner/send.hpp"

#include <filesystem>
#include <fmt/format.h>
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
#include "runner/cleanup.hpp"
#include "runner/decide.hpp"
#include "runner/log_observer.hpp"
#include "runner/log_start.hpp"
#include "runner/preflight.hpp"
#include "runner/row_tally.hpp"
#include "service/curl_transport.hpp"
#include "service/messages.hpp"
#include "util/sha256.hpp"

namespace runner {

namespace {

// Feeds the dispatcher the rows that need sending, recording on the way the rows that need
// only a log line (invalid, duplicate).
class CampaignJobs final : public queue::JobSource {
public:
    CampaignJobs(campaign::RecipientStream& stream, const results::LogState* state, results::LogWriter& log,
                 RowTally& tally, const util::Clock& clock, const SendOptions& options)
        : m_stream(stream), m_state(state), m_log(log), m_tally(tally), m_clock(clock), m_options(options) {}

    bool next(queue::Job& out) override {
        while (m_stream.next(m_recipient)) {
            const auto& r = m_recipient;
            const RowFacts facts = facts_of(r, m_state);
            const results::RowState& state = facts.state;
            switch (decide(facts, m_options.retry_rejected, m_options.resend_unknown)) {
            case Decision::send:
                out.row = r.row;
                out.wa_id = r.message.wa_id;
                out.user_name = r.message.user_name;
                out.body = service::send_message_body(r.message);
                out.requests = state.attempts;
                out.attempts = 0;
                m_tally.dispatch(r.row, state);
                return true;
            case Decision::done: break;
            case Decision::hold_unknown: ++held_unknown; break;
            case Decision::hold_rejected: ++held_rejected; break;
            case Decision::record_invalid:
                record(results::Status::invalid, results::Cause::invalid, r.reason, state);
                break;
            case Decision::record_duplicate:
                record(results::Status::skipped, results::Cause::duplicate, r.reason, state);
                break;
            case Decision::record_already_sent:
                record(results::Status::skipped, results::Cause::duplicate,
                       "already sent to this number in an earlier run", state);
                break;
            }
            if (!error.empty()) {
                return false;
            }
        }
        input_error = m_stream.error();
        return false;
    }

    std::int64_t held_unknown = 0;
    std::int64_t held_rejected = 0;
    std::int64_t records_written = 0;
    std::string error;        // the log could not be written
    std::string input_error;  // the recipient list could not be read to its end

private:
    void record(results::Status status, results::Cause cause, const std::string& reason,
                const results::RowState& before) {
        results::ResultRecord rec;
        rec.row = m_recipient.row;
        rec.wa_id = m_recipient.message.wa_id;
        rec.user_name = m_recipient.message.user_name;
        rec.status = status;
        rec.cause = cause;
        rec.error = reason;
        rec.attempts = before.attempts;
        rec.at = m_clock.wall_now();
        if (auto written = m_log.append_batched(results::to_line(rec)); !written) {
            error = written.error().message;
        } else {
            m_tally.record(rec.row, before, status);
        }
        ++records_written;
    }

    campaign::RecipientStream& m_stream;
    const results::LogState* m_state;
    results::LogWriter& m_log;
    RowTally& m_tally;
    const util::Clock& m_clock;
    const SendOptions& m_options;
    campaign::Recipient m_recipient;
};

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
    return util::fail(fmt::format("{} changed since {} was started; run again with --force to continue "
                                  "with the changed input (recipients already sent are never sent again)",
                                  fmt::join(changed, " and "), path));
}

// Waits for schedule.start_at; false when interrupted.
bool wait_for_start(const campaign::Campaign& c, RunUi& ui, const std::atomic<int>& stops) {
    if (!c.schedule.start_at || *c.schedule.start_at <= std::chrono::system_clock::now()) {
        return true;
    }
    ui.notice(fmt::format("waiting until {} to start (schedule.start_at)", results::format_timestamp(*c.schedule.start_at)));
    while (std::chrono::system_clock::now() < *c.schedule.start_at) {
        if (stops.load() > 0) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
}

} // namespace

util::Result<SendReport> send_campaign(const campaign::Campaign& c, const SendOptions& options, RunUi& ui,
                                       const std::atomic<int>& stops) {
    util::SystemClock clock;
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

    service::CurlTransport transport({.ca_file = c.service.ca_file,
                                      .max_connections =
                                          static_cast<long>(c.rate.concurrency.value_or(c.rate.max_concurrency)) + 4});
    if (c.template_check) {
        auto checked = check_template(c, transport);
        if (!checked) {
            return checked.error();
        }
        if (checked->auth_refused) {
            report.reason = queue::StopReason::auth;
            report.message = checked->message;
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
        if (auto started = start_log(path, results::to_line(header)); !started) {
            return started.error();
        }
    }
    auto log = results::LogWriter::open(path, {.durability = options.durability,
                                               .sync_interval = std::chrono::milliseconds(1000),
                                               .clock = nullptr});
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
    LogObserver observer(*log, tally, clock, ui, expected_jobs);
    CampaignJobs jobs(*stream, state ? &*state : nullptr, *log, tally, clock, options);
    queue::DispatchSettings settings{.concurrency = c.rate.concurrency,
                                     .max_concurrency = c.rate.max_concurrency,
                                     .ambiguous = c.retry.ambiguous,
                                     .max_consecutive_failures = c.abort.max_consecutive_failures,
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
    report.message = result.message;
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
    if (wrote) {
        results::EndRecord end{std::string(queue::to_string(report.reason)), report.counts, clock.wall_now()};
        if (auto written = log->append(results::to_line(end)); !written) {
            return written.error();
        }
    }
    if (report.reason == queue::StopReason::completed && c.cleanup.delete_contacts) {
        report.cleanup = delete_contacts(c, *log, transport, stops);
    }
    if (auto closed = log->close(); !closed) {
        return closed.error();
    }
    return report;
}

} // namespace runner
