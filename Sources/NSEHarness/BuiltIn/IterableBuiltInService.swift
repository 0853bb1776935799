import IterableAppExtensions
import NSEKit

/// `--sdk iterable`: the extension Iterable documents (a subclass of `ITBNotificationServiceExtension`; the
/// documented one is empty), with the command line's content changes made to
/// the request before Iterable gets it.
final class IterableBuiltInService: ITBNotificationServiceExtension, @unchecked Sendable {
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
