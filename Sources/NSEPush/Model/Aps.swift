/// A flag such as `mutable-content` or `content-available`, as the sender wrote it.
///
/// Only the number 1 is documented; every rule that asks "is the flag set" asks `isSet`, and every message
/// that describes the value describes this, so the two can never disagree.
public enum ApsFlag: Sendable, Hashable {
    case absent
    /// The number 1, as Apple documents.
    case one
    /// The number 0: iOS treats the key as absent.
    case zero
    /// `true`: NSNumber's true reads as 1 on the device, so it is assumed to work (with a warning).
    case yes
    /// Anything else (a string "1", 2, an object): iOS does not treat the flag as set.
    case other(JSONValue)

    init(_ value: JSONValue?) {
        switch value {
        case nil: self = .absent
        case .int(1)?: self = .one
        case .int(0)?: self = .zero
        case .bool(true)?: self = .yes
        case let other?: self = .other(other)
        }
    }

    /// Does iOS treat the flag as set.
    public var isSet: Bool { self == .one || self == .yes }
}

/// A key the sender meant for `aps` but spelled or placed differently (`mutable_content`, or `mutable-content`
/// beside `aps` instead of inside it): iOS ignores it, which is the commonest reason an image never shows.
public struct MisplacedKey: Sendable, Hashable {
    public enum Place: Sendable, Hashable {
        /// Inside `aps`, spelled differently (`mutable_content`, `mutableContent`).
        case insideAps
        /// Beside `aps`, at the payload's top level, where only the app reads it.
        case besideAps
    }

    /// The key as the sender wrote it.
    public var key: String
    /// The key Apple defines, which the sender meant.
    public var meant: String
    public var place: Place

    /// How a message names it: "found `mutable_content` beside `aps`: ...".
    public var explanation: String {
        switch place {
        case .insideAps:
            "found `\(key)` in `aps`: the key is spelled `\(meant)`"
        case .besideAps:
            "found `\(key)` beside `aps`: iOS reads only `aps.\(meant)`, inside `aps`"
        }
    }

    /// The keys compared: letters only, lowercased, so `mutable_content`, `mutableContent` and `Mutable-Content`
    /// all match `mutable-content`.
    package static func squashed(_ key: String) -> String {
        // ASCII, nearly every key: the same letters without Unicode's tables (Character.isLetter was a twentieth
        // of `nse serve`'s CPU per push, every key of every payload passing here).
        var letters: [UInt8] = []
        letters.reserveCapacity(key.utf8.count)
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): letters.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): letters.append(byte + 32)
            case 0x80...: return key.lowercased().filter(\.isLetter)
            default: continue
            }
        }
        return String(decoding: letters, as: UTF8.self)
    }

    /// The near miss of `meant` among `keys` (an exact `meant` beside `aps` counts: it is misplaced).
    static func find(_ meant: String, in keys: some Sequence<String>, place: Place) -> MisplacedKey? {
        let target = squashed(meant)
        // The first in sorted order of the keys that match: the least of them, found without sorting them all.
        var found: String?
        for key in keys where (place == .besideAps || key != meant) && squashed(key) == target {
            if let least = found, least <= key { continue }
            found = key
        }
        return found.map { MisplacedKey(key: $0, meant: meant, place: place) }
    }
}

/// One line of alert text: literal, or a localization key whose text comes from the app's Localizable.strings
/// (which the emulator does not have), filled with its arguments.
public enum AlertText: Sendable, Hashable {
    case literal(String)
    case localized(key: String, arguments: [String])

    /// Shows on the phone: a non-empty text or key.
    var isVisible: Bool {
        switch self {
        case .literal(let text): !text.isEmpty
        case .localized(let key, _): !key.isEmpty
        }
    }
}

/// `aps.alert`, read once: its three lines of text, and the dictionary as written for the lint.
public struct Alert: Sendable, Hashable {
    public var title: AlertText?
    public var subtitle: AlertText?
    public var body: AlertText?
    /// The value as written: a string or a dictionary are alerts; anything else shows nothing.
    public var written: JSONValue

    init(_ value: JSONValue) {
        written = value
        switch value {
        case .string(let text):
            body = .literal(text)
        case .object(let fields):
            title = Self.line(fields, text: "title", key: "title-loc-key", arguments: "title-loc-args")
            subtitle = Self.line(fields, text: "subtitle", key: "subtitle-loc-key", arguments: "subtitle-loc-args")
            body = Self.line(fields, text: "body", key: "loc-key", arguments: "loc-args")
        default:
            break
        }
    }

