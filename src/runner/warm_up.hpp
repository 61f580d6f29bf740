#pragma once
// Connections opened before the first send, so that the campaign's first second is paced like
// the rest: as many as its requests in flight need (one when the service multiplexes them over
// HTTP/2), their TLS handshakes done, left in the transport's pool for the sends to reuse. They
// are opened by reading the template list, the one operation of the service that changes
// nothing; nothing of it goes to the result log (docs/decisions.md, "Connections opened before
// the first send").

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "campaign/campaign.hpp"
#include "queue/dispatcher.hpp"
#include "service/http.hpp"

namespace runner {

struct WarmUp {
    int requests = 0;          // template-list requests made
    int connections = 0;       // connections they left open (at most; the pool may close some)
    bool multiplexed = false;  // the service answered over HTTP/2: one connection is enough
    bool failed = false;       // a request went unanswered or was not answered 2xx: no more were made
    // The service refused the key or the account (auth, account, policy_block), as it would
    // refuse every send: the run stops before its first (docs/decisions.md "Connections opened
    // before the first send"). `message` says what it answered.
    std::optional<queue::StopReason> stop;
    std::string message;
};

// The connections `rate` needs at once for its first `jobs` sends when a request takes
// `latency`: the fixed concurrency, or with `auto` the in-flight window's limit after one answer
// of that latency (queue::InFlightWindow, the rule the send loop applies); never more than
// `jobs`, never below 1 when there is a job, 0 without one.
int connections_needed(const campaign::Rate& rate, std::int64_t jobs, std::chrono::microseconds latency);

// Opens the connections `campaign` needs for its first `jobs` sends on `transport`: one request
// for the template list, a second on its connection to learn the latency when the concurrency
// is `auto`, then, unless the answer came over HTTP/2, as many at once as connections_needed
// says. Fails soft: at the first request that fails or is not answered 2xx it makes no more and
// returns with `failed` set (the sends then open their own connections), and with `stop` when the
// answer refused the key or the account. Returns once every
// request it started has finished; starts nothing once `stop_requests` is non-zero. `transport`
// must be otherwise idle.
WarmUp warm_up(const campaign::Campaign& campaign, std::int64_t jobs, service::HttpTransport& transport,
               const std::atomic<int>& stop_requests);

}  // namespace runner
