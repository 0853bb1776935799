import BrazeNotificationService
import NSEKit

/// `--sdk braze`: the extension Braze's documentation shows (an empty subclass of Braze's NotificationService),
/// with the command line's content changes made to the request before Braze gets it.
final class BrazeBuiltInService: BrazeNotificationService.NotificationService, @unchecked Sendable {
    // Set at creation, before the harness hands the instance to its threads.
    private let changes: ContentChanges

    init(changes: ContentChanges) {
        self.changes = changes
        super.init()
    }

    required init() {
        changes = ContentChanges()
        super.init()
    }

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        super.didReceive(changes.applied(to: request), withContentHandler: contentHandler)
    }
}
