import Foundation

/// What FCM's backend checks before it accepts a send request (Firebase: FCM HTTP v1 reference, "REST Resource:
/// projects.messages"; the `aps` refusals quoted in firebase/firebase-admin-java#214).
///
/// Every error here is a request FCM refuses with 400 INVALID_ARGUMENT: nothing reaches any device.
public enum FCMValidation {
    /// Checks that apply whatever the device: the target, the data map, and the message's field names and types.
    public static func validate(_ message: FCMMessage) -> [Diagnostic] {
        if message.isLegacy { return [legacy(message)] }
        var findings: [Diagnostic] = []
        findings += targetCount(message.targets)
        findings += schema(message)
        findings += apnsPayloadAps(message)
        for (path, container) in [("message.data", message.fields["data"]), ("message.android.data", FCMFieldNames.member("data", of: message.android))] {
            guard let data = container?.objectValue else { continue }
            findings += dataValues(data, path: path)
            findings += reservedKeys(data, path: path)
        }
        return findings
    }

    /// Checks that apply when the token is an Apple device's: data messages must be sent with priority 5.
    public static func validateForApple(_ message: FCMMessage) -> [Diagnostic] {
        guard !message.isLegacy else { return [] }
        return dataOnlyPriority(message)
    }

    /// FCM refuses an `apns.payload` without `aps`, or with an `aps` that is not a non-empty dictionary, even when
    /// `notification` would give it an alert (firebase-admin-java#214, firebase-admin-dotnet#39).
    static func apnsPayloadAps(_ message: FCMMessage) -> [Diagnostic] {
        guard case .object(let payload)? = message.apnsPayload else { return [] }
        switch payload["aps"] {
        case nil:
            return [.error(.fcmApnsPayloadAps, "`message.apns.payload` has no `aps` key: FCM refuses the request (400 INVALID_ARGUMENT: \"Payload of Apple Push Notification Service must contain an [aps] key.\"), even when `notification` is set. Add \"aps\": {...} (for a data message, {\"content-available\": 1}), or remove `apns.payload`.")]
        case .object(let aps)? where !aps.isEmpty:
            return []
        case let other?:
            let what = other.objectValue != nil ? "an empty dictionary" : other.shortDescription
            return [.error(.fcmApnsPayloadAps, "`message.apns.payload.aps` is \(what): FCM refuses the request (400 INVALID_ARGUMENT: \"Value of [aps] must be a non-empty dictionary.\"), even when `notification` would fill it. Put at least one key in it (`\"mutable-content\": 1`, `\"content-available\": 1`), or leave `aps` and `apns.payload` out.")]
        }
    }

    /// The legacy HTTP API's shape: one finding naming it, instead of every field the v1 API does not know.
    static func legacy(_ message: FCMMessage) -> Diagnostic {
        let keys = message.fields.keys.filter(FCMMessage.legacyFields.contains).sorted().map { "`\($0)`" }.joined(separator: ", ")
        return .error(.fcmLegacyAPI, "This request is in the shape of FCM's legacy HTTP API (`fcm/send`, with \(keys)), which Google shut down in 2024: it is refused and nothing is delivered. Send it to the HTTP v1 API as {\"message\": {\"token\": ..., \"notification\": ..., \"data\": ..., \"apns\": ...}} (`to` becomes `token` or `topic`; `priority` and `content_available` move into `apns.headers` and `apns.payload.aps`).")
    }

    /// Data messages to Apple devices must be sent with priority 5.
    static func dataOnlyPriority(_ message: FCMMessage) -> [Diagnostic] {
        guard isDataOnlyForApple(message),
              let headers = FCMFieldNames.member("headers", of: message.apns)?.objectValue,
              let priority = headers.first(where: { $0.key.lowercased() == "apns-priority" })?.value,
              priority != .string("5") else { return [] }
        return [.error(
            .fcmDataOnlyPriority,
            "`message.apns.headers.apns-priority` is \(priority.shortDescription) on a data message (no `notification`, no alert, badge or sound): FCM refuses data messages to Apple devices unless their priority is 5 (400 INVALID_ARGUMENT). Set \"apns-priority\": \"5\", or add a `notification`.")]
    }

    /// A message without `notification` whose `aps` shows nothing: FCM's "data message".
    static func isDataOnlyForApple(_ message: FCMMessage) -> Bool {
        message.notification.isEmpty && !message.writtenAps.isNotification
    }

    // MARK: - Target

