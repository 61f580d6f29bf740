#!/usr/bin/env python3
"""Figures from a wacamp result log (and a sandbox journal) for the benchmark scripts.

    log_stats.py counts LOG             statuses (last result per row), attempts, sent per second
    log_stats.py pacing LOG [JOURNAL]   + the most requests started in any one-second window

Prints one JSON object. Timestamps in both files are ISO 8601 UTC with milliseconds; a window
[t, t + 1000 ms) over millisecond times counts exactly the requests of a real one-second window
(a time recorded as t lies in [t, t + 1 ms)), so the maximum over windows starting at a request
can miss at most the requests of one millisecond. Python's standard library only.
"""

import calendar
import collections
import json
import sys

_day_ms = {}


def to_ms(stamp):
    """'2026-11-21T09:30:00.123Z' -> milliseconds since the epoch (fast: days are cached)."""
    day = stamp[:10]
    base = _day_ms.get(day)
    if base is None:
        y, m, d = (int(x) for x in day.split("-"))
        base = calendar.timegm((y, m, d, 0, 0, 0)) * 1000
        _day_ms[day] = base
    h, mi, s = int(stamp[11:13]), int(stamp[14:16]), int(stamp[17:19])
    frac = stamp[20:23] if len(stamp) > 20 and stamp[19] == "." else "000"
    return base + ((h * 60 + mi) * 60 + s) * 1000 + int(frac)


def max_in_window(times_ms, width_ms=1000):
    """The most times in any [t, t + width) that starts at one of them."""
    times = sorted(times_ms)
    best, j = 0, 0
    for i, t in enumerate(times):
        while j < len(times) and times[j] < t + width_ms:
            j += 1
        best = max(best, j - i)
    return best


def read_log(path):
    status = {}
    attempts = []
    for line in open(path, encoding="utf-8", errors="replace"):
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a torn line
        event = record.get("event")
        if event == "attempt":
            attempts.append(to_ms(record["at"]))
        elif event == "result":
            status[record["row"]] = record["status"]
    return collections.Counter(status.values()), attempts


def read_journal(path):
    return [to_ms(j["at"]) for j in map(json.loads, open(path, encoding="utf-8"))
            if j.get("path") == "/whatsapp-automation/wa/send-message"]


def span_rate(times_ms):
    """Requests per second between the first and the last start: (n - 1) intervals over the span."""
    if len(times_ms) < 2:
        return 0.0
    span = (max(times_ms) - min(times_ms)) / 1000
    return (len(times_ms) - 1) / span if span > 0 else float("inf")


def main(argv):
    if len(argv) < 3 or argv[1] not in ("counts", "pacing"):
        sys.exit(__doc__)
    counts, attempts = read_log(argv[2])
    out = {"counts": dict(counts), "sent": counts.get("sent", 0), "attempts": len(attempts)}
    if attempts:
        out["first_attempt_ms"] = min(attempts)
        out["last_attempt_ms"] = max(attempts)
        out["attempt_span_s"] = (max(attempts) - min(attempts)) / 1000
        out["attempt_rate"] = span_rate(attempts)
    if argv[1] == "pacing":
        out["max_in_1s_log"] = max_in_window(attempts)
        if len(argv) > 3:
            received = read_journal(argv[3])
            out["journal_requests"] = len(received)
            out["journal_rate"] = span_rate(received)
            out["max_in_1s_journal"] = max_in_window(received)
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main(sys.argv)
