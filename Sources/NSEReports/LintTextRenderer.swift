import NSEPush

/// `nse lint` for a terminal: the verdict, the payload's size, and every finding.
package struct LintTextRenderer: Sendable {
    package init() {}

    package func render(_ report: LintReport) -> String {
        var lines = ["\(report.input)\(report.inputKind.map { " (\($0.rawValue))" } ?? "")"]
        let verdict = report.rejected ? "REJECTED: APNs or FCM refuses it as written"
            : report.hasErrors ? "FAIL: errors found"
            : report.diagnostics.contains { $0.severity == .warning } ? "OK: warnings only"
            : report.diagnostics.isEmpty ? "OK: no findings" : "OK: notes only"
        lines.append("  \(verdict)")
        if let bytes = report.payloadBytes, let limit = report.payloadLimit {
            lines.append("  payload  \(bytes) of \(limit) bytes (compact JSON, as APNs counts)")
        }
        lines += report.diagnostics.map(\.textLine)
        return lines.joined(separator: "\n")
    }
}
