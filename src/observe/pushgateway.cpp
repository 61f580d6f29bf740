#include "observe/pushgateway.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "service/requests.hpp"
#include "util/base64.hpp"
#include "util/redact.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

namespace observe {

namespace {

constexpr std::chrono::seconds k_push_timeout{10};
constexpr std::size_t k_shown_body = 200;  // of an answer that refused a push

}  // namespace

util::Result<PushTarget> parse_push_url(std::string_view url) {
    const std::size_t scheme = util::starts_with_nocase(url, "http://")    ? 7
                               : util::starts_with_nocase(url, "https://") ? 8
                                                                           : 0;
    // Split after any "://", a scheme wacamp takes or not: what is shown leaves out the
    // credentials of every URL.
    const std::size_t marker = url.find("://");
    const std::size_t start = marker == std::string_view::npos ? 0 : marker + 3;
    const std::string_view rest = url.substr(start);
    // The credentials end at the last '@', even where a '/' in a password left unencoded would
    // end the authority first: what is shown must never hold any of them.
    const std::size_t at = rest.rfind('@');
    const std::string_view after = at == std::string_view::npos ? rest : rest.substr(at + 1);
    const std::size_t slash = after.find('/');
    const std::string_view host_port = after.substr(0, slash);
    const std::string_view path = slash == std::string_view::npos ? std::string_view() : after.substr(slash);
    // What may be shown of it: never the part before '@'.
    PushTarget target;
    target.url = util::ascii_lower(url.substr(0, start)) + std::string(host_port) + std::string(path);
    while (target.url.ends_with('/')) {
        target.url.pop_back();
    }
    const std::string shown = "--metrics-push " + util::printable(target.url);
    if (scheme == 0) {
        return util::fail(shown + ": must start with http:// or https://");
    }
    if (url.find_first_of("?# \t\r\n") != std::string_view::npos) {
        return util::fail(shown + ": must not hold a query, a fragment or spaces");
    }
    if (!util::valid_host_port(host_port)) {
        return util::fail(shown + ": must name a host, and a port from 1 to 65535 if any (http://HOST:9091)");
    }
    if (path.find("/metrics/job/") != std::string_view::npos) {
        return util::fail(shown +
                          ": give the Pushgateway's address alone (http://HOST:9091); wacamp adds "
                          "/metrics/job/wacamp/campaign/NAME itself");
    }
    if (at != std::string_view::npos) {
        const std::string_view userinfo = rest.substr(0, at);
        const std::size_t colon = userinfo.find(':');
        auto user = util::percent_decoded(userinfo.substr(0, colon));
        auto password =
            util::percent_decoded(colon == std::string_view::npos ? std::string_view() : userinfo.substr(colon + 1));
        if (!user || !password || user->empty()) {
            return util::fail(shown + ": its user name and password must be user:password@ (percent-encoded)");
        }
        if (const std::string too_short = util::credential_too_short(*password); !too_short.empty()) {
            return util::fail(shown + ": its password " + too_short);
        }
        target.user = std::move(*user);
        target.password = std::move(*password);
    }
    return target;
}

std::string group_url(const PushTarget& target, std::string_view campaign) {
    return target.url + "/metrics/job/wacamp/campaign/" + std::string(campaign);
}

service::HttpRequest push_add_request(const PushTarget& target, std::string_view campaign, std::string body) {
    service::HttpRequest request;
    request.method = service::Method::post;  // push-add: PUT would drop the families this push lacks
    request.url = group_url(target, campaign);
    request.headers.emplace_back("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    request.headers.emplace_back("User-Agent", service::user_agent());
    if (!target.user.empty()) {
        request.headers.emplace_back("Authorization", "Basic " + util::base64(target.user + ":" + target.password));
    }
    request.body = std::move(body);
    request.timeout = k_push_timeout;
    request.max_body = 4096;
    return request;
}

std::optional<std::string> push_failure(const PushTarget& target, const service::Completion& done) {
    const std::string head = "could not push metrics to " + util::printable(target.url) + ": ";
    if (const auto* error = std::get_if<service::TransportError>(&done.result)) {
        return head + error->message;
    }
    const auto& response = std::get<service::HttpResponse>(done.result);
    if (response.status >= 200 && response.status < 300) {
        return std::nullopt;
    }
    std::string why = "HTTP " + std::to_string(response.status);
    const std::string_view body = util::trim(response.body);
    if (!body.empty()) {
        why += ": " + util::printable(util::clip_utf8(body, k_shown_body));
    }
    return head + why;
}

bool Pusher::start(std::string body) {
    if (m_pending) {
        return false;
    }
    m_pending = m_next_id++;
    m_transport.start(*m_pending, push_add_request(m_target, m_campaign, std::move(body)));
    return true;
}

namespace {

util::Result<void> ended(const std::optional<std::string>& failure) {
    if (failure) {
        return util::fail(*failure);
    }
    return {};
}

}  // namespace

std::optional<util::Result<void>> Pusher::poll() {
    if (!m_pending) {
        return std::nullopt;
    }
    for (const auto& done : m_transport.poll(std::chrono::microseconds(0))) {
        if (done.id == *m_pending) {
            m_pending.reset();
            return ended(push_failure(m_target, done));
        }
    }
    return std::nullopt;
}

std::optional<service::Completion> Pusher::wait_for_pending() {
    while (m_pending) {
        for (auto& done : m_transport.poll(std::chrono::milliseconds(100))) {
            if (done.id == *m_pending) {
                m_pending.reset();
                return std::move(done);
            }
        }
    }
    return std::nullopt;
}

namespace {

// Whether `done` ended because the Pushgateway gave no answer in time.
bool timed_out(const service::Completion& done) {
    const auto* error = std::get_if<service::TransportError>(&done.result);
    return error != nullptr && error->failure == service::TransportFailure::timeout;
}

}  // namespace

util::Result<void> Pusher::push_and_wait(std::string body) {
    // Its answer matters only when there was none: a Pushgateway that let it time out (stopped,
    // hung) is not given a second timeout's wait at the end of the run.
    if (const auto earlier = wait_for_pending(); earlier && timed_out(*earlier)) {
        return ended(push_failure(m_target, *earlier));
    }
    const std::uint64_t id = m_next_id++;
    m_transport.start(id, push_add_request(m_target, m_campaign, std::move(body)));
    for (;;) {
        for (const auto& done : m_transport.poll(std::chrono::milliseconds(100))) {
            if (done.id == id) {
                return ended(push_failure(m_target, done));
            }
        }
    }
}

}  // namespace observe
