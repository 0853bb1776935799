@_exported import Foundation
import NSEPush
import NSEMedia
import UserNotifications
import NSEPipeline
import NSEBatch

/// An image for an intent: the sender's avatar of a communication notification.
open class INImage: NSObject, @unchecked Sendable {
    // Immutable.
    public let imageData: Data?
    public let imageURL: URL?

    public init(imageData: Data) {
        self.imageData = imageData
        self.imageURL = nil
        super.init()
    }

    /// An image the system loads from a URL; a local file is read here, a remote URL is not fetched.
    public init?(url: URL) {
        self.imageURL = url
        self.imageData = url.isFileURL ? FileManager.default.contents(atPath: url.path) : nil
        super.init()
    }

    public convenience init?(url: URL, width: Double, height: Double) {
        self.init(url: url)
    }

    /// The app's image `name`: a file of that name in the run's bundle, else a placeholder with a warning (nse has
    /// no asset catalog), so the avatar shows as the app's own image would on a device.
    public init(named name: String) {
        self.imageData = BundleImage.data(named: name) ?? (try? BundleImage.placeholder(named: name, by: "INImage(named:)")?.pngData())
        self.imageURL = nil
        super.init()
    }

    /// An SF Symbol (iOS 14): drawn by the system, which nse does not have; an image without data.
    public class func systemImageNamed(_ systemImageName: String) -> INImage {
        INImage(imageData: Data())
    }

    /// The avatar the system shows for `image`, with a warning when there is an image and it does not decode.
    static func shownAvatar(_ image: INImage?, of person: String) -> Communication.Avatar? {
        let profile = StandInRun.environment?.context.profile ?? DeviceProfile()
        let avatar = image.flatMap { $0.avatar(profile: profile) }
        if image != nil, avatar == nil {
            StandInRun.record(.warning(.extensionCommunication, "The \(person)'s INImage does not decode as PNG, JPEG or GIF: iOS shows the \(person)'s initials instead of the avatar."))
        }
        return avatar
    }

    /// The avatar as the system would show it: its decoded size, or nil when it does not decode.
    func avatar(profile: DeviceProfile) -> Communication.Avatar? {
        guard let imageData else { return nil }
        // The system decodes the avatar in its own process, not the extension's: not charged to the run.
        guard let bitmap = try? RGBABitmap.decode(imageData, maxPixels: profile.maxPixels) else { return nil }
        return Communication.Avatar(width: bitmap.width, height: bitmap.height, bytes: imageData.count)
    }
}

public enum INPersonHandleType: Int, Sendable {
    case unknown = 0, emailAddress, phoneNumber
}

public struct INPersonHandleLabel: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// How to reach a person: an email address, a phone number, or an app's own identifier.
open class INPersonHandle: NSObject, @unchecked Sendable {
    public typealias HandleType = INPersonHandleType
    // Immutable.
    public let value: String?
    public let type: INPersonHandleType
    public let label: INPersonHandleLabel?

    public init(value: String?, type: INPersonHandleType, label: INPersonHandleLabel? = nil) {
        self.value = value
        self.type = type
        self.label = label
        super.init()
    }

    public convenience init(value: String?, type: INPersonHandleType) {
        self.init(value: value, type: type, label: nil)
    }
}

public enum INPersonSuggestionType: Int, Sendable {
    case none = 0, socialProfile, instantMessageAddress
}

/// A participant of a conversation.
open class INPerson: NSObject, @unchecked Sendable {
    // Immutable.
    public let personHandle: INPersonHandle?
    public let nameComponents: PersonNameComponents?
    public let displayName: String
    public let image: INImage?
    public let contactIdentifier: String?
    public let customIdentifier: String?
    public let isMe: Bool
    public let suggestionType: INPersonSuggestionType

    public init(personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?, contactIdentifier: String?, customIdentifier: String?, isMe: Bool, suggestionType: INPersonSuggestionType) {
        self.personHandle = personHandle
        self.nameComponents = nameComponents
        // iOS falls back to the formatted name components when there is no display name.
        self.displayName = displayName ?? nameComponents.map { [$0.givenName, $0.familyName].compactMap { $0 }.joined(separator: " ") } ?? ""
        self.image = image
        self.contactIdentifier = contactIdentifier
        self.customIdentifier = customIdentifier
        self.isMe = isMe
        self.suggestionType = suggestionType
        super.init()
    }

    public convenience init(personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?, contactIdentifier: String?, customIdentifier: String?) {
        self.init(personHandle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image, contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, isMe: false, suggestionType: .none)
    }

    public convenience init(personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?, contactIdentifier: String?, customIdentifier: String?, isMe: Bool) {
        self.init(personHandle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image, contactIdentifier: contactIdentifier, customIdentifier: customIdentifier, isMe: isMe, suggestionType: .none)
    }
}

/// A spoken name: the conversation's name for group messages.
open class INSpeakableString: NSObject, @unchecked Sendable {
    // Immutable.
    public let spokenPhrase: String
    public let vocabularyIdentifier: String?
    public let pronunciationHint: String?

    public init(spokenPhrase: String) {
        self.spokenPhrase = spokenPhrase
        self.vocabularyIdentifier = nil
        self.pronunciationHint = nil
        super.init()
    }