    /// The alert has a line the phone shows: what the service extension needs.
    public var isVisible: Bool {
        [title, subtitle, body].contains { $0?.isVisible == true }
    }

    /// A line from the alert: the localization key when one is given (iOS looks it up in place of the text),
    /// else the text, which a Live Activity's alert may itself write as `{"loc-key", "loc-args"}`.
    private static func line(_ fields: [String: JSONValue], text: String, key: String, arguments: String) -> AlertText? {
        if case .string(let locKey)? = fields[key] {
            return .localized(key: locKey, arguments: strings(fields[arguments]))
        }
        switch fields[text] {
        case .string(let literal)?:
            return .literal(literal)
        case .object(let localized)?:
            guard case .string(let locKey)? = localized["loc-key"] else { return nil }
            return .localized(key: locKey, arguments: strings(localized["loc-args"]))
        default:
            return nil
        }
    }

    private static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap(\.stringValue)
    }
}

/// The `aps` dictionary as the phone receives it, read once into the facts every rule asks about.
///
/// The lint checks the values' types against `fields`; every other stage reads the typed facts below, so
/// "is mutable-content set", "does it show an alert" and "is it a background push" each have one answer.
public struct Aps: Sendable {
    public enum Presence: Sendable, Hashable {
        case present
        case missing
        /// `aps` is there but not a dictionary (a string, an array...).
        case notObject(JSONValue)
    }

    public var presence: Presence
    /// The dictionary as written; empty when missing or not a dictionary.
    public var fields: [String: JSONValue]
    public var alert: Alert?
    public var mutableContent: ApsFlag
    /// `mutable_content` in `aps`, or `mutable-content` beside it: the near miss, when the flag itself is absent.
    public var mutableContentNearMiss: MisplacedKey?
    public var contentAvailable: ApsFlag
    /// `content-available` misplaced the same way.
    public var contentAvailableNearMiss: MisplacedKey?
    /// `badge` as iOS reads it (`JSONValue.integerValue`); nil when absent, of another type or out of range.
    public var badge: Int?

    /// - Parameters:
    ///   - value: the `aps` value, if any.
    ///   - besideAps: the other top-level keys of the payload, searched for misplaced `aps` keys.
    public init(_ value: JSONValue?, besideAps: [String: JSONValue] = [:]) {
        switch value {
        case .object(let members)?:
            presence = .present
            fields = members
        case nil:
            presence = .missing
            fields = [:]
        case let other?:
            presence = .notObject(other)
            fields = [:]
        }
        alert = fields["alert"].map(Alert.init)
        mutableContent = ApsFlag(fields["mutable-content"])
        contentAvailable = ApsFlag(fields["content-available"])
        mutableContentNearMiss = mutableContent == .absent ? Self.nearMiss("mutable-content", fields: fields, besideAps: besideAps) : nil
        contentAvailableNearMiss = contentAvailable == .absent ? Self.nearMiss("content-available", fields: fields, besideAps: besideAps) : nil
        badge = fields["badge"]?.integerValue
    }

    /// Builds the typed view of a dictionary, for rules tested on their own.
    public init(_ fields: [String: JSONValue]) {
        self.init(.object(fields))
    }

    /// The alert shows a title, subtitle or body: the condition (with mutable-content) for the service extension.
    public var showsAlert: Bool { alert?.isVisible == true }

    /// An alert, badge or sound: something the system presents, which makes the push a notification rather
    /// than data (the FCM message kind, the push type's consistency, FCM's "data message" priority rule).
    public var isNotification: Bool {
        fields["alert"] != nil || fields["badge"] != nil || fields["sound"] != nil
    }

    /// Only `content-available`, nothing to present: a background update.
    public var isBackgroundOnly: Bool { contentAvailable.isSet && !isNotification }

    /// Keys only a Live Activity push carries.
    public var hasLiveActivityKeys: Bool {
        fields["event"] != nil || fields["content-state"] != nil
    }

    /// `content-changed`: the body of a widgets or controls push.
    public var hasContentChanged: Bool { fields["content-changed"] != nil }

    private static func nearMiss(_ meant: String, fields: [String: JSONValue], besideAps: [String: JSONValue]) -> MisplacedKey? {
        MisplacedKey.find(meant, in: fields.keys, place: .insideAps)
            ?? MisplacedKey.find(meant, in: besideAps.keys.filter { $0 != "aps" }, place: .besideAps)
    }
}
