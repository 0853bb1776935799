"""firebase-admin sending through `nse serve --proxy`, as Firebase's docs show it: no emulator address anywhere.

Usage: fcm_admin_proxied.py PROJECT TOKEN... [--async-fcm-url URL]
Run with HTTPS_PROXY and the CA variables that `nse serve --print-env` prints. The service account names Google's
own token endpoint; google-auth fetches the access token there (through the proxy), firebase-admin sends to
fcm.googleapis.com with requests (send and send_each). send_each_async reads no proxy variable: its httpx client
mounts transports of its own, which take the place of the proxy httpx would read from the environment. With
--async-fcm-url it also sends with send_each_async, after the one line docs/serve.md gives for it (the FCM URL
pointed at the emulator; the access token still comes through the proxy).
Prints one JSON object.
"""
import asyncio
import json
import os
import sys
import tempfile

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

import firebase_admin
from firebase_admin import credentials, messaging


def service_account_file(project):
    """A service-account JSON as the Firebase console downloads it (a fresh key: the emulator checks no signature)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    account = {
        "type": "service_account", "project_id": project, "private_key_id": "k1", "private_key": pem,
        "client_email": f"firebase-adminsdk@{project}.iam.gserviceaccount.com", "client_id": "1",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    handle = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(account, handle)
    handle.close()
    return handle.name


def main():
    arguments = sys.argv[1:]
    async_url = None
    if "--async-fcm-url" in arguments:
        at = arguments.index("--async-fcm-url")
        async_url = arguments[at + 1]
        del arguments[at:at + 2]
    project, *tokens = arguments

    # From here on, as Firebase's "Send messages to specific devices" page shows it.
    path = service_account_file(project)
    try:
        cred = credentials.Certificate(path)
    finally:
        # Read once, when the credential is made: the test leaves no key file behind.
        os.unlink(path)
    firebase_admin.initialize_app(cred)

    message = messaging.Message(
        notification=messaging.Notification(title="Order shipped", body="Arrives Tuesday"),
        token=tokens[0],
    )
    response = messaging.send(message)

    messages = [
        messaging.Message(notification=messaging.Notification(title=f"Batch {index}", body="From send_each"), token=token)
        for index, token in enumerate(tokens)
    ]
    batch = messaging.send_each(messages)

    answer = {
        "send": response,
        "send_each": [r.message_id if r.success else repr(r.exception) for r in batch.responses],
    }
    if async_url:
        # docs/serve.md: the one line send_each_async needs, before the app's first send.
        messaging._MessagingService.FCM_URL = async_url
        # A new app: the messaging service (and its URL) is made per app, on its first use.
        app = firebase_admin.initialize_app(cred, name="async")
        messages = [
            messaging.Message(notification=messaging.Notification(title=f"Async {index}", body="From send_each_async"), token=token)
            for index, token in enumerate(tokens)
        ]
        batch = asyncio.run(messaging.send_each_async(messages, app=app))
        answer["send_each_async"] = [r.message_id if r.success else repr(r.exception) for r in batch.responses]
    print(json.dumps(answer))


main()
