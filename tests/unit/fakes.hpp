#pragma once
// Fakes for unit tests: stand-ins for the side effects behind wacamp's small interfaces.

#include <chrono>
#include <cstddef>
#include <utility>
#include <vector>

#include <stdlib.h>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include "runner/ui.hpp"
#include "runner/watch.hpp"
#include "service/http.hpp"
#include "util/clock.hpp"

namespace fakes {

// A clock that only moves when told to. Both times start at fixed, arbitrary points.
class FakeClock final : public util::Clock {
public:
    std::chrono::steady_clock::time_point steady_now() const override { return m_steady; }
    util::TimePoint wall_now() const override { return m_wall; }
    // Moves both clocks forward by `d` at once, and counts the call.
    void sleep_for(util::Millis d) override {
        ++sleeps;
        advance(d);
    }
    int sleeps = 0;  // calls of sleep_for()

    // Moves both clocks forward by `d`.
    void advance(std::chrono::steady_clock::duration d) {
        m_steady += d;
        m_wall += std::chrono::duration_cast<util::TimePoint::duration>(d);
    }
    // Sets the steady clock to `t` (the wall clock moves by the same amount).
    void set_steady(std::chrono::steady_clock::time_point t) { advance(t - m_steady); }
    // Sets the wall clock alone.
    void set_wall(util::TimePoint t) { m_wall = t; }

private:
    std::chrono::steady_clock::time_point m_steady{std::chrono::hours(1000)};
    util::TimePoint m_wall{std::chrono::sys_days{std::chrono::year{2026} / 3 / 1}};
};

// A random source in [0, 1) that returns the given values in turn, starting over at the end.
// Copies share nothing: give the policy under test its own FakeRandom.
class FakeRandom {
public:
    explicit FakeRandom(std::vector<double> values) : m_values(std::move(values)) {}
    double operator()() {
        const double v = m_values[m_next];
        m_next = (m_next + 1) % m_values.size();
        return v;
    }

private:
    std::vector<double> m_values;
    std::size_t m_next = 0;
};

// A transport in simulated time: each request completes `latency` after it starts with
// whatever `answer` says; poll() moves the FakeClock forward instead of waiting (to the first
// answer due, or with Wait::whole to the end of the wait).
class FakeTransport final : public service::HttpTransport {
public:
    using Answer = std::variant<service::HttpResponse, service::TransportError>;
    using Responder = std::function<Answer(const service::HttpRequest&)>;

    FakeTransport(FakeClock& clock, Responder answer, std::chrono::milliseconds latency)
        : m_clock(clock), m_answer(std::move(answer)), m_latency(latency) {}

    void start(std::uint64_t id, service::HttpRequest request) override {
        started.push_back({m_clock.steady_now(), request});
        max_in_flight = std::max(max_in_flight, m_pending.size() + 1);
        m_pending.emplace(id, Pending{m_clock.steady_now() + m_latency, m_answer(request)});
    }

    std::vector<service::Completion> poll(std::chrono::microseconds max_wait,
                                          service::Wait wait = service::Wait::first_progress) override {
        ++polls;
        whole_polls += wait == service::Wait::whole ? 1 : 0;
        auto deadline = m_clock.steady_now() + max_wait;
        auto next = deadline;
        for (const auto& [id, p] : m_pending) {
            if (wait == service::Wait::first_progress) {
                next = std::min(next, p.due);
            }
        }
        if (next > m_clock.steady_now()) {
            m_clock.set_steady(next);
        }
        std::vector<service::Completion> done;
        for (auto it = m_pending.begin(); it != m_pending.end();) {
            if (it->second.due <= m_clock.steady_now()) {
                done.push_back({it->first, std::move(it->second.answer), m_latency});
                it = m_pending.erase(it);
            } else {
                ++it;
            }
        }
        return done;
    }

    std::size_t in_flight() const override { return m_pending.size(); }

    struct Started {
        std::chrono::steady_clock::time_point at;
        service::HttpRequest request;
    };
    std::vector<Started> started;
    std::size_t max_in_flight = 0;
    int polls = 0;        // calls of poll()
    int whole_polls = 0;  // of which with Wait::whole

private:
    struct Pending {
        std::chrono::steady_clock::time_point due;
        Answer answer;
    };
    FakeClock& m_clock;
    Responder m_answer;
    std::chrono::milliseconds m_latency;
    std::map<std::uint64_t, Pending> m_pending;
};

// An HTTP answer with `status` and `body`, and optionally a Retry-After header.
inline service::HttpResponse http_answer(long status, std::string body, std::string retry_after = "") {
    service::HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    if (!retry_after.empty()) {
        r.headers.emplace_back("retry-after", std::move(retry_after));
    }
    return r;
}

// A run's user interface that answers confirmations with `answer` and keeps what it is told.
class FakeUi final : public runner::RunUi {
public:
    enum class Confirm { never_asked, yes, no };
    explicit FakeUi(Confirm answer = Confirm::never_asked) : m_answer(answer) {}

    bool wants_confirmation() const override { return m_answer != Confirm::never_asked; }
    bool confirm(const runner::Preview& preview) override {
        previews.push_back(preview);
        return m_answer == Confirm::yes;
    }
    void notice(std::string_view text) override { notices.emplace_back(text); }
    void warning(std::string_view text) override { warnings.emplace_back(text); }
    void waiting_to_start(util::TimePoint at, util::TimePoint /*now*/) override { start_waits.push_back(at); }
    void paused(const queue::Progress& progress) override { pauses.push_back(progress); }
    void progress(const queue::Progress& /*progress*/, const runner::RunFigures& /*figures*/) override {}

    std::vector<runner::Preview> previews;
    std::vector<std::string> notices;
    std::vector<std::string> warnings;
    std::vector<util::TimePoint> start_waits;  // schedule.start_at, each time the wait was told
    std::vector<queue::Progress> pauses;

private:
    Confirm m_answer;
};

// A watch of a run that keeps what it is told.
class FakeWatch final : public runner::RunWatch {
public:
    void recorded(results::Status status, results::Cause cause) override { records.emplace_back(status, cause); }
    void answered(const service::Outcome& outcome) override { answers.push_back(outcome.cause); }
    void progress(const queue::Progress& progress, const runner::RunFigures& figures) override {
        last_progress = progress;
        last_figures = figures;
        ++progresses;
    }

    std::vector<std::pair<results::Status, results::Cause>> records;
    std::vector<service::Cause> answers;
    queue::Progress last_progress;
    runner::RunFigures last_figures;
    int progresses = 0;
};

// A fresh folder under the system's temporary folder, removed with its content afterwards.
struct TempDir {
    std::filesystem::path path;
    TempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "wacamp-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw std::runtime_error("mkdtemp failed");
        }
        path = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    // Returns the path of `name` inside the folder.
    std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace fakes
