import Foundation

/// The static checks of a push, no network: FCM's validation of the message, the `aps` keys and types, and the
/// APNs headers. `nse lint` runs them on their own; `nse process` runs them first, before the delivery checks.
public enum Linter {
    /// Every lint finding for a push already read (not the delivery checks: see `DeliveryRules`).
    public static func check(_ push: ReceivedPush) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        let aps = push.userInfo["aps"]?.objectValue ?? [:]
        if let message = push.fcmMessage {
            findings += FCMValidation.validate(message)
            findings += FCMValidation.validateForApple(message)
            // Lint what the sender wrote in `apns.payload.aps`, not the alert FCM builds from `notification`.
            if let written = message.apns["payload"]?["aps"]?.objectValue {
                findings += ApsLint.check(written, path: "message.apns.payload.aps")
            }
            if let headers = FCMFieldNames.member("headers", of: message.apns)?.objectValue {
                findings += HeaderLint.check(headers, aps: aps, path: "message.apns.headers", viaFCM: true)
            }
        } else {
            if case .object(let written)? = push.userInfo["aps"] {
                findings += ApsLint.check(written, path: push.isEnvelope ? "payload.aps" : "aps")
            }
            if let headers = push.headers {
                findings += HeaderLint.check(headers, aps: aps, path: "headers", viaFCM: false)
            }
        }
        // A data message sent with priority 10 through FCM is already refused by FCM; one finding is enough.
        if findings.contains(where: { $0.code == .fcmDataOnlyPriority }) {
            findings.removeAll { $0.code == .lintHeaderPriorityMismatch }
        }
        return findings
    }

    /// `nse lint FILE`: reads the file, lints it, and adds the payload-size check APNs applies.
    public static func lint(file: URL) -> LintReport {
        do {
            return lint(try PushReader.read(file), input: file.relativePath)
        } catch {
            return LintReport(input: file.relativePath, inputKind: nil, payloadBytes: nil, payloadLimit: nil, rejected: !error.unreadable, diagnostics: [error.diagnostic])
        }
    }

    public static func lint(_ push: ReceivedPush, input: String) -> LintReport {
        var diagnostics = push.diagnostics + check(push)
        // An FCM data message carries no `aps` by design; for APNs payloads a missing `aps` is a finding.
        diagnostics += DeliveryRules.check(push).filter { push.fcmMessage == nil || $0.code != .payloadApsMissing }
        return LintReport(
            input: input, inputKind: push.kind, payloadBytes: push.payloadBytes, payloadLimit: push.payloadLimit,
            rejected: diagnostics.contains { $0.rejectsPush }, diagnostics: diagnostics)
    }
}

extension Diagnostic {
    /// Codes whose errors mean APNs or FCM refuses the request outright, so nothing reaches any device.
    static let rejectingCodes: Set<DiagnosticCode> = [
        .fcmTargetCount, .fcmDataNotString, .fcmReservedDataKey, .fcmDataOnlyPriority, .fcmInvalidField,
        .lintHeaderValueType, .lintHeaderPushType, .lintHeaderPriority, .lintHeaderCollapseID,
        .lintHeaderExpiration, .lintHeaderAPNsID, .lintHeaderTopic,
        .payloadTooLarge, .payloadApsMissing, .inputInvalidJSON, .inputUnknownKind,
    ]

    /// True for an error that means the push is refused before it reaches a device (a warning never is).
    public var rejectsPush: Bool {
        severity == .error && Self.rejectingCodes.contains(code)
    }
}
