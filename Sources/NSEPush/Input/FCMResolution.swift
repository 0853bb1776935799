import Foundation

/// What the iPhone receives from an FCM message: the APNs payload and the request's headers.
public struct IOSDelivery: Sendable, Codable {
    /// The `userInfo` iOS delivers: `aps`, the custom keys, `fcm_options`.
    public var payload: [String: JSONValue]
    /// Compact JSON bytes, as APNs counts them.
    public var payloadBytes: Int
    public var payloadLimit: Int
    /// `apns.headers`, as FCM forwards them to APNs; absent when the message sets none.
    public var headers: [String: JSONValue]?
}

/// What `nse resolve` reports: each platform's view of one FCM HTTP v1 message, and what FCM would refuse.
public struct ResolutionReport: Sendable, Codable, VerdictReport {
    public var input: String
    public var inputKind: InputKind?
    public var ios: IOSDelivery?
    public var android: AndroidMessage?
    /// FCM (or APNs, for the iOS side) refuses the message as written: nothing is delivered.
    public var rejected: Bool
    public var diagnostics: [Diagnostic]

    public var verdictDiagnostics: [Diagnostic] { diagnostics }
}

extension FCMResolver {
    /// `nse resolve FILE`: reads an FCM message and resolves it for `platform`, validating it as FCM would.
    public static func resolve(file: URL, platform: Platform = .both) -> ResolutionReport {
        let input = file.relativePath
        let push: ReceivedPush
        do {
            push = try PushReader.read(file)
        } catch {
            return ResolutionReport(input: input, inputKind: nil, rejected: !error.unreadable, diagnostics: [error.diagnostic])
        }
        return resolve(push, input: input, platform: platform)
    }

    public static func resolve(_ push: ReceivedPush, input: String, platform: Platform = .both) -> ResolutionReport {
        guard let message = push.fcmMessage else {
            return ResolutionReport(
                input: input, inputKind: push.kind, rejected: false,
                diagnostics: [.error(.inputUnknownKind, "This is an APNs payload (\(push.kind.rawValue)), what an iPhone receives already, not an FCM HTTP v1 message: there is nothing to resolve. Use `nse lint` or `nse process` on it; give `nse resolve` a {\"message\": {...}} send request.")])
        }
        let checks = PushChecks.run(push, options: CheckOptions(platform: platform))
        var ios: IOSDelivery?
        var android: AndroidMessage?
        if platform.includesIOS {
            ios = IOSDelivery(payload: push.userInfo, payloadBytes: push.payloadBytes, payloadLimit: push.payloadLimit, headers: push.headers)
        }
        if platform.includesAndroid {
            android = resolveForAndroid(message)
        }
        return ResolutionReport(
            input: input, inputKind: push.kind, ios: ios, android: android,
            rejected: checks.refused, diagnostics: checks.diagnostics)
    }
}
