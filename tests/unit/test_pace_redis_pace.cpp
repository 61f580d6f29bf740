// The account's pace in Redis, against a real redis-server (tests/support/redis_server.hpp), and
// the rate_store URL.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/redis_server.hpp"
#include "../support/resp_fault_server.hpp"
#include "pace/redis_pace.hpp"
#include "util/redis_url.hpp"

using namespace std::chrono_literals;
using test_support::RedisServer;
using test_support::RespFault;
using test_support::RespFaultServer;

namespace {

// Prints the skip marker ctest looks for when redis-server is missing.
bool redis_missing() {
    if (RedisServer::available()) {
        return false;
    }
    std::printf("wacamp-test-skipped: redis-server is not installed (scripts/setup.sh installs it)\n");
    return true;
}

util::RedisUrl store_of(const RedisServer& server, std::string password = {}) {
    auto store = util::parse_redis_url(server.url(false));
    REQUIRE(store);
    store->password = std::move(password);
    return *store;
}

util::RedisUrl store_of(const RespFaultServer& server) {
    auto store = util::parse_redis_url(server.url());
    REQUIRE(store);
    return *store;
}

// This process's resident memory now (VmRSS, KiB).
long long rss_kib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.starts_with("VmRSS:")) {
            return std::stoll(line.substr(6));
        }
    }
    return 0;
}

// A fresh account name per test: the shared server keeps the others' state.
std::string account(const char* name) {
    static int n = 0;
    return std::string(name) + "-" + std::to_string(++n) + "-" + std::to_string(::getpid());
}

}  // namespace

TEST_SUITE("pace::redis_url") {
    TEST_CASE("host, port, db, user and password") {
        auto plain = util::parse_redis_url("redis://redis.internal");
        REQUIRE(plain);
        CHECK(plain->host == "redis.internal");
        CHECK(plain->port == 6379);
        CHECK(plain->db == 0);
        CHECK(plain->password.empty());
        CHECK(plain->shown == "redis://redis.internal:6379/0");
        auto full = util::parse_redis_url("redis://wacamp:p%40ss:word@10.0.0.5:6380/3");
        REQUIRE(full);
        CHECK(full->user == "wacamp");
        CHECK(full->password == "p@ss:word");
        CHECK(full->host == "10.0.0.5");
        CHECK(full->port == 6380);
        CHECK(full->db == 3);
        CHECK(full->shown == "redis://10.0.0.5:6380/3");
        auto password_only = util::parse_redis_url("redis://:secret@[::1]:7000/");
        REQUIRE(password_only);
        CHECK(password_only->user.empty());
        CHECK(password_only->password == "secret");
        CHECK(password_only->host == "::1");
        CHECK(password_only->shown == "redis://[::1]:7000/0");
    }
    TEST_CASE("what is wrong is said without repeating the URL") {
        CHECK(!util::parse_redis_url("redis://"));
        for (const char* bad : {"http://host", "redis://host:0", "redis://host:99999", "redis://host:x",
                                "redis://host/db", "redis://secretpw@host", "redis://u:%zz@host", "rediss://host"}) {
            CAPTURE(bad);
            auto parsed = util::parse_redis_url(bad);
            REQUIRE(!parsed);
            CHECK(parsed.error().message.find("secretpw") == std::string::npos);
            CHECK(parsed.error().message.find(bad) == std::string::npos);
        }
    }
}

