/// Whether iOS hands a push to the Notification Service Extension (device-behaviour.md, section 1).
public struct ExtensionEligibility: Sendable {
    public var invoked: Bool
    /// Why not, in a sentence a user can act on; nil when invoked.
    public var reason: String?
    public var diagnostics: [Diagnostic]

    /// iOS runs the extension only for `mutable-content: 1` on a push that shows an alert, and the
    /// simulator not at all for `xcrun simctl push` files (unless `profile` says otherwise).
    public static func decide(aps: [String: JSONValue], kind: InputKind = .apns, profile: DeviceProfile = DeviceProfile()) -> ExtensionEligibility {
        var diagnostics: [Diagnostic] = []
        var reasons: [String] = []
        if kind == .simctl, !profile.simulatorRunsExtension {
            reasons.append("pushes sent to the simulator with `xcrun simctl push` do not run the extension (Xcode 14 notes); pass --simulator-runs-extension to judge this payload as a device would receive it")
        }

        switch aps["mutable-content"] {
        case .int(1)?:
            break
        case .bool(true)?:
            // NSNumber's `true` reads as 1 on the device, so this is treated as set; senders should still send 1.
            diagnostics.append(.warning(
                .payloadMutableContentNotNumber,
                "`aps.mutable-content` is true; Apple documents the number 1. Assumed to work like 1; send `\"mutable-content\": 1` to be sure."))
        case nil:
            reasons.append("`aps.mutable-content` is missing\(misspelling(in: aps)); add `\"mutable-content\": 1`")
        case let other?:
            reasons.append("`aps.mutable-content` is \(other.shortDescription), not the number 1; send `\"mutable-content\": 1`")
        }
        if !showsAlert(aps["alert"]) {
            reasons.append("the push shows no alert (no title, subtitle or body): silent, badge-only and sound-only pushes never reach the extension; give `aps.alert` a title or body")
        }
        guard reasons.isEmpty else {
            return ExtensionEligibility(invoked: false, reason: reasons.joined(separator: "; and "), diagnostics: diagnostics)
        }
        return ExtensionEligibility(invoked: true, reason: nil, diagnostics: diagnostics)
    }

    private static func showsAlert(_ alert: JSONValue?) -> Bool {
        switch alert {
        case .string(let text)?:
            return !text.isEmpty
        case .object(let fields)?:
            let visibleKeys = ["title", "subtitle", "body", "title-loc-key", "subtitle-loc-key", "loc-key"]
            return visibleKeys.contains { key in
                if case .string(let text)? = fields[key] { return !text.isEmpty }
                return false
            }
        default:
            return false
        }
    }

    /// Names a near miss such as `mutable_content` or `mutableContent`, the commonest reason the key is "missing".
    private static func misspelling(in aps: [String: JSONValue]) -> String {
        let target = "mutablecontent"
        let nearMiss = aps.keys.first { key in
            key.lowercased().filter { $0.isLetter } == target
        }
        return nearMiss.map { " (found `\($0)`: the key is spelled `mutable-content`)" } ?? ""
    }
}