    static func targetCount(_ given: [String]) -> [Diagnostic] {
        switch given.count {
        case 1:
            return []
        case 0:
            return [.error(.fcmTargetCount, "The message has no target: FCM refuses it (400 INVALID_ARGUMENT). Add exactly one of `message.token`, `message.topic`, `message.condition` or `message.fid`.")]
        default:
            let names = given.map { "`message.\($0)`" }.joined(separator: ", ")
            return [.error(.fcmTargetCount, "The message has \(given.count) targets (\(names)): FCM accepts exactly one and refuses the request (400 INVALID_ARGUMENT). Keep one; send the message once per target instead.")]
        }
    }

    // MARK: - Data map

    static func dataValues(_ data: [String: JSONValue], path: String) -> [Diagnostic] {
        data.keys.sorted().compactMap { key in
            let value = data[key]!
            guard value.stringValue == nil else { return nil }
            let fix: String
            switch value {
            case .object, .array: fix = "Encode it as a JSON string (\"{...}\") and decode it in the app."
            case .null: fix = "Send \"\" or leave the key out."
            default: fix = "Send it as a string: \"\(value.shortDescription)\"."
            }
            return .error(.fcmDataNotString, "`\(path).\(key)` is \(value.shortDescription): FCM's data values are strings only, so it refuses the request (400 INVALID_ARGUMENT). \(fix)")
        }
    }

    static func reservedKeys(_ data: [String: JSONValue], path: String) -> [Diagnostic] {
        data.keys.sorted().compactMap { key in
            if key == "from" || key == "message_type" || key.hasPrefix("google.") || key.hasPrefix("gcm.") {
                return .error(.fcmReservedDataKey, "`\(path).\(key)` uses a key FCM reserves (`from`, `message_type`, `google.*`, `gcm.*`), so it refuses the request (400 INVALID_ARGUMENT). Rename the key, e.g. `app_\(key.replacingOccurrences(of: ".", with: "_"))`.")
            }
            if key.hasPrefix("google") || key.hasPrefix("gcm") {
                // The API reference reserves "any word starting with google or gcm"; refusals are documented only for the dotted prefixes.
                return .warning(.fcmReservedDataKey, "`\(path).\(key)` starts with \"\(key.hasPrefix("google") ? "google" : "gcm")\": the FCM v1 API reference reserves any data key starting with \"google\" or \"gcm\". Whether FCM refuses this one is not confirmed (refusals are documented for `google.` and `gcm.`); rename it to be safe.")
            }
            return nil
        }
    }

    // MARK: - Field names and types

    /// What a field of the FCM v1 message holds.
    private enum Shape {
        case object([String: Shape]?)
        case string
        case stringMap
        case bool
        case int
        case stringArray
        case anyObject
        case androidPriority
        case duration
        /// Accepted without checking (webpush, light settings and other fields nse does not interpret).
        case any
    }

    private static let androidNotification: [String: Shape] = [
        "title": .string, "body": .string, "icon": .string, "color": .string, "sound": .string, "tag": .string,
        "click_action": .string, "body_loc_key": .string, "body_loc_args": .stringArray, "title_loc_key": .string,
        "title_loc_args": .stringArray, "channel_id": .string, "ticker": .string, "sticky": .bool, "event_time": .string,
        "local_only": .bool, "notification_priority": .string, "default_sound": .bool, "default_vibrate_timings": .bool,
        "default_light_settings": .bool, "vibrate_timings": .any, "visibility": .string, "notification_count": .int,
        "light_settings": .any, "image": .string, "bypass_proxy_notification": .bool, "proxy": .string,
    ]

    private static let message: [String: Shape] = [
        "name": .string, "token": .string, "topic": .string, "condition": .string, "fid": .string,
        "data": .stringMap,
        "notification": .object(["title": .string, "body": .string, "image": .string]),
        "android": .object([
            "collapse_key": .string, "priority": .androidPriority, "ttl": .duration, "restricted_package_name": .string,
            "data": .stringMap, "notification": .object(androidNotification),
            "fcm_options": .object(["analytics_label": .string]), "direct_boot_ok": .bool,
            "bandwidth_constrained_ok": .bool, "restricted_satellite_ok": .bool,
        ]),
        "apns": .object([
            "headers": .stringMap, "payload": .anyObject, "live_activity_token": .string,
            "fcm_options": .object(["analytics_label": .string, "image": .string]),
        ]),
        "webpush": .any,
        "fcm_options": .object(["analytics_label": .string]),
    ]

