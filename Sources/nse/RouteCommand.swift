import Foundation
import ArgumentParser
import NSEPush
import NSEReports

struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Say which code receives a message on iOS and Android: notification-only, data-only or mixed.",
        discussion: """
            Receivers: notification-center-delegate, system-notification, did-receive-message, \
            did-receive-remote-notification, system-tray, on-message-received, not-delivered, and for the other \
            push types activitykit, widgetkit, controls, pushkit-voip, location-push-extension, push-to-talk, \
            file-provider, complication, mdm. Findings and exit status as for nse lint: 0, 1 when an error is \
            found (a refusal, an image that can never show), 2 for usage errors or an unreadable file.
            """
    )

    @Argument(help: "FCM HTTP v1 messages or APNs payloads; `-` reads one from standard input.", completion: .file())
    var files: [String]

    @Option(name: .customLong("app-state"), help: "Whether the app is in the foreground or the background (default: both, one report each).")
    var appState: AppState?

    @Option(help: "Output format: text (default on a terminal) or json (default otherwise).")
    var format: ProcessCommand.Format?

    @OptionGroup
    var terminal: TerminalOptions

    func run() throws {
        let states = appState.map { [$0] } ?? [.foreground, .background]
        let reports = files.flatMap { file in states.map { DeliveryRoutes.route(file: URL(fileURLWithPath: file), appState: $0) } }
        try ReportOutput.emit(reports, format: format, style: terminal.style, text: RouteTextRenderer().render, status: \.exitStatus)
    }
}
