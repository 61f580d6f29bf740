#pragma once
// The Pushgateway of --metrics-push: its address as the user gives it (credentials kept apart
// from what may be shown), and push-add (POST, which replaces only the families it carries)
// to the group of job "wacamp" and the campaign, one push at a time on an HttpTransport.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "service/http.hpp"
#include "util/result.hpp"

namespace observe {

struct PushTarget {
    std::string url;       // scheme://host[:port][/prefix], without credentials or a trailing '/': safe to show
    std::string user;      // percent-decoded; empty: no credentials
    std::string password;  // percent-decoded
};

// Reads `url`, http:// or https:// with a host, maybe `user:password@` (percent-encoded) and a
// path prefix, without a query or fragment, and not already a push path (/metrics/job/…).
// Fails saying what is wrong; the message never repeats the credentials.
util::Result<PushTarget> parse_push_url(std::string_view url);

// Returns the URL of the group job="wacamp", campaign=`campaign` (its name needs no encoding).
std::string group_url(const PushTarget& target, std::string_view campaign);

// Returns the push-add request of `body` (the text exposition format) to `campaign`'s group,
// with basic authentication when `target` has credentials.
service::HttpRequest push_add_request(const PushTarget& target, std::string_view campaign, std::string body);

// Returns why `done`, a push's completion, failed ("could not push metrics to URL: …", the
// URL without credentials); nothing when the Pushgateway took it (2xx).
std::optional<std::string> push_failure(const PushTarget& target, const service::Completion& done);

// Pushes one campaign's metrics, one push at a time: start() and poll() never wait, for
// the pushes during a run; push_and_wait() for the last one.
class Pusher {
public:
    // `transport` is used for pushes alone and outlives this.
    Pusher(PushTarget target, std::string campaign, service::HttpTransport& transport)
        : m_target(std::move(target)), m_campaign(std::move(campaign)), m_transport(transport) {}

    // Starts push-adding `body`; false (nothing started) while an earlier push is on its way.
    bool start(std::string body);
    // Reads what the push on its way has done, without waiting. Returns how it ended (failing
    // with push_failure's message), or nothing when no push ended since the last call.
    std::optional<util::Result<void>> poll();
    // Waits for a push on its way, then push-adds `body` and waits for the answer: at most one
    // request's timeout in all, since a push on its way that timed out ends it there (failing
    // with its message). Fails with push_failure's message when that push was not taken.
    util::Result<void> push_and_wait(std::string body);
    // The Pushgateway's URL, without credentials.
    const std::string& url() const { return m_target.url; }

private:
    // Waits for the push on its way, if any, and returns how it ended.
    std::optional<service::Completion> wait_for_pending();

    PushTarget m_target;
    std::string m_campaign;
    service::HttpTransport& m_transport;
    std::uint64_t m_next_id = 1;
    std::optional<std::uint64_t> m_pending;  // the id of the push on its way
};

}  // namespace observe
