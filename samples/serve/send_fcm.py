"""A backend's campaign send with firebase-admin, exactly as Firebase's "Send messages" page shows it.

Nothing here knows about nse: run it with the variables `nse serve --print-env` prints and it reaches the emulated
phones instead of Google. The service account (sample, emulator-only key) names Google's own token endpoint.
"""
import firebase_admin
from firebase_admin import credentials, messaging

cred = credentials.Certificate("samples/serve/service-account.json")
firebase_admin.initialize_app(cred)

message = messaging.Message(
    notification=messaging.Notification(
        title="Spring Sale", body="Up to 50% off this weekend.", image="https://media.example.com/img/sale.jpg"),
    apns=messaging.APNSConfig(payload=messaging.APNSPayload(aps=messaging.Aps(mutable_content=True))),
    topic="sale",
)
print("sent:", messaging.send(message))

# A token whose app was uninstalled: FCM answers 404 UNREGISTERED, which firebase-admin raises as UnregisteredError.
try:
    messaging.send(messaging.Message(notification=messaging.Notification(title="Hi Ben"), token="fZp8Ben0Pixel:APA91bSampleAndroidToken"))
except messaging.UnregisteredError as error:
    print("drop this token:", error)
