#include "pace/redis_pace.hpp"

#include <fmt/format.h>
#include <hiredis/hiredis.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace pace {

namespace {

using Steady = std::chrono::steady_clock::time_point;
using std::chrono::microseconds;

// One script for both modes, so that a take and a throttle see one state. KEYS[1]: the hash;
// ARGV: mode ("take" or "throttle"), configured rate (1/s), burst, then for take the slots
// wanted, for throttle the Retry-After in ms (-1: none). Times in microseconds of Redis's clock.
// Fields: tat, pause (the shared pause's end), dec (the rate right after the last decrease,
// absent when the configured rate is in force), cfg (the rate and burst the last writer
// configured, as "RATE/BURST").
// Returns {granted, retry after (us), why (0 pace, 1 throttle pause), pause left (us), mismatch,
// Redis's now (us)}.
constexpr const char* k_script = R"lua(
local key = KEYS[1]
local mode = ARGV[1]
local cfg = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local arg = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local s = redis.call('HMGET', key, 'tat', 'pause', 'dec', 'cfg')
local tat = tonumber(s[1]) or now
local pause = tonumber(s[2]) or 0
local dec = tonumber(s[3])
local cfgtext = ARGV[2] .. '/' .. ARGV[3]
local mismatch = 0
if s[4] and s[4] ~= cfgtext then mismatch = 1 end
local rate = cfg
if dec then
  local climb = 0
  if now > pause then climb = (now - pause) / 1000000 * cfg / 20 end
  rate = math.min(cfg, dec + climb)
  if rate >= cfg then dec = nil end
end
-- Starts spaced 0.1 % wider than 1 s / rate, as in one runner (queue/rate_limiter.cpp).
local function interval(r) return math.ceil(1000000 * 1.001 / r) end
local T = interval(rate)
local tau = burst * interval(cfg)
local granted, retry, why = 0, 0, 0
if mode == 'take' then
  if now < pause then
    retry = pause - now
    why = 1
    return {0, retry, why, pause - now, mismatch, now}
  end
  if tat < now then tat = now end
  local n = math.floor((now + tau + T - tat) / T)
  if n > arg then n = arg end
  if n < 0 then n = 0 end
  granted = n
  tat = tat + n * T
  -- Fewer than wanted: come back when several conform (the rest wanted, at most half the burst
  -- plus one, as the dispatcher gathers starts), not for each single slot: runners racing for
  -- every slot would cost a call a slot and more.
  if n < arg then
    local k = math.max(1, math.min(arg - n, math.floor(burst / 2) + 1))
    retry = math.max(1, tat - tau - now + (k - 1) * T)
  end
  if n == 0 then return {0, retry, 0, 0, mismatch, now} end
else
  local pause_end = now + 1000000
  if arg >= 0 then pause_end = now + arg * 1000 end
  if now >= pause then
    dec = math.max(math.min(cfg, 0.1), rate / 2)
  end
  if pause_end > pause then pause = pause_end end
end
redis.call('HSET', key, 'tat', string.format('%.0f', tat), 'pause', string.format('%.0f', pause),
           'cfg', cfgtext)
if dec then
  redis.call('HSET', key, 'dec', string.format('%.17g', dec))
else
  redis.call('HDEL', key, 'dec')
end
local last = math.max(tat, pause)
redis.call('PEXPIRE', key, math.floor((last - now) / 1000) + 30000)
local left = 0
if pause > now then left = pause - now end
return {granted, retry, why, left, mismatch, now}
)lua";

timeval to_timeval(std::chrono::milliseconds ms) {
    timeval tv{};
    tv.tv_sec = static_cast<decltype(tv.tv_sec)>(ms.count() / 1000);
    tv.tv_usec = static_cast<decltype(tv.tv_usec)>((ms.count() % 1000) * 1000);
    return tv;
}

struct ReplyDeleter {
    void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

}  // namespace

RedisPace::RedisPace(campaign::RateStore store, const std::string& account, double per_second, int burst,
                     const util::Clock& clock, RedisPaceOptions options)
    : m_store(std::move(store)),
      m_key("wacamp:{" + account + "}:pace"),
      m_rate(fmt::format("{:.17g}", std::clamp(per_second, 0.001, 1e6))),
      m_burst(std::to_string(std::max(burst, 0))),
      m_clock(clock),
      m_options(options) {
    m_secrets.add(m_store.password);
}

RedisPace::~RedisPace() {
    disconnect();
}

void RedisPace::disconnect() {
    if (m_context != nullptr) {
        redisFree(m_context);
        m_context = nullptr;
    }
}

util::Error RedisPace::failed(const std::string& what) {
    disconnect();
    return util::fail(m_secrets.apply(what));
}

