/// Which SDK sent a payload, from the keys each SDK's servers put beside `aps` or inside it (each descriptor's
/// `keys`, `prefixes`, `apsKeys` and `mediaKeys` in `SDKDescriptor.all`; docs/sdks.md lists them with their sources). Used by every
/// command: `--sdk auto` on process and batch, the `--sdk all` comparison, and `nse extension`'s check that a
/// payload belongs to the SDK the extension calls.
public enum SDKDetection {
    /// One SDK whose keys the payload has.
    public struct Match: Sendable, Hashable {
        public var sdk: PushSDK
        /// The payload's keys that matched, sorted.
        public var keys: [String]
        /// True when one of them is the SDK's media key.
        public var hasMediaKey: Bool
    }

    /// Every SDK whose keys are in `payload`, in `PushSDK` order.
    public static func matches(in payload: [String: JSONValue]) -> [Match] {
        let present = payload.keys.filter { $0 != "aps" }
        let aps = payload["aps"]?.objectValue ?? [:]
        // The usual push, `aps` alone with none of an SDK's keys in it, matches nothing: known without a look at
        // each SDK (every push the server accepts is checked).
        if present.isEmpty, !aps.keys.contains(where: anySDKAPSKey.contains) { return [] }
        return SDKDescriptor.all.compactMap { descriptor in
            let keys = (present.filter { key in
                descriptor.keys.contains(key) || descriptor.prefixes.contains { key.hasPrefix($0) }
            } + descriptor.apsKeys.filter { aps[$0] != nil }.map { "aps.\($0)" }).sorted()
            guard !keys.isEmpty else { return nil }
            // A media key shared by two SDKs (`attachment`) counts only beside the SDK's own marker keys.
            let media = keys.contains { descriptor.mediaKeys.contains($0) }
            return Match(sdk: descriptor.sdk, keys: keys, hasMediaKey: media)
        }
    }

    /// The keys inside `aps` that some SDK's servers write (every descriptor's `apsKeys`).
    private static let anySDKAPSKey = Set(SDKDescriptor.all.flatMap(\.apsKeys))

    /// The helper `--sdk auto` runs for `payload`, with the warning to report when several SDKs match.
    public static func choose(for payload: [String: JSONValue]) -> (choice: HelperChoice, warning: Diagnostic?) {
        let found = matches(in: payload)
        guard let first = found.first else {
            return (HelperChoice(
                sdk: .firebase, selection: .default,
                reason: "no SDK's key in the payload: Firebase's helper, the default"), nil)
        }
        guard found.count > 1 else {
            return (HelperChoice(sdk: first.sdk, selection: .detected, reason: Self.because(first), matched: [first.sdk]), nil)
        }
        // Firebase's transport keys (`gcm.message_id`) ride along on any push sent through FCM: another SDK's keys
        // say more. Among the rest, the SDK whose media key is present is the one the image was meant for.
        let others = found.filter { $0.sdk != .firebase }
        let chosen = others.first(where: \.hasMediaKey) ?? others.first ?? first
        let names = found.map { "\($0.sdk.displayName) (\($0.keys.map { "`\($0)`" }.joined(separator: ", ")))" }
        let warning = Diagnostic.warning(.sdkDetectAmbiguous, "The payload has keys of several SDKs: \(names.joined(separator: ", ")). nse runs \(chosen.sdk.displayName)'s helper\(chosen.hasMediaKey ? ", whose media key is present" : ""); the device runs whichever helper the app's extension calls. Name the app's SDK with --sdk, or compare the helpers with --sdk all.")
        return (HelperChoice(sdk: chosen.sdk, selection: .detected, reason: Self.because(chosen), matched: found.map(\.sdk)), warning)
    }

    private static func because(_ match: Match) -> String {
        "the payload has \(match.keys.prefix(3).map { "`\($0)`" }.joined(separator: ", "))\(match.keys.count > 3 ? "..." : ""), \(match.sdk.displayName)'s key\(match.keys.count > 1 ? "s" : "")"
    }

