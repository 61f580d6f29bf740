#!/usr/bin/python3
"""An HTTP/2 server over TLS (ALPN h2 only) that answers the service's send operation like the
sandbox does and fails on purpose, for wacamp's end-to-end tests of what HTTP/2 failures mean.

A GET (the template list a run reads before it sends, to open its connection) is answered with
an empty list, never journaled and never faulted. Every other request it processes (receives
whole and treats as delivered) is one line of --journal:
"WA_ID STREAM_ID OUTCOME" (outcome: answered, reset, closed). A stream it refuses or leaves
above a GOAWAY's last-stream-id is never processed and never journaled.

Faults, counted over all connections (the Nth, 2Nth, ... of each kind):
  --refuse-every N   RST_STREAM(REFUSED_STREAM) on a stream's HEADERS, before its body is read
  --goaway-every N   on the Nth whole request: GOAWAY with the last-stream-id of the last stream
                     answered on that connection (that request and every stream in flight above
                     it are not processed), then the connection is closed
  --reset-every N    the whole request is processed (journaled), then RST_STREAM(INTERNAL_ERROR)
                     instead of an answer
  --reset-goaway-every N  as --reset-every, then GOAWAY naming every stream begun as taken (so
                     the reset stream is not refused by it) and the connection closes
  --garbage-every N  the whole request is processed (journaled), then a frame that breaks the
                     protocol instead of an answer (the client ends the connection)
  --close-every N    the whole request is processed (journaled), then the TCP connection closes
                     without an answer
Each fault hits at most --fault-limit times in all (default: no limit).

Prints "listening on PORT" once it accepts connections on 127.0.0.1:PORT (--port 0: a free one).
Needs Debian's python3-h2; without it, exits 77.
"""

import argparse
import json
import os
import socket
import ssl
import sys
import threading

try:
    import h2.config
    import h2.connection
    import h2.events
    import h2.errors
    import h2.exceptions
except ImportError:
    print("wacamp-test-skipped: python3-h2 is not installed", file=sys.stderr)
    sys.exit(77)


class Faults:
    """The fault counters, shared by every connection."""

    def __init__(self, args):
        self.every = {
            "refuse": args.refuse_every,
            "goaway": args.goaway_every,
            "reset": args.reset_every,
            "close": args.close_every,
            "reset_goaway": args.reset_goaway_every,
            "garbage": args.garbage_every,
        }
        self.seen = {name: 0 for name in self.every}
        self.hits = {name: 0 for name in self.every}
        self.limit = args.fault_limit
        self.lock = threading.Lock()

    def hit(self, name):
        """Counts one more occasion for fault `name`; whether it strikes this time."""
        with self.lock:
            every = self.every[name]
            if every <= 0 or (self.limit >= 0 and self.hits[name] >= self.limit):
                return False
            self.seen[name] += 1
            if self.seen[name] % every != 0:
                return False
            self.hits[name] += 1
            return True


class Journal:
    def __init__(self, path):
        self.file = open(path, "a", encoding="utf-8")
        self.lock = threading.Lock()

    def write(self, wa_id, stream_id, outcome):
        with self.lock:
            self.file.write(f"{wa_id} {stream_id} {outcome}\n")
            self.file.flush()
            os.fsync(self.file.fileno())


