import Foundation
import NSEPush

/// `nse resolve` for a terminal: what each platform receives, then the findings.
package struct ResolutionTextRenderer: Sendable {
    package init() {}

    package func render(_ report: ResolutionReport) -> String {
        var lines = ["\(report.input)\(report.inputKind.map { " (\($0.rawValue))" } ?? "")"]
        if report.rejected { lines.append("  REJECTED: FCM or APNs refuses it as written") }
        if let ios = report.ios {
            lines.append("  iOS receives (APNs payload, \(ios.payloadBytes) of \(ios.payloadLimit) bytes):")
            lines.append(indentedJSON(.object(ios.payload), by: "    "))
            if let headers = ios.headers, !headers.isEmpty {
                lines.append("  with headers:")
                lines.append(indentedJSON(.object(headers), by: "    "))
            }
        }
        if let android = report.android {
            lines.append("  Android receives:")
            if let notification = android.notification {
                lines.append("    notification (shown by the system in the background):")
                lines += Self.fields(notification)
            } else {
                lines.append("    no notification (data-only: onMessageReceived)")
            }
            lines.append(android.data.isEmpty ? "    no data" : "    data:")
            lines += Self.fields(android.data)
        }
        lines += report.diagnostics.map(\.textLine)
        return lines.joined(separator: "\n")
    }

    /// One line per field, names in a column as wide as the longest (never cut: `product_count` stays whole).
    private static func fields(_ values: [String: JSONValue]) -> [String] {
        let width = max(12, values.keys.map(\.count).max() ?? 0)
        return values.sorted { $0.key < $1.key }.map { key, value in
            "      \(key.padding(toLength: width, withPad: " ", startingAt: 0)) \(value.shortDescription)"
        }
    }
}
