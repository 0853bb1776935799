#!/usr/bin/env python3
"""`make bench-serve-images`: image pushes through `nse serve`, with its shared downloads and without them.

The batch's shared workload, sent to the server: 1,000 APNs pushes (mutable-content, an image for Firebase's helper)
drawing on 120 images (JPEG and PNG, the batch corpus's seven sizes from 320x240 to 2048x1536, made with Pillow) that a
loopback HTTP server serves and counts. The pushes go over one h2c connection, 100 streams at a time (a small client on the `h2` package), to
one iPhone; the script then waits until every push is delivered (`?settled=1`).

Each round runs `nse serve` twice, in turns: as it is (pushes delivered in one burst share each image's download and
decode) and with `--no-shared-downloads` (every push downloads its own, as each real phone does). It prints, for each:
how long the 1,000 answers took, how long until every push was delivered (from the first send), the image server's
requests, the pushes whose phone shows the image, and the server's CPU seconds; then medians.

Compare `nse batch` on the same shape of workload: `make bench` prints "shared" (1,000 pushes, 120 images).
"""
import argparse
import http.server
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_bench  # noqa: E402  (the provider token, the server start, CPU seconds)

SIZES = [(320, 240), (640, 480), (800, 600), (1024, 768), (1280, 960), (1600, 1200), (2048, 1536)]


def make_images(folder: str, count: int) -> list[str]:
    """`count` distinct images, JPEG and PNG in turn, cycling through the batch corpus's sizes."""
    from PIL import Image, ImageDraw
    names = []
    for index in range(count):
        width, height = SIZES[index % len(SIZES)]
        image = Image.new("RGB", (width, height), ((index * 37) % 256, (index * 91) % 256, (index * 53) % 256))
        draw = ImageDraw.Draw(image)
        for stripe in range(0, width, 40):
            draw.rectangle([stripe, 0, stripe + 19, height], fill=((index * 11 + stripe) % 256, 128, (stripe * 3) % 256))
        name = f"img-{index:03d}.{'png' if index % 2 else 'jpg'}"
        image.save(os.path.join(folder, name), quality=85) if name.endswith("jpg") else image.save(os.path.join(folder, name))
        names.append(name)
    return names


class CountingServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 serving a folder, counting the GETs it answers."""

    def __init__(self, folder: str):
        counter = {"requests": 0}
        lock = threading.Lock()

        class Handler(http.server.SimpleHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def __init__(self, *arguments, **keywords):
                super().__init__(*arguments, directory=folder, **keywords)

            def do_GET(self):
                with lock:
                    counter["requests"] += 1
                super().do_GET()

            def log_message(self, *arguments):
                pass

        class Server(http.server.ThreadingHTTPServer):
            # socketserver's listen backlog is 5: the burst's 120 downloads start at once, and the connections past
            # the backlog wait for SYN retries (1, 3, 7 s...) until the download's budget ends.
            request_queue_size = 1024
            daemon_threads = True

        self.counter = counter
        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def requests(self) -> int:
        return self.counter["requests"]


def send(port: int, jwt: str, payloads: list[bytes], concurrency: int) -> float:
    """Sends every payload as an APNs push over one h2c connection, `concurrency` streams at a time; returns the
    seconds. Written on the `h2` package's protocol state machine over a plain socket: a full Python client (httpx)
    spends about a millisecond a request and would be what is measured."""
    import socket
    import h2.config
    import h2.connection
    import h2.events
    connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    connection.initiate_connection()
    connection.increment_flow_control_window(1 << 24)
    path = f"/3/device/{serve_bench.APNS_TOKEN}"
    began = time.monotonic()
    next_payload = 0
    open_streams: dict[int, int] = {}
    answered = 0
    while answered < len(payloads):
        while next_payload < len(payloads) and len(open_streams) < concurrency:
            stream = connection.get_next_available_stream_id()
            body = payloads[next_payload]
            connection.send_headers(stream, [
                (":method", "POST"), (":scheme", "http"), (":authority", f"127.0.0.1:{port}"), (":path", path),
                ("authorization", f"bearer {jwt}"), ("apns-topic", serve_bench.TOPIC), ("apns-push-type", "alert"),
                ("content-length", str(len(body)))])
            connection.send_data(stream, body, end_stream=True)
            open_streams[stream] = 0
            next_payload += 1
        sock.sendall(connection.data_to_send())
        data = sock.recv(1 << 16)
        if not data:
            raise SystemExit("nse serve closed the connection")
        for event in connection.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                status = dict(event.headers).get(":status")
                if status != "200":
                    raise SystemExit(f"push refused: {status}")
            elif isinstance(event, h2.events.StreamEnded):
                open_streams.pop(event.stream_id, None)
                answered += 1
            elif isinstance(event, h2.events.DataReceived):
                connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                raise SystemExit(f"stream {event.stream_id} reset: {event.error_code}")
        sock.sendall(connection.data_to_send())
    elapsed = time.monotonic() - began
    sock.close()
    return elapsed


def settled(port: int, count: int) -> list[dict]:
    """Waits until the phone's pushes are all delivered; returns the newest `count`."""
    url = f"http://127.0.0.1:{port}/emulator/v1/devices/{serve_bench.APNS_TOKEN}/notifications"
    while True:
        with urllib.request.urlopen(f"{url}?settled=1&limit={count}", timeout=120) as answer:
            notifications = json.load(answer)["notifications"]
        if all(item.get("status") != "pending" for item in notifications):
            return notifications


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nse", default=".build/release/nse")
    parser.add_argument("--pushes", type=int, default=1000)
    parser.add_argument("--images", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=100)
    options = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="nse-bench-serve-images-")
    media = os.path.join(folder, "media")
    os.mkdir(media)
    print(f"making {options.images} images in {media} ...", flush=True)
    names = make_images(media, options.images)
    server = CountingServer(media)
    jwt, public_key = serve_bench.provider_token(folder)
    with open(os.path.join(folder, "devices.json"), "w") as file:
        json.dump({
            "devices": [{"name": "Bench iPhone", "platform": "ios", "apns": {"token": serve_bench.APNS_TOKEN, "environment": "development"},
                         "bundleId": serve_bench.TOPIC}],
            "providerKeys": [{"keyID": serve_bench.KEY_ID, "teamID": serve_bench.TEAM_ID, "publicKey": public_key}],
        }, file)
    payloads = [json.dumps({
        "aps": {"alert": {"title": "Spring sale", "body": f"Offer {index}"}, "mutable-content": 1},
        "fcm_options": {"image": f"http://127.0.0.1:{server.port}/{names[index % len(names)]}"},
    }).encode() for index in range(options.pushes)]

    results: dict[str, list[dict]] = {"shared": [], "own": []}
    for round_number in range(1, options.rounds + 1):
        for variant in ("shared", "own"):
            data = os.path.join(folder, f"data-{variant}-{round_number}")
            command = [options.nse, "serve", "--port", "0", "--devices", os.path.join(folder, "devices.json"), "--data", data, "--allow-http"]
            if variant == "own":
                command.append("--no-shared-downloads")
            nse, port = serve_bench.start(command, r"listening on http://127\.0\.0\.1:(\d+)")
            try:
                before_requests = server.requests
                before_cpu = serve_bench.cpu_seconds(nse.pid)
                began = time.monotonic()
                answered = send(port, jwt, payloads, options.concurrency)
                notifications = settled(port, options.pushes)
                delivered = time.monotonic() - began
                shown = sum(1 for item in notifications if (item.get("phone") or {}).get("imageShown"))
                figures = {"answered": answered, "delivered": delivered, "requests": server.requests - before_requests,
                           "shown": shown, "cpu": serve_bench.cpu_seconds(nse.pid) - before_cpu}
            finally:
                nse.terminate()
                nse.wait()
                # Each run's journal and attachments (a copy or link of every push's image): gone before the next.
                shutil.rmtree(data, ignore_errors=True)
            results[variant].append(figures)
            print(f"round {round_number} {variant:6} answered in {figures['answered']:5.2f} s, all delivered after {figures['delivered']:5.2f} s"
                  f" ({options.pushes / figures['delivered']:6.0f} pushes/s), {figures['requests']:4} image requests,"
                  f" {figures['shown']:4} images shown, server cpu {figures['cpu']:.2f} s", flush=True)

    print(f"\nmedians of {options.rounds} rounds, {options.pushes} pushes over {options.images} images (load average {os.getloadavg()[0]:.1f}):")
    for variant, label in (("shared", "shared downloads"), ("own", "--no-shared-downloads")):
        rows = results[variant]
        delivered = statistics.median(r["delivered"] for r in rows)
        print(f"  {label:22} all delivered after {delivered:5.2f} s ({options.pushes / delivered:5.0f} pushes/s),"
              f" answered in {statistics.median(r['answered'] for r in rows):.2f} s,"
              f" {statistics.median(r['requests'] for r in rows):.0f} image requests, {statistics.median(r['shown'] for r in rows):.0f} shown,"
              f" server cpu {statistics.median(r['cpu'] for r in rows):.2f} s")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