TEST_SUITE("pace::redis_pace") {
    TEST_CASE("several runners together: no one second of Redis's time holds more than per_second + burst") {
        if (redis_missing()) {
            return;
        }
        RedisServer& server = RedisServer::shared();
        util::SystemClock clock;
        const std::string name = account("bound");
        constexpr int k_runners = 4;
        std::vector<std::vector<long long>> grants(k_runners);  // Redis time of each slot
        std::vector<std::thread> threads;
        for (int r = 0; r < k_runners; ++r) {
            threads.emplace_back([&, r] {
                pace::RedisPace pace(store_of(server), name, 200, 5, clock);
                const auto end = clock.steady_now() + 2500ms;
                int want = 1 + r % 3;
                while (clock.steady_now() < end) {
                    auto answer = pace.take(clock.steady_now(), want);
                    for (int i = 0; i < answer.granted; ++i) {
                        grants[static_cast<std::size_t>(r)].push_back(pace.last_time_us());
                    }
                    if (answer.granted < want) {
                        std::this_thread::sleep_until(std::min(answer.retry_at, end));
                    }
                    want = want % 3 + 1;
                }
            });
        }
        for (auto& t : threads) {
            t.join();
        }
        std::vector<long long> all;
        for (const auto& g : grants) {
            all.insert(all.end(), g.begin(), g.end());
        }
        std::sort(all.begin(), all.end());
        REQUIRE(all.size() > 200);
        std::size_t most = 0;
        for (std::size_t i = 0, j = 0; i < all.size(); ++i) {
            while (j < all.size() && all[j] - all[i] < 1'000'000) {
                ++j;
            }
            most = std::max(most, j - i);
        }
        CHECK(most <= 205);
        // Every runner got slots: one Redis, one queue of slots, no runner starved.
        for (const auto& g : grants) {
            CHECK(!g.empty());
        }
    }
    TEST_CASE("grants leave room for a start up to 5 ms late: per_second + burst + 1 of them span 1 s + 5 ms") {
        // At 5/s, burst 1, with grants 1.001 s apart, starts 5 ms late and on time put 7 into one
        // second where 6 are allowed.
        if (redis_missing()) {
            return;
        }
        util::SystemClock clock;
        pace::RedisPace pace(store_of(RedisServer::shared()), account("late"), 5, 1, clock);
        std::vector<long long> grants;  // Redis time of each slot
        const auto end = clock.steady_now() + 2500ms;
        while (clock.steady_now() < end) {
            auto answer = pace.take(clock.steady_now(), 1);
            CHECK(answer.use_by <= clock.steady_now() + 5ms);
            for (int i = 0; i < answer.granted; ++i) {
                grants.push_back(pace.last_time_us());
            }
            std::this_thread::sleep_until(std::min(answer.retry_at, end));
        }
        REQUIRE(grants.size() >= 10);
        for (std::size_t i = 0; i + 6 < grants.size(); ++i) {
            CHECK(grants[i + 6] - grants[i] >= 1'005'000);
        }
    }
    TEST_CASE("grants what conforms now and says when to ask again") {
        if (redis_missing()) {
            return;
        }
        util::SystemClock clock;
        const std::string name = account("partial");
        pace::RedisPace a(store_of(RedisServer::shared()), name, 1, 4, clock);
        pace::RedisPace b(store_of(RedisServer::shared()), name, 1, 4, clock);
        const auto now = clock.steady_now();
        auto first = a.take(now, 10);
        CHECK(first.granted == 5);  // 1 + burst after an idle spell
        CHECK(first.retry_at > now);
        CHECK(first.reason.empty());
        auto second = b.take(now, 3);  // the other runner: the slots are gone
        CHECK(second.granted == 0);
        CHECK(second.reason.empty());
        // Told to come back when the three it wants conform (one a second), not for each one.
        CHECK(second.retry_at > now + 2500ms);
        CHECK(second.retry_at <= now + 3100ms);
        auto one = b.take(now, 1);
        CHECK(one.granted == 0);
        CHECK(one.retry_at > now + 500ms);
        CHECK(one.retry_at <= now + 1100ms);
        CHECK(!b.rate_mismatch());
        std::vector<std::string> told;
        pace::RedisPaceOptions telling;
        telling.warn = [&told](const std::string& w) { told.push_back(w); };
        pace::RedisPace faster(store_of(RedisServer::shared()), name, 2, 4, clock, telling);
        faster.take(now, 1);
        CHECK(faster.rate_mismatch());
        REQUIRE(told.size() == 1);
        CHECK(told[0].find("different rate.per_second or rate.burst (this one: 2/s, burst 4)") != std::string::npos);
        // Told once a run, however often it is seen again.
        b.take(now, 1);
        faster.take(now, 1);
        CHECK(faster.rate_mismatch());
        CHECK(told.size() == 1);
    }
    TEST_CASE("a different burst alone is a mismatch too, told once") {
        if (redis_missing()) {
            return;
        }
        util::SystemClock clock;
        const std::string name = account("burst");
        std::vector<std::string> told;
        pace::RedisPaceOptions telling;
        telling.warn = [&told](const std::string& w) { told.push_back(w); };
        pace::RedisPace a(store_of(RedisServer::shared()), name, 100, 5, clock, telling);
        pace::RedisPace same(store_of(RedisServer::shared()), name, 100, 5, clock, telling);
        pace::RedisPace wider(store_of(RedisServer::shared()), name, 100, 6, clock, telling);
        const auto now = clock.steady_now();
        a.take(now, 1);
        same.take(now, 1);
        CHECK(told.empty());
        wider.take(now, 1);
        CHECK(wider.rate_mismatch());
        CHECK(told.size() == 1);
        a.take(now, 1);
        CHECK(a.rate_mismatch());
        CHECK(told.size() == 2);
    }
    TEST_CASE("a throttle seen by one runner pauses the others, halves the rate once, and the rate climbs back") {
        if (redis_missing()) {
            return;
        }
        RedisServer& server = RedisServer::shared();
        util::SystemClock clock;
        const std::string name = account("throttle");
        pace::RedisPace a(store_of(server), name, 100, 10, clock);
        pace::RedisPace b(store_of(server), name, 100, 10, clock);
        const auto now = clock.steady_now();
        REQUIRE(b.take(now, 1).granted == 1);
        a.on_throttled(now, 2000ms);
        auto paused = b.take(now, 1);
        CHECK(paused.granted == 0);
        CHECK(paused.reason == "rate limited by the service (the account's runners pause together)");
        REQUIRE(paused.paused_until);
        CHECK(*paused.paused_until > clock.wall_now() + 1500ms);
        CHECK(paused.retry_at > now + 1500ms);
        const std::string key = a.key();
        CHECK(std::stod(server.command({"HGET", key, "dec"})) == doctest::Approx(50));
        // Throttles of the same episode (while its pause runs) count once, and may only lengthen it.
        b.on_throttled(now, 5000ms);
        CHECK(std::stod(server.command({"HGET", key, "dec"})) == doctest::Approx(50));
        CHECK(b.take(now, 1).retry_at > now + 4500ms);
        // Five seconds after the pause the rate has climbed by 100/20 a second to 75: a new
        // throttle halves that.
        a.take(now, 1);  // reads Redis's clock
        const long long t = a.last_time_us();
        server.command({"HSET", key, "pause", std::to_string(t - 5'000'000)});
        a.on_throttled(now, 0ms);
        const double dec = std::stod(server.command({"HGET", key, "dec"}));
        CHECK(dec >= 37.5);
        CHECK(dec < 37.6);
        // Twenty seconds after the pause the configured rate is back in force: no decrease left.
        a.take(now, 1);
        server.command({"HSET", key, "pause", std::to_string(a.last_time_us() - 20'000'000)});
        CHECK(a.take(now, 1).granted == 1);
        CHECK(server.command({"HEXISTS", key, "dec"}) == "0");
        // The state expires: idle accounts leave nothing behind.
        const long long ttl = std::stoll(server.command({"PTTL", key}));
        CHECK(ttl > 0);
        CHECK(ttl <= 31'000);
    }
    TEST_CASE("AUTH with the password; a wrong one pauses with a message that never shows it") {
        if (redis_missing()) {
            return;
        }
        RedisServer server("correct-horse-battery");
        util::SystemClock clock;
        pace::RedisPace good(store_of(server, "correct-horse-battery"), account("auth"), 10, 1, clock);
        CHECK(good.take(clock.steady_now(), 1).granted == 1);
        pace::RedisPace bad(store_of(server, "wrong-horse-battery"), account("auth"), 10, 1, clock);
        auto answer = bad.take(clock.steady_now(), 1);
        CHECK(answer.granted == 0);
        CHECK(answer.notice);
        CHECK(answer.reason.starts_with("rate store unreachable: 127.0.0.1:"));
        CHECK(answer.reason.find("AUTH") != std::string::npos);
        CHECK(answer.reason.find("wrong-horse-battery") == std::string::npos);
        CHECK(answer.reason.find("correct-horse-battery") == std::string::npos);
        pace::RedisPace none(store_of(server), account("auth"), 10, 1, clock);
        auto refused = none.take(clock.steady_now(), 1);
        CHECK(refused.granted == 0);
        CHECK(refused.reason.find("NOAUTH") != std::string::npos);
    }
    TEST_CASE("the script is loaded again after SCRIPT FLUSH (NOSCRIPT)") {
        if (redis_missing()) {
            return;
        }
        RedisServer& server = RedisServer::shared();
        util::SystemClock clock;
        pace::RedisPace pace(store_of(server), account("noscript"), 1000, 10, clock);
        CHECK(pace.take(clock.steady_now(), 1).granted == 1);
        CHECK(server.command({"SCRIPT", "FLUSH"}) == "OK");
        auto answer = pace.take(clock.steady_now(), 1);
        CHECK(answer.granted == 1);
        CHECK(answer.reason.empty());
    }
    TEST_CASE("the server stopped: nothing granted, unreachable until it is back, then it goes on") {
        if (redis_missing()) {
            return;
        }
        RedisServer server;
        util::SystemClock clock;
        pace::RedisPace pace(store_of(server), account("down"), 1000, 10, clock);
        const auto now = clock.steady_now();
        CHECK(pace.take(now, 1).granted == 1);
        server.stop();
        auto down = pace.take(now, 1);
        CHECK(down.granted == 0);
        CHECK(down.notice);
        CHECK(down.reason.starts_with("rate store unreachable: 127.0.0.1:" + std::to_string(server.port())));
        CHECK(down.retry_at == now + 1s);
        // Meanwhile it does not try again (nor block).
        CHECK(pace.take(now + 500ms, 1).reason == down.reason);
        pace.on_throttled(now + 500ms, std::nullopt);  // best effort: nothing happens
        server.start();
        CHECK(pace.take(now + 500ms, 1).granted == 0);
        auto back = pace.take(now + 1s, 1);
        CHECK(back.granted == 1);
        CHECK(back.reason.empty());
    }
    TEST_CASE("a reply trickled a byte at a time: nothing granted once the second is up, and it says why") {
        RespFaultServer server(RespFault::trickle);
        util::SystemClock clock;
        pace::RedisPace pace(store_of(server), account("trickle"), 5, 1, clock);
        const auto start = std::chrono::steady_clock::now();
        auto answer = pace.take(clock.steady_now(), 1);
        // About 1 s; bytes arriving every 300 ms no longer extend the wait. 10 s for a slow machine.
        CHECK(std::chrono::steady_clock::now() - start < 10s);
        CHECK(answer.granted == 0);
        CHECK(answer.notice);
        CHECK(answer.reason ==
              "rate store unreachable: 127.0.0.1:" + std::to_string(server.port()) + ": no reply within 1000 ms");
    }
    TEST_CASE("a stop request ends a wait for Redis: nothing granted, nothing to tell") {
        RespFaultServer server(RespFault::trickle);
        util::SystemClock clock;
        std::atomic<int> stops{0};
        pace::RedisPaceOptions options;
        options.command_timeout = 600s;
        options.stop_requests = &stops;
        pace::RedisPace pace(store_of(server), account("stop"), 5, 1, clock, options);
        std::thread signal([&stops] {
            std::this_thread::sleep_for(300ms);
            stops = 1;
        });
        const auto start = std::chrono::steady_clock::now();
        auto answer = pace.take(clock.steady_now(), 1);
        signal.join();
        CHECK(std::chrono::steady_clock::now() - start < 10s);
        CHECK(answer.granted == 0);
        CHECK_FALSE(answer.notice);
        CHECK(answer.reason.empty());
    }
    TEST_CASE("a reply of 2 GB: a few KiB read, the connection closed, nothing granted") {
        RespFaultServer server(RespFault::huge);
        util::SystemClock clock;
        pace::RedisPace pace(store_of(server), account("huge"), 5, 1, clock);
        const long long before = rss_kib();
        const auto start = std::chrono::steady_clock::now();
        auto answer = pace.take(clock.steady_now(), 1);
        CHECK(std::chrono::steady_clock::now() - start < 10s);
        CHECK(rss_kib() - before < 50 * 1024);
        CHECK(answer.granted == 0);
        CHECK(answer.reason ==
              "rate store unreachable: 127.0.0.1:" + std::to_string(server.port()) + ": a reply over 4096 bytes");
        // It asks again only after a second, on a new connection.
        CHECK(pace.take(clock.steady_now(), 1).reason == answer.reason);
        CHECK(server.connections() == 1);
    }
}
