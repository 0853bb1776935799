import Foundation
import ArgumentParser
import NSEPush
import NSEReports

extension Platform: ExpressibleByArgument {}
extension AppState: ExpressibleByArgument {}

/// Prints a command's reports, text on a terminal and JSON otherwise (one object, or an array for several
/// files), then exits with the worst report's status.
enum ReportOutput {
    static func emit<Report: Encodable>(
        _ reports: [Report], format: ProcessCommand.Format?, style: TerminalText, text: (Report) -> String, status: (Report) -> Int32
    ) throws {
        switch format ?? (isatty(STDOUT_FILENO) != 0 ? .text : .json) {
        case .text:
            print(style.apply(reports.map(text).joined(separator: "\n\n")))
        case .json:
            let renderer = JSONResultRenderer()
            let data = reports.count == 1 ? renderer.encode(reports[0]) : renderer.encode(reports)
            print(String(decoding: data, as: UTF8.self))
        }
        let worst = reports.map(status).max() ?? 0
        if worst != 0 { throw ExitCode(worst) }
    }
}
