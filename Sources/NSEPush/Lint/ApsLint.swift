/// The `aps` dictionary's keys, the types Apple documents for them, and what iOS does with anything else
/// (Apple: "Generating a remote notification"; "Starting and updating Live Activities with ActivityKit push
/// notifications"). Keys beside `aps` are the app's own and never linted.
enum ApsLint {
    /// How a key's value is judged: one row per key Apple defines, so adding a key is adding a row.
    enum ValueRule {
        case alert, badge, sound, flag, identifier, interruptionLevel, relevanceScore
        /// Live Activity keys: UNIX seconds, the event word, JSON objects, a string.
        case unixSeconds, event, object, string
        /// Push-to-start's `input-push-token` (1) and widgets/controls' `content-changed` (true).
        case inputPushToken, contentChanged
    }

    /// Every key Apple defines in `aps`: the notification keys, the Live Activity keys (with push-to-start's
    /// `attributes-type`, `attributes` and `input-push-token`), and `content-changed` for widgets and controls.
    static let keys: [String: ValueRule] = [
        "alert": .alert, "badge": .badge, "sound": .sound, "thread-id": .identifier, "category": .identifier,
        "content-available": .flag, "mutable-content": .flag, "target-content-id": .identifier,
        "interruption-level": .interruptionLevel, "relevance-score": .relevanceScore, "filter-criteria": .identifier,
        "timestamp": .unixSeconds, "event": .event, "content-state": .object, "stale-date": .unixSeconds,
        "dismissal-date": .unixSeconds, "attributes-type": .string, "attributes": .object,
        "input-push-token": .inputPushToken, "content-changed": .contentChanged,
    ]

    static var knownKeys: Set<String> { Set(keys.keys) }

    static let interruptionLevels = ["passive", "active", "time-sensitive", "critical"]

    /// Checks a dictionary on its own (no push type known), as the tests of single rules do.
    static func check(_ fields: [String: JSONValue], path: String) -> [Diagnostic] {
        let aps = Aps(fields)
        return check(aps, path: path, liveActivity: aps.hasLiveActivityKeys)
    }

