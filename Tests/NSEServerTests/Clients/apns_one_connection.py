"""Several APNs requests over ONE HTTP/2 connection (httpx), as a backend that keeps its connection open sends them,
with control API calls between them on other connections, for NSEServerTests (TooManyProviderTokenUpdates counts
provider token changes per connection).

Usage: apns_one_connection.py PORT STEPS_JSON [TLS_PORT CA_PEM CLIENT_CERTIFICATE_PEM]
STEPS_JSON is a list of {"token": DEVICE_TOKEN, "topic": TOPIC, "jwt": PROVIDER_TOKEN} (an APNs request on the
connection; without "jwt" and "topic", authorized by the connection's client certificate) or {"control": PATH,
"body": JSON} (a POST to the control API on a connection of its own, to PORT).
With TLS_PORT, the APNs connection is TLS to localhost:TLS_PORT, trusting CA_PEM and presenting the client
certificate (and its key) in CLIENT_CERTIFICATE_PEM.
Prints one JSON object: {"answers": [{"status": ..., "body": ...}, ...]} for the APNs requests, in order.
"""
import json
import ssl
import sys

import httpx


def main():
    port, steps = sys.argv[1], json.loads(sys.argv[2])
    base = f"http://127.0.0.1:{port}"
    apns_base, verify = base, True
    if len(sys.argv) > 3:
        tls_port, ca, certificate = sys.argv[3:6]
        apns_base = f"https://localhost:{tls_port}"
        verify = ssl.create_default_context(cafile=ca)
        verify.load_cert_chain(certificate)
    answers = []
    # httpx closes a connection idle in its pool for 5 s by default: on a loaded machine a control call takes that
    # long, and the next request would go on a new connection. ONE connection is the point here.
    with httpx.Client(http1=False, http2=True, timeout=30, verify=verify, limits=httpx.Limits(keepalive_expiry=None)) as apns:
        for step in steps:
            if "control" in step:
                httpx.post(base + step["control"], json=step["body"], timeout=30).raise_for_status()
                continue
            headers = {"apns-push-type": "alert"}
            if "jwt" in step:
                headers["authorization"] = f"bearer {step['jwt']}"
            if "topic" in step:
                headers["apns-topic"] = step["topic"]
            response = apns.post(f"{apns_base}/3/device/{step['token']}", content=b'{"aps":{"alert":"Hi"}}', headers=headers)
            answers.append({"status": response.status_code, "body": response.text, "http_version": response.http_version})
    print(json.dumps({"answers": answers}))


main()