util::Result<void> RedisPace::connect() {
    const std::string where = m_store.host + ":" + std::to_string(m_store.port);
    m_context = redisConnectWithTimeout(m_store.host.c_str(), m_store.port, to_timeval(m_options.connect_timeout));
    if (m_context == nullptr) {
        return util::fail(where + ": out of memory");
    }
    if (m_context->err != 0) {
        return failed(where + ": " + m_context->errstr);
    }
    if (redisSetTimeout(m_context, to_timeval(m_options.command_timeout)) != REDIS_OK) {
        return failed(where + ": cannot set the command timeout");
    }
    const auto command = [&](std::vector<std::string> args, const char* what) -> util::Result<void> {
        std::vector<const char*> argv;
        std::vector<std::size_t> lengths;
        for (const auto& a : args) {
            argv.push_back(a.data());
            lengths.push_back(a.size());
        }
        ReplyPtr reply(static_cast<redisReply*>(
            redisCommandArgv(m_context, static_cast<int>(argv.size()), argv.data(), lengths.data())));
        if (!reply) {
            return failed(fmt::format("{}: {}: {}", where, what, m_context->errstr));
        }
        if (reply->type == REDIS_REPLY_ERROR) {
            return failed(fmt::format("{}: {} refused: {}", where, what, std::string(reply->str, reply->len)));
        }
        return {};
    };
    if (!m_store.password.empty()) {
        std::vector<std::string> auth{"AUTH"};
        if (!m_store.user.empty()) {
            auth.push_back(m_store.user);
        }
        auth.push_back(m_store.password);
        TRY(command(std::move(auth), "AUTH"));
    }
    if (m_store.db != 0) {
        TRY(command({"SELECT", std::to_string(m_store.db)}, "SELECT"));
    }
    return load_script();
}

util::Result<void> RedisPace::load_script() {
    ReplyPtr reply(static_cast<redisReply*>(redisCommand(m_context, "SCRIPT LOAD %s", k_script)));
    const std::string where = m_store.host + ":" + std::to_string(m_store.port);
    if (!reply) {
        return failed(where + ": SCRIPT LOAD: " + m_context->errstr);
    }
    if (reply->type != REDIS_REPLY_STRING) {
        return failed(where + ": SCRIPT LOAD refused: " +
                      (reply->type == REDIS_REPLY_ERROR ? std::string(reply->str, reply->len) : "unexpected reply"));
    }
    m_sha.assign(reply->str, reply->len);
    return {};
}

util::Result<RedisPace::Reply> RedisPace::run(const std::string& mode, long long argument) {
    if (m_context == nullptr) {
        TRY(connect());
    }
    const std::string where = m_store.host + ":" + std::to_string(m_store.port);
    const std::string arg = std::to_string(argument);
    for (int attempt = 0;; ++attempt) {
        const char* argv[] = {"EVALSHA",      m_sha.c_str(),   "1",        m_key.c_str(), mode.c_str(),
                              m_rate.c_str(), m_burst.c_str(), arg.c_str()};
        std::size_t lengths[std::size(argv)];
        for (std::size_t i = 0; i < std::size(argv); ++i) {
            lengths[i] = std::strlen(argv[i]);
        }
        lengths[3] = m_key.size();
        ReplyPtr reply(
            static_cast<redisReply*>(redisCommandArgv(m_context, static_cast<int>(std::size(argv)), argv, lengths)));
        if (!reply) {
            // Lost or late: the script may have run; its slots are dropped, never used unpaced.
            return failed(where + ": " + m_context->errstr);
        }
        if (reply->type == REDIS_REPLY_ERROR) {
            const std::string text(reply->str, reply->len);
            if (text.starts_with("NOSCRIPT") && attempt == 0) {
                TRY(load_script());  // the server restarted or flushed its scripts
                continue;
            }
            return failed(where + ": " + text);
        }
        if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 6) {
            return failed(where + ": unexpected reply to the pace script");
        }
        long long values[6] = {};
        for (std::size_t i = 0; i < 6; ++i) {
            if (reply->element[i]->type != REDIS_REPLY_INTEGER) {
                return failed(where + ": unexpected reply to the pace script");
            }
            values[i] = reply->element[i]->integer;
        }
        return Reply{values[0], values[1], values[2], values[3], values[4], values[5]};
    }
}

queue::PaceAnswer RedisPace::take(Steady now, int want) {
    queue::PaceAnswer answer;
    if (m_down_until && now < *m_down_until) {
        answer.retry_at = *m_down_until;
        answer.reason = m_down_reason;
        answer.notice = true;
        return answer;
    }
    auto reply = run("take", std::max(want, 1));
    if (!reply) {
        m_down_until = now + m_options.retry;
        m_down_reason = "rate store unreachable: " + reply.error().message;
        answer.retry_at = *m_down_until;
        answer.reason = m_down_reason;
        answer.notice = true;
        return answer;
    }
    m_down_until.reset();
    m_mismatch = reply->mismatch != 0;
    if (m_mismatch && !m_mismatch_told && m_options.warn) {
        m_mismatch_told = true;
        m_options.warn(fmt::format(
            "account.rate_store: another runner of this account paces it with a different rate.per_second or "
            "rate.burst (this one: {}/s, burst {}): the account's bound then follows whichever asked last; "
            "give every campaign of the account the same rate",
            m_rate, m_burst));
    }
    m_last_time_us = reply->time_us;
    answer.granted = static_cast<int>(std::clamp<long long>(reply->granted, 0, want));
    answer.retry_at = now + microseconds(std::max<long long>(reply->retry_us, 0));
    if (reply->why == 1 && answer.granted == 0) {
        answer.reason = "rate limited by the service (the account's runners pause together)";
        answer.paused_until = m_clock.wall_now() + microseconds(reply->pause_left_us);
    }
    return answer;
}

void RedisPace::throttled(Steady now, std::optional<std::chrono::milliseconds> retry_after) {
    if (m_down_until && now < *m_down_until) {
        return;  // the next take after the outage says why
    }
    const long long argument = retry_after ? std::max<long long>(retry_after->count(), 0) : -1;
    if (auto reply = run("throttle", argument); !reply) {
        m_down_until = now + m_options.retry;
        m_down_reason = "rate store unreachable: " + reply.error().message;
    }
}

}  // namespace pace
