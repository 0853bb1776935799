#!/usr/bin/env python3
"""`make bench-serve-scale`: how much one `nse serve` holds: 1,000 devices, 1,000,000 pushes, then the reads.

Starts the release `nse-serve` (the program `nse serve` runs in its place) with a generated devices file of DEVICES
iPhones (and `providerKeys`, so every provider token's ES256 signature is verified) and a fresh data folder, then
sends text-only APNs pushes with h2load (nghttp2-client) over one HTTP/2 connection with 100 concurrent streams,
STEP at a time, spread over the devices: HOT percent go to the first device (a tester's own phone, so a long
history exists to read back), the rest round-robin over the others. After each step it waits until every device
has nothing pending (the control API's `?settled=1`, device after device) and prints a row: the server's resident
memory (VmRSS), the journal and its index on disk, pushes/s accepted (h2load's wall) and delivered (accepted and
run through every phone), and the server's CPU seconds for the step (less disturbed by the machine's other load).

Then the control API reads a test makes, each with its wall, the server's CPU and its peak resident memory while
answering (sampled every 10 ms): the hot device's newest notifications (the default 1,000, then ?limit=100000),
an ordinary device's with ?limit=100000, a message by apns-id, and the events stream's replay with Last-Event-ID
(an ordinary device's whole history from 0, read along its chain in the index; every device's last 10,000 pushes).
Then a restart after a stop (SIGTERM: the server writes its checkpoint, `<data>/journal.checkpoint`, and the new one
reads only the journal after it), and one without the checkpoint (deleted: the whole journal read, as after a first
start on an older server's data): the time until the new server listens, until it answers the hot device's newest
notifications as before, its CPU and memory.

Usage: python3 Benchmarks/serve_scale.py [--serve .build/release/nse-serve] [--devices 1000] [--total 1000000]
       [--step 100000] [--hot 10] [--data DIR (kept)] [--start-only (the devices' cost alone)]
--restart-only on a kept --data times a restart alone (the same --devices: the tokens are made from it).
(kill -USR1 <its pid> ends the pushes after the current step; the reads and the restart follow.)
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

TOPIC = "com.example.shop"
KEY_ID = "BENCHKEY01"
TEAM_ID = "TEAM123456"
MARKED_ID = "5CA1E000-0000-4000-8000-000000000001"


def token(number):
    return f"{number + 1:064x}"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mib(path):
    return os.path.getsize(path) / (1 << 20) if os.path.exists(path) else 0.0


class Measured:
    """Wall, the server's CPU seconds and its peak resident memory over a `with` block."""

    def __init__(self, pid):
        self.pid = pid

    def __enter__(self):
        self.peak = rss_mib(self.pid)
        self.running = True
        self.cpu = cpu_seconds(self.pid)
        self.started = time.monotonic()

        def sample():
            while self.running:
                self.peak = max(self.peak, rss_mib(self.pid))
                time.sleep(0.01)

        self.sampler = threading.Thread(target=sample, daemon=True)
        self.sampler.start()
        return self

    def __exit__(self, *failure):
        self.wall = time.monotonic() - self.started
        self.running = False
        self.sampler.join()
        self.peak = max(self.peak, rss_mib(self.pid))
        self.cpu = cpu_seconds(self.pid) - self.cpu
        self.after = rss_mib(self.pid)


