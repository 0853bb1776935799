"""aioapns sending through `nse serve --proxy`, as its README shows it, with its own proxy arguments.

Usage: aioapns_proxied.py PROXY_PORT TOKEN TOPIC [--sandbox] [--with-fix]
Run with SSL_CERT_FILE (aioapns's default TLS context is ssl.create_default_context(), which reads it). With
--with-fix it first imports aioapns_proxy_fix, the fix docs/serve.md gives for aioapns's proxy code on Python 3.11
and later; without, on those versions the send waits for ever (aioapns's bug). Sends one alert with a provider key (a fresh P-256 key: the emulator
checks the token's form and age, not its signature) to api.push.apple.com (api.development.push.apple.com with
--sandbox). Prints one JSON object: whether APNs accepted it, its status and reason.
"""
import asyncio
import json
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from aioapns import APNs, NotificationRequest, PushType


async def main():
    proxy_port, token, topic = sys.argv[1:4]
    sandbox = "--sandbox" in sys.argv[4:]
    if "--with-fix" in sys.argv[4:]:
        import aioapns_proxy_fix  # noqa: F401 (it patches aioapns when imported)
    key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()

    # From here on, as aioapns's README shows it, with the proxy arguments its constructor takes.
    apns = APNs(
        key=key, key_id="KEY1234567", team_id="TEAM123456", topic=topic, use_sandbox=sandbox,
        proxy_host="127.0.0.1", proxy_port=int(proxy_port),
    )
    request = NotificationRequest(
        device_token=token,
        message={"aps": {"alert": {"title": "Sent by aioapns", "body": "Through the proxy"}}},
        push_type=PushType.ALERT,
    )
    result = await apns.send_notification(request)
    print(json.dumps({"accepted": result.is_successful, "status": result.status, "reason": result.description}))


asyncio.run(main())
