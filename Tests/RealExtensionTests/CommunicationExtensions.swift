// A chat app's communication notification written as many are: the sender's avatar is an image from the app's
// own assets, force-unwrapped (it always exists in the app), and the donation is awaited in a Task.
import Intents
import UIKit
import UserNotifications

class BundleAvatarMessageService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        let userInfo = request.content.userInfo
        let avatarImage = UIImage(named: userInfo["avatar"] as? String ?? "DefaultAvatar")!
        let avatar = INImage(imageData: avatarImage.pngData()!)
        let sender = INPerson(
            personHandle: INPersonHandle(value: userInfo["sender-id"] as? String, type: .unknown), nameComponents: nil,
            displayName: userInfo["sender-name"] as? String, image: avatar, contactIdentifier: nil, customIdentifier: nil)
        let intent = INSendMessageIntent(
            recipients: nil, outgoingMessageType: .outgoingMessageText, content: request.content.body, speakableGroupName: nil,
            conversationIdentifier: userInfo["conversation-id"] as? String, serviceName: nil, sender: sender, attachments: nil)
        intent.setImage(avatar, forParameterNamed: \.sender)
        let interaction = INInteraction(intent: intent, response: nil)
        interaction.direction = .incoming
        Task {
            do {
                try await interaction.donate()
                contentHandler(try request.content.updating(from: intent))
            } catch {
                contentHandler(self.bestAttemptContent ?? request.content)
            }
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
    }
}

/// The same with `INImage(named:)`, the Intents way to name an asset.
class NamedAvatarMessageService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let avatar = INImage(named: "GroupAvatar")
        let sender = INPerson(
            personHandle: INPersonHandle(value: "u2", type: .unknown), nameComponents: nil, displayName: "Grace",
            image: avatar, contactIdentifier: nil, customIdentifier: "u2")
        let intent = INSendMessageIntent(
            recipients: nil, outgoingMessageType: .outgoingMessageText, content: request.content.body, speakableGroupName: INSpeakableString(spokenPhrase: "Team"),
            conversationIdentifier: "c2", serviceName: nil, sender: sender, attachments: nil)
        INInteraction(intent: intent, response: nil).donate { _ in
            contentHandler((try? request.content.updating(from: intent)) ?? request.content)
        }
    }
}

/// A calling app's missed-call push: the caller's avatar from the app group's cache, an INStartCallIntent.
class MissedCallService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let userInfo = request.content.userInfo
        var avatar: INImage?
        if let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.calls"),
           let data = try? Data(contentsOf: container.appendingPathComponent("avatars/caller.png")) {
            avatar = INImage(imageData: data)
        }
        let caller = INPerson(
            personHandle: INPersonHandle(value: userInfo["caller-number"] as? String, type: .phoneNumber), nameComponents: nil,
            displayName: userInfo["caller-name"] as? String, image: avatar, contactIdentifier: nil, customIdentifier: nil)
        let intent = INStartCallIntent(
            callRecordFilter: nil, callRecordToCallBack: .missed, audioRoute: .unknown, destinationType: .normal,
            contacts: [caller], callCapability: .audioCall)
        let interaction = INInteraction(intent: intent, response: nil)
        interaction.direction = .incoming
        interaction.donate { _ in
            contentHandler((try? request.content.updating(from: intent)) ?? request.content)
        }
    }
}
