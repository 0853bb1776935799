import Foundation
import ArgumentParser
import NSEPush
import NSEReports

struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Show what iOS and Android receive from an FCM HTTP v1 message, and what FCM would refuse.",
        discussion: """
            iOS: the APNs payload (aps, custom keys, fcm_options) and headers. Android: the data map and the \
            notification's fields. Exit status: 0 when no error is found, 1 when one is (FCM or APNs would \
            refuse the message, or a key is ignored), 2 for usage errors or an unreadable file.
            """
    )

    @Argument(help: "FCM HTTP v1 send requests ({\"message\": {...}}) or bare messages; `-` reads one from standard input.", completion: .file())
    var files: [String]

    @Option(help: "The platform to resolve for: ios, android or both.")
    var platform: Platform = .both

    @Option(help: "Output format: text (default on a terminal) or json (default otherwise).")
    var format: ProcessCommand.Format?

    @OptionGroup
    var terminal: TerminalOptions

    func run() throws {
        let reports = files.map { FCMResolver.resolve(file: URL(fileURLWithPath: $0), platform: platform) }
        try ReportOutput.emit(reports, format: format, style: terminal.style, text: ResolutionTextRenderer().render, status: \.exitStatus)
    }
}
