import Foundation
import NSEPush
import UserNotifications

// The types of a call as Intents describes it (Apple's INCallRecordType.h, INCallAudioRoute.h,
// INCallDestinationType.h, INCallCapability.h, INCallRecordTypeOptions.h).

public enum INCallRecordType: Int, Sendable {
    case unknown = 0, outgoing, missed, received, latest, voicemail, ringing, inProgress, onHold
}

public enum INCallAudioRoute: Int, Sendable {
    case unknown = 0, speakerphoneAudioRoute, bluetoothAudioRoute
}

public enum INCallDestinationType: Int, Sendable {
    case unknown = 0, normal, emergency, voicemail, redial, callBack
}

public enum INCallCapability: Int, Sendable {
    case unknown = 0, audioCall, videoCall
}

public struct INCallRecordTypeOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let outgoing = INCallRecordTypeOptions(rawValue: 1 << 0)
    public static let missed = INCallRecordTypeOptions(rawValue: 1 << 1)
    public static let received = INCallRecordTypeOptions(rawValue: 1 << 2)
    public static let latest = INCallRecordTypeOptions(rawValue: 1 << 3)
    public static let voicemail = INCallRecordTypeOptions(rawValue: 1 << 4)
    public static let ringing = INCallRecordTypeOptions(rawValue: 1 << 5)
    public static let inProgress = INCallRecordTypeOptions(rawValue: 1 << 6)
    public static let onHold = INCallRecordTypeOptions(rawValue: 1 << 7)
}

/// Which calls an intent is about (iOS 14).
open class INCallRecordFilter: NSObject, @unchecked Sendable {
    // Immutable.
    public let participants: [INPerson]?
    public let callTypes: INCallRecordTypeOptions
    public let callCapability: INCallCapability

    public init(participants: [INPerson]?, callTypes: INCallRecordTypeOptions, callCapability: INCallCapability) {
        self.participants = participants
        self.callTypes = callTypes
        self.callCapability = callCapability
        super.init()
    }
}

/// A call (a missed call, a voicemail): with `content.updating(from: intent)`, the notification becomes a
/// communication notification showing the caller's avatar, as for a message.
open class INStartCallIntent: INIntent, UNNotificationContentProviding, @unchecked Sendable {
    // Immutable parameters, as on iOS.
    public let callRecordFilter: INCallRecordFilter?
    public let callRecordToCallBack: INCallRecordType
    public let audioRoute: INCallAudioRoute
    public let destinationType: INCallDestinationType
    public let contacts: [INPerson]?
    public let callCapability: INCallCapability

    /// iOS 14.5.
    public init(callRecordFilter: INCallRecordFilter?, callRecordToCallBack: INCallRecordType, audioRoute: INCallAudioRoute, destinationType: INCallDestinationType, contacts: [INPerson]?, callCapability: INCallCapability) {
        self.callRecordFilter = callRecordFilter
        self.callRecordToCallBack = callRecordToCallBack
        self.audioRoute = audioRoute
        self.destinationType = destinationType
        self.contacts = contacts
        self.callCapability = callCapability
        super.init()
    }

    /// iOS 13, deprecated in 14.5 but still in extensions.
    public convenience init(audioRoute: INCallAudioRoute, destinationType: INCallDestinationType, contacts: [INPerson]?, recordTypeForRedialing: INCallRecordType, callCapability: INCallCapability) {
        self.init(callRecordFilter: nil, callRecordToCallBack: recordTypeForRedialing, audioRoute: audioRoute, destinationType: destinationType, contacts: contacts, callCapability: callCapability)
    }

    /// The caller: the first contact, with the image set for `\.contacts` or the contact's own.
    public var communicationForNotification: Communication {
        let caller = contacts?.first
        let avatar = INImage.shownAvatar(image(forParameterNamed: \INStartCallIntent.contacts) ?? caller?.image, of: "caller")
        return Communication(
            intent: "INStartCallIntent", senderName: caller?.displayName, avatar: avatar, groupName: nil,
            conversationIdentifier: nil, recipients: contacts?.count ?? 0, donated: donated)
    }
}
