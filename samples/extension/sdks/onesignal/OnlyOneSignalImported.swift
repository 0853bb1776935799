// An extension that imports only OneSignalExtension, as Objective-C-minded apps often do: OneSignalExtension.h
// imports UserNotifications, so on Apple the UN* types come with it. It also calls the helper's older form
// (no handler; deprecated by OneSignal but still in OneSignalExtension.h) and delivers the returned content.
import OneSignalExtension

class OnlyOneSignalImportedService: UNNotificationServiceExtension {
    private var request: UNNotificationRequest?
    private var bestAttemptContent: UNMutableNotificationContent?
    private var contentHandler: ((UNNotificationContent) -> Void)?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.request = request
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        let content = OneSignalExtension.didReceiveNotificationExtensionRequest(request, with: bestAttemptContent)
        contentHandler(content ?? request.content)
    }

    override func serviceExtensionTimeWillExpire() {
        guard let request, let contentHandler, let bestAttemptContent else { return }
        contentHandler(OneSignalExtension.serviceExtensionTimeWillExpireRequest(request, with: bestAttemptContent) ?? bestAttemptContent)
    }
}
