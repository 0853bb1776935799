import Foundation
import NSEPush

/// The batch's summary in GitHub-flavoured Markdown, for `$GITHUB_STEP_SUMMARY` (shown on the run's page).
package struct MarkdownSummaryRenderer: Sendable {
    /// Files listed under each code before "and N more".
    package var filesPerCode = 10

    package init() {}

    package func render(_ summary: BatchSummary, strict: Bool = false) -> String {
        var lines: [String] = []
        let verdict = summary.interrupted ? "interrupted" : summary.exitStatus == 0 ? "passed" : "failed"
        lines.append("### nse batch: \(verdict)")
        lines.append("")
        lines.append("| pushes | passed | failed | unreadable | warnings | images shown |")
        lines.append("|---:|---:|---:|---:|---:|---:|")
        lines.append("| \(summary.payloads) | \(summary.passed) | \(summary.failed) | \(summary.unreadable) | \(summary.warnings) | \(summary.imagesShown) of \(summary.imagesRequested) |")
        // Only when another SDK's helper ran: Firebase's alone is nse's behaviour before `--sdk`.
        if summary.helpers.keys.contains(where: { $0 != PushSDK.firebase.rawValue }) {
            lines += ["", "Helpers: " + summary.helpers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")]
        }
        if strict { lines += ["", "`--strict`: pushes with warnings fail."] }
        if summary.interrupted { lines += ["", "Interrupted: \(counted(summary.notRun, "push", plural: "pushes")) not run."] }
        lines += section("Errors", summary.failuresByCode)
        lines += section("Warnings", summary.warningsByCode)
        return lines.joined(separator: "\n") + "\n"
    }

    private func section(_ heading: String, _ byCode: [String: [String]]) -> [String] {
        guard !byCode.isEmpty else { return [] }
        var lines = ["", "| \(heading.lowercased()) | pushes | files |", "|---|---:|---|"]
        for (code, files) in byCode.sorted(by: { ($0.value.count, $1.key) > ($1.value.count, $0.key) }) {
            var listed = files.prefix(filesPerCode).map { "`\(cell($0))`" }.joined(separator: "<br>")
            if files.count > filesPerCode { listed += "<br>... and \(files.count - filesPerCode) more" }
            lines.append("| `\(code)` | \(files.count) | \(listed) |")
        }
        return lines
    }

    /// Keeps a file name from breaking the table: pipes and backticks would end the cell or the code span.
    private func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "`", with: "'")
            .replacingOccurrences(of: "\n", with: " ")
    }
}
