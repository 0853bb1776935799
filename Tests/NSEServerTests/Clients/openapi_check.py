"""Checks a running `nse serve` against docs/openapi.yaml, for NSEServerTests (OpenAPITests).

Sends real requests for every documented operation (httpx, HTTP/1.1), and checks that each answer's status is
one the operation documents and that its body validates (jsonschema, draft 2020-12, OpenAPI 3.1's dialect)
against the schema documented for that status; that every operation was exercised; and that no method or path
outside the file is answered with a success.

Usage: openapi_check.py SPEC PORT APNS_TOKEN FCM_TOKEN PROJECT TOPIC
Prints one JSON object: {"checked": [...operation ids...], "answers": N, "failures": [...]}.
"""
import json
import sys
import time
import urllib.parse

import httpx
import jsonschema
import jwt
import yaml
from cryptography.hazmat.primitives.asymmetric import ec


def inline(node, root, seen=()):
    """The spec with every local $ref replaced by what it points at (the file has no cycles)."""
    if isinstance(node, dict):
        if "$ref" in node and isinstance(node["$ref"], str) and node["$ref"].startswith("#/"):
            ref = node["$ref"]
            if ref in seen:
                raise ValueError(f"cyclic $ref {ref}")
            target = root
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            return inline(target, root, seen + (ref,))
        return {key: inline(value, root, seen) for key, value in node.items()}
    if isinstance(node, list):
        return [inline(value, root, seen) for value in node]
    return node


class Checker:
    def __init__(self, spec, base):
        self.spec = inline(spec, spec)
        self.base = base
        self.client = httpx.Client(base_url=base, timeout=60)
        self.checked = set()
        self.answers = 0
        self.failures = []
        # Which operation a (method, path template) is.
        self.operations = {}
        for template, item in self.spec["paths"].items():
            for method, operation in item.items():
                if method in ("get", "post", "put", "delete", "patch", "head", "options"):
                    self.operations[operation["operationId"]] = (method.upper(), template, operation)
        for schema in self.all_schemas():
            jsonschema.Draft202012Validator.check_schema(schema)

    def all_schemas(self):
        for _, _, operation in self.operations.values():
            for response in operation.get("responses", {}).values():
                for media in response.get("content", {}).values():
                    if "schema" in media:
                        yield media["schema"]

    def fail(self, what):
        self.failures.append(what)

    def request(self, operation_id, path, method=None, expect=None, **kwargs):
        """Sends one request for `operation_id` and checks its answer against the spec."""
        if operation_id not in self.operations:
            self.fail(f"{operation_id}: not in the spec")
            return self.client.request(method or "GET", path, **kwargs)
        documented_method, template, operation = self.operations[operation_id]
        answer = self.client.request(method or documented_method, path, **kwargs)
        self.answers += 1
        self.checked.add(operation_id)
        label = f"{operation_id} {documented_method} {path} -> {answer.status_code}"
        if expect is not None and answer.status_code != expect:
            self.fail(f"{label}: expected {expect}; body {answer.text[:300]}")
        response = operation["responses"].get(str(answer.status_code))
        if response is None:
            self.fail(f"{label}: status not documented; body {answer.text[:300]}")
            return answer
        self.validate_answer(label, response, answer)
        return answer

    def validate_answer(self, label, response, answer):
        for name, header in response.get("headers", {}).items():
            if header.get("required") and name not in answer.headers:
                self.fail(f"{label}: header {name} missing")
        content = response.get("content")
        if not content:
            if answer.content:
                self.fail(f"{label}: documented without a body, got {answer.text[:200]}")
            return
        media_type = answer.headers.get("content-type", "").split(";")[0].strip()
        media = content.get(media_type)
        if media is None:
            self.fail(f"{label}: content type {media_type!r} not documented ({list(content)})")
            return
        if media_type == "application/json":
            try:
                body = answer.json()
            except ValueError:
                self.fail(f"{label}: body is not JSON: {answer.text[:200]}")
                return
            self.validate(label, media["schema"], body)

    def validate(self, label, schema, value):
        validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        for error in validator.iter_errors(value):
            self.fail(f"{label}: {'/'.join(map(str, error.absolute_path))}: {error.message[:300]}")

    def undocumented(self, method, path):
        """A method or path the spec does not list must not be answered with a success."""
        answer = self.client.request(method, path, content=b"{}" if method in ("POST", "PUT", "PATCH") else None)
        self.answers += 1
        if 200 <= answer.status_code < 300:
            self.fail(f"undocumented {method} {path} answered {answer.status_code}: {answer.text[:200]}")


