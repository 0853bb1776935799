import Foundation

/// What `nse route` reports: which code receives one message on each platform, for one app state.
public struct RouteReport: Sendable, Codable {
    public var input: String
    public var inputKind: InputKind?
    public var appState: AppState
    public var ios: PlatformRoute?
    /// Absent for an APNs payload, which reaches only iOS.
    public var android: PlatformRoute?
    /// Why a message is not delivered at all, and assumptions the route rests on.
    public var diagnostics: [Diagnostic]

    /// 0: no errors; 1: an error-severity finding (the message is refused); 2: the file could not be read.
    public var exitStatus: Int32 {
        if diagnostics.contains(where: { $0.code == .inputUnreadable }) { return 2 }
        return diagnostics.contains { $0.severity == .error } ? 1 : 0
    }
}

extension DeliveryRoutes {
    /// `nse route FILE --app-state STATE`.
    public static func route(file: URL, appState: AppState) -> RouteReport {
        do {
            return route(try PushReader.read(file), input: file.relativePath, appState: appState)
        } catch {
            return RouteReport(input: file.relativePath, inputKind: nil, appState: appState, diagnostics: [error.diagnostic])
        }
    }

    public static func route(_ push: ReceivedPush, input: String, appState: AppState) -> RouteReport {
        var report = RouteReport(input: input, inputKind: push.kind, appState: appState, diagnostics: [])
        // Only refusals change the route: FCM or APNs refusing the request, or a payload too large.
        let refusals = (Linter.check(push) + DeliveryRules.check(push)).filter { finding in
            finding.rejectsPush && !(finding.code == .payloadApsMissing && push.fcmMessage != nil)
        }
        report.diagnostics = refusals
        let viaFCM = push.fcmMessage != nil

        let iosKind = MessageKind.ofIOSPayload(push.userInfo)
        if let refusal = refusals.first {
            report.ios = notDelivered(iosKind, because: "The request is refused before delivery: \(refusal.code.rawValue).", ios: true)
        } else {
            let aps = push.userInfo["aps"]?.objectValue ?? [:]
            let contentAvailable = aps["content-available"] == .int(1) || aps["content-available"] == .bool(true)
            let eligibility = ExtensionEligibility.decide(aps: aps, kind: push.kind)
            var ios = Self.ios(kind: iosKind, appState: appState, contentAvailable: contentAvailable, serviceExtension: eligibility.invoked, viaFCM: viaFCM)
            if iosKind != .dataOnly, let reason = eligibility.reason {
                ios.explanation += " The Notification Service Extension does not run: \(reason)."
            }
            if ios.receiver == .didReceiveMessage {
                report.diagnostics.append(.warning(.routeDirectChannel, "This route follows the reference's table: a data-only message reaches a running iOS app through FCM's direct channel (`messaging(_:didReceive:)`). FirebaseMessaging 7 (2020) removed that channel and its delegate method; with a current SDK, send `apns.payload.aps.content-available: 1` and apns-priority 5 and handle it in application(_:didReceiveRemoteNotification:fetchCompletionHandler:)."))
            }
            report.ios = ios
        }

        if let message = push.fcmMessage {
            let android = FCMResolver.resolveForAndroid(message)
            let kind = MessageKind.ofAndroidMessage(android)
            let refused = refusals.first { $0.code.isFCMRefusal }
            report.android = refused.map { notDelivered(kind, because: "FCM refuses the request: \($0.code.rawValue).", ios: false) }
                ?? Self.android(kind: kind, appState: appState)
        }
        return report
    }
}
