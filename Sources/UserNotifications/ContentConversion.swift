import Foundation
import NSEMedia
import NSEPush

extension UNNotificationContent {
    /// The content iOS hands the extension for a payload.
    package convenience init(_ content: NotificationContent, environment: ExtensionEnvironment?) {
        var fields = Fields()
        fields.title = content.title
        fields.subtitle = content.subtitle
        fields.body = content.body
        fields.badge = content.badge.map { NSNumber(value: $0) }
        fields.sound = content.sound.map { $0 == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName($0)) }
        fields.userInfo = Dictionary(uniqueKeysWithValues: content.userInfo.map { (AnyHashable($0.key), $0.value.foundationValue) })
        fields.typedUserInfo = content.userInfo
        fields.origin = content
        fields.categoryIdentifier = content.categoryIdentifier
        fields.threadIdentifier = content.threadIdentifier
        fields.targetContentIdentifier = content.targetContentIdentifier
        fields.interruptionLevel = UNNotificationInterruptionLevel(payloadValue: content.interruptionLevel)
        fields.relevanceScore = content.relevanceScore
        fields.communication = content.communication
        self.init(fields: fields, environment: environment)
    }

    /// The emulator's description of this content; attachments are described by `stagedAttachments`.
    package var notificationContent: NotificationContent {
        var content = fields.origin ?? NotificationContent()
        content.title = title
        content.subtitle = subtitle
        content.body = body
        content.badge = badge?.intValue
        content.sound = sound?.payloadName
        content.categoryIdentifier = categoryIdentifier
        content.threadIdentifier = threadIdentifier
        content.targetContentIdentifier = targetContentIdentifier
        content.interruptionLevel = interruptionLevel.payloadValue
        content.relevanceScore = relevanceScore
        content.userInfo = payload
        content.attachments = attachments.map(\.staged.attachment)
        content.communication = fields.communication
        // A line the extension rewrote no longer shows the app's localized string.
        if content.titleLocalization?.key != content.title { content.titleLocalization = nil }
        if content.subtitleLocalization?.key != content.subtitle { content.subtitleLocalization = nil }
        if content.bodyLocalization?.key != content.body { content.bodyLocalization = nil }
        return content
    }

    package var stagedAttachments: [StagedAttachment] { attachments.map(\.staged) }

    /// `userInfo` as typed values: the payload's own when the extension left it alone, else converted once.
    package var payload: [String: JSONValue] {
        if let typed = fields.typedUserInfo { return typed }
        var info: [String: JSONValue] = [:]
        for (key, value) in userInfo { info[String(describing: key.base)] = JSONValue(foundation: value) }
        return info
    }
}

extension JSONValue {
    /// The value as `userInfo` holds it on iOS: String, NSNumber-like numbers and booleans, arrays, dictionaries.
    package var foundationValue: Any {
        switch self {
        case .null: NSNull()
        case .bool(let flag): flag
        case .int(let number): number
        case .double(let number): number
        case .string(let text): text
        case .array(let items): items.map(\.foundationValue)
        case .object(let members): members.mapValues(\.foundationValue) as [String: Any]
        }
    }

    /// Reads back what an extension put in `userInfo`.
    package init(foundation value: Any) {
        switch value {
        case let text as String: self = .string(text)
        case let flag as Bool where type(of: value) == Bool.self: self = .bool(flag)
        case let number as Int: self = .int(number)
        case let number as Double: self = .double(number)
        case let number as NSNumber: self = .double(number.doubleValue)
        case let items as [Any]: self = .array(items.map(JSONValue.init(foundation:)))
        case let members as [AnyHashable: Any]:
            var object: [String: JSONValue] = [:]
            for (key, member) in members { object[String(describing: key.base)] = JSONValue(foundation: member) }
            self = .object(object)
        case is NSNull: self = .null
        default: self = .string(String(describing: value))
        }
    }
}
