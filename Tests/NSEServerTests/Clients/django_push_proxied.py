"""django-push-notifications (its FCM side, which sends with firebase-admin) through `nse serve --proxy`.

Usage: django_push_proxied.py PROJECT TOKEN
Run with HTTPS_PROXY and the CA variables that `nse serve --print-env` prints. Registers the token as an FCM
device in the app's own model, then sends to it as the package's README shows; nothing names the emulator.
Prints one JSON object. Its APNs side cannot be proxied by settings (docs/serve.md says why).
"""
import json
import os
import sys
import tempfile

import django
from django.conf import settings
from django.core.management import call_command

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def main():
    project, token = sys.argv[1:]
    settings.configure(
        INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "push_notifications"],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        PUSH_NOTIFICATIONS_SETTINGS={},
        USE_TZ=True,
    )
    django.setup()
    call_command("migrate", verbosity=0)

    import firebase_admin
    from firebase_admin import credentials
    from push_notifications.models import GCMDevice

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    account = {
        "type": "service_account", "project_id": project, "private_key_id": "k1",
        "private_key": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
        "client_email": f"firebase-adminsdk@{project}.iam.gserviceaccount.com", "client_id": "1",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(account, handle)
    try:
        certificate = credentials.Certificate(handle.name)
    finally:
        # Read once, when the credential is made: the test leaves no key file behind.
        os.unlink(handle.name)
    # The package's README: initialize the default Firebase app, register the device, send.
    firebase_admin.initialize_app(certificate)
    GCMDevice.objects.create(registration_id=token, cloud_message_type="FCM")

    device = GCMDevice.objects.get(registration_id=token)
    batch = device.send_message("Your order is on its way", title="Order shipped")
    device.refresh_from_db()
    print(json.dumps({
        "responses": [r.message_id if r.success else repr(r.exception) for r in batch.responses],
        "active": device.active,
    }))


main()
