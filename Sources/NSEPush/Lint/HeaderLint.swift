import Foundation

/// The APNs request headers, on their own and against the payload they carry (Apple: "Sending notification
/// requests to APNs").
enum HeaderLint {
    static let knownHeaders: Set<String> = [
        "apns-push-type", "apns-id", "apns-expiration", "apns-priority", "apns-topic", "apns-collapse-id", "authorization",
        // Broadcast pushes to a Live Activity channel (iOS 18).
        "apns-channel-id",
    ]
    static let priorities = ["10", "5", "1"]
    static let maxCollapseIDBytes = 64

    /// - Parameters:
    ///   - headers: the headers as the file gives them.
    ///   - aps: the `aps` APNs will carry (after FCM's resolution), for the consistency checks.
    ///   - path: where the headers sit: `headers` (an envelope) or `message.apns.headers`.
    ///   - viaFCM: FCM checks the values' types itself, and may fill in headers the message leaves out.
    static func check(_ headers: [String: JSONValue], aps: [String: JSONValue], path: String, viaFCM: Bool) -> [Diagnostic] {
        check(headers, aps: Aps(aps), path: path, viaFCM: viaFCM)
    }

    ///   - priorityJudgedElsewhere: FCM's data-message rule judges the priority, and refuses first.
    ///   - impliedPushType: the push type the request gets without the header (FCM sends a message with
    ///     `apns.live_activity_token` as a Live Activity push).
    static func check(
        _ headers: [String: JSONValue], aps facts: Aps, path: String, viaFCM: Bool, priorityJudgedElsewhere: Bool = false,
        impliedPushType: PushType? = nil
    ) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        var values: [String: String] = [:]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            let key = name.lowercased()
            switch value {
            case .string(let text):
                values[key] = text
            case .int(let number) where !viaFCM:
                values[key] = String(number)
            default:
                if !viaFCM {
                    findings.append(.error(.lintHeaderValueType, "`\(path).\(name)` is \(value.shortDescription): a header's value is text, so this request cannot be sent as written. Send it as a string."))
                }
            }
            if !knownHeaders.contains(key) {
                findings.append(.warning(.lintHeaderUnknown, "`\(path).\(name)` is not a header APNs defines (\(knownHeaders.sorted().joined(separator: ", "))); APNs ignores it. Check the spelling."))
            }
        }

        // Without the header, the type the request gets anyway (FCM's Live Activity push) is not a finding.
        let declared = values["apns-push-type"]
        let pushType = declared == nil && impliedPushType != nil ? impliedPushType : checkPushType(declared, facts: facts, path: path, viaFCM: viaFCM, into: &findings)
        checkPriority(values["apns-priority"], pushType: pushType, facts: facts, path: path, viaFCM: viaFCM, judgedElsewhere: priorityJudgedElsewhere, into: &findings)
        if let collapseID = values["apns-collapse-id"], collapseID.utf8.count > maxCollapseIDBytes {
            findings.append(.error(.lintHeaderCollapseID, "`\(path).apns-collapse-id` is \(collapseID.utf8.count) bytes; APNs accepts at most \(maxCollapseIDBytes) and refuses the request (400 BadCollapseId). Shorten it, e.g. to a hash of the same text."))
        }
        if let expiration = values["apns-expiration"] { findings += checkExpiration(expiration, path: path) }
        if let id = values["apns-id"], UUID(uuidString: id) == nil {
            findings.append(.error(.lintHeaderAPNsID, "`\(path).apns-id` is \"\(id)\", not a UUID in 8-4-4-4-12 form: APNs refuses the request (400 BadMessageId). Send a UUID such as \"123e4567-e89b-12d3-a456-426614174000\", or leave the header out and APNs creates one."))
        }
        if let topic = values["apns-topic"], let pushType { findings += checkTopic(topic, pushType: pushType, path: path) }
        return findings
    }

    private static func checkPushType(_ value: String?, facts: Aps, path: String, viaFCM: Bool, into findings: inout [Diagnostic]) -> PushType? {
        guard let value else {
            if !viaFCM {
                let suggested = facts.isBackgroundOnly ? "background" : facts.hasLiveActivityKeys ? "liveactivity" : facts.hasContentChanged ? "widgets" : "alert"
                findings.append(.warning(.lintHeaderPushTypeMissing, "`\(path)` has no `apns-push-type`: Apple requires it for watchOS and recommends it everywhere, and APNs may delay or drop a push without it. Add \"apns-push-type\": \"\(suggested)\"."))
            }
            if facts.hasLiveActivityKeys {
                findings.append(.warning(.lintHeaderPushTypeMismatch, "The payload has Live Activity keys (`event`, `content-state`) but no `apns-push-type`: ActivityKit updates need \"liveactivity\" and the topic `<bundle id>.push-type.liveactivity`."))
            }
            return nil
        }
        guard let pushType = PushType(rawValue: value) else {
            findings.append(.error(.lintHeaderPushType, "`\(path).apns-push-type` is \"\(value)\": APNs knows only \(PushType.allCases.map(\.rawValue).joined(separator: ", ")) and refuses the request (400 InvalidPushType). Use \"alert\" for a visible notification, \"background\" for a silent update."))
            return nil
        }
        switch pushType {
        case .alert where !facts.isNotification:
            let hint = facts.contentAvailable.isSet ? " For a silent update use \"background\" with apns-priority 5." : " Add `aps.alert`."
            findings.append(.warning(.lintHeaderPushTypeMismatch, "`\(path).apns-push-type` is \"alert\" but the payload has no alert, badge or sound, so nothing is shown.\(hint)"))
        case .background:
            if !facts.contentAvailable.isSet {
                findings.append(.error(.lintHeaderPushTypeMismatch, "`\(path).apns-push-type` is \"background\" but `aps.content-available` is not 1: the app is not woken, so the push does nothing. Add \"content-available\": 1."))
            }
            if facts.isNotification {
                findings.append(.error(.lintHeaderPushTypeMismatch, "`\(path).apns-push-type` is \"background\" but the payload has an alert, badge or sound, which a background push must not carry: iOS does not show them. Send \"alert\" to show the notification, or remove them."))
            }
        case .liveactivity where !facts.hasLiveActivityKeys:
            findings.append(.error(.lintHeaderPushTypeMismatch, "`\(path).apns-push-type` is \"liveactivity\" but the payload has no `event` and `content-state`: ActivityKit ignores it. Add them, or use \"alert\"."))
        case .widgets where !facts.hasContentChanged, .controls where !facts.hasContentChanged:
            findings.append(.warning(.lintHeaderPushTypeMismatch, "`\(path).apns-push-type` is \"\(pushType.rawValue)\" but `aps` has no `content-changed`: Apple's \(pushType.rawValue) pushes carry {\"aps\": {\"content-changed\": true}}. Assumed to reload all the same; send that body to be sure."))
        default:
            if facts.hasLiveActivityKeys, pushType != .liveactivity {
                findings.append(.warning(.lintHeaderPushTypeMismatch, "The payload has Live Activity keys (`event`, `content-state`) but `apns-push-type` is \"\(pushType.rawValue)\": ActivityKit updates need \"liveactivity\"."))
            }
        }
        return pushType
    }

    private static func checkPriority(_ value: String?, pushType: PushType?, facts: Aps, path: String, viaFCM: Bool, judgedElsewhere: Bool, into findings: inout [Diagnostic]) {
        if let value, !priorities.contains(value) {
            findings.append(.error(.lintHeaderPriority, "`\(path).apns-priority` is \"\(value)\": APNs accepts only \"10\" (immediately), \"5\" (power-considerate) or \"1\" (lowest) and refuses the request (400 BadPriority). Use \"10\" for an alert, \"5\" for a background push."))
            return
        }
        guard !judgedElsewhere else { return }
        // APNs uses 10 when the header is absent; FCM may set it itself, so only an explicit 10 counts there.
        guard let effective = value ?? (viaFCM ? nil : "10") else { return }
        guard let type = pushType ?? (facts.isBackgroundOnly ? .background : nil) else { return }
        let allowed = type.rules.priorities
        guard !allowed.contains(effective) else { return }
        let given = value == nil ? "absent, so APNs uses 10" : "\"\(effective)\""
        let accepted = allowed.sorted { Int($0) ?? 0 > Int($1) ?? 0 }.map { "\"\($0)\"" }.joined(separator: " or ")
        if type == .background {
            findings.append(.error(.lintHeaderPriorityMismatch, "`\(path).apns-priority` is \(given) on a background push (only `content-available`): Apple requires priority 5 for background pushes and treats 10 as an error, so the app may not be woken. Send \"apns-priority\": \"5\"."))
        } else {
            // Documented priorities only; what APNs does with another is not documented.
            findings.append(.warning(.lintHeaderPriorityMismatch, "`\(path).apns-priority` is \(given) on a \"\(type.rawValue)\" push: Apple documents \(accepted) for this push type, and what APNs does with another is not documented. Send \(accepted)."))
        }
    }

    private static func checkExpiration(_ value: String, path: String) -> [Diagnostic] {
        guard !value.isEmpty, value.allSatisfy(\.isASCIIDigit), let seconds = Int(value) else {
            return [.error(.lintHeaderExpiration, "`\(path).apns-expiration` is \"\(value)\", not UNIX seconds: APNs refuses the request (400 BadExpirationDate). Send a whole number of seconds since 1970 (\"0\": deliver once, do not store).")]
        }
        if seconds > 100_000_000_000 {
            return [.warning(.lintHeaderExpiration, "`\(path).apns-expiration` is \(value), which reads as a date thousands of years away: it looks like milliseconds, but APNs reads seconds. Divide by 1000.")]
        }
        return []
    }

    private static func checkTopic(_ topic: String, pushType: PushType, path: String) -> [Diagnostic] {
        if let suffix = pushType.topicSuffix, !topic.hasSuffix(suffix) {
            return [.error(.lintHeaderTopic, "`\(path).apns-topic` is \"\(topic)\", but a \"\(pushType.rawValue)\" push goes to the topic `<bundle id>\(suffix)`: APNs refuses a topic that does not match the push type. Send \"\(bundleID(of: topic))\(suffix)\".")]
        }
        if pushType == .alert || pushType == .background, let other = PushType.owningSuffix(of: topic), let suffix = other.topicSuffix {
            return [.error(.lintHeaderTopic, "`\(path).apns-topic` is \"\(topic)\", a `\(suffix)` topic (for \"\(other.rawValue)\" pushes), but \"\(pushType.rawValue)\" pushes go to the app's bundle ID: APNs refuses the mismatch. Send \"\(bundleID(of: topic))\".")]
        }
        return []
    }

    private static func bundleID(of topic: String) -> String {
        let suffix = PushType.owningSuffix(of: topic)?.topicSuffix
        return suffix.map { String(topic.dropLast($0.count)) } ?? topic
    }
}
