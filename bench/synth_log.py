#!/usr/bin/env python3
"""Writes a synthetic result log of N recipients to stdout, for measuring `wacamp report`
without a real run: a campaign header, then per row an attempt and a result (1 row in 100
failed, in three error groups; 1 in 1000 left in flight, an attempt without a result), one
row per millisecond, and an end record. ~330 bytes a recipient.
    bench/synth_log.py N > log.jsonl"""
import datetime
import sys

n = int(sys.argv[1])
start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
out = sys.stdout
out.write('{"event":"campaign","name":"synth","campaign_file":"/abs/c.yaml","campaign_sha256":"%s",'
          '"recipients_file":"/abs/r.csv","recipients_sha256":"%s","started_at":"2026-01-01T00:00:00.000Z",'
          '"version":"0.1.0","mode":"send"}\n' % ("0" * 64, "0" * 64))
errors = [
    (400, 131026, "undeliverable", "HTTP 400: (#131026) Message undeliverable"),
    (400, 131047, "reengagement", "HTTP 400: (#131047) Re-engagement message"),
    (500, 131000, "server", "HTTP 500: (#131000) Something went wrong"),
]
counts = {"sent": 0, "failed": 0, "unknown": 0}
buf = []
second = None
prefix = ""
for row in range(1, n + 1):
    ms = row
    s = ms // 1000
    if s != second:
        second = s
        prefix = (start + datetime.timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%S.")
    at = "%s%03dZ" % (prefix, ms % 1000)
    wa = "9198%08d" % row
    buf.append('{"event":"attempt","row":%d,"wa_id":"%s","attempt":1,"at":"%s"}\n' % (row, wa, at))
    if row % 1000 == 7:
        counts["unknown"] += 1
    elif row % 100 == 3:
        http, code, cause, error = errors[row % 3]
        counts["failed"] += 1
        buf.append('{"event":"result","row":%d,"wa_id":"%s","user_name":"User %d","status":"failed","attempts":1,'
                   '"http_status":%d,"error_code":%d,"error":"%s","cause":"%s","latency_ms":%d,"at":"%s"}\n'
                   % (row, wa, row, http, code, error, cause, 20 + row % 50, at))
    else:
        counts["sent"] += 1
        buf.append('{"event":"result","row":%d,"wa_id":"%s","user_name":"User %d","status":"sent","attempts":1,'
                   '"http_status":200,"message_id":"wamid.HBgM%016d","latency_ms":%d,"at":"%s"}\n'
                   % (row, wa, row, row, 20 + row % 50, at))
    if len(buf) >= 20000:
        out.write("".join(buf))
        buf.clear()
out.write("".join(buf))
out.write('{"event":"end","reason":"interrupted","counts":{"sent":%d,"failed":%d,"invalid":0,"skipped":0,'
          '"dry_run":0,"unknown":%d},"at":"%s"}\n' % (counts["sent"], counts["failed"], counts["unknown"], at))
