import Foundation
import ArgumentParser
import NSEPush
import NSEReports

/// `--html`, `--app-name` and `--strict`, shared by `process` and `batch`.
struct ReportOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Also write a visual report: one self-contained HTML file, a card per push drawn as the phone shows it.", valueName: "file"))
    var html: String?

    @Option(name: .customLong("app-name"), help: ArgumentHelp("The app name the report's notifications show.", valueName: "name"))
    var appName = "App"

    @Flag(help: "Warnings fail a push (exit status 1), as errors do.")
    var strict = false

    /// The HTML report's writer when `--html` is given.
    func htmlWriter(limits: ImageDecodeLimits) throws -> HTMLReportWriter? {
        guard html != nil else { return nil }
        return try HTMLReportWriter(renderer: HTMLReportRenderer(appName: appName), limits: limits, strict: strict)
    }
}