    /// True when the payload asks an SDK's helper other than Firebase's for media (OneSignal's `att`...): with
    /// Firebase's `fcm_options.image` (`ReceivedPush.imageRequest`), what makes a push that never reaches the
    /// extension an error rather than a note, in every command.
    public static func asksOtherSDKForMedia(_ payload: [String: JSONValue]) -> Bool {
        matches(in: payload).contains { $0.sdk != .firebase && $0.hasMediaKey && mediaURL(of: $0.sdk, in: payload) != nil }
    }

    /// The media URL `sdk`'s helper reads from `payload`, for the batch's count of images asked for: Firebase's
    /// `fcm_options.image`, OneSignal's first `att` item; for another SDK the first URL inside its media key
    /// (an SDK branch replaces that with its exact key path).
    public static func mediaURL(of sdk: PushSDK, in payload: [String: JSONValue]) -> String? {
        switch sdk {
        case .firebase:
            return ImageRequest.firebase(in: payload)?.url
        case .onesignal:
            let oneSignal = SDKDescriptor.onesignal
            let attachments = payload[oneSignal.marker]?.objectValue.map { $0[oneSignal.mediaKey] } ?? payload[oneSignal.mediaKey]
            guard case .object(let items)? = attachments else {
                // A malformed `att` is still a request (reported as sdk.onesignal.invalid-attachments).
                guard let attachments, attachments != .null else { return nil }
                return attachments.shortDescription
            }
            return items.sorted { $0.key < $1.key }.lazy.compactMap { $0.value.stringValue }.first
        default:
            return sdk.descriptor.mediaKeys.lazy.compactMap { payload[$0].flatMap { firstURL(in: $0) } }.first
        }
    }

    private static func firstURL(in value: JSONValue, depth: Int = 0) -> String? {
        switch value {
        case .string(let text): return text.hasPrefix("http") ? text : nil
        case .object(let members) where depth < 3:
            return members.sorted { $0.key < $1.key }.lazy.compactMap { firstURL(in: $0.value, depth: depth + 1) }.first
        case .array(let items) where depth < 3:
            return items.lazy.compactMap { firstURL(in: $0, depth: depth + 1) }.first
        default: return nil
        }
    }

    /// `nse extension`: the helper an app's own extension calls (the SDK module it imports, or `--sdk NAME`), and
    /// a warning when the payload carries only other SDKs' keys, which that helper does not read.
    public static func extensionHelper(
        payload: [String: JSONValue], importedSDKs: [PushSDK], selection: SDKSelection
    ) -> (choice: HelperChoice?, warning: Diagnostic?) {
        let matched = matches(in: payload).map(\.sdk)
        let imported = importedSDKs.filter { $0 != .firebase } + importedSDKs.filter { $0 == .firebase }
        let choice: HelperChoice
        if case .only(let named) = selection {
            let imports = imported.isEmpty ? "imports no SDK's helper module" : "imports \(imported.map(\.moduleName).joined(separator: ", "))"
            let agrees = imported.isEmpty || imported.contains(named)
            choice = HelperChoice(sdk: named, selection: .explicit, reason: "--sdk \(named.rawValue)\(agrees ? "" : "; the extension \(imports)")", matched: matched)
        } else if let first = imported.first {
            choice = HelperChoice(sdk: first, selection: .extension, reason: "the extension imports \(first.moduleName)", matched: matched)
        } else {
            // The extension's own code does the work: no SDK's rules to hold the payload to.
            return (nil, nil)
        }
        let found = matches(in: payload)
        guard !found.isEmpty, !found.contains(where: { $0.sdk == choice.sdk }) else { return (choice, nil) }
        let names = found.map(\.sdk.displayName).joined(separator: ", ")
        let message = "The payload carries \(names)'s keys, but the extension calls \(choice.sdk.displayName)'s helper (\(choice.reason)), which reads only \(choice.sdk.displayName)'s keys: on a device this push gets nothing from that helper. Test with a payload as \(choice.sdk.displayName)'s servers send it, or check which SDK the app really uses."
        // An image asked for under another SDK's media key is an image the phone will not show.
        let lostImage = found.contains(where: \.hasMediaKey)
        return (choice, lostImage ? .error(.sdkExtensionMismatch, message) : .warning(.sdkExtensionMismatch, message))
    }
}
