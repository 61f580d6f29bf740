#include "runner/cleanup.hpp"

#include <fmt/format.h>
#include <thread>

#include "campaign/recipients.hpp"
#include "queue/retry_policy.hpp"
#include "results/records.hpp"
#include "results/replay.hpp"
#include "runner/secrets.hpp"
#include "service/classify.hpp"
#include "service/messages.hpp"
#include "service/requests.hpp"

namespace runner {

namespace {

constexpr int k_batch_attempts = 3;

struct Batch {
    std::vector<std::string> ids;
    std::vector<std::string> subscriber_ids;
};

// Sends one batch, retrying transient failures (setting a status twice is harmless).
service::Outcome send_batch(const campaign::Campaign& c, service::HttpTransport& transport, const Batch& batch,
                            const std::atomic<int>& stops) {
    queue::RetryPolicy retry(c.retry);
    service::Outcome outcome;
    for (int attempt = 1;; ++attempt) {
        auto body = service::status_update_body(batch.ids, "DELETED", batch.subscriber_ids);
        auto completion = service::perform(transport, service::status_update_request(c.service, std::move(body)));
        outcome = service::classify(completion, std::chrono::system_clock::now());
        if (!outcome.retryable() || attempt >= k_batch_attempts || stops.load() > 0) {
            return outcome;
        }
        auto wait = outcome.retry_after.value_or(retry.backoff(attempt));
        // In slices, so that an interrupt is not kept waiting for the whole backoff.
        const auto until = std::chrono::steady_clock::now() + std::min(wait, std::chrono::milliseconds(30'000));
        while (std::chrono::steady_clock::now() < until && stops.load() == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
}

}  // namespace

CleanupSummary delete_contacts(const campaign::Campaign& c, results::LogWriter& log, service::HttpTransport& transport,
                               const std::atomic<int>& stops) {
    CleanupSummary summary;
    summary.ran = true;
    const util::Redactor secrets = redactor_for(c);  // the service may echo the token
    auto state = results::replay(log.path());
    if (!state) {
        summary.error = state.error().message;
        ++summary.batches_failed;
        return summary;
    }
    auto stream = campaign::RecipientStream::open(c);
    if (!stream) {
        summary.error = stream.error().message;
        ++summary.batches_failed;
        return summary;
    }
    int batch_number = state->delete_batches;
    Batch batch;
    const auto flush = [&]() -> bool {
        if (batch.ids.empty()) {
            return true;
        }
        if (stops.load() > 0) {
            summary.interrupted = true;  // the batch stays for a later run
            return false;
        }
        service::Outcome outcome = send_batch(c, transport, batch, stops);
        results::DeleteRecord record;
        record.batch = ++batch_number;
        record.ids = batch.ids;
        record.subscriber_ids = batch.subscriber_ids;
        record.status = outcome.sent() ? results::DeleteStatus::deleted : results::DeleteStatus::failed;
        if (outcome.http_status) {
            record.http_status = static_cast<int>(*outcome.http_status);
        }
        record.error = secrets.apply(outcome.error);
        record.at = std::chrono::system_clock::now();
        auto written = log.append(results::to_line(record));
        if (outcome.sent()) {
            ++summary.batches_deleted;
            summary.ids_deleted += static_cast<std::int64_t>(batch.ids.size());
        } else {
            ++summary.batches_failed;
            summary.error = record.error;
        }
        batch = {};
        if (!written) {
            // Further batches would go unrecorded: stop (exit 3), and let a later run finish.
            summary.log_error = written.error().message;
            summary.interrupted = true;
            return false;
        }
        // A refused credential or certificate will refuse every batch: stop and let a later run finish.
        summary.refused = outcome.cause == service::Cause::auth || outcome.cause == service::Cause::tls;
        return !summary.refused;
    };

    campaign::Recipient r;
    while (stream->next(r)) {
        if (r.user_id.empty() || state->was_deleted(r.user_id)) {
            continue;
        }
        if (c.cleanup.only == campaign::CleanupScope::sent && !state->row(r.row).ever_sent()) {
            continue;
        }
        batch.ids.push_back(r.user_id);
        if (!r.subscriber_id.empty()) {
            batch.subscriber_ids.push_back(r.subscriber_id);
        }
        if (static_cast<int>(batch.ids.size()) >= c.cleanup.batch_size && !flush()) {
            return summary;
        }
    }
    if (flush() && !stream->error().empty()) {
        summary.error = stream->error();
    }
    return summary;
}

}  // namespace runner
