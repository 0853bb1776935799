/// `nse resolve` for a terminal: what each platform receives, then the findings.
public struct ResolutionTextRenderer: Sendable {
    public init() {}

    public func render(_ report: ResolutionReport) -> String {
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
                lines += notification.keys.sorted().map { "      \($0.padding(toLength: 12, withPad: " ", startingAt: 0)) \(notification[$0]!.shortDescription)" }
            } else {
                lines.append("    no notification (data-only: onMessageReceived)")
            }
            lines.append(android.data.isEmpty ? "    no data" : "    data:")
            lines += android.data.keys.sorted().map { "      \($0.padding(toLength: 12, withPad: " ", startingAt: 0)) \(android.data[$0]!.shortDescription)" }
        }
        lines += report.diagnostics.map(\.textLine)
        return lines.joined(separator: "\n")
    }
}
