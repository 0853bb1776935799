"""An APNs request as a Python backend makes it: httpx over HTTP/2 (prior knowledge, no TLS) with an ES256 provider
token signed by PyJWT, sent to `nse serve`, for NSEServerTests.

Usage: apns_httpx_client.py PORT TOKEN TOPIC PAYLOAD_JSON [apns-id]
Prints one JSON object: the HTTP version, status, headers and body of the answer.
"""
import json
import sys
import time

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import ec


def main():
    port, token, topic, payload, *rest = sys.argv[1:]
    key = ec.generate_private_key(ec.SECP256R1())
    provider_token = jwt.encode({"iss": "TEAM123456", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "KEY1234567"})
    headers = {"authorization": f"bearer {provider_token}", "apns-topic": topic, "apns-push-type": "alert", "apns-priority": "10"}
    if rest:
        headers["apns-id"] = rest[0]
    with httpx.Client(http1=False, http2=True, timeout=30) as client:
        response = client.post(f"http://127.0.0.1:{port}/3/device/{token}", content=payload.encode(), headers=headers)
    print(json.dumps({
        "http_version": response.http_version, "status": response.status_code,
        "headers": {name.lower(): value for name, value in response.headers.items()}, "body": response.text,
    }))


main()
