/// What the checks need to know beside the push.
public struct CheckOptions: Sendable {
    /// Which side of an FCM message to judge: `android` leaves out everything about iOS.
    public var platform: Platform
    public var profile: DeviceProfile
    /// The extension changes the text, so a push that never reaches it loses those changes (a warning).
    public var changesContent: Bool
    /// Foretell from the image URL alone what the download would find (plain http, a WebP path): for the
    /// commands that do not download. `process` downloads and finds the same through the same rules.
    public var forecastsMedia: Bool

    public init(platform: Platform = .ios, profile: DeviceProfile = DeviceProfile(), changesContent: Bool = false, forecastsMedia: Bool = true) {
        self.platform = platform
        self.profile = profile
        self.changesContent = changesContent
        self.forecastsMedia = forecastsMedia
    }
}

/// What the checks concluded about one push: every finding, where iOS hands it, and whether the extension runs.
public struct CheckReport: Sendable {
    public var diagnostics: [Diagnostic]
    public var destination: Destination
    public var eligibility: ExtensionEligibility

    /// APNs or FCM refuses the request: nothing reaches any device (for FCM's refusals) or the iPhone.
    public var refused: Bool { diagnostics.contains(where: \.rejectsPush) }
    /// FCM itself refuses the request, so Android gets nothing either.
    public var refusedByFCM: Bool { diagnostics.contains { $0.rejectsPush && $0.code.isFCMRefusal } }
}

/// The one checks stage: every static rule about a push, in one order, for every command (`process`, `batch`,
/// `lint`, `resolve`, `route` and the extension harness). Each rule lives in the file it names; this only
/// decides which apply.
public enum PushChecks {
    public static func run(_ push: ReceivedPush, options: CheckOptions = CheckOptions()) -> CheckReport {
        let destination = destination(of: push)
        let eligibility = ExtensionEligibility.decide(
            push.aps, destination: destination, kind: push.kind, pushType: push.pushType, profile: options.profile)
        guard options.platform.includesIOS else {
            // Android only: FCM's own checks decide whether the message is sent.
            let findings = push.fcmMessage.map(FCMValidation.validate) ?? []
            return CheckReport(diagnostics: findings, destination: destination, eligibility: eligibility)
        }

        var findings = push.diagnostics
        findings += requestFindings(push)
        findings += DeliveryRules.check(push)
        // A refused push reaches no device: what the device would do with it is moot.
        guard !findings.contains(where: \.rejectsPush) else {
            return CheckReport(diagnostics: findings, destination: destination, eligibility: eligibility)
        }
        if let request = push.imageRequest {
            findings += ImageRequestRules.check(
                request, profile: options.profile, forecast: options.forecastsMedia && eligibility.invoked)
        }
        findings += localizedLines(push.aps)
        if let notInvoked = eligibility.notInvokedFinding(
            imageRequested: push.imageRequest != nil, changesContent: options.changesContent, destination: destination) {
            findings.append(notInvoked)
        }
        return CheckReport(diagnostics: findings, destination: destination, eligibility: eligibility)
    }

    /// FCM's rules, the `aps` keys where the sender wrote them, misplaced `aps` keys, and the headers.
    private static func requestFindings(_ push: ReceivedPush) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        let liveActivity = push.pushType == .liveactivity || push.aps.hasLiveActivityKeys
        if let message = push.fcmMessage {
            findings += FCMValidation.validate(message)
            findings += FCMValidation.validateForApple(message)
            // Lint what the sender wrote in `apns.payload.aps`, not the alert FCM builds from `notification`.
            if message.writtenAps.presence == .present {
                findings += ApsLint.check(message.writtenAps, path: push.apsPath, liveActivity: liveActivity)
            }
        } else if push.aps.presence == .present {
            findings += ApsLint.check(push.aps, path: push.apsPath, liveActivity: liveActivity)
        }
        for misplaced in [push.aps.mutableContentNearMiss, push.aps.contentAvailableNearMiss].compactMap({ $0 }) where misplaced.place == .besideAps {
            findings.append(.warning(.lintApsMisplacedKey, "The payload has `\(misplaced.key)` beside `aps`, where only the app reads it: iOS reads `\(misplaced.meant)` inside `aps` and ignores this one. Move it into `aps` as \"\(misplaced.meant)\": 1."))
        }
        if let headers = push.headers {
            let viaFCM = push.fcmMessage != nil
            // FCM's data-message rule already judges an FCM data message's priority.
            let fcmJudgesPriority = push.fcmMessage.map(FCMValidation.isDataOnlyForApple) ?? false
            findings += HeaderLint.check(
                headers, aps: push.aps, path: viaFCM ? "message.apns.headers" : "headers", viaFCM: viaFCM,
                priorityJudgedElsewhere: fcmJudgesPriority, impliedPushType: push.pushType)
        }
        return findings
    }

    /// Lines whose text the app's Localizable.strings give: the emulator shows the key, and says so.
    private static func localizedLines(_ aps: Aps) -> [Diagnostic] {
        guard let alert = aps.alert else { return [] }
        let lines: [(String, AlertText?)] = [("title", alert.title), ("subtitle", alert.subtitle), ("body", alert.body)]
        let localized = lines.compactMap { name, text -> String? in
            guard case .localized(let key, let arguments)? = text else { return nil }
            let filled = arguments.isEmpty ? "" : " filled with \(arguments.map { "\"\($0)\"" }.joined(separator: ", "))"
            return "the \(name) is the app's string for \"\(key)\"\(filled)"
        }
        guard !localized.isEmpty else { return [] }
        return [.info(.payloadLocalizedAlert, "Localized alert: \(localized.joined(separator: "; ")). iOS looks the keys up in the app's Localizable.strings, which the emulator does not have, so the content shows the keys. Check that every key exists in each of the app's languages.")]
    }

    /// Where the iPhone hands the push: the push type's destination, else what the payload holds.
    static func destination(of push: ReceivedPush) -> Destination {
        let aps = push.aps
        if let type = push.pushType, type != .alert {
            return type.rules.destination
        }
        // No push type (or `alert`): APNs and iOS go by the payload; Live Activity keys without the header are
        // meant for ActivityKit (the lint warns that the header is missing).
        if push.pushType == nil, aps.hasLiveActivityKeys { return .activityKit }
        if aps.isNotification { return .notificationCenter }
        if aps.contentAvailable.isSet { return .backgroundApp }
        return .none
    }
}
