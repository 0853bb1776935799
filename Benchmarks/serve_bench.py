#!/usr/bin/env python3
"""`make bench-serve`: `nse serve` against a bare SwiftNIO server (the ceiling), under h2load, side by side.

Two loads, each sent to both servers in turn, round after round (interleaved, so a busy moment of the machine
falls on both), medians printed at the end:

  apns  text-only APNs pushes, h2c with prior knowledge, one connection, 100 concurrent streams
        (h2load -c 1 -m 100), each with a real ES256 provider token that `nse serve` verifies (providerKeys)
  fcm   FCM HTTP v1 sends to an iPhone, HTTP/1.1 keep-alive from 64 connections (h2load --h1 -c 64), with a
        bearer from the emulator's POST /token

`nse serve` journals every push (fsync'd) before its 200, in a data folder on the disk of the temporary directory.
After each of its runs the script waits until every push is delivered (the control API's ?settled=1), so the
next run does not share the CPU with the last one's deliveries, and prints how long that took.

Pushes/s = 2xx answers / h2load's elapsed time; p50 and p99 from h2load's per-request log (--log-file).
"""
import argparse
import base64
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

APNS_TOKEN = "7a1c9e0f6b2d4c8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60"
FCM_TOKEN = "bench-fcm-token:APA91bBench"
TOPIC = "com.example.shop"
PROJECT = "shop-bench"
KEY_ID = "BENCHKEY01"
TEAM_ID = "TEAM123456"


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def der_to_raw(der: bytes) -> bytes:
    """An ECDSA signature from openssl (DER SEQUENCE of r and s) as JWS wants it: r and s, 32 bytes each."""
    assert der[0] == 0x30
    index = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7F)
    parts = []
    for _ in range(2):
        assert der[index] == 0x02
        length = der[index + 1]
        value = der[index + 2:index + 2 + length].lstrip(b"\x00")
        parts.append(value.rjust(32, b"\x00"))
        index += 2 + length
    return parts[0] + parts[1]


def provider_token(folder: str) -> tuple[str, str]:
    """A P-256 key made with openssl, and an APNs provider token signed with it; returns (JWT, public key PEM)."""
    key = os.path.join(folder, "AuthKey.pem")
    subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key], check=True)
    public = subprocess.run(["openssl", "ec", "-in", key, "-pubout"], check=True, capture_output=True).stdout.decode()
    header = b64url(json.dumps({"alg": "ES256", "kid": KEY_ID}).encode())
    claims = b64url(json.dumps({"iss": TEAM_ID, "iat": int(time.time())}).encode())
    signing_input = f"{header}.{claims}".encode()
    der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=signing_input, check=True, capture_output=True).stdout
    return f"{header}.{claims}.{b64url(der_to_raw(der))}", public


