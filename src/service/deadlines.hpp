#pragma once
// Each request's deadline, kept by the transport rather than by libcurl, counted in time the
// process was running: a wake-up far later than asked for means the process was stopped
// (SIGSTOP, Ctrl-Z, a suspended laptop or VM, `docker pause`), and that time is not held
// against the requests in flight. Pure: every call takes `now`.

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace service {

class Deadlines {
public:
    using Steady = std::chrono::steady_clock::time_point;

    // A wake-up later than asked by more than `max_lateness` counts as a stop.
    explicit Deadlines(std::chrono::milliseconds max_lateness = std::chrono::milliseconds(1000));

    // Request `id`, started at `now`, expires `timeout` of running time later.
    void add(std::uint64_t id, Steady now, std::chrono::milliseconds timeout);
    // Forgets request `id` (answered or expired); no-op when unknown.
    void remove(std::uint64_t id);
    // The caller meant to be running again by `asked` and it is `now`: when later by more
    // than max_lateness, the whole lateness is not counted against any request.
    void woke(Steady asked, Steady now);
    // When the earliest deadline passes (as of what is known now); nothing when none.
    std::optional<Steady> next() const;
    // The requests whose deadline passed at `now`, earliest first.
    std::vector<std::uint64_t> expired(Steady now) const;
    // How much stopped time has been discounted so far.
    std::chrono::steady_clock::duration stopped() const { return m_stopped; }

private:
    std::chrono::steady_clock::duration m_max_lateness;
    std::chrono::steady_clock::duration m_stopped{0};
    // Deadlines in running time: the real time it passes is the value plus m_stopped.
    std::set<std::pair<Steady, std::uint64_t>> m_order;
    std::unordered_map<std::uint64_t, Steady> m_by_id;
};

}  // namespace service
