#include "runner/warm_up.hpp"

#include <algorithm>

#include "queue/in_flight_window.hpp"
#include "service/classify.hpp"
#include "service/requests.hpp"

namespace runner {

namespace {

// Far above the send loop's ids, so that no completion of the warm-up could be taken for a send.
constexpr std::uint64_t k_first_id = std::uint64_t{1} << 62;
// A warm-up request waits at most this long: a slow template list delays the first send by no
// more than a few of it.
constexpr std::chrono::milliseconds k_max_timeout{10'000};
constexpr auto k_poll = std::chrono::milliseconds(1000);

bool answered_2xx(const service::Completion& c) {
    const auto* response = std::get_if<service::HttpResponse>(&c.result);
    return response != nullptr && response->status >= 200 && response->status < 300;
}

// The stop a warm-up answer calls for: one that refuses the key or the account refuses every send.
std::optional<queue::StopReason> stop_for(const service::Outcome& outcome) {
    switch (outcome.cause) {
    case service::Cause::auth: return queue::StopReason::auth;
    case service::Cause::account: return queue::StopReason::account;
    case service::Cause::policy_block: return queue::StopReason::policy_block;
    default: return std::nullopt;
    }
}

// Makes `count` requests like `request` at once and waits for all of them; returns whether
// every one was answered 2xx, noting in `w` an answer that stops the run. `count` requests at
// once over HTTP/1.1 each need a connection.
bool make_at_once(service::HttpTransport& transport, const service::HttpRequest& request, int count,
                  std::uint64_t& next_id, WarmUp& w, service::Completion* last = nullptr) {
    for (int i = 0; i < count; ++i) {
        transport.start(next_id++, request);
    }
    bool all_2xx = true;
    while (transport.in_flight() > 0) {
        for (auto& completion : transport.poll(k_poll)) {
            all_2xx = all_2xx && answered_2xx(completion);
            const auto outcome = service::classify(completion, std::chrono::system_clock::now());
            if (const auto stop = stop_for(outcome); stop && !w.stop) {
                w.stop = stop;
                w.message = "the service refused the " +
                            std::string(*stop == queue::StopReason::auth ? "credentials" : "account") +
                            " while listing templates before the first send (" + outcome.error + ")";
            }
            if (last != nullptr) {
                *last = std::move(completion);
            }
        }
    }
    return all_2xx;
}

}  // namespace

int connections_needed(const campaign::Rate& rate, std::int64_t jobs, std::chrono::microseconds latency) {
    if (jobs <= 0) {
        return 0;
    }
    int needed = 0;
    if (rate.concurrency) {
        needed = *rate.concurrency;
    } else {
        queue::InFlightWindow window(rate.max_concurrency, rate.burst);
        window.on_answer(latency);
        needed = window.limit(rate.per_second);
    }
    return static_cast<int>(std::clamp<std::int64_t>(needed, 1, jobs));
}

WarmUp warm_up(const campaign::Campaign& campaign, std::int64_t jobs, service::HttpTransport& transport,
               const std::atomic<int>& stop_requests) {
    WarmUp w;
    if (jobs <= 0 || stop_requests.load() != 0) {
        return w;
    }
    service::HttpRequest request = service::list_templates_request(campaign.service);
    request.timeout = std::min(request.timeout, k_max_timeout);
    // Only the connection is wanted: the list is read to its end (else the connection closes) but
    // no more of it kept than an answer that refuses the key needs.
    request.max_body = service::HttpRequest{}.max_body;
    request.past_cap = service::PastCap::read;
    std::uint64_t next_id = k_first_id;
    service::Completion first;
    w.requests = 1;
    if (!make_at_once(transport, request, 1, next_id, w, &first)) {
        w.failed = true;
        return w;
    }
    w.connections = 1;
    w.multiplexed = std::get<service::HttpResponse>(first.result).multiplexed;
    if (w.multiplexed || stop_requests.load() != 0) {
        return w;
    }
    std::chrono::microseconds latency = first.latency;
    if (!campaign.rate.concurrency) {
        // The first answer's latency holds the connection's handshakes: a second request on that
        // connection shows the service's alone, which is what Little's law needs.
        ++w.requests;
        if (!make_at_once(transport, request, 1, next_id, w, &first)) {
            w.failed = true;
            return w;
        }
        latency = first.latency;
    }
    const int needed = connections_needed(campaign.rate, jobs, latency);
    if (needed <= 1 || stop_requests.load() != 0) {
        return w;
    }
    // One of them takes the connection already open; each of the others opens its own.
    w.requests += needed;
    w.failed = !make_at_once(transport, request, needed, next_id, w);
    w.connections = needed;
    return w;
}

}  // namespace runner
