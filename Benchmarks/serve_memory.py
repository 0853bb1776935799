"""Memory of `nse serve` over many pushes: the resident set size (VmRSS) every STEP pushes.

Starts the release `nse serve` with one iPhone and a fresh data folder, sends text-only APNs pushes with h2load
(nghttp2-client) over one HTTP/2 connection with 100 concurrent streams, STEP at a time; after each step waits
until every push is delivered (the control API's ?settled=1), then samples the server's VmRSS and prints a row.
The history lives on disk (the journal and its index), so the curve should stay flat.

Usage: python3 Benchmarks/serve_memory.py [--nse .build/release/nse] [--total 1000000] [--step 100000] [--data DIR]
(`make bench-serve-memory` builds the release binary and runs it.)
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

TOKEN = "a" * 64
TOPIC = "com.example.bench"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def settle(port):
    """Waits until no push is pending (each ?settled=1 waits at most 60 s; one that returns sooner settled)."""
    url = f"http://127.0.0.1:{port}/emulator/v1/devices/{TOKEN}/notifications?settled=1&limit=1"
    while True:
        started = time.monotonic()
        with urllib.request.urlopen(url, timeout=120) as answer:
            newest = json.load(answer)["notifications"]
        if time.monotonic() - started < 59 and (not newest or newest[0]["status"] == "delivered"):
            return


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nse", default=".build/release/nse")
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--step", type=int, default=100_000)
    parser.add_argument("--data", help="the data folder (default: a new temporary one, removed at the end)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="nse-serve-memory-")
    data = args.data or os.path.join(work, "data")
    devices = os.path.join(work, "devices.json")
    with open(devices, "w") as handle:
        json.dump({"devices": [{"name": "Bench iPhone", "apns": {"token": TOKEN}, "bundleId": TOPIC}]}, handle)
    payload = os.path.join(work, "payload.json")
    with open(payload, "w") as handle:
        json.dump({"aps": {"alert": {"title": "Order shipped", "body": "Arrives Tuesday"}}}, handle)
    port = free_port()
    server = subprocess.Popen([args.nse, "serve", "--port", str(port), "--devices", devices, "--data", data],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        server.stdout.readline()  # "listening on ...": the server is up
        key = ec.generate_private_key(ec.SECP256R1())
        print(f"nse serve pid {server.pid}, data {data}")
        print(f"{'pushes':>9} {'RSS MiB':>8} {'journal MiB':>12} {'accepted/s':>11} {'step s':>7}")
        print(f"{0:>9} {rss_kib(server.pid) / 1024:>8.1f} {0:>12.1f} {'':>11} {'':>7}")
        sent = 0
        while sent < args.total:
            count = min(args.step, args.total - sent)
            # A provider token is valid for an hour: a new one for every step.
            bearer = jwt.encode({"iss": "TEAM123456", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "KEY1234567"})
            started = time.monotonic()
            run = subprocess.run(
                ["h2load", "-n", str(count), "-c", "1", "-m", "100", "-d", payload, "-H", f"authorization: bearer {bearer}",
                 "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", f"http://127.0.0.1:{port}/3/device/{TOKEN}"],
                capture_output=True, text=True)
            accepted_seconds = time.monotonic() - started
            if "status codes: %d 2xx" % count not in run.stdout:
                sys.exit(f"h2load did not get {count} 200s:\n{run.stdout}\n{run.stderr}")
            settle(port)
            sent += count
            journal = os.path.getsize(os.path.join(data, "journal.jsonl")) / (1 << 20)
            print(f"{sent:>9} {rss_kib(server.pid) / 1024:>8.1f} {journal:>12.1f} {count / accepted_seconds:>11.0f} "
                  f"{time.monotonic() - started:>7.1f}", flush=True)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
