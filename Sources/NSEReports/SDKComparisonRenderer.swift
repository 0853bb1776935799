import Foundation
import NSEPipeline
import NSEPush

/// The text of `nse process --sdk all`: a table, one row per helper, then what differs in words.
package struct SDKComparisonRenderer: Sendable {
    package init() {}

    package func render(_ comparison: SDKComparison) -> String {
        var lines: [String] = []
        let kind = comparison.inputKind.map { " (\($0.rawValue))" } ?? ""
        lines.append("\(comparison.input)\(kind): every helper on the same payload")
        lines.append("  --sdk auto runs \(comparison.detected.sdk.displayName) (\(comparison.detected.selection.rawValue): \(comparison.detected.reason)); its verdict is the exit status")
        for diagnostic in comparison.detection {
            lines.append("  \(diagnostic.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))\(diagnostic.code.rawValue): \(diagnostic.message)")
        }
        let header = ["helper", "image", "attachment", "badge", "category", "why not / warning"]
        var rows: [[String]] = []
        for row in comparison.helpers {
            let mark = row.sdk == comparison.detected.sdk ? "* " : "  "
            rows.append([
                mark + row.sdk.displayName,
                row.imageShown == true ? "shown" : "none",
                row.attachments.isEmpty ? "-" : row.attachments.joined(separator: ", "),
                row.badge.map(String.init) ?? "-",
                row.category ?? "-",
                row.reason?.code.rawValue ?? whyNot(row),
            ])
        }
        let all = [["  " + header[0]] + header.dropFirst()] + rows
        let widths = (0..<header.count).map { column in all.map { $0[column].count }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { index, cell in index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) }
            lines.append("  " + cells.joined(separator: "  "))
        }
        lines += textLines(comparison.helpers)
        let reasons = comparison.helpers.filter { $0.reason != nil }
        if !reasons.isEmpty {
            lines.append("  why:")
            for row in reasons {
                guard let reason = row.reason else { continue }
                lines.append("    \(row.sdk.displayName.padding(toLength: Self.nameWidth, withPad: " ", startingAt: 0))\(reason.code.rawValue): \(reason.message)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The longest SDK name and two spaces: the "why" and text lines' names line up whichever SDKs they list.
    private static let nameWidth = (PushSDK.allCases.map(\.displayName.count).max() ?? 0) + 2

    /// A row without findings: an image shown, or a helper that found no media key of its own in the payload.
    private func whyNot(_ row: SDKComparison.Row) -> String {
        if row.imageShown == true { return "-" }
        if row.outcome == .modified { return "no media key of its own in the payload" }
        return row.outcome?.rawValue ?? "-"
    }

    /// The alert's text: one line when every helper shows the same, else a line per helper.
    private func textLines(_ rows: [SDKComparison.Row]) -> [String] {
        func text(_ row: SDKComparison.Row) -> String {
            var parts: [String] = []
            if let title = row.title, !title.isEmpty { parts.append("title \(quoted(title))") }
            if let subtitle = row.subtitle, !subtitle.isEmpty { parts.append("subtitle \(quoted(subtitle))") }
            if let body = row.body, !body.isEmpty { parts.append("body \(quoted(body))") }
            return parts.isEmpty ? "no alert" : parts.joined(separator: ", ")
        }
        let texts = rows.map(text)
        guard let first = texts.first else { return [] }
        if texts.allSatisfy({ $0 == first }) { return ["  every helper shows \(first)"] }
        return ["  the helpers show different text:"] + zip(rows, texts).map { row, text in
            "    \(row.sdk.displayName.padding(toLength: Self.nameWidth, withPad: " ", startingAt: 0))\(text)"
        }
    }

    private func quoted(_ text: String) -> String { "\"\(text)\"" }
}
