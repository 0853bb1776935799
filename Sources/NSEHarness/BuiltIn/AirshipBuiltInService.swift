import AirshipNotificationServiceExtension
import NSEKit
import UserNotifications

/// `--sdk airship`: Airship's documented extension (an empty subclass of `UANotificationServiceExtension`), with
/// the command line's content changes made on what it delivers.
final class AirshipBuiltInService: UANotificationServiceExtension {
    // Set once, before the harness calls `didReceive`.
    private var changes = ContentChanges()

    convenience init(changes: ContentChanges) {
        self.init()
        self.changes = changes
    }

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let changes = changes
        super.didReceive(request) { contentHandler(changes.applied(to: $0)) }
    }
}
