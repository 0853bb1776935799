import ArgumentParser

/// `nse serve`'s options, parsed by `nse` (which checks them, then starts `nse-serve` in its place) and by
/// `nse-serve` (which runs the server): one declaration, so the two never disagree on an option. An option the
/// server needs is added here.
package struct ServeOptions: ParsableArguments {
    /// The command's help, the same under either name.
    package static func configuration(commandName: String) -> CommandConfiguration {
        CommandConfiguration(
            commandName: commandName,
            abstract: "Serve APNs's provider API and the emulator's control API to a backend, with emulated phones behind.",
            discussion: """
                One plain port on 127.0.0.1 serves HTTP/1.1 and HTTP/2 with prior knowledge (h2c); --tls-port adds TLS. \
                Send APNs requests to POST /3/device/<token> and FCM HTTP v1 sends to \
                POST /v1/projects/<project>/messages:send (access tokens from POST /token); read what each phone shows \
                at GET /emulator/v1/devices/<token>/notifications. \
                Every accepted push is journaled in --data before it is answered. docs/serve.md describes the devices \
                file, every endpoint and what is not done yet. Stops on Ctrl-C.
                """
        )
    }

    package init() {}

    @Option(help: "The port to listen on, on 127.0.0.1 (0: any free port, printed).")
    package var port: Int = 8085

    @Option(name: .customLong("tls-port"), help: ArgumentHelp("Also serve TLS on this port (ALPN h2 and http/1.1), its certificate signed by a local CA kept as <data>/ca.pem.", valueName: "port"))
    package var tlsPort: Int?

    @Option(help: ArgumentHelp("The devices file: the emulated phones, their tokens, app and settings (docs/serve.md).", valueName: "file"), completion: .file())
    package var devices: String?

    @Option(help: ArgumentHelp("The folder for the journal and the attachments; a restart serves the same history.", valueName: "dir"))
    package var data: String = ".nse-serve"

    @Flag(name: .customLong("accept-any-token"), help: "Register an unknown APNs token as a default iPhone instead of answering BadDeviceToken.")
    package var acceptAnyToken = false

    @OptionGroup
    package var media: MediaOptions

    @OptionGroup(title: "Content changes")
    package var changes: ContentChangeOptions

    @OptionGroup(title: "Device assumptions")
    package var device: DeviceOptions

    package func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        if let tlsPort, !(0...65535).contains(tlsPort) { throw ValidationError("--tls-port must be between 0 and 65535.") }
    }
}
