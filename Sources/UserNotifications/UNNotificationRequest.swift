import Foundation

/// What triggered a notification; for a push, a `UNPushNotificationTrigger`.
open class UNNotificationTrigger: NSObject, @unchecked Sendable {
    public let repeats: Bool

    package init(repeats: Bool) {
        self.repeats = repeats
        super.init()
    }
}

/// The trigger of a remote notification.
open class UNPushNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    package init() {
        super.init(repeats: false)
    }
}

/// A notification request: its identifier, content and trigger.
open class UNNotificationRequest: NSObject, @unchecked Sendable {
    public let identifier: String
    public let content: UNNotificationContent
    public let trigger: UNNotificationTrigger?

    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = content.copy() as? UNNotificationContent ?? content
        self.trigger = trigger
        super.init()
    }
}

/// The base class of a Notification Service Extension: override `didReceive(_:withContentHandler:)` and
/// `serviceExtensionTimeWillExpire()` exactly as on iOS.
open class UNNotificationServiceExtension: NSObject {
    public required override init() {
        // Every run makes its extension first: the moment to connect `os`'s log to the runs.
        StandInRun.installLogSink
        super.init()
    }

    /// iOS's default delivers the content unchanged.
    open func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        contentHandler(request.content)
    }

    open func serviceExtensionTimeWillExpire() {}
}
