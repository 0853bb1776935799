/// What a command concludes about one input, the same way for every command: from its diagnostics.
public enum Verdict: String, Sendable, Codable, Comparable {
    /// No error: the sender's intended notification is what the phone shows (warnings allowed).
    case pass
    /// An error: something the sender intended does not happen, or the request is refused.
    case fail
    /// The push was not checked: the file could not be read, nse crashed on it in a batch, or nse could not
    /// download (no libcurl).
    case notChecked = "not-checked"

    /// The codes that mean nse could not judge the push at all.
    private static let notCheckedCodes: Set<DiagnosticCode> = [.inputUnreadable, .internalCrash, .internalNoLibcurl]

    public init(_ diagnostics: [Diagnostic]) {
        if diagnostics.contains(where: { Self.notCheckedCodes.contains($0.code) }) {
            self = .notChecked
        } else {
            self = diagnostics.contains { $0.severity == .error } ? .fail : .pass
        }
    }

    /// The process exit status: 0, 1 or 2; the command line's one conversion of a verdict.
    public var exitStatus: Int32 {
        switch self {
        case .pass: 0
        case .fail: 1
        case .notChecked: 2
        }
    }

    public static func < (lhs: Verdict, rhs: Verdict) -> Bool {
        lhs.exitStatus < rhs.exitStatus
    }
}

/// A command's report about one input: its verdict comes from its diagnostics, in one place.
public protocol VerdictReport {
    /// Every finding that counts toward the verdict.
    var verdictDiagnostics: [Diagnostic] { get }
}

extension VerdictReport {
    public var verdict: Verdict { Verdict(verdictDiagnostics) }
    public var exitStatus: Int32 { verdict.exitStatus }
    public var hasErrors: Bool { verdict != .pass }
}
