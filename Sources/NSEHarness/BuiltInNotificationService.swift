import FirebaseMessaging
import NSEKit
import UserNotifications

/// The command line's extension, written as Firebase's documentation tells apps to write theirs: copy the
/// content, make the changes, hand it to `populateNotificationContent`, deliver the best attempt on expiry.
final class BuiltInNotificationService: UNNotificationServiceExtension, @unchecked Sendable {
    // Set before `didReceive` and read after it, by the harness's threads in turn.
    var changes = ContentChanges()
    private var contentHandler: ((UNNotificationContent) -> Void)?
    private var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
            contentHandler(request.content)
            return
        }
        bestAttemptContent = content
        if let title = changes.title { content.title = title }
        if let suffix = changes.titleSuffix { content.title += suffix }
        if let subtitle = changes.subtitle { content.subtitle = subtitle }
        if let body = changes.body { content.body = body }
        if let badge = changes.badge { content.badge = NSNumber(value: badge) }
        if let sound = changes.sound { content.sound = sound == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(sound)) }
        if let category = changes.categoryIdentifier { content.categoryIdentifier = category }
        if let thread = changes.threadIdentifier { content.threadIdentifier = thread }
        Messaging.serviceExtension().populateNotificationContent(content, withContentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}

extension Emulator {
    /// The emulator with the built-in extension: the given content changes, then Firebase's image helper,
    /// run by the same harness that runs an app's own extension.
    public init(profile: DeviceProfile = DeviceProfile(), changes: ContentChanges = ContentChanges(), hostMapping: MediaHostMapping? = nil) {
        // Memory is not measured: the built-in extension streams to disk, and batch runs extensions concurrently.
        var runner = HarnessRunner(memoryMeasurement: .off, changesContent: !changes.isEmpty) {
            let service = BuiltInNotificationService()
            service.changes = changes
            return service
        }
        // The command line's own extension: its requests and handler calls are the emulator's, not the user's.
        runner.reportsActivity = false
        self.init(profile: profile, extensionRunner: runner, hostMapping: hostMapping)
    }
}