def start(command: list[str], pattern: str) -> tuple[subprocess.Popen, int]:
    """Starts a server and reads its port from the first line of its output that matches `pattern`."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
    for line in process.stdout:
        found = re.search(pattern, line)
        if found:
            return process, int(found.group(1))
    raise SystemExit(f"{command[0]} exited before listening (status {process.wait()})")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def percentile(sorted_values: list[int], share: float) -> float:
    if not sorted_values:
        return float("nan")
    rank = min(len(sorted_values) - 1, max(0, int(round(share * len(sorted_values))) - 1))
    return sorted_values[rank]


def h2load(arguments: list[str], log: str) -> dict:
    """Runs h2load; returns pushes/s (2xx only), the count of 2xx and of others, p50 and p99 in ms."""
    run = subprocess.run(["h2load", "--log-file", log] + arguments, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"h2load failed: {run.stderr or run.stdout}")
    elapsed = re.search(r"finished in ([\d.]+)(m?s)", run.stdout)
    seconds = float(elapsed.group(1)) / (1000 if elapsed.group(2) == "ms" else 1)
    ok = int(re.search(r"status codes: (\d+) 2xx", run.stdout).group(1))
    done = int(re.search(r"requests: \d+ total, \d+ started, (\d+) done", run.stdout).group(1))
    durations = []
    with open(log) as lines:
        for line in lines:
            columns = line.split("\t")
            if len(columns) >= 3:
                durations.append(int(columns[2]))
    durations.sort()
    return {"rate": ok / seconds, "ok": ok, "other": done - ok,
            "p50": percentile(durations, 0.50) / 1000, "p99": percentile(durations, 0.99) / 1000}


def hold_idle(count: int, pid: int, port: int) -> None:
    """Opens `count` connections that send nothing, then has each send HTTP/2's connection preface and an empty
    SETTINGS frame (an APNs client's connection between pushes); prints nse's resident memory at each step."""
    import resource
    import socket
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    time.sleep(1)
    before = resident_mb(pid)
    connections = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
    time.sleep(1)
    idle = resident_mb(pid)
    for connection in connections:
        connection.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
    time.sleep(2)
    http2 = resident_mb(pid)
    check = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", f"http://127.0.0.1:{port}/emulator/v1/devices"],
                           capture_output=True, text=True).stdout
    print(f"\n{count} idle connections: nse resident {before:.0f} MB before, {idle:.0f} MB with them open "
          f"({(idle - before) * 1024 / count:.1f} KB each), {http2:.0f} MB once each is an HTTP/2 connection "
          f"({(http2 - before) * 1024 / count:.1f} KB each); a request meanwhile: {check}")
    for connection in connections:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nse", default=".build/release/nse")
    parser.add_argument("--ceiling", default=".build/release/nse-serve-ceiling")
    parser.add_argument("--requests", "-n", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=["apns", "fcm"], help="one load only")
    parser.add_argument("--idle", type=int, default=10000, help="then hold this many idle connections to nse and read its memory (0: skip)")
    options = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="nse-bench-serve-")
    jwt, public_key = provider_token(folder)
    devices = {
        "devices": [{
            "name": "Bench iPhone", "platform": "ios",
            "apns": {"token": APNS_TOKEN, "environment": "development"},
            "fcm": {"token": FCM_TOKEN, "project": PROJECT}, "bundleId": TOPIC,
        }],
        "providerKeys": [{"keyID": KEY_ID, "teamID": TEAM_ID, "publicKey": public_key}],
    }
    with open(os.path.join(folder, "devices.json"), "w") as file:
        json.dump(devices, file)
    apns_payload = os.path.join(folder, "apns.json")
    with open(apns_payload, "w") as file:
        json.dump({"aps": {"alert": {"title": "Order shipped", "body": "Arrives Tuesday"}}}, file)
    fcm_payload = os.path.join(folder, "fcm.json")
    with open(fcm_payload, "w") as file:
        json.dump({"message": {"token": FCM_TOKEN, "notification": {"title": "Order shipped", "body": "Arrives Tuesday"}}}, file)

    nse, nse_port = start([options.nse, "serve", "--port", "0", "--devices", os.path.join(folder, "devices.json"),
                           "--data", os.path.join(folder, "data")], r"listening on http://127\.0\.0\.1:(\d+)")
    ceiling, ceiling_port = start([options.ceiling, "0"], r"listening on (\d+)")
    try:
        form = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                       "assertion": f"{jwt.rsplit('.', 1)[0]}.c2ln"}).encode()
        with urllib.request.urlopen(f"http://127.0.0.1:{nse_port}/token", data=form) as answer:
            bearer = json.load(answer)["access_token"]

        loads = {
            "apns": (["-c", "1", "-m", "100", "-d", apns_payload, "-H", f"authorization: bearer {jwt}",
                      "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert"], f"/3/device/{APNS_TOKEN}"),
            "fcm": (["--h1", "-c", "64", "-d", fcm_payload, "-H", f"authorization: Bearer {bearer}",
                     "-H", "content-type: application/json"], f"/v1/projects/{PROJECT}/messages:send"),
        }
        names = [options.only] if options.only else ["apns", "fcm"]

        def settle() -> float:
            began = time.monotonic()
            url = f"http://127.0.0.1:{nse_port}/emulator/v1/devices/{APNS_TOKEN}/notifications?settled=1&limit=1"
            while True:
                with urllib.request.urlopen(url, timeout=120) as answer:
                    json.load(answer)
                # ?settled waits at most 60 s; a longer backlog needs another wait.
                with urllib.request.urlopen(url.replace("settled=1&", ""), timeout=120) as answer:
                    newest = json.load(answer)["notifications"]
                if not newest or newest[0].get("status") != "pending":
                    return time.monotonic() - began

        # A short warm-up of each server and load, not counted.
        for name in names:
            arguments, path = loads[name]
            for port in (nse_port, ceiling_port):
                h2load(["-n", "2000"] + arguments + [f"http://127.0.0.1:{port}{path}"], os.path.join(folder, "warm.log"))
        settle()

        results: dict[tuple[str, str], list[dict]] = {}
        for round_number in range(1, options.rounds + 1):
            for name in names:
                arguments, path = loads[name]
                for server, port in (("nse", nse_port), ("ceiling", ceiling_port)):
                    before = cpu_seconds(nse.pid) if server == "nse" else cpu_seconds(ceiling.pid)
                    figures = h2load(["-n", str(options.requests)] + arguments + [f"http://127.0.0.1:{port}{path}"],
                                     os.path.join(folder, f"{name}-{server}.log"))
                    if server == "nse":
                        figures["settle"] = settle()
                        figures["cpu"] = cpu_seconds(nse.pid) - before
                        figures["rss"] = resident_mb(nse.pid)
                    else:
                        figures["cpu"] = cpu_seconds(ceiling.pid) - before
                    results.setdefault((name, server), []).append(figures)
                    extra = f", delivered {figures['settle']:.1f} s after, rss {figures['rss']:.0f} MB" if server == "nse" else ""
                    print(f"round {round_number} {name:4} {server:7} {figures['rate']:9.0f} pushes/s  p50 {figures['p50']:6.2f} ms"
                          f"  p99 {figures['p99']:6.2f} ms  {figures['ok']} 2xx {figures['other']} other"
                          f"  server cpu {figures['cpu']:.2f} s{extra}", flush=True)

        print(f"\nmedians of {options.rounds} rounds, {options.requests} requests each (load average {os.getloadavg()[0]:.1f}):")
        for name in names:
            nse_rate = statistics.median(r["rate"] for r in results[(name, "nse")])
            ceiling_rate = statistics.median(r["rate"] for r in results[(name, "ceiling")])
            for server in ("nse", "ceiling"):
                rows = results[(name, server)]
                print(f"  {name:4} {server:7} {statistics.median(r['rate'] for r in rows):9.0f} pushes/s"
                      f"  p50 {statistics.median(r['p50'] for r in rows):6.2f} ms  p99 {statistics.median(r['p99'] for r in rows):6.2f} ms"
                      f"  server cpu {statistics.median(r['cpu'] for r in rows):.2f} s")
            print(f"  {name:4} ceiling / nse: {ceiling_rate / nse_rate:.2f}x")

        if options.idle:
            hold_idle(options.idle, nse.pid, nse_port)
    finally:
        for process in (nse, ceiling):
            process.terminate()
            process.wait()


if __name__ == "__main__":
    main()
