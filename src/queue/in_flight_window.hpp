#pragma once
// `rate.concurrency: auto`: how many requests may be in flight, sized by Little's law from the
// latency the service shows (in flight = rate x latency). Pure: it is fed each answer's latency
// and asked with the rate in force; it reads no clock.

#include <chrono>
#include <cstdint>
#include <vector>

namespace queue {

// limit(rate) = clamp(ceil(rate x W x 1.25) + burst, 1, min(cap, max(grown, opening))), where
// - W is the mean latency of the last n answers, n = clamp(ceil(rate x 1 s), 64, 4096): about
//   the last second of answers. Little's law needs the mean; a window of a second rather than of
//   a few answers keeps a rare slow answer (a 1 % tail of 5 s) in the mean, so the requests it
//   holds up do not starve the rate, and forgets a latency that has gone within about a second.
// - 1.25 is headroom: the number in flight swings around its mean, and a rising latency shows in
//   W only as its answers come back.
// - `burst`: after an idle spell the rate limiter lets 1 + burst requests start at once.
// - grown is a slow start: 32 before the first answer (a service of unknown latency is not
//   flooded), one more per answer, so it doubles every round trip: 32, 64, 128. It never
//   shrinks. It is what holds an unlimited rate back.
// - opening is a quarter second of a finite rate (250 at 1000/s): a paced queue is already
//   kept from flooding the service by its rate, so it need not wait for the slow start (which
//   cost 1000/s at 100 ms a fifth of a second of sending, 0.7 % of a 30-second campaign).
// - Before the first answer, or for an unlimited rate (infinity), the limit is the ceiling
//   min(cap, max(grown, opening)): with `per_second: unlimited` the window opens up to the cap.
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

}  // namespace queue
