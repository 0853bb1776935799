import Foundation

/// `nse lint`: the checks stage on its own, no network.
public enum Linter {
    /// Every finding the checks stage makes about a push already read.
    public static func check(_ push: ReceivedPush) -> [Diagnostic] {
        PushChecks.run(push).diagnostics
    }

    /// `nse lint FILE`: reads the file and runs the checks.
    public static func lint(file: URL) -> LintReport {
        do {
            return lint(try PushReader.read(file), input: file.relativePath)
        } catch {
            return LintReport(input: file.relativePath, inputKind: nil, payloadBytes: nil, payloadLimit: nil, rejected: !error.unreadable, diagnostics: [error.diagnostic])
        }
    }

    public static func lint(_ push: ReceivedPush, input: String) -> LintReport {
        let checks = PushChecks.run(push)
        return LintReport(
            input: input, inputKind: push.kind, payloadBytes: push.payloadBytes, payloadLimit: push.payloadLimit,
            rejected: checks.refused, diagnostics: checks.diagnostics)
    }
}

extension Diagnostic {
    /// Codes whose errors mean APNs or FCM refuses the request outright, so nothing reaches any device.
    static let rejectingCodes: Set<DiagnosticCode> = [
        .fcmTargetCount, .fcmDataNotString, .fcmReservedDataKey, .fcmDataOnlyPriority, .fcmInvalidField,
        .fcmApnsPayloadAps, .fcmLegacyAPI,
        .lintHeaderValueType, .lintHeaderPushType, .lintHeaderPriority, .lintHeaderCollapseID,
        .lintHeaderExpiration, .lintHeaderAPNsID, .lintHeaderTopic,
        .payloadTooLarge, .payloadApsMissing, .inputInvalidJSON, .inputUnknownKind,
    ]

    /// True for an error that means the push is refused before it reaches a device (a warning never is).
    public var rejectsPush: Bool {
        severity == .error && Self.rejectingCodes.contains(code)
    }
}
