// A Mixpanel extension that tracks its own event through Mixpanel.h's `sharedInstanceWithToken:` and `track:`
// before the SDK's helper runs.
import Mixpanel
import UserNotifications

class TrackingNotificationService: MPNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let mixpanel = Mixpanel.sharedInstance(withToken: "MIXPANEL_TOKEN")
        mixpanel.identify("user-42")
        mixpanel.track("Push Received", properties: ["source": "extension"])
        mixpanel.flush()
        super.didReceive(request, withContentHandler: contentHandler)
    }
}
