import Foundation
import NSEPush

/// What the run reports about Pushwoosh's helper; read in Pushwoosh/pushwoosh-ios-sdk 7.1.3
/// (iOS_SDK/Pushwoosh/Pushwoosh/Public: PWNotificationServiceProcessor.m, PushwooshNotificationServiceExtension.m,
/// PWNotificationExtensionManager.m; PushwooshCore: PWMessage.m, PWMessageDeliveryRequest.m).
enum PushwooshFindings {
    static func notPushwoosh(hasAttachment: Bool) -> Diagnostic {
        hasAttachment
            ? .warning(.sdkPushwooshNotPushwoosh, "The payload has `attachment` but no `pw_msg`: Pushwoosh treats it as another service's push and delivers the content unchanged, without the image. Pushwoosh's servers add `pw_msg`.")
            : .info(.sdkPushwooshNotPushwoosh, "No `pw_msg` key: Pushwoosh's helper delivers the content unchanged (no delivery event, badge or attachment).")
    }

    static func deliveryEvent(hash: String?, metadata: Bool) -> Diagnostic {
        let what = hash.map { "message hash `p` \($0)" } ?? "no message hash `p`, so Pushwoosh cannot tell which message was delivered"
        return .info(.sdkPushwooshDeliveryEvent, "Pushwoosh would send messageDeliveryEvent from the extension (\(what)\(metadata ? ", with `md` as metaData" : "")): recorded, not sent.")
    }

    static func badgeWithoutAppGroup(_ value: String) -> Diagnostic {
        .warning(.sdkPushwooshBadge, "`aps.pw_badge` is \"\(value)\" but the extension has no App Group (PW_APP_GROUPS_NAME in its Info.plist, or pushwooshAppGroupsName()): Pushwoosh logs \"App Groups aren't installed\" and leaves the badge alone.")
    }

    static func badge(_ value: String, saved: Int, badge: Int, group: String) -> Diagnostic {
        .info(.sdkPushwooshBadge, "`aps.pw_badge` \"\(value)\" with \(saved) saved in the App Group \(group)'s badge_count: the badge is \(badge), saved back for the next push.")
    }

    static let attachmentNotURL = Diagnostic.error(.sdkPushwooshNoAttachment, "`attachment` is not a URL string: Pushwoosh skips it and the notification shows without an image.")

    static func noAttachment(_ why: String) -> Diagnostic {
        .error(.sdkPushwooshNoAttachment, "Pushwoosh got no attachment (\(why); see above): the notification shows without the image, with its other changes (badge).")
    }

    /// `NSString.integerValue`: the leading decimal digits (after spaces and a sign), 0 when there are none.
    static func integerValue(_ text: String) -> Int {
        let trimmed = text.drop { $0 == " " }
        var digits = ""
        for (index, character) in trimmed.enumerated() {
            if character.isASCII, character.isNumber { digits.append(character) }
            else if index == 0, character == "-" || character == "+" { digits.append(character) }
            else { break }
        }
        return Int(String(digits.prefix(18))) ?? 0
    }

    /// The file-name part Pushwoosh appends to the UUID: the last path component, "/" and ".." made "_".
    static func sanitized(_ name: String?) -> String {
        guard let name, !name.isEmpty else { return "" }
        return (name as NSString).lastPathComponent.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "..", with: "_")
    }
}
