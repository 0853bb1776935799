import Foundation
import ArgumentParser
import NSEPush
import NSEReports

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check pushes without the network: aps keys and types, APNs headers, FCM's own rules, the payload size.",
        discussion: """
            Takes APNs payloads, envelopes {"headers": {...}, "payload": {...}}, simctl files and FCM HTTP v1 \
            messages. Exit status: 0 when no error is found, 1 when one is, 2 for usage errors or an unreadable file.
            """
    )

    @Argument(help: "Pushes to check; `-` reads one from standard input.", completion: .file())
    var files: [String]

    @Option(help: "Output format: text (default on a terminal) or json (default otherwise).")
    var format: ProcessCommand.Format?

    @OptionGroup
    var terminal: TerminalOptions

    func run() throws {
        let reports = files.map { Linter.lint(file: URL(fileURLWithPath: $0)) }
        try ReportOutput.emit(reports, format: format, style: terminal.style, text: LintTextRenderer().render, status: \.exitStatus)
    }
}
