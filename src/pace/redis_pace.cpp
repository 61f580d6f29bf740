#include "pace/redis_pace.hpp"

#include <fmt/format.h>
#include <hiredis/hiredis.h>

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>
#include <vector>

namespace pace {

namespace {

using Steady = std::chrono::steady_clock::time_point;
using std::chrono::microseconds;

// One script for both modes, so that a take and a throttle see one state. KEYS[1]: the hash;
// ARGV: mode ("take" or "throttle"), configured rate (1/s), burst, then for take the slots
// wanted, for throttle the Retry-After in ms (-1: none), then how late after its grant a start
// may be (us). Times in microseconds of Redis's clock.
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
local late = tonumber(ARGV[5]) or 0
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
-- Starts spaced 0.1 % wider than 1 s / rate, as in one runner (queue/rate_limiter.cpp), and
-- 'late' more a second: rate + burst + 1 grants span 1.001 s + late, so that starts each up to
-- 'late' after its grant still hold rate + burst in any second.
local function interval(r) return math.ceil((1000000 * 1.001 + late) / r) end
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

// The most a reply may be: the replies wacamp expects (six integers, a script's SHA-1, OK, an
// error line) are far shorter. More is no rate store's answer: the connection is closed.
constexpr std::size_t k_max_reply = 4096;
// How often a wait for Redis looks at the run's stop requests.
constexpr std::chrono::milliseconds k_stop_check{50};

}  // namespace

// A reply of the shapes wacamp expects, read by read_reply.
struct detail::Resp {
    enum class Kind { status, error, bulk, integers };
    Kind kind = Kind::status;
    std::string text;                 // status, error, bulk
    std::vector<long long> integers;  // an array of integers
};

namespace {

using detail::Resp;

enum class Parsed { incomplete, complete, malformed, too_large };

// The line at `at` in `buffer` up to CRLF (not included); nullopt when not all there.
std::optional<std::string_view> line_at(std::string_view buffer, std::size_t& at) {
    const auto end = buffer.find("\r\n", at);
    if (end == std::string_view::npos) {
        return std::nullopt;
    }
    const auto line = buffer.substr(at, end - at);
    at = end + 2;
    return line;
}

bool to_integer(std::string_view text, long long& out) {
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
    return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

// Reads one reply from the start of `buffer`: a status, an error, a bulk string of at most
// k_max_reply bytes (too_large beyond) or an array of at most 16 integers; any other shape is
// malformed. A length is checked before anything is allocated for it, unlike hiredis's reader,
// which allocates an array's claimed element count up front.
Parsed read_reply(std::string_view buffer, Resp& out, std::size_t& used) {
    std::size_t at = 1;
    if (buffer.empty()) {
        return Parsed::incomplete;
    }
    const auto line = line_at(buffer, at);
    if (!line) {
        return Parsed::incomplete;
    }
    long long n = 0;
    switch (buffer[0]) {
    case '+':
    case '-':
        out.kind = buffer[0] == '+' ? Resp::Kind::status : Resp::Kind::error;
        out.text = *line;
        break;
    case '$':
        if (!to_integer(*line, n) || n < 0) {
            return Parsed::malformed;
        }
        if (n > static_cast<long long>(k_max_reply)) {
            return Parsed::too_large;
        }
        if (buffer.size() < at + static_cast<std::size_t>(n) + 2) {
            return Parsed::incomplete;
        }
        if (buffer.substr(at + static_cast<std::size_t>(n), 2) != "\r\n") {
            return Parsed::malformed;
        }
        out.kind = Resp::Kind::bulk;
        out.text = buffer.substr(at, static_cast<std::size_t>(n));
        at += static_cast<std::size_t>(n) + 2;
        break;
    case '*':
        if (!to_integer(*line, n) || n < 0 || n > 16) {
            return Parsed::malformed;
        }
        out.kind = Resp::Kind::integers;
        out.integers.clear();
        for (long long i = 0; i < n; ++i) {
            if (at >= buffer.size()) {
                return Parsed::incomplete;
            }
            if (buffer[at] != ':') {
                return Parsed::malformed;
            }
            ++at;
            const auto item = line_at(buffer, at);
            long long value = 0;
            if (!item) {
                return Parsed::incomplete;
            }
            if (!to_integer(*item, value)) {
                return Parsed::malformed;
            }
            out.integers.push_back(value);
        }
        break;
    default: return Parsed::malformed;
    }
    used = at;
    return Parsed::complete;
}

}  // namespace

RedisPace::RedisPace(util::RedisUrl store, const std::string& account, double per_second, int burst,
                     const util::Clock& clock, RedisPaceOptions options)
    : m_store(std::move(store)),
      m_key("wacamp:{" + account + "}:pace"),
      m_rate(fmt::format("{:.17g}", std::clamp(per_second, 0.001, 1e6))),
      m_burst(std::to_string(std::max(burst, 0))),
      m_clock(clock),
      m_options(std::move(options)) {
    m_secrets.add(m_store.password);
}

RedisPace::~RedisPace() {
    disconnect();
}

std::string RedisPace::where() const {
    return m_store.host + ":" + std::to_string(m_store.port);
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

bool RedisPace::stop_requested() const {
    return m_options.stop_requests != nullptr && m_options.stop_requests->load() > 0;
}

// Waits for `events` on the connection until `m_deadline`, looking at the stop requests every
// k_stop_check. Returns an empty string when ready, else why not.
std::string RedisPace::wait_for(short events) {
    for (;;) {
        if (stop_requested()) {
            m_interrupted = true;
            return "interrupted";
        }
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(m_deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            return fmt::format("no reply within {} ms", m_options.command_timeout.count());
        }
        pollfd p{m_context->fd, events, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::min(left, k_stop_check).count()));
        if (ready > 0) {
            return {};
        }
        if (ready < 0 && errno != EINTR) {
            return std::strerror(errno);
        }
    }
}

util::Result<Resp> RedisPace::exchange(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const auto& a : args) {
        argv.push_back(a.data());
        lengths.push_back(a.size());
    }
    char* formatted = nullptr;
    const int size = redisFormatCommandArgv(&formatted, static_cast<int>(argv.size()), argv.data(), lengths.data());
    if (size < 0) {
        return failed(where() + ": out of memory");
    }
    const std::string command(formatted, static_cast<std::size_t>(size));
    redisFreeCommand(formatted);
    for (std::size_t sent = 0; sent < command.size();) {
        if (auto why = wait_for(POLLOUT); !why.empty()) {
            return failed(where() + ": " + why);
        }
        const ssize_t n =
            ::send(m_context->fd, command.data() + sent, command.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            return failed(where() + ": " + std::strerror(errno));
        }
        sent += n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    // The whole reply within the deadline and k_max_reply bytes: a server that trickles or
    // floods its reply costs a second and a few KiB, not the run.
    std::string buffer;
    char chunk[1024];
    for (;;) {
        Resp reply;
        std::size_t used = 0;
        const Parsed parsed = read_reply(buffer, reply, used);
        if (parsed == Parsed::complete && used == buffer.size()) {
            return reply;
        }
        if (parsed == Parsed::malformed || parsed == Parsed::complete) {
            return failed(where() + ": a reply that is not a rate store's");
        }
        if (parsed == Parsed::too_large || buffer.size() >= k_max_reply) {
            return failed(fmt::format("{}: a reply over {} bytes", where(), k_max_reply));
        }
        if (auto why = wait_for(POLLIN); !why.empty()) {
            return failed(where() + ": " + why);
        }
        const ssize_t n =
            ::recv(m_context->fd, chunk, std::min(sizeof chunk, k_max_reply - buffer.size()), MSG_DONTWAIT);
        if (n == 0) {
            return failed(where() + ": the connection was closed");
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            return failed(where() + ": " + std::strerror(errno));
        }
        buffer.append(chunk, n > 0 ? static_cast<std::size_t>(n) : 0);
    }
}

util::Result<void> RedisPace::connect() {
    m_context = redisConnectWithTimeout(m_store.host.c_str(), m_store.port, to_timeval(m_options.connect_timeout));
    if (m_context == nullptr) {
        return util::fail(where() + ": out of memory");
    }
    if (m_context->err != 0) {
        return failed(where() + ": " + m_context->errstr);
    }
    const auto command = [&](const std::vector<std::string>& args, const char* what) -> util::Result<void> {
        auto reply = exchange(args);
        if (!reply) {
            return reply.error();
        }
        if (reply->kind == Resp::Kind::error) {
            return failed(fmt::format("{}: {} refused: {}", where(), what, reply->text));
        }
        return {};
    };
    if (!m_store.password.empty()) {
        std::vector<std::string> auth{"AUTH"};
        if (!m_store.user.empty()) {
            auth.push_back(m_store.user);
        }
        auth.push_back(m_store.password);
        TRY(command(auth, "AUTH"));
    }
    if (m_store.db != 0) {
        TRY(command({"SELECT", std::to_string(m_store.db)}, "SELECT"));
    }
    return load_script();
}

util::Result<void> RedisPace::load_script() {
    TRY_ASSIGN(const auto reply, exchange({"SCRIPT", "LOAD", k_script}));
    if (reply.kind != Resp::Kind::bulk) {
        return failed(where() + ": SCRIPT LOAD refused: " +
                      (reply.kind == Resp::Kind::error ? reply.text : std::string("unexpected reply")));
    }
    m_sha = reply.text;
    return {};
}

util::Result<RedisPace::Reply> RedisPace::run(const std::string& mode, long long argument) {
    // One deadline for the whole slot request: connecting's commands, a reload, the script.
    m_deadline = std::chrono::steady_clock::now() + m_options.command_timeout;
    m_interrupted = false;
    if (m_context == nullptr) {
        TRY(connect());
    }
    const std::vector<std::string> args{
        "EVALSHA",
        m_sha,
        "1",
        m_key,
        mode,
        m_rate,
        m_burst,
        std::to_string(argument),
        std::to_string(std::chrono::duration_cast<microseconds>(m_options.use_within).count())};
    for (int attempt = 0;; ++attempt) {
        // Lost or late: the script may have run; its slots are dropped, never used unpaced.
        // The grant is made after this: slots used by m_asked_at + use_within start no later
        // than that after their time, on any clock.
        m_asked_at = m_clock.steady_now();
        TRY_ASSIGN(const auto reply, exchange(args));
        if (reply.kind == Resp::Kind::error) {
            if (reply.text.starts_with("NOSCRIPT") && attempt == 0) {
                TRY(load_script());  // the server restarted or flushed its scripts
                continue;
            }
            return failed(where() + ": " + reply.text);
        }
        if (reply.kind != Resp::Kind::integers || reply.integers.size() != 6) {
            return failed(where() + ": unexpected reply to the pace script");
        }
        const auto& v = reply.integers;
        return Reply{v[0], v[1], v[2], v[3], v[4], v[5]};
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
    if (!reply && m_interrupted) {
        answer.retry_at = now + m_options.retry;  // the run stops: nothing to tell
        return answer;
    }
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
    answer.use_by = m_asked_at + m_options.use_within;
    answer.retry_at = now + microseconds(std::max<long long>(reply->retry_us, 0));
    if (reply->why == 1 && answer.granted == 0) {
        answer.reason = "rate limited by the service (the account's runners pause together)";
        answer.paused_until = m_clock.wall_now() + microseconds(reply->pause_left_us);
    }
    return answer;
}

util::Result<void> RedisPace::admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                                    std::vector<queue::Admission>& out) {
    if (jobs.empty()) {
        out.clear();
        return {};
    }
    queue::admissions_of(take(at.steady, static_cast<int>(jobs.size())), jobs.size(), out);
    return {};
}

void RedisPace::on_throttled(Steady now, std::optional<std::chrono::milliseconds> retry_after,
                             std::optional<Steady> /*request_started*/) {
    if (m_down_until && now < *m_down_until) {
        return;  // the next take after the outage says why
    }
    const long long argument = retry_after ? std::max<long long>(retry_after->count(), 0) : -1;
    if (auto reply = run("throttle", argument); !reply && !m_interrupted) {
        m_down_until = now + m_options.retry;
        m_down_reason = "rate store unreachable: " + reply.error().message;
    }
}

}  // namespace pace
