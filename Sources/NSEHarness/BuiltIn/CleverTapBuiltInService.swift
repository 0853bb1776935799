import CTNotificationService
import NSEKit

/// `--sdk clevertap`: the extension CTNotificationService's README shows (a subclass of
/// `CTNotificationServiceExtension` that calls `super.didReceive`), with the command line's content changes made to
/// the request before CleverTap gets it.
final class CleverTapBuiltInService: CTNotificationServiceExtension, @unchecked Sendable {
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
