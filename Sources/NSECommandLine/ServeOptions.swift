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

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Connections open at once on each port; one more is closed when accepted (default: 20,000, or the open-file limit less 256).", valueName: "n"))
    package var maxConnections: Int?

    @Flag(name: .customLong("accept-any-token"), help: "Register an unknown APNs token as a default iPhone instead of answering BadDeviceToken.")
    package var acceptAnyToken = false

    @Flag(name: .customLong("no-shared-downloads"), help: "Give every push its own image download, as each real phone makes; by default pushes delivered in one burst share each image's download and decode.")
    package var noSharedDownloads = false

    @Option(name: .customLong("fcm-token-expiry-days"), help: ArgumentHelp("FCM expires a registration token inactive this many days (FCM's 270; 0: never).", valueName: "days"))
    package var fcmTokenExpiryDays: Int = 270

    @Option(name: .customLong("provider-token-updates"), help: ArgumentHelp("APNs answers TooManyProviderTokenUpdates to a provider token changed on one connection sooner than this many minutes after the last (Apple's 20; 0: never).", valueName: "minutes"))
    package var providerTokenUpdates: Int = 20

    // Proxy mode (docs/serve.md "Proxy mode: a backend's code, unchanged").
    @Flag(help: "Also answer HTTP CONNECT on --port: requests to the push hosts (APNs, FCM, Google's OAuth) get the emulator behind TLS signed by <data>/ca.pem.")
    package var proxy = false

    /// What `--proxy` does with a host other than the push hosts (NSEServer's `ProxyOtherHosts`, named here
    /// so `nse` parses it without linking the server).
    package enum ProxyOther: String, ExpressibleByArgument, Sendable {
        case deny, tunnel
    }

    @Option(name: .customLong("proxy-other"), help: ArgumentHelp("With --proxy, what every other host gets: deny (403, so a test never leaves the machine) or tunnel (passed on unchanged).", valueName: "deny|tunnel"))
    package var proxyOther: ProxyOther = .deny

    @Flag(name: .customLong("print-env"), help: "Print the environment variables that send common clients (requests, httpx, curl, Go, Node, the JVM) through --proxy on --port, and exit.")
    package var printEnv = false

    @OptionGroup
    package var media: MediaOptions

    @OptionGroup(title: "Content changes")
    package var changes: ContentChangeOptions

    @OptionGroup(title: "Device assumptions")
    package var device: DeviceOptions

    package func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        if let tlsPort, !(0...65535).contains(tlsPort) { throw ValidationError("--tls-port must be between 0 and 65535.") }
        guard (0...36500).contains(fcmTokenExpiryDays) else { throw ValidationError("--fcm-token-expiry-days must be between 0 and 36500.") }
        guard (0...1440).contains(providerTokenUpdates) else { throw ValidationError("--provider-token-updates must be between 0 and 1440 minutes.") }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1.") }
        if printEnv, port == 0 { throw ValidationError("--print-env needs the port the proxy listens on: give --port (not 0).") }
    }
}
