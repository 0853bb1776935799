"""`make serve-screenshot`: docs/serve-screenshot.png, the README's picture of `nse serve`'s phones page.

Starts nse-serve with samples/serve/devices.json and samples/media (every image URL is served from that folder:
nothing leaves the machine), sends a few of the bundled pushes (APNs with the sample key, FCM through the
emulator's own /token), then draws the page with headless chromium (phones_page_browser.py).

Usage: serve_screenshot.py NSE_SERVE OUT_PNG [WIDTHxHEIGHT]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import httpx
import jwt

sys.path.insert(0, os.path.dirname(__file__))
import phones_page_browser  # noqa: E402

IPHONE = "7a1c9e0f6b2d4c8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60"
PIXEL = "fZp8Ben0Pixel:APA91bSampleAndroidToken"


def main():
    nse_serve, out = sys.argv[1], sys.argv[2]
    size = sys.argv[3] if len(sys.argv) > 3 else "1280x1000"
    data = tempfile.mkdtemp(prefix="nse-serve-screenshot-")
    server = subprocess.Popen([nse_serve, "--port", "0", "--devices", "samples/serve/devices.json", "--data", data,
                               "--media", "samples/media"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = server.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if not match:
            raise SystemExit(f"nse-serve did not start: {line}{server.stdout.read() if server.poll() is not None else ''}")
        port = match.group(1)
        base = f"http://127.0.0.1:{port}"
        with open("samples/serve/AuthKey_SAMPLE0001.p8") as key:
            token = jwt.encode({"iss": "TEAM000001", "iat": int(time.time())}, key.read(), algorithm="ES256", headers={"kid": "SAMPLE0001"})
        with httpx.Client(http1=False, http2=True, timeout=60) as apns:
            for sample in ["missing-mutable-content", "gif-animated-ok", "png-ok", "jpeg-ok"]:
                with open(f"samples/payloads/{sample}.json", "rb") as payload:
                    answer = apns.post(f"{base}/3/device/{IPHONE}", content=payload.read(), headers={
                        "authorization": f"bearer {token}", "apns-topic": "com.example.shop", "apns-push-type": "alert",
                        "user-agent": "shop-backend/2.3 (httpx)"})
                if answer.status_code != 200:
                    raise SystemExit(f"{sample}: APNs answered {answer.status_code} {answer.text}")
        with httpx.Client(timeout=60) as fcm:
            assertion = jwt.encode({"iss": "screenshot@shop-demo.iam.gserviceaccount.com", "iat": int(time.time())}, "unchecked", algorithm="HS256")
            bearer = fcm.post(f"{base}/token", data={"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion}).json()["access_token"]
            with open("samples/payloads/fcm-v1-android-image.json") as sample:
                message = json.load(sample)
            message["message"]["token"] = PIXEL
            # The sample's Android image is a WebP, which the page names but does not draw: a JPEG shows the large icon.
            message["message"]["android"]["notification"]["image"] = "https://media.example.com/img/weekend-drop.jpg"
            answer = fcm.post(f"{base}/v1/projects/shop-demo/messages:send", json=message, headers={"authorization": f"Bearer {bearer}"})
            if answer.status_code != 200:
                raise SystemExit(f"FCM answered {answer.status_code} {answer.text}")
        for device in (IPHONE, PIXEL):
            httpx.get(f"{base}/emulator/v1/devices/{device}/notifications?settled=1", timeout=120)
        print(json.dumps(phones_page_browser.screenshot(port, os.path.abspath(out), size)))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