class Connection:
    def __init__(self, sock, faults, journal, counter):
        self.sock = sock
        self.faults = faults
        self.journal = journal
        self.counter = counter
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.bodies = {}  # stream id -> body so far, of streams being received
        self.refused = set()
        self.last_answered = 0
        self.closing = False

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def run(self):
        try:
            self.h2.initiate_connection()
            self.flush()
            while not self.closing:
                data = self.sock.recv(65536)
                if not data:
                    break
                try:
                    events = self.h2.receive_data(data)
                except h2.exceptions.ProtocolError:
                    break
                for event in events:
                    self.handle(event)
                    if self.closing:
                        break
                if not self.closing:
                    self.flush()
        except (OSError, ssl.SSLError):
            pass
        finally:
            self.close()

    def handle(self, event):
        if isinstance(event, h2.events.RequestReceived):
            sid = event.stream_id
            if (b":method", b"GET") in event.headers or (":method", "GET") in event.headers:
                self.list_templates(sid)
                return
            if self.faults.hit("refuse"):
                self.refused.add(sid)
                self.h2.reset_stream(sid, h2.errors.ErrorCodes.REFUSED_STREAM)
                return
            self.bodies[sid] = b""
            if event.stream_ended:
                self.complete(sid)
        elif isinstance(event, h2.events.DataReceived):
            sid = event.stream_id
            self.h2.acknowledge_received_data(event.flow_controlled_length, sid)
            if sid in self.bodies:
                self.bodies[sid] += event.data
                if event.stream_ended:
                    self.complete(sid)
        elif isinstance(event, h2.events.StreamEnded):
            pass  # handled with the event that carried END_STREAM
        elif isinstance(event, h2.events.StreamReset):
            self.bodies.pop(event.stream_id, None)
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.closing = True

    def list_templates(self, sid):
        """A GET (the template list a run reads before it sends) is answered at once, an empty
        list: never journaled, never faulted."""
        answer = b'{"success":true,"data":[]}'
        self.h2.send_headers(
            sid,
            [(":status", "200"), ("content-type", "application/json; charset=utf-8"), ("content-length", str(len(answer)))],
        )
        self.h2.send_data(sid, answer, end_stream=True)
        self.last_answered = max(self.last_answered, sid)

    def complete(self, sid):
        body = self.bodies.pop(sid)
        if self.faults.hit("goaway"):
            # Neither this stream nor any in flight above the last answered one is processed.
            self.h2.close_connection(error_code=h2.errors.ErrorCodes.NO_ERROR, last_stream_id=self.last_answered)
            self.flush()
            self.closing = True
            return
        try:
            wa_id = json.loads(body).get("wa_id", "?")
        except ValueError:
            wa_id = "?"
        if self.faults.hit("reset"):
            self.journal.write(wa_id, sid, "reset")
            self.h2.reset_stream(sid, h2.errors.ErrorCodes.INTERNAL_ERROR)
            return
        if self.faults.hit("reset_goaway"):
            self.journal.write(wa_id, sid, "reset")
            self.h2.reset_stream(sid, h2.errors.ErrorCodes.INTERNAL_ERROR)
            self.h2.close_connection(error_code=h2.errors.ErrorCodes.NO_ERROR, last_stream_id=self.h2.highest_inbound_stream_id)
            self.flush()
            self.closing = True
            return
        if self.faults.hit("garbage"):
            self.journal.write(wa_id, sid, "garbage")
            self.flush()
            # A CONTINUATION frame with no HEADERS before it: a connection error (PROTOCOL_ERROR).
            self.sock.sendall(b"\x00\x00\x01\x09\x04" + sid.to_bytes(4, "big") + b"x")
            return
        if self.faults.hit("close"):
            self.journal.write(wa_id, sid, "closed")
            self.closing = True
            return
        self.journal.write(wa_id, sid, "answered")
        answer = json.dumps(
            {
                "success": True,
                "message": "Message sent successfully",
                "data": {"messageId": f"wamid.H2FAULT{next(self.counter):012d}"},
            },
            separators=(",", ":"),
        ).encode()
        self.h2.send_headers(
            sid,
            [(":status", "200"), ("content-type", "application/json; charset=utf-8"), ("content-length", str(len(answer)))],
        )
        self.h2.send_data(sid, answer, end_stream=True)
        self.last_answered = max(self.last_answered, sid)

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def counter():
    n = 0
    lock = threading.Lock()
    while True:
        with lock:
            n += 1
            value = n
        yield value


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert", required=True, help="PEM certificate chain")
    parser.add_argument("--key", required=True, help="PEM private key")
    parser.add_argument("--journal", required=True, help="file: one line per request processed")
    parser.add_argument("--refuse-every", type=int, default=0)
    parser.add_argument("--goaway-every", type=int, default=0)
    parser.add_argument("--reset-every", type=int, default=0)
    parser.add_argument("--close-every", type=int, default=0)
    parser.add_argument("--reset-goaway-every", type=int, default=0)
    parser.add_argument("--garbage-every", type=int, default=0)
    parser.add_argument("--fault-limit", type=int, default=-1)
    args = parser.parse_args()

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    context.set_alpn_protocols(["h2"])

    faults = Faults(args)
    journal = Journal(args.journal)
    ids = counter()
    ids_lock = threading.Lock()

    class Ids:
        def __next__(self):
            with ids_lock:
                return next(ids)

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(128)
    print(f"listening on {listener.getsockname()[1]}", flush=True)

    def serve(raw):
        try:
            tls = context.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            return
        if tls.selected_alpn_protocol() != "h2":
            tls.close()
            return
        Connection(tls, faults, journal, Ids()).run()

    while True:
        raw, _ = listener.accept()
        threading.Thread(target=serve, args=(raw,), daemon=True).start()


if __name__ == "__main__":
    main()
