import Foundation
import NSEPush

/// GitHub Actions workflow commands: one annotation per error and warning, on the push's file, so they show
/// in the run's summary and beside the file in a pull request's diff.
package struct GitHubAnnotationRenderer: Sendable {
    package init() {}

    /// `::error file=campaign/sale.json,title=media.timeout::The image download ...`, one line per finding.
    package func annotations(for entry: BatchEntry) -> [String] {
        entry.diagnostics.compactMap { diagnostic in
            let command = switch diagnostic.severity {
            case .error: "error"
            case .warning: "warning"
            case .info: ""
            }
            guard !command.isEmpty else { return nil }
            return "::\(command) file=\(property(entry.input)),title=\(property(diagnostic.code.rawValue))::\(data(diagnostic.message))"
        }
    }

    /// The escaping GitHub's runner undoes in a command's message.
    func data(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// The escaping GitHub's runner undoes in a command's properties (`file=`, `title=`).
    func property(_ text: String) -> String {
        data(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
