import Foundation
import NSEPush

/// The repository's folders that tests read: the bundled samples.
public enum RepositoryFolders {
    /// The checkout's root, from this file's place in it (Tests/NSETestSupport).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    public static let samples = root.appendingPathComponent("samples")
}

extension Array where Element == Diagnostic {
    /// The findings that ask something of the sender: warnings and errors, not the explanations.
    public var warningsAndErrors: [Diagnostic] { filter { $0.severity != .info } }
}

/// The severity `code` was reported with, or nil when it was not reported.
public func severity(of code: DiagnosticCode, in findings: [Diagnostic]) -> Diagnostic.Severity? {
    findings.filter { $0.code == code }.map(\.severity).max()
}
