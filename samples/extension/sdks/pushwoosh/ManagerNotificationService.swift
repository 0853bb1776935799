// A Pushwoosh extension written before SDK 7.1 (PWNotificationExtensionManager, still in 7.1 though deprecated),
// as many apps still have it: it imports only PushwooshFramework, whose umbrella header brings Foundation and
// UserNotifications, and names its App Group for `aps.pw_badge`.
import PushwooshFramework

class ManagerNotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        PWNotificationExtensionManager.shared().handle(request, withAppGroups: "group.com.example.shop", contentHandler: contentHandler)
    }
}
