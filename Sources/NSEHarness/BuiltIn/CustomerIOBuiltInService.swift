import CioInternalCommon
import CioMessagingPush
import CioMessagingPushAPN
import NSEPipeline

/// `--sdk customerio`: the extension Customer.io's documentation shows (initialize the push module for the
/// extension, hand the request to `MessagingPush.shared`, forward the expiry call), with the command line's content
/// changes made to the request first. Like the documented file it ignores `didReceive`'s result, so a push that is
/// not Customer.io's is never delivered by the extension.
final class CustomerIOBuiltInService: UNNotificationServiceExtension, @unchecked Sendable {
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
        MessagingPushAPN.initializeForExtension(withConfig: MessagingPushConfigBuilder(cdpApiKey: "nse-built-in-cdp-api-key").region(.US).build())
        MessagingPush.shared.didReceive(changes.applied(to: request), withContentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        MessagingPush.shared.serviceExtensionTimeWillExpire()
    }
}
