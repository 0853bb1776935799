import NSEPipeline
import UserNotifications

/// `--sdk braze|clevertap|iterable|airship|batch|mixpanel`: the SDK's documented extension, which is an empty
/// subclass of the SDK's class, with the command line's content changes. One wrapper for all of them rather
/// than a subclass each: the documented file adds nothing to the SDK's class, so running that class itself is
/// the same run.
final class ChangedSDKExtension: UNNotificationServiceExtension, @unchecked Sendable {
    /// Where an app that subclasses the SDK's extension makes its edits, as that SDK's documentation shows.
    enum Moment {
        /// On the request, before calling `super.didReceive`: the SDK's "original content" includes them.
        case beforeTheSDK
        /// In the handler passed to `super`, on what the SDK delivers.
        case onWhatTheSDKDelivers
    }

    // Set at creation, before the harness hands the instance to its threads.
    private let sdk: UNNotificationServiceExtension
    private let changes: ContentChanges
    private let moment: Moment

    init(_ sdk: UNNotificationServiceExtension, changes: ContentChanges, at moment: Moment) {
        self.sdk = sdk
        self.changes = changes
        self.moment = moment
        super.init()
    }

    required init() {
        sdk = UNNotificationServiceExtension()
        changes = ContentChanges()
        moment = .beforeTheSDK
        super.init()
    }

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        switch moment {
        case .beforeTheSDK:
            sdk.didReceive(changes.applied(to: request), withContentHandler: contentHandler)
        case .onWhatTheSDKDelivers:
            let changes = changes
            sdk.didReceive(request) { contentHandler(changes.applied(to: $0)) }
        }
    }

    override func serviceExtensionTimeWillExpire() {
        sdk.serviceExtensionTimeWillExpire()
    }
}
