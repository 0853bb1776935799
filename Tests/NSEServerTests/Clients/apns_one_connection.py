"""Several APNs requests over ONE HTTP/2 connection (httpx), as a backend that keeps its connection open sends them,
with control API calls between them on other connections, for NSEServerTests (TooManyProviderTokenUpdates counts
provider token changes per connection).

Usage: apns_one_connection.py PORT STEPS_JSON
STEPS_JSON is a list of {"token": DEVICE_TOKEN, "topic": TOPIC, "jwt": PROVIDER_TOKEN} (an APNs request on the
connection) or {"control": PATH, "body": JSON} (a POST to the control API on a connection of its own).
Prints one JSON object: {"answers": [{"status": ..., "body": ...}, ...]} for the APNs requests, in order.
"""
import json
import sys

import httpx


def main():
    port, steps = sys.argv[1], json.loads(sys.argv[2])
    base = f"http://127.0.0.1:{port}"
    answers = []
    # httpx closes a connection idle in its pool for 5 s by default: on a loaded machine a control call takes that
    # long, and the next request would go on a new connection. ONE connection is the point here.
    with httpx.Client(http1=False, http2=True, timeout=30, limits=httpx.Limits(keepalive_expiry=None)) as apns:
        for step in steps:
            if "control" in step:
                httpx.post(base + step["control"], json=step["body"], timeout=30).raise_for_status()
                continue
            response = apns.post(
                f"{base}/3/device/{step['token']}", content=b'{"aps":{"alert":"Hi"}}',
                headers={"authorization": f"bearer {step['jwt']}", "apns-topic": step["topic"], "apns-push-type": "alert"})
            answers.append({"status": response.status_code, "body": response.text, "http_version": response.http_version})
    print(json.dumps({"answers": answers}))


main()
