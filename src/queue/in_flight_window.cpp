#include "queue/in_flight_window.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace queue {

namespace {

constexpr double k_headroom = 1.25;
constexpr int k_initial_window = 32;
constexpr std::int64_t k_min_samples = 64;
constexpr std::int64_t k_max_samples = 4096;
constexpr double k_seconds_of_samples = 1.0;
constexpr double k_opening_seconds = 0.25;

// A paced queue may have this many in flight before it knows the latency: a quarter second
// of its rate (the rate limiter, not the window, keeps the service from being flooded).
int opening(double rate) {
    if (!(rate > 0) || !std::isfinite(rate)) {
        return 0;
    }
    return static_cast<int>(std::min(std::ceil(rate * k_opening_seconds), 1e9));
}

// How many of the latest answers make the mean at `rate`: about a second's worth.
std::int64_t samples_for(double rate) {
    if (!(rate > 0) || !std::isfinite(rate)) {
        return k_min_samples;
    }
    const double wanted = std::ceil(rate * k_seconds_of_samples);
    return static_cast<std::int64_t>(
        std::clamp(wanted, static_cast<double>(k_min_samples), static_cast<double>(k_max_samples)));
}

}  // namespace

InFlightWindow::InFlightWindow(int cap, int burst)
    : m_cap(std::max(cap, 1)),
      m_burst(std::max(burst, 0)),
      m_grown(std::min(m_cap, k_initial_window)),
      m_sums(static_cast<std::size_t>(k_max_samples + 1), 0) {}

void InFlightWindow::on_answer(std::chrono::microseconds latency) {
    const auto size = static_cast<std::int64_t>(m_sums.size());
    const std::int64_t previous = m_sums[static_cast<std::size_t>(m_answers % size)];
    ++m_answers;
    m_sums[static_cast<std::size_t>(m_answers % size)] = previous + std::max<std::int64_t>(latency.count(), 0);
    m_grown = std::min(m_cap, m_grown + 1);
}

double InFlightWindow::mean_micros(double rate) const {
    const std::int64_t n = std::min(m_answers, samples_for(rate));
    if (n == 0) {
        return 0;
    }
    const auto size = static_cast<std::int64_t>(m_sums.size());
    const std::int64_t total =
        m_sums[static_cast<std::size_t>(m_answers % size)] - m_sums[static_cast<std::size_t>((m_answers - n) % size)];
    return static_cast<double>(total) / static_cast<double>(n);
}

std::chrono::microseconds InFlightWindow::latency_estimate(double rate) const {
    return std::chrono::microseconds(std::llround(mean_micros(rate)));
}

int InFlightWindow::limit(double rate) const {
    const int ceiling = std::min(m_cap, std::max(m_grown, opening(rate)));
    if (m_answers == 0 || !(rate < std::numeric_limits<double>::infinity())) {
        return ceiling;
    }
    const double in_flight = std::max(rate, 0.0) * mean_micros(rate) / 1e6;  // Little's law
    const double wanted = std::ceil(in_flight * k_headroom) + m_burst;
    return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(ceiling)));
}

}  // namespace queue
