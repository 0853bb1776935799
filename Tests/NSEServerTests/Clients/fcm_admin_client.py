"""firebase-admin (Google's own Python Admin SDK) sending to `nse serve`, for NSEServerTests.

Usage: fcm_admin_client.py PORT PROJECT SCENARIO TOKEN...  (for the topic and condition scenarios: the topic or condition;
for send_fid and multicast_fids: Firebase Installation IDs; for apns_headers: the token, then the APNs headers as JSON)
Prints one JSON object: what the SDK returned or raised, so the Swift test can check it.
The SDK has no setting for its FCM host (device-behaviour.md section 8): the test points its class attribute at the
emulator, and the service account's token_uri at the emulator's /token, which google-auth then calls itself.
"""
import json
import os
import sys
import tempfile

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

import firebase_admin
from firebase_admin import credentials, exceptions, messaging


def main():
    port, project, scenario, *tokens = sys.argv[1:]
    base = f"http://127.0.0.1:{port}"
    messaging._MessagingService.FCM_URL = base + "/v1/projects/{0}/messages:send"
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    account = {
        "type": "service_account", "project_id": project, "private_key_id": "k1", "private_key": pem,
        "client_email": f"firebase-adminsdk@{project}.iam.gserviceaccount.com", "client_id": "1",
        "token_uri": base + "/token",
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(account, handle)
    try:
        certificate = credentials.Certificate(handle.name)
    finally:
        # Read once, when the credential is made: the test leaves no key file behind.
        os.unlink(handle.name)
    app = firebase_admin.initialize_app(certificate)

    def message(token, **extra):
        return messaging.Message(
            token=token,
            notification=messaging.Notification(title="Order shipped", body="Arrives Tuesday"),
            **extra)

    def describe(error):
        described = {"exception": type(error).__name__, "code": error.code, "http_status": error.http_response.status_code if error.http_response is not None else None}
        # The SDK branches on the FcmError detail alone; the ApnsError beside it reaches code that reads the answer.
        try:
            described["details"] = error.http_response.json()["error"]["details"]
        except (AttributeError, KeyError, TypeError, ValueError):
            pass
        return described

    result = {}
    try:
        if scenario == "send":
            result["name"] = messaging.send(message(tokens[0]), app=app)
        elif scenario == "send_fid":
            # firebase-admin 7's target for an app instance: its Firebase Installation ID.
            result["name"] = messaging.send(messaging.Message(
                fid=tokens[0], notification=messaging.Notification(title="Order shipped", body="Arrives Tuesday")), app=app)
        elif scenario == "multicast_fids":
            batch = messaging.send_each_for_multicast(messaging.MulticastMessage(
                fids=tokens, notification=messaging.Notification(title="To installations")), app=app)
            result["success_count"] = batch.success_count
            result["responses"] = [
                {"name": r.message_id} if r.success else describe(r.exception) for r in batch.responses
            ]
        elif scenario == "dry_run":
            result["name"] = messaging.send(message(tokens[0]), dry_run=True, app=app)
        elif scenario == "apns_headers":
            result["name"] = messaging.send(message(tokens[0], apns=messaging.APNSConfig(headers=json.loads(tokens[1]))), app=app)
        elif scenario == "reserved_data_key":
            result["name"] = messaging.send(message(tokens[0], data={"from": "shop"}), app=app)
        elif scenario == "topic":
            result["name"] = messaging.send(messaging.Message(
                topic=tokens[0], notification=messaging.Notification(title="To a topic")), app=app)
        elif scenario == "condition":
            result["name"] = messaging.send(messaging.Message(
                condition=tokens[0], notification=messaging.Notification(title="To a condition")), app=app)
        elif scenario == "send_each":
            batch = messaging.send_each([message(token) for token in tokens], app=app)
            result["success_count"] = batch.success_count
            result["responses"] = [
                {"name": r.message_id} if r.success else describe(r.exception) for r in batch.responses
            ]
        else:
            raise SystemExit(f"unknown scenario {scenario}")
    except exceptions.FirebaseError as error:
        result = describe(error)
    print(json.dumps(result))


main()
