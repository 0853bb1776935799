import NSEPush

/// `nse route` for a terminal: for each platform, the kind of message and the code that receives it.
package struct RouteTextRenderer: Sendable {
    package init() {}

    package func render(_ report: RouteReport) -> String {
        var lines = ["\(report.input)\(report.inputKind.map { " (\($0.rawValue))" } ?? ""), app in the \(report.appState.rawValue)"]
        for (name, route) in [("iOS", report.ios), ("Android", report.android)] {
            guard let route else {
                if name == "Android", report.inputKind != nil { lines.append("  Android: not applicable (an APNs payload reaches only iOS)") }
                continue
            }
            lines.append("  \(name): \(route.messageKind.rawValue) -> \(route.receiver.rawValue)")
            for (index, handler) in route.handlers.enumerated() {
                lines.append("    \(index + 1). \(handler)")
            }
            lines.append("    \(route.explanation)")
        }
        lines += report.diagnostics.map(\.textLine)
        return lines.joined(separator: "\n")
    }
}
