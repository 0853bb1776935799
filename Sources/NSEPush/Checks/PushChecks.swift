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
    /// The image the payload asks Firebase's helper for, as the push model read it (`ReceivedPush.imageRequest`):
    /// the built-in helper's plan takes it from here rather than reading the payload again.
    public var imageRequest: ImageRequest?

    /// APNs or FCM refuses the request: nothing reaches any device (for FCM's refusals) or the iPhone.
    public var refused: Bool { diagnostics.contains(where: \.rejectsPush) }
    /// FCM itself refuses the request, so Android gets nothing either.
    public var refusedByFCM: Bool { diagnostics.contains { $0.rejectsPush && $0.code.isFCMRefusal } }
    /// iOS runs the service extension: the push is delivered, shown in Notification Center, and eligible.
    public var runsExtension: Bool { !refused && destination.presentsNotification && eligibility.invoked }
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
            return CheckReport(diagnostics: findings, destination: destination, eligibility: eligibility, imageRequest: push.imageRequest)
        }

        var findings = push.diagnostics
        findings += requestFindings(push, liveActivity: destination == .activityKit)
        findings += DeliveryRules.check(push)
        // A refused push reaches no device: what the device would do with it is moot.
        guard !findings.contains(where: \.rejectsPush) else {
            return CheckReport(diagnostics: findings, destination: destination, eligibility: eligibility, imageRequest: push.imageRequest)
        }
        if let request = push.imageRequest {
            findings += ImageRequestRules.check(
                request, profile: options.profile, forecast: options.forecastsMedia && eligibility.invoked)
        }
        if let alert = push.aps.alert { findings += AlertLint.localizedLines(alert) }
        if let notInvoked = eligibility.notInvokedFinding(
            imageRequested: push.imageRequest != nil || SDKDetection.asksOtherSDKForMedia(push.userInfo), changesContent: options.changesContent, destination: destination) {
            findings.append(notInvoked)
        }
        return CheckReport(diagnostics: findings, destination: destination, eligibility: eligibility, imageRequest: push.imageRequest)
    }

    /// FCM's rules, the `aps` keys where the sender wrote them, misplaced `aps` keys, and the headers.
    /// `liveActivity`: the push goes to ActivityKit, whose rules its alert and relevance score follow.
    private static func requestFindings(_ push: ReceivedPush, liveActivity: Bool) -> [Diagnostic] {
        var findings: [Diagnostic] = []
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
        findings += ApsLint.misplacedKeys(push.aps)
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
        return .nowhere
    }
}