    /// - Parameters:
    ///   - path: names the dictionary as the sender wrote it: `aps`, `payload.aps` or `message.apns.payload.aps`.
    ///   - liveActivity: the push is a Live Activity's (its push type, or its keys), whose alert and relevance
    ///     score follow ActivityKit's rules.
    static func check(_ aps: Aps, path: String, liveActivity: Bool) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        for (key, value) in aps.fields.sorted(by: { $0.key < $1.key }) {
            let keyPath = "\(path).\(key)"
            guard let rule = keys[key] else {
                findings.append(unknownKey(key, path: path))
                continue
            }
            switch rule {
            case .alert: findings += AlertLint.check(value, path: keyPath, liveActivity: liveActivity)
            case .badge: findings += checkBadge(value, path: keyPath)
            case .sound: findings += SoundLint.check(value, path: keyPath)
            case .flag: findings += checkFlag(key == "mutable-content" ? aps.mutableContent : aps.contentAvailable, key: key, path: keyPath)
            case .identifier:
                if value.stringValue == nil {
                    findings.append(.error(.lintApsStringType, "`\(keyPath)` is \(value.shortDescription), not a string: iOS ignores it, so \(effect(ofIgnoring: key)). Send it as a string."))
                }
            case .interruptionLevel: findings += checkInterruptionLevel(value, path: keyPath)
            case .relevanceScore: findings += checkRelevanceScore(value, path: keyPath, liveActivity: liveActivity)
            case .unixSeconds:
                if case .int = value { continue }
                findings.append(liveActivityType(key, value, path: keyPath, expected: "an integer (UNIX seconds)"))
            case .event:
                if ["start", "update", "end"].contains(value.stringValue ?? "") { continue }
                findings.append(liveActivityType(key, value, path: keyPath, expected: "\"start\", \"update\" or \"end\""))
            case .object:
                if value.objectValue == nil { findings.append(liveActivityType(key, value, path: keyPath, expected: "a JSON object")) }
            case .string:
                if value.stringValue == nil { findings.append(liveActivityType(key, value, path: keyPath, expected: "a string")) }
            case .inputPushToken:
                if value != .int(1) {
                    findings.append(.error(.lintApsLiveActivity, "`\(keyPath)` is \(value.shortDescription): a push-to-start asks for the new Live Activity's update token with the number 1. Send \"input-push-token\": 1, or leave it out."))
                }
            case .contentChanged:
                if value != .bool(true) {
                    findings.append(.warning(.lintApsContentChanged, "`\(keyPath)` is \(value.shortDescription); Apple's widgets and controls pushes send `\"content-changed\": true`. Assumed to reload all the same; send true to be sure."))
                }
            }
        }
        return findings
    }

    /// `mutable-content` or `content-available` (or a near miss) beside `aps`, where only the app reads it.
    static func misplacedKeys(_ aps: Aps) -> [Diagnostic] {
        [aps.mutableContentNearMiss, aps.contentAvailableNearMiss].compactMap { $0 }.filter { $0.place == .besideAps }.map { misplaced in
            .warning(.lintApsMisplacedKey, "The payload has `\(misplaced.key)` beside `aps`, where only the app reads it: iOS reads `\(misplaced.meant)` inside `aps` and ignores this one. Move it into `aps` as \"\(misplaced.meant)\": 1.")
        }
    }

    private static func liveActivityType(_ key: String, _ value: JSONValue, path: String, expected: String) -> Diagnostic {
        .error(.lintApsLiveActivity, "`\(path)` is \(value.shortDescription), but a Live Activity push needs \(expected): ActivityKit ignores the push. Send \(expected).")
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
        if let misplaced = knownKeys.sorted().lazy.compactMap({ MisplacedKey.find($0, in: [key], place: .insideAps) }).first {
            return .warning(.lintApsUnknownKey, "`\(path).\(key)` is not a key Apple defines; iOS ignores it. The key is spelled `\(misplaced.meant)`.")
        }
        return .warning(.lintApsUnknownKey, "`\(path).\(key)` is not a key Apple defines for `aps`; iOS ignores it. Put the app's own keys beside `aps`, not inside it.")
    }

    /// A badge the content reads with `JSONValue.integerValue` (as iOS's NSNumber does): a number outside Int's
    /// range is reported here and never converted.
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

    /// `mutable-content` and `content-available`: only the number 1 means anything. `"mutable-content": true`
    /// keeps the code it has always had.
    static func checkFlag(_ flag: ApsFlag, key: String, path: String) -> [Diagnostic] {
        let mutable = key == "mutable-content"
        let code: DiagnosticCode = mutable ? .lintApsMutableContent : .lintApsContentAvailable
        let effect = mutable ? "the Notification Service Extension does not run, so no image is added" : "iOS does not treat the push as a background update and the app is not woken"
        switch flag {
        case .absent, .one:
            return []
        case .zero:
            return [.warning(code, "`\(path)` is 0: only the number 1 means anything, so iOS treats the key as absent: \(effect). Send 1, or leave the key out.")]
        case .yes:
            return [.warning(mutable ? .payloadMutableContentNotNumber : code, "`\(path)` is true; Apple documents the number 1. Assumed to work like 1 (NSNumber's true is 1); send `\"\(key)\": 1` to be sure.")]
        case .other(let value):
            return [.error(code, "`\(path)` is \(value.shortDescription), not the number 1: \(effect). Send \"\(key)\": 1.")]
        }
    }

    static func checkInterruptionLevel(_ value: JSONValue, path: String) -> [Diagnostic] {
        if let level = value.stringValue, interruptionLevels.contains(level) { return [] }
        return [.error(.lintApsInterruptionLevel, "`\(path)` is \(value.shortDescription): iOS knows only \(interruptionLevels.map { "\"\($0)\"" }.joined(separator: ", ")), and delivers anything else as \"active\" (so it does not break through Focus). Use one of those four.")]
    }

    /// A notification's score runs from 0 to 1; a Live Activity's is any number (Apple's examples use 25 to 100).
    static func checkRelevanceScore(_ value: JSONValue, path: String, liveActivity: Bool) -> [Diagnostic] {
        guard let score = value.doubleValue else {
            return [.error(.lintApsRelevanceScore, "`\(path)` is \(value.shortDescription), not a number: iOS ignores it when it ranks the \(liveActivity ? "Live Activities" : "summary's notifications"). Send a number\(liveActivity ? "" : " from 0 to 1").")]
        }
        guard liveActivity || (0...1).contains(score) else {
            return [.warning(.lintApsRelevanceScore, "`\(path)` is \(value.shortDescription); Apple documents scores from 0 to 1 for notifications (any number only for Live Activities), and what iOS does outside that range is not documented. Scale it into 0...1.")]
        }
        return []
    }
}
