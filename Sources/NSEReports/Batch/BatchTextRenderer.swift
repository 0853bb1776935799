import Foundation
import NSEMedia
import NSEPipeline
import NSEPush

/// The batch's text for people and CI logs: one line per push, and the summary at the end.
package struct BatchTextRenderer: Sendable {
    /// Files listed under each failure code before "and N more".
    package var filesPerCode = 10

    package init() {}

    /// `PASS  campaign/sale.json  modified, image shown  (23 ms)`; failures name their error codes.
    package func line(for entry: BatchEntry) -> String {
        let status = switch entry.exitStatus {
        case 0: "PASS "
        case 1: "FAIL "
        default: "ERROR"
        }
        var detail = entry.outcome.rawValue
        if entry.imageShown { detail += ", image shown" }
        // Firebase's helper by default needs no mention: it was the only one before `--sdk`.
        if let helper = entry.helper, !helper.isFirebaseByDefault { detail += " [\(helper.sdk.rawValue)]" }
        var codes: [String] = []
        for diagnostic in entry.errors where !codes.contains(diagnostic.code.rawValue) {
            codes.append(diagnostic.code.rawValue)
        }
        if !codes.isEmpty { detail += ": " + codes.joined(separator: ", ") }
        var warnings: [String] = []
        for diagnostic in entry.warnings where !warnings.contains(diagnostic.code.rawValue) {
            warnings.append(diagnostic.code.rawValue)
        }
        if !warnings.isEmpty { detail += " (warning: " + warnings.joined(separator: ", ") + ")" }
        return "\(status) \(entry.input)  \(detail)  (\(Int(saturating: entry.milliseconds.rounded())) ms)"
    }

    package func summary(_ summary: BatchSummary) -> String {
        var lines: [String] = []
        let seconds = summary.elapsedMilliseconds / 1000
        let rate = seconds > 0 ? Double(summary.processed) / seconds : 0
        let memory = summary.peakMemoryBytes.map { ", peak memory \(format(Double($0) / 1e6, digits: 1)) MB" } ?? ""
        lines.append("\(counted(summary.payloads, "payload")) in \(format(seconds, digits: 2)) s (\(format(rate, digits: 1)) payloads/s, \(counted(summary.jobs, "job"))\(memory))")
        lines.append("  passed \(summary.passed), failed \(summary.failed), unreadable \(summary.unreadable), warnings \(summary.warnings)")
        if summary.interrupted {
            lines.append("  INTERRUPTED: \(summary.notRun) not run (no result saved for them)")
        }
        lines.append("  images: \(summary.imagesShown) of the \(summary.imagesRequested) requested would show")
        if summary.helpers.keys.contains(where: { $0 != PushSDK.firebase.rawValue }) {
            lines.append("  helpers: " + summary.helpers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        let media = summary.media
        if media.downloadsRequested > 0 {
            lines.append("  media: \(counted(media.downloadsMade, "download")) for \(counted(media.downloadsRequested, "image request")), \(counted(media.validationsMade, "decode")) for \(counted(media.validationsRequested, "attachment"))")
        }
        if !summary.failuresByCode.isEmpty {
            lines.append("failures by code:")
            for (code, files) in summary.failuresByCode.sorted(by: { ($0.value.count, $1.key) > ($1.value.count, $0.key) }) {
                lines.append("  \(code) (\(files.count))")
                for file in files.prefix(filesPerCode) { lines.append("    \(file)") }
                if files.count > filesPerCode { lines.append("    ... and \(files.count - filesPerCode) more (see report.json)") }
            }
        }
        if !summary.warningsByCode.isEmpty {
            lines.append("warnings by code:")
            for (code, files) in summary.warningsByCode.sorted(by: { ($0.value.count, $1.key) > ($1.value.count, $0.key) }) {
                lines.append("  \(code) (\(files.count))")
                for file in files.prefix(filesPerCode) { lines.append("    \(file)") }
                if files.count > filesPerCode { lines.append("    ... and \(files.count - filesPerCode) more (see report.json)") }
            }
        }
        if !summary.slowestDownloads.isEmpty {
            lines.append("slowest downloads:")
            for download in summary.slowestDownloads {
                lines.append("  \(String(Int(saturating: download.milliseconds.rounded())).leftPadded(to: 6)) ms  \(download.input)  \(download.url)")
            }
        }
        return lines.joined(separator: "\n")
    }

    private func format(_ value: Double, digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