    public init(vocabularyIdentifier: String, spokenPhrase: String, pronunciationHint: String?) {
        self.spokenPhrase = spokenPhrase
        self.vocabularyIdentifier = vocabularyIdentifier
        self.pronunciationHint = pronunciationHint
        super.init()
    }
}

public enum INOutgoingMessageType: Int, Sendable {
    case unknown = 0, outgoingMessageText, outgoingMessageAudio
}

/// A file sent with a message (iOS 14).
open class INSendMessageAttachment: NSObject, @unchecked Sendable {}

/// Hints about a message for Focus (iOS 15).
open class INSendMessageIntentDonationMetadata: NSObject, @unchecked Sendable {
    // Set by the extension before donating, on its own thread.
    open var mentionsCurrentUser = false
    open var isReplyToCurrentUser = false
    open var notifyRecipientAnyway = false
    open var recipientCount = 0
}

/// The base of every intent.
open class INIntent: NSObject, @unchecked Sendable {
    // Mutated by the extension while building the intent, on its own thread, before donating.
    var parameterImages: [AnyKeyPath: INImage] = [:]
    var donated = false
    open var identifier: String? = UUID().uuidString

    public func image(forParameterNamed parameterName: AnyKeyPath) -> INImage? {
        parameterImages[parameterName]
    }
}

/// Lets `intent.setImage(image, forParameterNamed: \.sender)` name a parameter of the intent's own type.
public protocol INIntentParameterImages: INIntent {}

extension INIntent: INIntentParameterImages {}

extension INIntentParameterImages {
    public func setImage<Value>(_ image: INImage?, forParameterNamed parameterName: KeyPath<Self, Value>) {
        parameterImages[parameterName] = image
    }
}

/// A message received: with `content.updating(from: intent)`, the notification becomes a communication
/// notification showing the sender's avatar.
open class INSendMessageIntent: INIntent, UNNotificationContentProviding, @unchecked Sendable {
    // Immutable parameters, as on iOS; `donationMetadata` is set before donating.
    public let recipients: [INPerson]?
    public let outgoingMessageType: INOutgoingMessageType
    public let content: String?
    public let speakableGroupName: INSpeakableString?
    public let conversationIdentifier: String?
    public let serviceName: String?
    public let sender: INPerson?
    public let attachments: [INSendMessageAttachment]?
    open var donationMetadata: INSendMessageIntentDonationMetadata?

    public init(recipients: [INPerson]?, outgoingMessageType: INOutgoingMessageType, content: String?, speakableGroupName: INSpeakableString?, conversationIdentifier: String?, serviceName: String?, sender: INPerson?, attachments: [INSendMessageAttachment]?) {
        self.recipients = recipients
        self.outgoingMessageType = outgoingMessageType
        self.content = content
        self.speakableGroupName = speakableGroupName
        self.conversationIdentifier = conversationIdentifier
        self.serviceName = serviceName
        self.sender = sender
        self.attachments = attachments
        super.init()
    }

    public convenience init(recipients: [INPerson]?, outgoingMessageType: INOutgoingMessageType, content: String?, speakableGroupName: INSpeakableString?, conversationIdentifier: String?, serviceName: String?, sender: INPerson?) {
        self.init(recipients: recipients, outgoingMessageType: outgoingMessageType, content: content, speakableGroupName: speakableGroupName, conversationIdentifier: conversationIdentifier, serviceName: serviceName, sender: sender, attachments: nil)
    }

    /// The sender's avatar: the image set for `\.sender`, else the sender's own image (as iOS picks it).
    public var communicationForNotification: Communication {
        let avatar = INImage.shownAvatar(image(forParameterNamed: \INSendMessageIntent.sender) ?? sender?.image, of: "sender")
        return Communication(
            intent: "INSendMessageIntent", senderName: sender?.displayName, avatar: avatar,
            groupName: speakableGroupName?.spokenPhrase, conversationIdentifier: conversationIdentifier,
            recipients: recipients?.count ?? 0, donated: donated)
    }
}

/// Which way a message went.
public enum INInteractionDirection: Int, Sendable {
    case unspecified = 0, outgoing, incoming
}

open class INIntentResponse: NSObject, @unchecked Sendable {}

/// An intent the user (or a sender) took part in, donated so Siri and Focus learn about the conversation.
open class INInteraction: NSObject, @unchecked Sendable {
    // Set up by the extension on its own thread before donating.
    public let intent: INIntent
    public let intentResponse: INIntentResponse?
    open var direction: INInteractionDirection = .unspecified
    open var identifier: String?
    open var groupIdentifier: String?
    open var dateInterval: DateInterval?

    public init(intent: INIntent, response: INIntentResponse?) {
        self.intent = intent
        self.intentResponse = response
        super.init()
    }

    /// Records the donation (nothing is sent) and calls back at once, as the system does on success.
    open func donate(completion: ((Error?) -> Void)? = nil) {
        intent.donated = true
        StandInRun.log(.info, "INInteraction.donate: \(type(of: intent)), direction \(direction)", source: "INInteraction", subsystem: "com.apple.intents")
        completion?(nil)
    }

    open func donate() async throws {
        donate(completion: nil)
    }
}
