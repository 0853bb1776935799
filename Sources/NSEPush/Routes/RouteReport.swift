import Foundation

/// What `nse route` reports: which code receives one message on each platform, for one app state.
public struct RouteReport: Sendable, Codable, VerdictReport {
    public var input: String
    public var inputKind: InputKind?
    public var appState: AppState
    public var ios: PlatformRoute?
    /// Absent for an APNs payload, which reaches only iOS.
    public var android: PlatformRoute?
    /// The checks' findings (the same as `nse lint`'s), and assumptions the route rests on.
    public var diagnostics: [Diagnostic]

    public var verdictDiagnostics: [Diagnostic] { diagnostics }
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
        let checks = PushChecks.run(push)
        var report = RouteReport(input: input, inputKind: push.kind, appState: appState, diagnostics: checks.diagnostics)
        let viaFCM = push.fcmMessage != nil

        let iosKind = MessageKind.ofIOSPush(push)
        if let refusal = checks.diagnostics.first(where: \.rejectsPush) {
            report.ios = notDelivered(iosKind, because: "The request is refused before delivery: \(refusal.code.rawValue).", ios: true)
        } else if let route = elsewhere(checks.destination, kind: iosKind) {
            report.ios = route
        } else if checks.destination == .nowhere, viaFCM, !MessageKind.hasAppData(push.userInfo) {
            report.ios = notDelivered(iosKind, because: "The message has nothing for iOS: no `aps` and no data (an Android-only or web-only message). Nothing is shown and no app code runs; add `notification` or `apns.payload` to reach iPhones.", ios: true)
        } else {
            let eligibility = checks.eligibility
            var ios = Self.ios(kind: iosKind, appState: appState, contentAvailable: push.aps.contentAvailable.isSet, serviceExtension: eligibility.invoked, viaFCM: viaFCM)
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
            let refused = checks.diagnostics.first { $0.rejectsPush && $0.code.isFCMRefusal }
            report.android = refused.map { notDelivered(kind, because: "FCM refuses the request: \($0.code.rawValue).", ios: false) }
                ?? Self.android(kind: kind, appState: appState, clickAction: android.notification?["click_action"]?.stringValue)
        }
        return report
    }

    /// A push iOS hands to another receiver than Notification Center or the app's delegate: the same in both
    /// app states.
    static func elsewhere(_ destination: Destination, kind: MessageKind) -> PlatformRoute? {
        let row = destination.row
        guard let receiver = row.receiver else { return nil }
        return PlatformRoute(
            messageKind: kind, receiver: receiver, handlers: row.handlers, display: row.display, serviceExtension: false,
            explanation: row.explanation)
    }
}
