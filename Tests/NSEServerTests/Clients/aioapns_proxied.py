"""aioapns sending to APNs's sandbox host through `nse serve --proxy`, with its proxy_host/proxy_port arguments
(aioapns reads no HTTPS_PROXY) and SSL_CERT_FILE for the CA (its default context, ssl.create_default_context()).

Usage: aioapns_proxied.py PROXY_PORT TOKEN TOPIC
Prints one JSON object: the result aioapns returned.
"""
import asyncio
import json
import sys

from aioapns import APNs, NotificationRequest, PushType
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


async def main():
    port, token, topic = sys.argv[1:]
    # A fresh ES256 key, as Apple's .p8 holds one (the devices file names none: the emulator checks the token's form).
    key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    apns = APNs(key=key, key_id="KEY1234567", team_id="TEAM123456", topic=topic, use_sandbox=True,
                proxy_host="127.0.0.1", proxy_port=int(port))
    request = NotificationRequest(
        device_token=token, message={"aps": {"alert": {"title": "From aioapns"}}}, push_type=PushType.ALERT)
    result = await apns.send_notification(request)
    print(json.dumps({"successful": result.is_successful, "status": result.status, "description": result.description}))


asyncio.run(main())
