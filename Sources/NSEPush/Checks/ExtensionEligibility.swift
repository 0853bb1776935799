/// Whether iOS hands a push to the Notification Service Extension (Apple: UNNotificationServiceExtension,
/// "Modifying content in newly delivered notifications").
public struct ExtensionEligibility: Sendable {
    public var invoked: Bool
    /// Why not, in a sentence a user can act on; nil when invoked.
    public var reason: String?

    /// iOS runs the extension only for a push it presents in Notification Center, with `mutable-content: 1` and an
    /// alert that shows text, and the simulator not at all for `xcrun simctl push` files (unless `profile` says
    /// otherwise).
    public static func decide(
        _ aps: Aps, destination: Destination, kind: InputKind, pushType: PushType?, profile: DeviceProfile
    ) -> ExtensionEligibility {
        var reasons: [String] = []
        if kind == .simctl, !profile.simulatorRunsExtension {
            reasons.append("pushes sent to the simulator with `xcrun simctl push` do not run the extension (Xcode 14 notes); pass --simulator-runs-extension to judge this payload as a device would receive it")
        }
        if destination.isAnotherReceiver {
            // Live Activities, widgets, VoIP...: another receiver takes the push, whatever its `aps` says.
            let type = pushType.map { "an `apns-push-type: \($0.rawValue)` push" } ?? "this push"
            reasons.append("\(type) goes to \(destination.rawValue), never to a Notification Service Extension")
        } else {
            switch aps.mutableContent {
            case .one, .yes:
                break
            case .absent:
                let found = aps.mutableContentNearMiss.map { " (\($0.explanation))" } ?? ""
                reasons.append("`aps.mutable-content` is missing\(found); add `\"mutable-content\": 1` inside `aps`")
            case .zero:
                reasons.append("`aps.mutable-content` is 0, which iOS treats as absent; send `\"mutable-content\": 1`")
            case .other(let value):
                reasons.append("`aps.mutable-content` is \(value.shortDescription), not the number 1; send `\"mutable-content\": 1`")
            }
            if !aps.showsAlert {
                reasons.append("the push shows no alert (no title, subtitle or body): silent, badge-only and sound-only pushes never reach the extension; give `aps.alert` a title or body")
            }
        }
        guard reasons.isEmpty else {
            return ExtensionEligibility(invoked: false, reason: reasons.joined(separator: "; and "))
        }
        return ExtensionEligibility(invoked: true, reason: nil)
    }

    /// The rule on a bare `aps` dictionary presented as a notification, for tests of the rule alone.
    public static func decide(aps: [String: JSONValue], kind: InputKind = .apns, profile: DeviceProfile = DeviceProfile()) -> ExtensionEligibility {
        decide(Aps(aps), destination: .notificationCenter, kind: kind, pushType: nil, profile: profile)
    }

    /// What it means that the extension does not run: an error when the payload asks for an image (it will not
    /// appear), a warning when the extension would change the content, an explanation for a notification shown
    /// without it; nothing for a push that was never meant for it (a Live Activity, a background update).
    func notInvokedFinding(imageRequested: Bool, changesContent: Bool, destination: Destination) -> Diagnostic? {
        guard let reason, imageRequested || destination.presentsNotification else { return nil }
        let shown = destination.presentsNotification ? "the phone shows the payload's own content" : "nothing is shown in Notification Center"
        if imageRequested {
            return .error(.extensionNotInvoked, "iOS does not run the Notification Service Extension: \(reason). The image will NOT appear; \(shown).")
        }
        if changesContent {
            return .warning(.extensionNotInvoked, "iOS does not run the Notification Service Extension: \(reason). Your extension's content changes will not appear.")
        }
        return .info(.extensionNotInvoked, "iOS does not run the Notification Service Extension: \(reason). \(shown.prefix(1).uppercased() + shown.dropFirst()).")
    }
}
