"""Server-sent events from `nse serve` read as a Python test would read them, for NSEServerTests (EventsTests).

Usage:
  events_client.py follow PORT TOKEN TOPIC COUNT [--last-event-id ID]
      Opens GET /emulator/v1/events?device=TOKEN with httpx over HTTP/2 (prior knowledge), waits for the opening
      comment, sends COUNT APNs pushes (after a resume, none), then reads until COUNT notification events came.
      Prints {"http_version", "events": [{"id", "event", "data"}...]}.
  slow PORT TOKEN TOPIC COUNT
      Opens the stream over HTTP/1.1 on a socket with a small receive buffer and stops reading; sends COUNT
      pushes with 3 KB bodies; then reads until the stream ends or the last push's notification arrives.
      Prints {"ended": bool, "sawLast": bool, "bytes": n}.
"""
import asyncio
import json
import re
import socket
import sys
import time
import uuid

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import ec


def apns_headers(topic):
    key = ec.generate_private_key(ec.SECP256R1())
    token = jwt.encode({"iss": "TEAM123456", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "KEY1234567"})
    return {"authorization": f"bearer {token}", "apns-topic": topic, "apns-push-type": "alert"}


async def send_pushes(port, token, topic, count, body_text="Arrives Tuesday", last_id=None):
    headers = apns_headers(topic)
    async with httpx.AsyncClient(http1=False, http2=True, timeout=60) as client:
        async def one(index):
            payload = json.dumps({"aps": {"alert": {"title": f"push {index}", "body": body_text}}})
            extra = {"apns-id": last_id} if last_id and index == count - 1 else {}
            answer = await client.post(f"http://127.0.0.1:{port}/3/device/{token}", headers={**headers, **extra}, content=payload)
            return answer.status_code
        # 10 streams at a time, about 30 KB of bodies: less than half the server's connection window, which it tops
        # up whenever it falls below half, so no stream ever waits for a WINDOW_UPDATE. httpcore's wait for one
        # can hang for good when several uploads wait at once (pydantic/httpx2 issue #1133 traces it): the server
        # sat idle with every request answered while the client waited, and CI's run ended in the server's stream
        # deadline resetting the stuck stream.
        statuses = []
        for start in range(0, count, 10):
            statuses += await asyncio.gather(*(one(index) for index in range(start, min(count, start + 10))))
        return statuses


async def follow(port, token, topic, count, last_event_id):
    events = []
    headers = {"last-event-id": last_event_id} if last_event_id else {}
    async with httpx.AsyncClient(http1=False, http2=True, timeout=60) as client:
        async with client.stream("GET", f"http://127.0.0.1:{port}/emulator/v1/events", params={"device": token}, headers=headers) as stream:
            lines = stream.aiter_lines()
            first = await lines.__anext__()
            assert first.startswith(":"), first
            sender = asyncio.create_task(send_pushes(port, token, topic, count)) if last_event_id is None else None
            event = {}
            async for line in lines:
                if line.startswith(":"):
                    continue
                if line == "":
                    if event:
                        events.append(event)
                    if sum(1 for seen in events if seen.get("event") == "notification") >= count:
                        break
                    event = {}
                    continue
                field, _, value = line.partition(": ")
                event[field] = json.loads(value) if field == "data" else value
            if sender:
                await sender
            version = stream.http_version
    print(json.dumps({"http_version": version, "events": events}))


def slow(port, token, topic, count):
    reader = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    reader.connect(("127.0.0.1", int(port)))
    reader.sendall(f"GET /emulator/v1/events?device={token} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    head = b""
    while b": events" not in head:
        head += reader.recv(1024)
    last_id = str(uuid.uuid4()).upper()
    statuses = asyncio.run(send_pushes(port, token, topic, count, body_text="x" * 3000, last_id=last_id))
    assert all(status == 200 for status in statuses), statuses
    # Wait until the server has delivered every push, then read what the socket holds.
    httpx.get(f"http://127.0.0.1:{port}/emulator/v1/devices/{token}/notifications?settled=1&limit=1", timeout=120)
    received = 0
    tail = b""
    ended = False
    saw_last = False
    reader.settimeout(60)
    while True:
        chunk = reader.recv(65536)
        if not chunk:
            ended = True
            break
        received += len(chunk)
        tail = (tail + chunk)[-200000:]
        if re.search(rb'event: notification\ndata: \{"seq":\d+,"id":"' + last_id.encode(), tail):
            # The last push's notification came: the reader was never dropped.
            saw_last = True
            break
    print(json.dumps({"ended": ended, "sawLast": saw_last, "bytes": received}))


def main():
    mode = sys.argv[1]
    if mode == "follow":
        port, token, topic, count = sys.argv[2:6]
        last_event_id = sys.argv[7] if len(sys.argv) > 7 and sys.argv[6] == "--last-event-id" else None
        # A hang guard: events that never come end the run (with what came) instead of blocking the test.
        asyncio.run(asyncio.wait_for(follow(port, token, topic, int(count), last_event_id), 90))
    elif mode == "slow":
        port, token, topic, count = sys.argv[2:6]
        slow(port, token, topic, int(count))


if __name__ == "__main__":
    main()
