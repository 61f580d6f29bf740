#pragma once
// `rate.concurrency: auto`: how many requests may be in flight, sized by Little's law from the
// latency the service shows (in flight = rate x latency). Pure: it is fed each answer's latency
// and asked with the rate in force; it reads no clock.

#include <chrono>
#include <cstdint>
#include <vector>

namespace queue {

// limit(rate) = clamp(ceil(rate x W x 1.25) + burst, 1, min(cap, grown)), where
// - W is the mean latency of the last n answers, n = clamp(ceil(rate x 1 s), 64, 4096): about
//   the last second of answers. Little's law needs the mean; a window of a second rather than of
//   a few answers keeps a rare slow answer (a 1 % tail of 5 s) in the mean, so the requests it
//   holds up do not starve the rate, and forgets a latency that has gone within about a second.
// - 1.25 is headroom: the number in flight swings around its mean, and a rising latency shows in
//   W only as its answers come back.
// - `burst`: after an idle spell the rate limiter lets 1 + burst requests start at once.
// - grown is a slow start: 32 before the first answer (a service of unknown latency is not
//   flooded), one more per answer, so it doubles every round trip: 32, 64, 128 reach the 125
//   that 1000/s at 100 ms needs in two round trips (0.2 s; from 16 the ramp lost 0.19 s of
//   sending, which a 30-second campaign held to 990/s cannot spare). It never shrinks.
// - Before the first answer, or for an unlimited rate (infinity), the limit is min(cap, grown):
//   with `per_second: unlimited` the window opens up to the cap.
// A lower rate in force (the service throttled) or a lower latency lowers the limit at once.
// Not thread-safe.
class InFlightWindow {
public:
    // A window of at most `cap` (values below 1 count as 1) for a limiter with `burst` (below 0
    // counts as 0).
    InFlightWindow(int cap, int burst);

    // Counts an answer that took `latency` (any outcome; a negative one counts as 0).
    void on_answer(std::chrono::microseconds latency);

    // The most requests that may be in flight at `rate` requests/s (the rate in force; infinity
    // for no limit); always between 1 and the cap.
    int limit(double rate) const;

    // The latency estimate W at `rate`; zero before the first answer.
    std::chrono::microseconds latency_estimate(double rate) const;

private:
    double mean_micros(double rate) const;

    int m_cap;
    int m_burst;
    int m_grown;
    std::int64_t m_answers = 0;
    std::vector<std::int64_t> m_sums;  // ring: [i % size] = total latency (µs) of the first i answers
};

} // namespace queue
