// A Mixpanel extension that keeps the user's profile and super properties up to date (Mixpanel.h, MixpanelPeople.h)
// and measures the image Mixpanel attached. It imports only Mixpanel, whose umbrella header brings Foundation,
// UIKit and UserNotifications.
import Mixpanel

class ProfileNotificationService: MPNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let mixpanel = Mixpanel.sharedInstance(withToken: "MIXPANEL_TOKEN")
        mixpanel.registerSuperProperties(["source": "notification-service", "extension_version": 3])
        mixpanel.registerSuperPropertiesOnce(["source": "ignored, already set"])
        mixpanel.identify("user-42")
        Mixpanel.sharedInstance()?.people.increment("pushes_received", by: 1)
        super.didReceive(request) { content in
            if let url = content.attachments.first?.url, let image = UIImage(contentsOfFile: url.path) {
                mixpanel.people.set("last_push_image_width", to: image.size.width * image.scale)
            }
            mixpanel.track("Push Rendered", properties: ["attachments": content.attachments.count])
            contentHandler(content)
        }
    }
}