def provider_token():
    key = ec.generate_private_key(ec.SECP256R1())
    return jwt.encode({"iss": "TEAM123456", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "KEY1234567"})


def main():
    spec_path, port, apns_token, fcm_token, project, topic = sys.argv[1:7]
    with open(spec_path) as handle:
        spec = yaml.safe_load(handle)
    check = Checker(spec, f"http://127.0.0.1:{port}")
    apns_headers = {"authorization": f"bearer {provider_token()}", "apns-topic": topic, "apns-push-type": "alert"}
    payload = json.dumps({"aps": {"alert": {"title": "Order shipped", "body": "Arrives Tuesday"}}})

    # APNs: accepted, and a refusal of each kind of status the server gives without a fault.
    apns_id = "5E2C6E1B-9F3D-4B8A-A1C2-3D4E5F6A7B8C"
    check.request("apnsSend", f"/3/device/{apns_token}", headers={**apns_headers, "apns-id": apns_id}, content=payload, expect=200)
    check.request("apnsSend", f"/3/device/{apns_token}", headers={**apns_headers, "apns-priority": "7"}, content=payload, expect=400)
    check.request("apnsSend", f"/3/device/{apns_token}", headers={"apns-topic": topic}, content=payload, expect=403)
    check.request("apnsSend", f"/3/device/{apns_token}", method="GET", headers=apns_headers, expect=405)
    check.request("apnsSend", f"/3/device/{apns_token}", headers=apns_headers, content=b"x" * ((1 << 20) + 1), expect=413)
    check.request("apnsSend", f"/3/device/{apns_token}", headers=apns_headers, content=b"[1]", expect=400)

    # OAuth token, then FCM.
    form = {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": provider_token()}
    token = check.request("oauthToken", "/token", data=form, expect=200).json().get("access_token", "")
    check.request("oauthToken", "/token", data={"grant_type": "password"}, expect=400)
    check.request("oauthToken", "/token", method="GET", expect=405)
    bearer = {"authorization": f"Bearer {token}"}
    send = f"/v1/projects/{project}/messages:send"
    name = check.request("fcmSend", send, headers=bearer, json={"message": {"token": fcm_token, "notification": {"title": "Hi"}}},
                         expect=200).json().get("name", "")
    check.request("fcmSend", send, headers=bearer, json={"message": {"token": fcm_token, "data": {"count": 3}}}, expect=400)
    check.request("fcmSend", send, json={"message": {"token": fcm_token}}, expect=401)
    # APNs refuses what FCM forwards to the iPhone: FCM's error with an ApnsError detail.
    check.request("fcmSend", send, headers=bearer, json={"message": {"token": fcm_token, "notification": {"title": "Hi"},
                  "apns": {"headers": {"apns-priority": "7"}}}}, expect=400)
    check.request("fcmSend", f"/v1/projects/other-project/messages:send", headers=bearer,
                  json={"message": {"token": fcm_token, "notification": {"title": "Hi"}}}, expect=403)

    # Faults: FCM's 429 and 503 with Retry-After, APNs's 500.
    check.request("setFault", "/emulator/v1/faults", json={"service": "fcm", "status": 429, "count": 1, "retryAfter": 1}, expect=200)
    check.request("fcmSend", send, headers=bearer, json={"message": {"token": fcm_token}}, expect=429)
    check.request("setFault", "/emulator/v1/faults", json={"service": "fcm", "status": 503, "count": 1}, expect=200)
    check.request("fcmSend", send, headers=bearer, json={"message": {"token": fcm_token}}, expect=503)
    check.request("setFault", "/emulator/v1/faults", json={"service": "fcm", "status": 401, "count": 1}, expect=200)
    check.request("fcmSend", send, headers=bearer, json={"message": {"token": fcm_token}}, expect=401)
    check.request("setFault", "/emulator/v1/faults", json={"service": "apns", "status": 500, "count": 1}, expect=200)
    check.request("apnsSend", f"/3/device/{apns_token}", headers=apns_headers, content=payload, expect=500)
    check.request("setFault", "/emulator/v1/faults", json={"service": "apns", "status": 429, "count": 1}, expect=200)
    check.request("apnsSend", f"/3/device/{apns_token}", headers=apns_headers, content=payload, expect=429)
    check.request("setFault", "/emulator/v1/faults", json={"service": "apns", "status": 503, "count": 1}, expect=200)
    check.request("apnsSend", f"/3/device/{apns_token}", headers=apns_headers, content=payload, expect=503)
    check.request("setFault", "/emulator/v1/faults", json={"service": "apns", "status": 418, "count": 1}, expect=400)
    # A share: every request of each block of 100 with a fixed seed, then half with a seed drawn (said in the answer).
    check.request("setFault", "/emulator/v1/faults", json={"service": "fcm", "status": 500, "percent": 100, "seed": 7}, expect=200)
    check.request("fcmSend", send, headers=bearer, json={"message": {"token": fcm_token}}, expect=500)
    check.request("setFault", "/emulator/v1/faults", json={"service": "apns", "status": 503, "percent": 50}, expect=200)
    check.request("setFault", "/emulator/v1/faults", json={"service": "apns", "status": 429, "count": 1, "percent": 5}, expect=400)
    check.request("setFault", "/emulator/v1/faults", json={"service": "apns", "status": 429, "count": 1, "seed": 5}, expect=400)
    check.request("clearFaults", "/emulator/v1/faults", method="DELETE", expect=204)

    # The control API: devices, notifications (settled, then pending and delivered both validate), messages.
    check.request("listDevices", "/emulator/v1/devices", expect=200)
    check.request("listNotifications", f"/emulator/v1/devices/{apns_token}/notifications?settled=1", expect=200)
    check.request("listNotifications", f"/emulator/v1/devices/{fcm_token}/notifications?settled=1&limit=1", expect=200)
    check.request("listNotifications", f"/emulator/v1/devices/{apns_token}/notifications?limit=0", expect=400)
    check.request("listNotifications", "/emulator/v1/devices/nobody/notifications", expect=404)
    check.request("getMessage", f"/emulator/v1/messages/{apns_id}", expect=200)
    check.request("getMessage", "/emulator/v1/messages/" + urllib.parse.quote(name, safe=""), expect=200)
    check.request("getMessage", "/emulator/v1/messages/no-such-id", expect=404)

    # The events stream: its answer's head, then one event, whose data validates as a notification.
    events_operation = check.operations["streamEvents"][2]
    with check.client.stream("GET", "/emulator/v1/events", params={"device": apns_token}) as stream:
        check.checked.add("streamEvents")
        check.answers += 1
        label = f"streamEvents GET /emulator/v1/events -> {stream.status_code}"
        media_type = stream.headers.get("content-type", "").split(";")[0]
        if stream.status_code != 200 or media_type != "text/event-stream":
            check.fail(f"{label}: {media_type}")
        lines = stream.iter_lines()
        if not next(lines).startswith(":"):
            check.fail(f"{label}: the stream does not open with a comment")
        check.client.post(f"/3/device/{apns_token}", headers=apns_headers, content=payload)
        event = {}
        for line in lines:
            if line == "" and event.get("event") == "notification":
                break
            if line == "":
                event = {}
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(": ")
            event[field] = value
        data_schema = events_operation["responses"]["200"]["content"]["text/event-stream"]["x-event-data"]
        check.validate(label + " (notification event's data)", data_schema, json.loads(event.get("data", "null")))
        if not event.get("id", "").isdigit():
            check.fail(f"{label}: event id {event.get('id')!r} is not a number")
    check.request("streamEvents", "/emulator/v1/events?device=nobody", expect=404)
    check.request("streamEvents", "/emulator/v1/events", headers={"last-event-id": "yesterday"}, expect=400)

    # Devices through the control API: added, changed, subscribed and unsubscribed, its FCM token rotated (the old
    # one is UNREGISTERED), removed; the emulator's clock; a client certificate.
    added_apns = "c" * 64
    added_fcm = "openapi-added:APA91bHexample"
    devices = "/emulator/v1/devices"
    added_fid = "cOpenAPIInstallation01"
    added = {"name": "Added iPhone", "platform": "ios", "apns": {"token": added_apns, "environment": "development"},
             "fcm": {"token": added_fcm, "project": project, "fid": added_fid}, "bundleId": topic}
    check.request("addDevice", devices, json=added, expect=201)
    check.request("addDevice", devices, json=added, expect=409)
    check.request("addDevice", devices, json={"name": "Nobody"}, expect=400)
    check.request("changeDevice", f"{devices}/{added_apns}", method="PATCH", expect=200,
                  json={"settings": {"sound": False}, "appState": "foreground", "foregroundPresentation": ["banner"]})
    check.request("changeDevice", f"{devices}/{added_apns}", method="PATCH", json={"apns": {"token": "00"}}, expect=400)
    check.request("changeDevice", f"{devices}/{added_fid}", method="PATCH", json={"fcm": {"fid": "dOpenAPIInstallation02"}}, expect=200)
    check.request("changeDevice", f"{devices}/{added_apns}", method="PATCH", json={"fcm": {"token": "x"}}, expect=400)
    check.request("fcmSend", send, headers=bearer, json={"message": {"fid": "dOpenAPIInstallation02", "notification": {"title": "Hi"}}}, expect=200)
    check.request("fcmSend", send, headers=bearer, json={"message": {"fid": added_fid, "notification": {"title": "Hi"}}}, expect=400)
    check.request("changeDevice", f"{devices}/nobody", method="PATCH", json={"appState": "background"}, expect=404)
    check.request("subscribeTopic", f"{devices}/{added_fcm}/topics/news", expect=200)
    check.request("subscribeTopic", f"{devices}/{added_apns}/topics/bad%20topic", expect=400)
    check.request("subscribeTopic", f"{devices}/nobody/topics/news", expect=404)
    check.request("unsubscribeTopic", f"{devices}/{added_apns}/topics/news", expect=200)
    check.request("unsubscribeTopic", f"{devices}/nobody/topics/news", expect=404)
    check.request("rotateFCMToken", f"{devices}/{added_apns}/rotate-fcm-token", expect=200)
    check.request("rotateFCMToken", f"{devices}/{added_apns}/rotate-fcm-token", json={"token": fcm_token}, expect=409)
    check.request("rotateFCMToken", f"{devices}/{added_apns}/rotate-fcm-token", json={"token": 3}, expect=400)
    check.request("rotateFCMToken", f"{devices}/nobody/rotate-fcm-token", expect=404)
    check.request("fcmSend", send, headers=bearer, json={"message": {"token": added_fcm, "notification": {"title": "Hi"}}}, expect=404)
    check.request("removeDevice", f"{devices}/{added_apns}", method="DELETE", expect=200)
    check.request("removeDevice", f"{devices}/{added_apns}", method="DELETE", expect=404)
    check.request("getClock", "/emulator/v1/clock", expect=200)
    check.request("setClock", "/emulator/v1/clock", json={"advance": 3600}, expect=200)
    check.request("setClock", "/emulator/v1/clock", json={"now": int(time.time() * 1000)}, expect=200)
    check.request("setClock", "/emulator/v1/clock", json={"later": 1}, expect=400)
    check.request("issueClientCertificate", "/emulator/v1/client-certificates", json={"topic": topic}, expect=200)
    check.request("issueClientCertificate", "/emulator/v1/client-certificates", json={"topic": topic, "environment": "production"}, expect=200)
    check.request("issueClientCertificate", "/emulator/v1/client-certificates", json={"topic": "../x"}, expect=400)

    # Uninstall (then APNs's 410 and FCM's 404), clear.
    check.request("uninstallApp", f"/emulator/v1/devices/{apns_token}/uninstall", expect=200)
    check.request("uninstallApp", "/emulator/v1/devices/nobody/uninstall", expect=404)
    check.request("apnsSend", f"/3/device/{apns_token}", headers=apns_headers, content=payload, expect=410)
    check.request("fcmSend", send, headers=bearer, json={"message": {"token": fcm_token, "notification": {"title": "Hi"}}}, expect=404)
    check.request("listNotifications", f"/emulator/v1/devices/{apns_token}/notifications", expect=200)
    # The phones page: the document, its assets, a delivered notification as it draws it.
    check.request("phonesPage", "/", expect=200)
    check.request("phonesPageStyle", "/phones/page.css", expect=200)
    check.request("phonesPageScript", "/phones/page.js", expect=200)
    delivered = check.client.get(f"/emulator/v1/devices/{fcm_token}/notifications?settled=1").json()["notifications"]
    if delivered:
        check.request("phonesPageNotification", f"/phones/notifications/{delivered[0]['seq']}", expect=200)
    else:
        check.fail("no delivered notification to draw")
    check.request("phonesPageNotification", "/phones/notifications/x", expect=400)
    check.request("phonesPageNotification", "/phones/notifications/999999", expect=404)
    # Reinstall: new tokens; the old APNs token stays 410; an installed app cannot be reinstalled.
    check.request("reinstallApp", f"/emulator/v1/devices/{apns_token}/reinstall", json={"apnsToken": 3}, expect=400)
    check.request("reinstallApp", f"/emulator/v1/devices/{apns_token}/reinstall", json={"settings": {"authorization": "maybe"}}, expect=400)
    check.request("reinstallApp", f"/emulator/v1/devices/{apns_token}/reinstall",
                  json={"apnsToken": "e" * 64, "settings": {"authorization": "notDetermined"}, "appState": "notRunning", "topics": ["news"]}, expect=200)
    check.request("reinstallApp", f"/emulator/v1/devices/{apns_token}/reinstall", expect=409)
    check.request("reinstallApp", "/emulator/v1/devices/nobody/reinstall", expect=404)
    check.request("apnsSend", f"/3/device/{apns_token}", headers=apns_headers, content=payload, expect=410)
    check.request("apnsSend", f"/3/device/{'e' * 64}", headers=apns_headers, content=payload, expect=200)
    check.request("clearState", "/emulator/v1/state", method="DELETE", expect=204)

    # Nothing outside the file answers with a success: every other method on each documented path, and paths
    # beside the documented ones.
    for template, item in check.spec["paths"].items():
        path = (template.replace("{token}", apns_token).replace("{project}", project).replace("{id}", apns_id)
                .replace("{topic}", "news"))
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            if method.lower() not in item:
                check.undocumented(method, path)
    for path in ["/phones", "/phones/", "/phones/other.js", "/phones/notifications", "/3/device", "/3/device/", "/3/devices/" + apns_token, "/v1/projects/" + project + "/messages",
                 "/v1/projects/" + project + "/messages:sendAll", "/v1/projects", "/token/x", "/emulator/v1", "/emulator/v1/",
                 "/emulator/v1/devices/" + apns_token + "/other", "/emulator/v1/messages",
                 "/emulator/v1/other", "/emulator/v2/devices", "/emulator/v1/devices/" + apns_token + "/notifications/1",
                 "/emulator/v1/devices/" + apns_token + "/topics", "/emulator/v1/devices/" + apns_token + "/topics/news/x",
                 "/emulator/v1/clock/x", "/emulator/v1/client-certificates/x"]:
        for method in ("GET", "POST", "PUT", "DELETE"):
            check.undocumented(method, path)

    missing = sorted(set(check.operations) - check.checked)
    for operation_id in missing:
        check.fail(f"{operation_id}: documented but never exercised")
    print(json.dumps({"checked": sorted(check.checked), "answers": check.answers, "failures": check.failures}))


if __name__ == "__main__":
    main()
