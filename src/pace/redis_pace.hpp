#pragma once
// The account's pace kept in Redis (`account.rate_store`, docs/pace.md): one GCRA for every runner
// of the account, in one hash key `wacamp:{ACCOUNT}:pace`, changed only by one Lua script that
// reads Redis's own clock (TIME), so runners on machines with different clocks agree.
//
// - take: grants min(want, how many conform now) slots, all at Redis's now, to be used within
//   `use_within` of asking (PaceAnswer::use_by). T = (1 s + 0.1 % + use_within) / rate (the
//   local limiter's margin, and room for a start that late), tau = burst x T at the configured
//   rate, as in queue::RateLimiter; a grant of n is allowed while new TAT - now <= tau + T.
// - throttled: pause-until = max(current, now + Retry-After, or 1 s without one); the rate in
//   force halves (not below min(configured, 0.1/s)) unless a decrease's pause is still running
//   (throttles that belong together count once), then climbs back linearly by configured / 20 a
//   second after the pause: a halving is won back in 10 s.
// - The key expires 30 s after its state stops mattering: idle accounts leave nothing behind.
// - Redis unreachable, a reply lost or late, a reply over 4 KiB or of another shape than
//   expected: nothing granted, the answer says "rate store unreachable: …" and to ask again in a
//   second (then it reconnects).
// Blocking on the dispatcher's thread, with bounds: a connect timeout of 250 ms, then 1 s for
// the whole slot request (every byte of every reply, not 1 s between bytes), at most 4 KiB read
// for a reply, and a stop request (SIGINT, SIGTERM) ends the wait within 50 ms.

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "queue/pace.hpp"
#include "util/clock.hpp"
#include "util/redact.hpp"
#include "util/redis_url.hpp"

struct redisContext;

namespace pace {

namespace detail {
struct Resp;  // a reply of Redis, as redis_pace.cpp reads it
}  // namespace detail

struct RedisPaceOptions {
    std::chrono::milliseconds connect_timeout{250};
    std::chrono::milliseconds command_timeout{1'000};  // for a whole slot request
    std::chrono::milliseconds retry{1'000};            // after an error, the next try
    // How long after asking granted slots may still be used (PaceAnswer::use_by): the script
    // spaces its grants this much wider than the bound needs (docs/pace.md).
    std::chrono::milliseconds use_within{5};
    // Told once a run when another runner of the account configured a different rate or burst.
    std::function<void(const std::string&)> warn;
    // The run's stop requests (SIGINT, SIGTERM): when positive, a wait for Redis ends, nothing
    // granted. May be null.
    const std::atomic<int>* stop_requests = nullptr;
};

class RedisPace final : public queue::Pace {
public:
    // The pace of `account` at `per_second` (finite) with `burst`, kept at `store`. Connects on
    // the first take().
    RedisPace(util::RedisUrl store, const std::string& account, double per_second, int burst, const util::Clock& clock,
              RedisPaceOptions options = {});
    ~RedisPace() override;
    RedisPace(const RedisPace&) = delete;
    RedisPace& operator=(const RedisPace&) = delete;

    // Asks for `want` (>= 1) slots at `now`. Never grants a slot it cannot vouch for: an error
    // of the store grants none, and says so.
    queue::PaceAnswer take(std::chrono::steady_clock::time_point now, int want);

    // Pace: asks for a slot for each of `jobs` (take), one request for them all. Never fails: an
    // error of the store answers later, saying why.
    util::Result<void> admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                             std::vector<queue::Admission>& out) override;

    // Pace: shares a throttle seen at `now`, with the service's Retry-After if any: every runner
    // of the account pauses and slows down (`request_started` is not needed: Redis cannot know
    // when other runners' requests left). Best effort: a store it cannot reach answers the next
    // take() with the reason.
    void on_throttled(std::chrono::steady_clock::time_point now, std::optional<std::chrono::milliseconds> retry_after,
                      std::optional<std::chrono::steady_clock::time_point> request_started = std::nullopt) override;

    // The hash key of the account's state.
    const std::string& key() const { return m_key; }
    // Whether another runner of the account configured a different rate or burst (the last answer
    // said).
    bool rate_mismatch() const { return m_mismatch; }
    // Redis's clock (us since the epoch) at the last take() answered: the time of its grant.
    long long last_time_us() const { return m_last_time_us; }

private:
    struct Reply {
        long long granted = 0;
        long long retry_us = 0;
        long long why = 0;  // 0: the pace; 1: the account's throttle pause
        long long pause_left_us = 0;
        long long mismatch = 0;
        long long time_us = 0;  // Redis's clock at the answer
    };
    // Runs the script; an error (already masked) closes the connection.
    util::Result<Reply> run(const std::string& mode, long long argument);
    util::Result<void> connect();
    util::Result<void> load_script();
    // Sends one command and reads its reply, by m_deadline and within k_max_reply bytes.
    util::Result<detail::Resp> exchange(const std::vector<std::string>& args);
    std::string wait_for(short events);
    bool stop_requested() const;
    std::string where() const;
    void disconnect();
    util::Error failed(const std::string& what);

    util::RedisUrl m_store;
    std::string m_key;
    std::string m_rate;  // ARGV: the configured rate and burst, as text
    std::string m_burst;
    const util::Clock& m_clock;
    RedisPaceOptions m_options;
    util::Redactor m_secrets;
    redisContext* m_context = nullptr;
    std::string m_sha;  // of the loaded script
    std::optional<std::chrono::steady_clock::time_point> m_down_until;
    std::string m_down_reason;
    bool m_mismatch = false;
    bool m_mismatch_told = false;
    long long m_last_time_us = 0;
    std::chrono::steady_clock::time_point m_deadline{};  // of the slot request under way
    std::chrono::steady_clock::time_point m_asked_at{};  // the script's command last sent (m_clock)
    bool m_interrupted = false;                          // it ended for a stop request
};

}  // namespace pace
