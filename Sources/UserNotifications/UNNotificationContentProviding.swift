import Foundation
import NSEPush

/// What can turn a notification into a communication notification: `INSendMessageIntent` (Intents).
public protocol UNNotificationContentProviding: NSObjectProtocol {
    /// The communication the system shows; package-internal, for the harness.
    var communicationForNotification: Communication { get }
}

extension UNNotificationContent {
    /// The content as a communication notification (iOS 15): the sender's avatar and the conversation's
    /// name come from the intent. Throws for a provider that is not an intent the system knows.
    public func updating(from provider: UNNotificationContentProviding) throws -> UNNotificationContent {
        var updated = fields
        updated.communication = provider.communicationForNotification
        if let communication = updated.communication, !communication.donated {
            StandInRun.record(.warning(.extensionCommunication, "content.updating(from:) with an \(communication.intent) that was never donated: Apple's guide donates the INInteraction first (interaction.donate), so Siri suggestions and Focus know the sender."))
        }
        return UNNotificationContent(fields: updated, environment: environment)
    }
}