    static func schema(_ message: FCMMessage) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        for key in message.requestFields.keys.sorted() where key != "validate_only" && key != "validateOnly" {
            findings.append(.error(.fcmInvalidField, "The send request has `\(key)` beside `message`; FCM knows only `message` and `validate_only` there and refuses the request (400 INVALID_ARGUMENT: unknown name). Move it into the message or remove it."))
        }
        check(.object(message.fields), against: .object(Self.message), path: "message", into: &findings)
        return findings
    }

    private static func check(_ value: JSONValue, against shape: Shape, path: String, into findings: inout [Diagnostic]) {
        func wrongType(_ expected: String) {
            findings.append(.error(.fcmInvalidField, "`\(path)` is \(value.shortDescription), but FCM expects \(expected) there and refuses the request (400 INVALID_ARGUMENT). Send \(expected)."))
        }
        if value == .null { return }
        switch shape {
        case .any:
            return
        case .string:
            if value.stringValue == nil { wrongType("a string") }
        case .bool:
            if case .bool = value { return }
            wrongType("true or false")
        case .int:
            if case .int = value { return }
            wrongType("an integer")
        case .stringArray:
            guard case .array(let items) = value else { return wrongType("an array of strings") }
            if items.contains(where: { $0.stringValue == nil }) { wrongType("an array of strings") }
        case .anyObject:
            if value.objectValue == nil { wrongType("a JSON object") }
        case .stringMap:
            // Data values are reported by their own rule (fcm.data-not-string); headers' here.
            guard let members = value.objectValue else { return wrongType("an object of string values") }
            if !path.hasSuffix(".data") {
                for key in members.keys.sorted() where members[key]?.stringValue == nil {
                    findings.append(.error(.fcmInvalidField, "`\(path).\(key)` is \(members[key]!.shortDescription): FCM expects a string there and refuses the request (400 INVALID_ARGUMENT). Send \"\(members[key]!.shortDescription.trimmingCharacters(in: ["\""]))\"."))
                }
            }
        case .androidPriority:
            if let text = value.stringValue, ["normal", "high", "NORMAL", "HIGH"].contains(text) { return }
            wrongType("\"normal\" or \"high\"")
        case .duration:
            if let text = value.stringValue, isDuration(text) { return }
            wrongType("a duration in seconds such as \"3600s\" or \"3.5s\"")
        case .object(let fields):
            guard let members = value.objectValue else { return wrongType("a JSON object") }
            guard let fields else { return }
            let known = Set(fields.keys)
            for key in members.keys.sorted() {
                guard let name = FCMFieldNames.protoName(key, in: known) else {
                    let hint = nearMiss(key, in: known).map { " Did you mean `\($0)`?" } ?? ""
                    findings.append(.error(.fcmInvalidField, "`\(path).\(key)` is not a field FCM knows, so it refuses the request (400 INVALID_ARGUMENT: unknown name).\(hint) Known here: \(known.sorted().joined(separator: ", "))."))
                    continue
                }
                check(members[key]!, against: fields[name]!, path: "\(path).\(key)", into: &findings)
            }
        }
    }

    /// Protobuf's JSON form of a Duration: seconds with up to nine decimals and an "s".
    private static func isDuration(_ text: String) -> Bool {
        guard text.hasSuffix("s") else { return false }
        let number = text.dropLast().split(separator: ".", omittingEmptySubsequences: false)
        guard number.count <= 2, let whole = number.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return false }
        if number.count == 2 { return (1...9).contains(number[1].count) && number[1].allSatisfy(\.isASCIIDigit) }
        return true
    }

    /// `imageUrl` for `image`, `Title` for `title`: the key that differs only in case, underscores or a suffix.
    static func nearMiss(_ key: String, in known: Set<String>) -> String? {
        let squashed = key.lowercased().filter(\.isLetter)
        return known.sorted().first { name in
            let candidate = name.lowercased().filter(\.isLetter)
            return candidate == squashed || (squashed.hasPrefix(candidate) && candidate.count >= 4)
        }
    }
}

extension DiagnosticCode {
    /// FCM's own refusals, which stop the message for every platform (a data message's priority concerns Apple only).
    var isFCMRefusal: Bool {
        [.fcmTargetCount, .fcmDataNotString, .fcmReservedDataKey, .fcmInvalidField, .fcmLegacyAPI, .fcmApnsPayloadAps].contains(self)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
