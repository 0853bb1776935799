/// `aps.alert`: a string (the body), or a dictionary of text and localization keys.
enum AlertLint {
    static let stringKeys = ["title", "subtitle", "body", "launch-image", "title-loc-key", "subtitle-loc-key", "loc-key"]
    /// Each arguments array and the key whose format string it fills.
    static let argumentKeys = ["title-loc-args": "title-loc-key", "subtitle-loc-args": "subtitle-loc-key", "loc-args": "loc-key"]
    /// Keys Apple documented in earlier payload references; iOS still reads them, so they are not flagged.
    static let legacyKeys: Set<String> = ["action-loc-key", "summary-arg", "summary-arg-count"]

    /// Every key iOS reads in an alert dictionary; made once, not at every push.
    static let knownKeys = Set(stringKeys).union(argumentKeys.keys).union(legacyKeys)
    /// The keys whose value must be a string.
    static let textKeys = stringKeys + ["summary-arg"]
    /// `argumentKeys` in a fixed order, so findings come in the same order every run.
    static let orderedArgumentKeys = argumentKeys.sorted { $0.key < $1.key }

    /// The lines a Live Activity's alert may write as `{"loc-key": ..., "loc-args": [...]}` (Apple's samples).
    static let localizableLines: Set<String> = ["title", "subtitle", "body"]

    /// `liveActivity`: a Live Activity's alert may carry `sound`, and its lines may be localization dictionaries.
    static func check(_ alert: JSONValue, path: String, liveActivity: Bool = false) -> [Diagnostic] {
        let fields: [String: JSONValue]
        switch alert {
        case .string:
            return []
        case .object(let object):
            fields = object
        default:
            return [.error(.lintApsAlertType, "`\(path)` is \(alert.shortDescription): iOS shows an alert only for a string (the body) or a dictionary with `title`, `subtitle`, `body` or their loc keys, so nothing is shown. Send {\"title\": \"...\", \"body\": \"...\"}.")]
        }
        var findings: [Diagnostic] = []
        var known = knownKeys
        if liveActivity { known.insert("sound") }
        for key in fields.keys.sorted() where !known.contains(key) {
            findings.append(.warning(.lintApsAlertUnknownKey, "`\(path).\(key)` is not an alert key Apple defines; iOS ignores it.\(suggestion(for: key, in: known)) Alert keys: title, subtitle, body, launch-image, title-loc-key, title-loc-args, subtitle-loc-key, subtitle-loc-args, loc-key, loc-args."))
        }
        for key in textKeys {
            guard let value = fields[key], value.stringValue == nil else { continue }
            if case .object(let localized) = value, localizableLines.contains(key) {
                findings += localizedLine(localized, path: "\(path).\(key)", liveActivity: liveActivity)
                continue
            }
            findings.append(.error(.lintApsAlertFieldType, "`\(path).\(key)` is \(value.shortDescription), not a string: iOS ignores it\(key.hasSuffix("loc-key") ? "" : " and the text does not appear"). Send a string."))
        }
        if let value = fields["action-loc-key"], value != .null, value.stringValue == nil {
            findings.append(.error(.lintApsAlertFieldType, "`\(path).action-loc-key` is \(value.shortDescription), not a string or null: iOS ignores it. Send a string."))
        }
        if let value = fields["summary-arg-count"], !isInteger(value) {
            findings.append(.error(.lintApsAlertFieldType, "`\(path).summary-arg-count` is \(value.shortDescription), not an integer: iOS ignores it. Send a whole number."))
        }
        for (argsKey, formatKey) in orderedArgumentKeys {
            guard let value = fields[argsKey] else { continue }
            guard isStringArray(value) else {
                findings.append(.error(.lintApsAlertFieldType, "`\(path).\(argsKey)` is \(value.shortDescription): iOS expects an array of strings for the `\(formatKey)` format and ignores anything else, so the localized text shows its placeholders. Send [\"...\"] with every argument a string."))
                continue
            }
            if fields[formatKey] == nil {
                findings.append(.warning(.lintApsAlertLocArgs, "`\(path).\(argsKey)` is given without `\(formatKey)`: the arguments fill `\(formatKey)`'s format string, so iOS ignores them. Add `\(formatKey)` or remove the arguments."))
            }
        }
        return findings
    }

    /// `{"loc-key": "...", "loc-args": [...]}` in place of a line's text: ActivityKit's form, documented only for
    /// Live Activities.
    private static func localizedLine(_ fields: [String: JSONValue], path: String, liveActivity: Bool) -> [Diagnostic] {
        guard liveActivity else {
            return [.error(.lintApsAlertFieldType, "`\(path)` is a dictionary: Apple documents {\"loc-key\", \"loc-args\"} in place of the text only for Live Activity alerts; a notification's alert takes a string here, so iOS ignores it and the text does not appear. Send a string, or `title-loc-key`/`loc-key` with their `-args`.")]
        }
        var findings: [Diagnostic] = []
        for key in fields.keys.sorted() where key != "loc-key" && key != "loc-args" {
            findings.append(.warning(.lintApsAlertUnknownKey, "`\(path).\(key)` is not a key of a localized line (loc-key, loc-args); iOS ignores it."))
        }
        if fields["loc-key"]?.stringValue == nil {
            findings.append(.error(.lintApsAlertFieldType, "`\(path).loc-key` is \(fields["loc-key"]?.shortDescription ?? "missing"): a localized line needs the key of its format string in the app's Localizable.strings, so the line does not appear. Send \"loc-key\": \"...\"."))
        }
        if let arguments = fields["loc-args"], !isStringArray(arguments) {
            findings.append(.error(.lintApsAlertFieldType, "`\(path).loc-args` is \(arguments.shortDescription): iOS expects an array of strings and ignores anything else, so the line shows its placeholders. Send [\"...\"] with every argument a string."))
        }
        return findings
    }

    /// Lines whose text the app's Localizable.strings give: the emulator shows the key, and says so.
    static func localizedLines(_ alert: Alert) -> [Diagnostic] {
        let lines: [(String, AlertText?)] = [("title", alert.title), ("subtitle", alert.subtitle), ("body", alert.body)]
        let localized = lines.compactMap { name, text -> String? in
            guard case .localized(let key, let arguments)? = text else { return nil }
            let filled = arguments.isEmpty ? "" : " filled with \(arguments.map { "\"\($0)\"" }.joined(separator: ", "))"
            return "the \(name) is the app's string for \"\(key)\"\(filled)"
        }
        guard !localized.isEmpty else { return [] }
        return [.info(.payloadLocalizedAlert, "Localized alert: \(localized.joined(separator: "; ")). iOS looks the keys up in the app's Localizable.strings, which the emulator does not have, so the content shows the keys. Check that every key exists in each of the app's languages.")]
    }

    private static func isStringArray(_ value: JSONValue) -> Bool {
        guard case .array(let items) = value else { return false }
        return items.allSatisfy { $0.stringValue != nil }
    }

    private static func isInteger(_ value: JSONValue) -> Bool {
        if case .int = value { return true }
        return false
    }

    private static func suggestion(for key: String, in known: Set<String>) -> String {
        let squashed = key.lowercased().filter(\.isLetter)
        guard let meant = known.sorted().first(where: { $0.filter(\.isLetter) == squashed }) else { return "" }
        return " The key is spelled `\(meant)`."
    }
}
