extension Verdict {
    /// The verdict with `--strict`: warnings fail a push that would otherwise pass.
    public init(_ diagnostics: [Diagnostic], strict: Bool) {
        self.init(diagnostics)
        if strict, self == .pass, diagnostics.contains(where: { $0.severity == .warning }) { self = .fail }
    }
}

extension VerdictReport {
    public var hasWarnings: Bool {
        verdictDiagnostics.contains { $0.severity == .warning }
    }

    /// The verdict, with `--strict` making warnings fail.
    public func verdict(strict: Bool) -> Verdict {
        Verdict(verdictDiagnostics, strict: strict)
    }

    /// `exitStatus`, with `--strict` making warnings fail (1).
    public func exitStatus(strict: Bool) -> Int32 {
        verdict(strict: strict).exitStatus
    }
}