class Server:
    def __init__(self, serve, devices, data):
        self.port = free_port()
        self.process = subprocess.Popen([serve, "--port", str(self.port), "--devices", devices, "--data", data],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.started = time.monotonic()
        first = self.process.stdout.readline()
        if "listening" not in first:
            sys.exit(f"nse-serve did not start: {first}{self.process.stdout.read()}")
        self.listening = time.monotonic() - self.started
        # The rest of the banner, and anything later, is read and dropped so the pipe never fills.
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()

    @property
    def pid(self):
        return self.process.pid

    def get(self, path, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        connection.request("GET", path, headers=headers or {})
        answer = connection.getresponse()
        body = answer.read()
        connection.close()
        if answer.status != 200:
            sys.exit(f"GET {path}: {answer.status} {body[:300]!r}")
        return answer, body

    def settle(self, tokens):
        """Waits until no device has a pending push (each ?settled=1 waits at most 60 s; asked again until none)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        for device in tokens:
            while True:
                connection.request("GET", f"/emulator/v1/devices/{device}/notifications?settled=1&limit=1")
                newest = json.loads(connection.getresponse().read())["notifications"]
                if not newest or newest[0]["status"] == "delivered":
                    break
        connection.close()

    def events(self, path, last_event_id, count):
        """Reads the events stream until `count` events came; returns their ids."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        connection.request("GET", path, headers={"Last-Event-ID": str(last_event_id)})
        answer = connection.getresponse()
        ids = []
        while len(ids) < count:
            line = answer.fp.readline()
            if not line:
                break
            if line.startswith(b"id: "):
                ids.append(int(line[4:]))
        connection.close()
        return ids

    def stop(self):
        self.process.terminate()
        self.process.wait()


def journal_events(path, after):
    """How many push and delivery lines start at or after byte `after` (the events `Last-Event-ID: after` replays:
    an event's id is its line's position plus one)."""
    count = 0
    with open(path, "rb") as journal:
        if after > 0:
            journal.seek(after - 1)
            journal.readline()  # the end of the line before `after`, or the line `after` falls inside
        for line in journal:
            if line.startswith(b'{"type":"push",') or line.startswith(b'{"type":"delivery",'):
                count += 1
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--serve", default=".build/release/nse-serve")
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--step", type=int, default=100_000)
    parser.add_argument("--hot", type=int, default=10, help="percent of the pushes that go to the first device")
    parser.add_argument("--data", help="the data folder (kept; default: a temporary one, removed at the end)")
    parser.add_argument("--start-only", action="store_true", help="start with the devices, print the time and memory, stop")
    parser.add_argument("--restart-only", action="store_true", help="start on --data (a run's, kept) and time the replay alone")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="nse-serve-scale-")
    data = args.data or os.path.join(work, "data")
    journal = os.path.join(data, "journal.jsonl")
    index = os.path.join(data, "journal.index")
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    tokens = [token(number) for number in range(args.devices)]
    devices = os.path.join(work, "devices.json")
    with open(devices, "w") as handle:
        json.dump({"devices": [{"name": f"iPhone {number}", "apns": {"token": device}, "bundleId": TOPIC}
                               for number, device in enumerate(tokens)],
                   "providerKeys": [{"keyID": KEY_ID, "teamID": TEAM_ID, "publicKey": public}]}, handle)
    payload = os.path.join(work, "payload.json")
    with open(payload, "w") as handle:
        json.dump({"aps": {"alert": {"title": "Order shipped", "body": "Arrives Tuesday"}}}, handle)
    # h2load takes the URIs in turn: the hot device once in every 100 / HOT, the others between.
    hot, ordinary = tokens[0], tokens[1:]
    uris = []
    gap = max(1, round(100 / args.hot) - 1) if args.hot else len(ordinary)
    for position, device in enumerate(ordinary):
        if args.hot and position % gap == 0:
            uris.append(hot)
        uris.append(device)
    uri_file = os.path.join(work, "uris")

    def bearer():
        # A provider token is valid for an hour: a new one for every step.
        return jwt.encode({"iss": TEAM_ID, "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": KEY_ID})

    if args.restart_only:
        restarted = Server(args.serve, devices, data)
        listening_cpu, listening_rss = cpu_seconds(restarted.pid), rss_mib(restarted.pid)
        _, body = restarted.get(f"/emulator/v1/devices/{tokens[0]}/notifications")
        print(f"restart on {mib(journal):.0f} MiB of journal: listening after {restarted.listening:.1f} s "
              f"({listening_cpu:.1f} s of CPU, RSS {listening_rss:.1f} MiB); the hot device's newest "
              f"{len(json.loads(body)['notifications'])} after {time.monotonic() - restarted.started:.1f} s; "
              f"RSS {rss_mib(restarted.pid):.1f} MiB")
        restarted.stop()
        return
    server = Server(args.serve, devices, data)
    if args.start_only:
        time.sleep(1)
        print(f"{args.devices} devices: listening after {server.listening:.2f} s ({cpu_seconds(server.pid):.2f} s of CPU), "
              f"RSS {rss_mib(server.pid):.1f} MiB")
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
        return
    with open(uri_file, "w") as handle:
        handle.writelines(f"http://127.0.0.1:{server.port}/3/device/{device}\n" for device in uris)
    try:
        print(f"nse-serve pid {server.pid}, {args.devices} devices, data {data}; {len(uris)} URIs a round, "
              f"{uris.count(hot) * 100 / len(uris):.1f}% to the hot device; load average {os.getloadavg()[0]:.1f}")
        # One push with a known apns-id, looked up by it at the end.
        marked = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2-prior-knowledge",
                                 "-H", f"authorization: bearer {bearer()}", "-H", f"apns-topic: {TOPIC}",
                                 "-H", f"apns-id: {MARKED_ID}", "-d", "@" + payload,
                                 f"http://127.0.0.1:{server.port}/3/device/{tokens[1]}"], capture_output=True, text=True).stdout
        if marked != "200":
            sys.exit(f"the marked push was answered {marked}")
        print(f"{'pushes':>9} {'RSS MiB':>8} {'journal MiB':>12} {'index MiB':>10} {'accepted/s':>11} "
              f"{'delivered/s':>12} {'CPU s':>7} {'load':>5}")
        print(f"{1:>9} {rss_mib(server.pid):>8.1f} {mib(journal):>12.1f} {mib(index):>10.2f}", flush=True)
        sent, total_cpu, total_wall = 1, 0.0, 0.0
        # SIGUSR1: no more steps after this one; the reads and the restart run on what was sent.
        stopping = []
        signal.signal(signal.SIGUSR1, lambda *_: stopping.append(True))
        while sent < args.total and not stopping:
            count = min(args.step, args.total - sent)
            cpu = cpu_seconds(server.pid)
            started = time.monotonic()
            run = subprocess.run(
                ["h2load", "-n", str(count), "-c", "1", "-m", "100", "-d", payload, "-H", f"authorization: bearer {bearer()}",
                 "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", "-i", uri_file],
                capture_output=True, text=True)
            accepted = time.monotonic() - started
            if "status codes: %d 2xx" % count not in run.stdout:
                sys.exit(f"h2load did not get {count} 200s:\n{run.stdout}\n{run.stderr}")
            server.settle(tokens)
            delivered = time.monotonic() - started
            step_cpu = cpu_seconds(server.pid) - cpu
            total_cpu += step_cpu
            total_wall += delivered
            sent += count
            print(f"{sent:>9} {rss_mib(server.pid):>8.1f} {mib(journal):>12.1f} {mib(index):>10.2f} {count / accepted:>11.0f} "
                  f"{count / delivered:>12.0f} {step_cpu:>7.1f} {os.getloadavg()[0]:>5.1f}", flush=True)
        print(f"all {sent} pushes: {total_wall:.0f} s wall, {total_cpu:.0f} s of server CPU "
              f"({total_cpu * 1e6 / max(sent - 1, 1):.0f} µs a push, accepted and delivered); journal "
              f"{os.path.getsize(journal) / sent:.0f} bytes a push, index {os.path.getsize(index) / sent:.0f}")

        print(f"\n{'read':<58} {'wall s':>7} {'CPU s':>6} {'peak MiB':>9} {'after':>6} {'answer':>12}")

        def report(name, measured, answer):
            print(f"{name:<58} {measured.wall:>7.2f} {measured.cpu:>6.2f} {measured.peak:>9.1f} {measured.after:>6.1f} {answer:>12}",
                  flush=True)

        reads = [("hot device, newest (default ?limit=1000)", f"/emulator/v1/devices/{hot}/notifications"),
                 ("hot device, ?limit=100000", f"/emulator/v1/devices/{hot}/notifications?limit=100000"),
                 ("ordinary device, ?limit=100000", f"/emulator/v1/devices/{tokens[1]}/notifications?limit=100000"),
                 (f"message by apns-id", f"/emulator/v1/messages/{MARKED_ID}")]
        listed = {}
        for name, path in reads:
            with Measured(server.pid) as measured:
                answer, body = server.get(path)
            listed[name] = json.loads(body)["notifications"]
            framing = "chunked" if answer.getheader("content-length") is None else "whole"
            report(name, measured, f"{len(listed[name])} {framing}")
        # Every push and delivery of the device: no event has id 0, so Last-Event-ID 0 replays from the first.
        expected = 2 * len(listed["ordinary device, ?limit=100000"])
        with Measured(server.pid) as measured:
            ids = server.events(f"/emulator/v1/events?device={tokens[1]}", 0, expected)
        report("events, ordinary device, Last-Event-ID: 0 (its chain)", measured, f"{len(ids)} events")
        after = max(os.path.getsize(journal) - 10_000 * os.path.getsize(journal) // sent, 0)
        expected = journal_events(journal, after)
        with Measured(server.pid) as measured:
            ids = server.events("/emulator/v1/events", after, expected)
        report("events, every device, the last 10,000 pushes", measured, f"{len(ids)} events")

        newest = [(item["id"], item["status"]) for item in listed["hot device, newest (default ?limit=1000)"]]
        cpu_before = cpu_seconds(server.pid)
        server.stop()
        print(f"\nrestart on {mib(journal):.0f} MiB of journal (the server before it: {cpu_before:.0f} s of CPU in all)")
        checkpoint = os.path.join(data, "journal.checkpoint")
        for kind in ["after a stop (from its checkpoint)", "without a checkpoint (the whole journal read)"]:
            if kind.startswith("without") and os.path.exists(checkpoint):
                server.stop()
                os.remove(checkpoint)
            restarted = Server(args.serve, devices, data)
            server = restarted
            listening_cpu, listening_rss = cpu_seconds(server.pid), rss_mib(server.pid)
            _, body = server.get(f"/emulator/v1/devices/{hot}/notifications")
            same = [(item["id"], item["status"]) for item in json.loads(body)["notifications"]] == newest
            answered = time.monotonic() - server.started
            print(f"{kind}: listening after {server.listening:.2f} s ({listening_cpu:.2f} s of CPU, RSS {listening_rss:.1f} MiB); "
                  f"the hot device's newest {len(newest)} answered after {answered:.2f} s, "
                  f"{'the same as before' if same else 'NOT THE SAME AS BEFORE'}; RSS {rss_mib(server.pid):.1f} MiB", flush=True)
    finally:
        server.stop()
        if not args.data:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
