import Foundation
import NSEPush

/// What OneSignal's `OSNotification.parseWithApns:` reads from a payload, parsed once: the newer format keeps
/// OneSignal's fields in `os_data` {i, att, buttons, badge_inc}; the original one puts `att` and `buttons` at
/// the top level and `i`, `badge_inc` in `custom`.
struct OneSignalNotification {
    /// `i`: the notification's id (receipts, the buttons' category).
    var notificationId: String?
    /// `att`, when present: OneSignal enumerates it as a dictionary {identifier: URL}.
    var attachments: JSONValue?
    /// Where `att` was read, as messages name it.
    var attachmentsKey: String
    /// The action buttons, each {n: text, i: id}, in payload order.
    var buttons: [(id: String, text: String)] = []
    /// `badge_inc`, as Objective-C's `integerValue` reads it (0 when absent or not a number).
    var badgeIncrement: Int = 0

    init(_ payload: [String: JSONValue]) {
        let common: [String: JSONValue]
        let keys = SDKDescriptor.onesignal
        if case .object(let osData)? = payload[keys.marker] {
            attachments = osData[keys.mediaKey]
            attachmentsKey = "\(keys.marker).\(keys.mediaKey)"
            if case .array(let list)? = osData["buttons"] {
                buttons = Self.buttons(list)
            } else if case .object(let wrapped)? = osData["buttons"], case .array(let list)? = wrapped["o"] {
                buttons = Self.buttons(list)
            } else if case .array(let list)? = payload["actionbuttons"] {
                buttons = Self.buttons(list)
            }
            common = osData
        } else {
            attachments = payload[keys.mediaKey]
            attachmentsKey = keys.mediaKey
            if case .array(let list)? = payload["buttons"] { buttons = Self.buttons(list) }
            common = payload[SDKDescriptor.oneSignalCommonKey]?.objectValue ?? [:]
        }
        notificationId = common["i"]?.stringValue
        badgeIncrement = Self.integerValue(common["badge_inc"])
    }

    /// A button needs its text (`n`); its identifier is `i`, else the text.
    private static func buttons(_ list: [JSONValue]) -> [(id: String, text: String)] {
        list.compactMap { value in
            guard case .object(let button) = value, let text = button["n"]?.stringValue else { return nil }
            return (button["i"]?.stringValue ?? text, text)
        }
    }

    /// `-[NSNumber integerValue]` / `-[NSString integerValue]`: a number truncated, a string's leading integer.
    private static func integerValue(_ value: JSONValue?) -> Int {
        switch value {
        case .int(let number)?:
            return number
        case .double(let number)?:
            return Int(exactly: number.rounded(.towardZero)) ?? 0
        case .bool(let flag)?:
            return flag ? 1 : 0
        case .string(let text)?:
            let digits = text.trimmingCharacters(in: .whitespaces).prefix { $0 == "-" || $0 == "+" || $0.isNumber }
            return Int(digits) ?? 0
        default:
            return 0
        }
    }
}
