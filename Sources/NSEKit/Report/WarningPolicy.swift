extension ProcessResult {
    /// Every finding, iOS and Android: what the batch summary, JUnit and CI annotations count.
    public var allDiagnostics: [Diagnostic] {
        diagnostics + (android?.diagnostics ?? [])
    }

    public var hasWarnings: Bool {
        allDiagnostics.contains { $0.severity == .warning }
    }

    /// `exitStatus`, except that with `strict` (`--strict`) a push whose only findings are warnings fails too (1).
    public func exitStatus(strict: Bool) -> Int32 {
        let status = exitStatus
        return status == 0 && strict && hasWarnings ? 1 : status
    }
}
