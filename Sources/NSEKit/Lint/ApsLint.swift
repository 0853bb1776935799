/// The `aps` dictionary's keys, the types Apple documents for them, and what iOS does with anything else
/// (device-behaviour.md, section 5). Keys beside `aps` are the app's own and never linted.
enum ApsLint {
    /// Every key Apple defines in `aps`, including the Live Activity keys and, for push-to-start (iOS 17.2),
    /// `attributes-type` and `attributes`.
    static let knownKeys: Set<String> = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content",
        "target-content-id", "interruption-level", "relevance-score", "filter-criteria",
        "timestamp", "event", "content-state", "stale-date", "dismissal-date", "attributes-type", "attributes",
    ]

    static let interruptionLevels = ["passive", "active", "time-sensitive", "critical"]

    /// `path` names the dictionary as the sender wrote it: `aps`, `payload.aps` or `apns.payload.aps`.
    static func check(_ aps: [String: JSONValue], path: String) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        for key in aps.keys.sorted() where !knownKeys.contains(key) {
            findings.append(unknownKey(key, path: path))
        }
        if let alert = aps["alert"] {
            findings += AlertLint.check(alert, path: "\(path).alert", allowsSound: aps["event"] != nil)
        }
        if let badge = aps["badge"] { findings += checkBadge(badge, path: "\(path).badge") }
        if let sound = aps["sound"] { findings += SoundLint.check(sound, path: "\(path).sound") }
        if let value = aps["content-available"] { findings += checkContentAvailable(value, path: "\(path).content-available") }
        if let value = aps["mutable-content"] { findings += checkMutableContent(value, path: "\(path).mutable-content") }
        if let level = aps["interruption-level"] { findings += checkInterruptionLevel(level, path: "\(path).interruption-level") }
        if let score = aps["relevance-score"] { findings += checkRelevanceScore(score, path: "\(path).relevance-score") }
        for key in ["thread-id", "category", "target-content-id", "filter-criteria"] {
            if let value = aps[key], value.stringValue == nil {
                findings.append(.error(.lintApsStringType, "`\(path).\(key)` is \(value.shortDescription), not a string: iOS ignores it, so \(effect(ofIgnoring: key)). Send it as a string."))
            }
        }
        findings += checkLiveActivity(aps, path: path)
        return findings
    }

    private static func effect(ofIgnoring key: String) -> String {
        switch key {
        case "thread-id": "the notification is not grouped with its thread"
        case "category": "its actions (the category's buttons) do not appear"
        case "target-content-id": "no window or scene is brought forward"
        default: "the Focus filter does not apply"
        }
    }

    static func unknownKey(_ key: String, path: String) -> Diagnostic {
        let squashed = key.lowercased().filter(\.isLetter)
        if let meant = knownKeys.sorted().first(where: { $0.filter(\.isLetter) == squashed }) {
            return .warning(.lintApsUnknownKey, "`\(path).\(key)` is not a key Apple defines; iOS ignores it. The key is spelled `\(meant)`.")
        }
        return .warning(.lintApsUnknownKey, "`\(path).\(key)` is not a key Apple defines for `aps`; iOS ignores it. Put the app's own keys beside `aps`, not inside it.")
    }

    static func checkBadge(_ value: JSONValue, path: String) -> [Diagnostic] {
        switch value {
        case .int:
            return []
        case .double(let number) where number == number.rounded() && value.integerValue != nil:
            return []
        case .double(let number) where number == number.rounded():
            return [.error(.lintApsBadgeType, "`\(path)` is \(value.shortDescription), outside the range of a badge number (a 64-bit integer): what iOS shows is undefined, and nse shows no badge. Send a whole number such as 1 (0 removes the badge).")]
        default:
            return [.error(.lintApsBadgeType, "`\(path)` is \(value.shortDescription), not an integer: iOS ignores it and the app icon's badge does not change. Send a whole number (0 removes the badge).")]
        }
    }

    static func checkContentAvailable(_ value: JSONValue, path: String) -> [Diagnostic] {
        switch value {
        case .int(1):
            return []
        case .int(0):
            return [.warning(.lintApsContentAvailable, "`\(path)` is 0: only the number 1 means anything, so iOS treats the key as absent and does not wake the app. Send 1 for a background update, or leave the key out.")]
        case .bool(true):
            return [.warning(.lintApsContentAvailable, "`\(path)` is true; Apple documents the number 1. Assumed to work like 1 (NSNumber's true is 1); send 1 to be sure.")]
        default:
            return [.error(.lintApsContentAvailable, "`\(path)` is \(value.shortDescription), not the number 1: iOS does not treat the push as a background update and the app is not woken. Send \"content-available\": 1.")]
        }
    }

    /// `true` keeps the code the extension-eligibility check has always used for it.
    static func checkMutableContent(_ value: JSONValue, path: String) -> [Diagnostic] {
        switch value {
        case .int(1):
            return []
        case .int(0):
            return [.warning(.lintApsMutableContent, "`\(path)` is 0: only the number 1 means anything, so the Notification Service Extension does not run. Send 1 to let it add the image, or leave the key out.")]
        case .bool(true):
            return [.warning(.payloadMutableContentNotNumber, "`\(path)` is true; Apple documents the number 1. Assumed to work like 1; send `\"mutable-content\": 1` to be sure.")]
        default:
            return [.error(.lintApsMutableContent, "`\(path)` is \(value.shortDescription), not the number 1: iOS does not run the Notification Service Extension, so no image is added. Send \"mutable-content\": 1.")]
        }
    }

    static func checkInterruptionLevel(_ value: JSONValue, path: String) -> [Diagnostic] {
        if let level = value.stringValue, interruptionLevels.contains(level) { return [] }
        return [.error(.lintApsInterruptionLevel, "`\(path)` is \(value.shortDescription): iOS knows only \(interruptionLevels.map { "\"\($0)\"" }.joined(separator: ", ")), and delivers anything else as \"active\" (so it does not break through Focus). Use one of those four.")]
    }

    static func checkRelevanceScore(_ value: JSONValue, path: String) -> [Diagnostic] {
        guard let score = value.doubleValue else {
            return [.error(.lintApsRelevanceScore, "`\(path)` is \(value.shortDescription), not a number: iOS ignores it when it picks the summary's featured notification. Send a number from 0 to 1.")]
        }
        guard (0...1).contains(score) else {
            return [.warning(.lintApsRelevanceScore, "`\(path)` is \(value.shortDescription); Apple documents scores from 0 to 1, and what iOS does outside that range is not documented. Scale it into 0...1.")]
        }
        return []
    }

    /// The Live Activity keys' types: the dates are UNIX seconds, `event` one of three words.
    static func checkLiveActivity(_ aps: [String: JSONValue], path: String) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        func wrong(_ key: String, _ expected: String) {
            findings.append(.error(.lintApsLiveActivity, "`\(path).\(key)` is \(aps[key]!.shortDescription), but a Live Activity update needs \(expected): ActivityKit ignores the update. Send \(expected)."))
        }
        for key in ["timestamp", "stale-date", "dismissal-date"] {
            guard let value = aps[key] else { continue }
            if case .int = value { continue }
            wrong(key, "an integer (UNIX seconds)")
        }
        if let event = aps["event"], !["start", "update", "end"].contains(event.stringValue ?? "") {
            wrong("event", "\"start\", \"update\" or \"end\"")
        }
        if let state = aps["content-state"], state.objectValue == nil { wrong("content-state", "a JSON object") }
        if let attributes = aps["attributes"], attributes.objectValue == nil { wrong("attributes", "a JSON object") }
        if let type = aps["attributes-type"], type.stringValue == nil { wrong("attributes-type", "a string") }
        return findings
    }
}
