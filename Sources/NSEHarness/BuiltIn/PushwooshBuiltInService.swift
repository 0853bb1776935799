import NSEPipeline
import PushwooshFramework
import UserNotifications

/// `--sdk pushwoosh`: Pushwoosh's documented extension (a subclass of `PushwooshNotificationServiceExtension`)
/// with the App Group its documentation requires for `pw_badge`, and the command line's content changes made on
/// what it delivers. The group's saved badge count starts at 0 (a fresh container) unless a seed sets it.
final class PushwooshBuiltInService: PushwooshNotificationServiceExtension {
    // Set once, before the harness calls `didReceive`.
    private var changes = ContentChanges()

    convenience init(changes: ContentChanges) {
        self.init()
        self.changes = changes
    }

    override func pushwooshAppGroupsName() -> String? {
        "group.nse.builtin"
    }

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let changes = changes
        super.didReceive(request) { contentHandler(changes.applied(to: $0)) }
    }
}
