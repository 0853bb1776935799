"""An APNs request as a Python backend makes it: httpx over HTTP/2 with an ES256 provider token signed by PyJWT,
sent to `nse serve`, for NSEServerTests. Without --ca: HTTP/2 with prior knowledge on the plain port; with --ca:
TLS (ALPN h2) trusting the emulator's local CA.

Usage: apns_httpx_client.py PORT TOKEN TOPIC PAYLOAD_JSON [--apns-id ID] [--ca CA_PEM] [--key P8 --kid KID --team TEAM]
       [--concurrent N]
Prints one JSON object: the HTTP version, status, headers and body of the answer.
"""
import argparse
import asyncio
import json
import ssl
import time

import httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port")
    parser.add_argument("token")
    parser.add_argument("topic")
    parser.add_argument("payload")
    parser.add_argument("--apns-id")
    parser.add_argument("--ca")
    parser.add_argument("--key", help="the signing key (.p8, PEM); a new one when absent")
    parser.add_argument("--kid", default="KEY1234567")
    parser.add_argument("--team", default="TEAM123456")
    parser.add_argument("--concurrent", type=int, default=0, help="send this many at once over one HTTP/2 connection")
    args = parser.parse_args()
    if args.key:
        with open(args.key, "rb") as handle:
            key = serialization.load_pem_private_key(handle.read(), password=None)
    else:
        key = ec.generate_private_key(ec.SECP256R1())
    provider_token = jwt.encode({"iss": args.team, "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": args.kid})
    headers = {"authorization": f"bearer {provider_token}", "apns-topic": args.topic, "apns-push-type": "alert", "apns-priority": "10"}
    if args.apns_id:
        headers["apns-id"] = args.apns_id
    if args.ca:
        client = httpx.Client(http1=False, http2=True, timeout=30, verify=ssl.create_default_context(cafile=args.ca))
        url = f"https://localhost:{args.port}/3/device/{args.token}"
    else:
        client = httpx.Client(http1=False, http2=True, timeout=30)
        url = f"http://127.0.0.1:{args.port}/3/device/{args.token}"
    if args.concurrent:
        client.close()
        print(json.dumps({"statuses": asyncio.run(send_concurrently(url, args.payload, headers, args.concurrent))}))
        return
    with client:
        response = client.post(url, content=args.payload.encode(), headers=headers)
    print(json.dumps({
        "http_version": response.http_version, "status": response.status_code,
        "headers": {name.lower(): value for name, value in response.headers.items()}, "body": response.text,
    }))


async def send_concurrently(url, payload, headers, count):
    async with httpx.AsyncClient(http1=False, http2=True, timeout=60) as client:
        responses = await asyncio.gather(*(client.post(url, content=payload.encode(), headers=headers) for _ in range(count)))
    return [response.status_code for response in responses]


main()
