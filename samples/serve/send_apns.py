"""A backend's APNs send over HTTP/2 with httpx and an ES256 provider token (PyJWT), to Apple's sandbox host.

Nothing here knows about nse: run it with the variables `nse serve --print-env` prints. The .p8 key is a sample
whose public part samples/serve/devices.json lists, so the emulator checks the token's signature as APNs does.
"""
import time
import uuid

import httpx
import jwt

DEVICE = "7a1c9e0f6b2d4c8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60"
with open("samples/serve/AuthKey_SAMPLE0001.p8") as key:
    token = jwt.encode({"iss": "TEAM000001", "iat": int(time.time())}, key.read(), algorithm="ES256",
                       headers={"kid": "SAMPLE0001"})

with httpx.Client(http2=True) as apns:
    for payload, topic in [
        ({"aps": {"alert": {"title": "Order shipped", "body": "Arrives Tuesday"}, "mutable-content": 1},
          "fcm_options": {"image": "https://media.example.com/img/sale.jpg"}}, "com.example.shop"),
        ({"aps": {"alert": "Wrong app"}}, "com.example.other"),
    ]:
        response = apns.post(
            f"https://api.sandbox.push.apple.com/3/device/{DEVICE}", json=payload,
            headers={"authorization": f"bearer {token}", "apns-topic": topic, "apns-push-type": "alert",
                     "apns-id": str(uuid.uuid4()).upper()})
        print(response.http_version, response.status_code, response.text or "(no body)")
