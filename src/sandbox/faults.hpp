#pragma once
// Fault decisions: pure, time as a value, randomness from one seeded generator. Not
// thread-safe; the caller serialises (FakeService holds a mutex).

#include <chrono>
#include <deque>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>

#include "sandbox/meta_errors.hpp"
#include "sandbox/options.hpp"

namespace sandbox {

using SteadyTime = std::chrono::steady_clock::time_point;

// Admits at most `limit` events in any sliding `window`. Refused events are not counted,
// so a client that keeps knocking gets through as soon as the window has room again.
class RateWindow {
public:
    RateWindow(int limit, std::chrono::milliseconds window);
    // Returns true (and records the event) when one more event at `now` stays within the
    // limit; returns false otherwise. `now` must not go backwards.
    bool admit(SteadyTime now);

private:
    size_t m_limit;
    std::chrono::milliseconds m_window;
    std::deque<SteadyTime> m_admitted;
};

// Whether a request is the first on its connection or came on a kept-alive one.
enum class ConnectionUse { first, reused };

// What happens to a valid, authorised send.
enum class SendVerdict { accept, revoked, rate_limited, spam_limit, meta_error, rejected, error, dropped };

struct SendDecision {
    SendVerdict verdict = SendVerdict::accept;
    int meta_code = 0;  // for meta_error: the Meta error code to answer
};

class FaultInjector {
public:
    explicit FaultInjector(const FaultOptions& options);

    // Returns true once `auth_fail_after` sends have been accepted: every request gets 401.
    bool key_revoked() const;
    // Decides the fate of a send to `wa_id` at `now`, checking in this order: revoked key,
    // rate limit, spam limit, a Meta error asked for that number (using up one of its answers),
    // rejected number, then one draw for error or drop. Counts it when the verdict is `accept`.
    SendDecision decide_send(std::string_view wa_id, SteadyTime now);
    // Returns true when an accepted send that came on a connection used `use` is to be
    // delivered without an answer (the `lost_answer_rate` share of the reused ones).
    bool lose_answer(ConnectionUse use);
    // Returns the delay to add before answering: latency plus a uniform share of jitter.
    std::chrono::milliseconds draw_latency();
    // Returns 500 or 503 (even odds), for an `error` verdict.
    int draw_error_status();
    // Returns how many sends were accepted so far.
    long accepted() const { return m_accepted; }

private:
    double draw_unit();

    FaultOptions m_options;
    std::unordered_set<std::string> m_reject;
    MetaErrors m_meta_errors;
    RateWindow m_window;
    std::mt19937_64 m_rng;
    long m_accepted = 0;
};

}  // namespace sandbox
