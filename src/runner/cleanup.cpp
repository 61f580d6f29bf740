#include "runner/cleanup.hpp"

#include <fmt/format.h>

#include <optional>

#include "campaign/recipients.hpp"
#include "queue/retry_policy.hpp"
#include "results/records.hpp"
#include "results/replay.hpp"
#include "runner/listed_rows.hpp"
#include "runner/secrets.hpp"
#include "service/classify.hpp"
#include "service/messages.hpp"
#include "service/requests.hpp"

namespace runner {

namespace {

constexpr int k_batch_attempts = 3;
constexpr util::Millis k_max_backoff{30'000};
constexpr util::Millis k_wait_slice{50};

struct Batch {
    std::vector<std::string> ids;
    std::vector<std::string> subscriber_ids;
};

// What the deletion step works with, and what it has done so far.
struct Deletion {
    const campaign::Campaign& c;
    results::LogWriter& log;
    service::HttpTransport& transport;
    util::Clock& clock;
    const std::atomic<int>& stops;
    util::Redactor secrets;  // the service may echo the token
    CleanupSummary summary;
    int batch_number = 0;
};

// Waits up to `wait` (at most k_max_backoff), in slices, so that an interrupt is not kept
// waiting for the whole backoff.
void wait_unless_stopped(util::Clock& clock, util::Millis wait, const std::atomic<int>& stops) {
    const auto until = clock.steady_now() + std::min(wait, k_max_backoff);
    while (clock.steady_now() < until && stops.load() == 0) {
        const auto left = std::chrono::ceil<util::Millis>(until - clock.steady_now());
        clock.sleep_for(std::min(left, k_wait_slice));
    }
}

// Sends one batch, retrying transient failures (setting a status twice is harmless).
service::Outcome send_batch(Deletion& d, const Batch& batch) {
    queue::RetryPolicy retry(d.c.retry);
    service::Outcome outcome;
    for (int attempt = 1;; ++attempt) {
        auto body = service::status_update_body(batch.ids, "DELETED", batch.subscriber_ids);
        const auto request = service::status_update_request(d.c.service, std::move(body));
        auto completion = service::perform(d.transport, request);
        outcome = service::classify(completion, d.clock.wall_now());
        if (outcome.cause == service::Cause::endpoint) {
            outcome.error = service::wrong_endpoint(request, outcome);
        }
        if (!outcome.retryable() || attempt >= k_batch_attempts || d.stops.load() > 0) {
            return outcome;
        }
        wait_unless_stopped(d.clock, outcome.retry_after.value_or(retry.backoff(attempt)), d.stops);
    }
}

// Sends `batch` (then empties it) and records it; returns whether to go on with the next.
bool flush(Deletion& d, Batch& batch) {
    if (batch.ids.empty()) {
        return true;
    }
    if (d.stops.load() > 0) {
        d.summary.interrupted = true;  // the batch stays for a later run
        return false;
    }
    service::Outcome outcome = send_batch(d, batch);
    results::DeleteRecord record;
    record.batch = ++d.batch_number;
    record.ids = batch.ids;
    record.subscriber_ids = batch.subscriber_ids;
    record.status = outcome.sent() ? results::DeleteStatus::deleted : results::DeleteStatus::failed;
    if (outcome.http_status) {
        record.http_status = static_cast<int>(*outcome.http_status);
    }
    record.error = d.secrets.apply(outcome.error);
    record.at = d.clock.wall_now();
    auto written = d.log.append(results::to_line(record));
    if (outcome.sent()) {
        ++d.summary.batches_deleted;
        d.summary.ids_deleted += static_cast<std::int64_t>(batch.ids.size());
    } else {
        ++d.summary.batches_failed;
        d.summary.error = record.error;
    }
    batch = {};
    if (!written) {
        // Further batches would go unrecorded: stop (exit 3), and let a later run finish.
        d.summary.log_error = written.error().message;
        d.summary.interrupted = true;
        return false;
    }
    // A refused credential or certificate, or a wrong URL, will refuse every batch: stop and let a
    // later run finish.
    d.summary.refused = outcome.cause == service::Cause::auth || outcome.cause == service::Cause::tls ||
                        outcome.cause == service::Cause::endpoint;
    return !d.summary.refused;
}

CleanupSummary failed_before_start(const std::string& error) {
    CleanupSummary summary;
    summary.ran = true;
    summary.error = error;
    ++summary.batches_failed;
    return summary;
}

}  // namespace

CleanupSummary delete_contacts(const campaign::Campaign& c, results::LogWriter& log, const CleanupParts& parts) {
    // Joined with the list: each row knows whether a `deleted` batch named its user_id.
    std::optional<results::LogState> replayed_here;
    const results::LogState* state = parts.replayed;
    if (state == nullptr) {
        auto replayed = replay_with_list(log.path(), c, parts.replay);
        if (!replayed) {
            return failed_before_start(replayed.error().message);
        }
        state = &replayed_here.emplace(std::move(*replayed));
    }
    // Only the rows' ids are read: neither the survey nor the duplicates matter here.
    auto stream = campaign::RecipientStream::open_unsurveyed(c);
    if (!stream) {
        return failed_before_start(stream.error().message);
    }
    Deletion d{c,
               log,
               parts.transport,
               parts.clock,
               parts.stop_requests,
               campaign::redactor_for(c),
               {},
               state->delete_batches};
    d.summary.ran = true;
    Batch batch;
    campaign::Recipient r;
    auto more = stream->next(r);
    for (; more && *more; more = stream->next(r)) {
        auto rec = state->record(r.row);
        if (!rec) {
            // The log's records cannot be read back: stop at this row; the ids batched before
            // it go out, a later run goes on from here.
            more = util::Result<bool>(util::fail(rec.error().message));
            break;
        }
        if (rec->marked(results::RowRecord::k_user_deleted)) {
            continue;
        }
        if (c.cleanup.only == campaign::CleanupScope::sent && !rec->state.ever_sent()) {
            continue;
        }
        if (r.user_id.empty()) {
            // Its contact cannot be named: counted and shown, never silently passed over.
            if (d.summary.without_user_id++ < CleanupSummary::k_rows_named) {
                d.summary.without_user_id_rows.push_back(r.row);
            }
            continue;
        }
        batch.ids.push_back(r.user_id);
        if (!r.subscriber_id.empty()) {
            batch.subscriber_ids.push_back(r.subscriber_id);
        }
        if (static_cast<int>(batch.ids.size()) >= c.cleanup.batch_size && !flush(d, batch)) {
            return d.summary;
        }
    }
    // The rows batched so far were judged in full; where the list or the log's records could
    // not be read on, the step stops and fails: a later run goes on from there.
    if (flush(d, batch) && !more) {
        ++d.summary.batches_failed;
        d.summary.error = more.error().message;
    }
    return d.summary;
}

}  // namespace runner
