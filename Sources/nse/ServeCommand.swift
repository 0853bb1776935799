import ArgumentParser
import Foundation
import NSEServer
import NSEMediaServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
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

    @Option(help: "The port to listen on, on 127.0.0.1 (0: any free port, printed).")
    var port: Int = 8085

    @Option(name: .customLong("tls-port"), help: ArgumentHelp("Also serve TLS on this port (ALPN h2 and http/1.1), its certificate signed by a local CA kept as <data>/ca.pem.", valueName: "port"))
    var tlsPort: Int?

    @Option(help: ArgumentHelp("The devices file: the emulated phones, their tokens, app and settings (docs/serve.md).", valueName: "file"), completion: .file())
    var devices: String?

    @Option(help: ArgumentHelp("The folder for the journal and the attachments; a restart serves the same history.", valueName: "dir"))
    var data: String = ".nse-serve"

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Connections open at once on each port; one more is closed when accepted (default: 20,000, or the open-file limit less 256).", valueName: "n"))
    var maxConnections: Int?

    @Flag(name: .customLong("accept-any-token"), help: "Register an unknown APNs token as a default iPhone instead of answering BadDeviceToken.")
    var acceptAnyToken = false

    @Option(name: .customLong("fcm-token-expiry-days"), help: ArgumentHelp("FCM expires a registration token inactive this many days (FCM's 270; 0: never).", valueName: "days"))
    var fcmTokenExpiryDays: Int = 270

    @Option(name: .customLong("provider-token-updates"), help: ArgumentHelp("APNs answers TooManyProviderTokenUpdates to a provider token changed on one connection sooner than this many minutes after the last (Apple's 20; 0: never).", valueName: "minutes"))
    var providerTokenUpdates: Int = 20

    // Proxy mode (docs/serve.md "Proxy mode: a backend's code, unchanged").
    @Flag(help: "Also answer HTTP CONNECT on --port: requests to the push hosts (APNs, FCM, Google's OAuth) get the emulator behind TLS signed by <data>/ca.pem.")
    var proxy = false

    @Option(
        name: .customLong("proxy-other"),
        help: ArgumentHelp("With --proxy, what every other host gets: deny (403, so a test never leaves the machine) or tunnel (passed on unchanged).", valueName: "deny|tunnel"),
        transform: { value in
            guard let other = ProxyOtherHosts(rawValue: value) else { throw ValidationError("--proxy-other is deny or tunnel, not \(value).") }
            return other
        })
    var proxyOther: ProxyOtherHosts = .deny

    @Flag(name: .customLong("print-env"), help: "Print the environment variables that send common clients (requests, httpx, curl, Go, Node, the JVM) through --proxy on --port, and exit.")
    var printEnv = false

    @OptionGroup
    var media: MediaOptions

    @OptionGroup(title: "Content changes")
    var changes: ContentChangeOptions

    @OptionGroup(title: "Device assumptions")
    var device: DeviceOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        if let tlsPort, !(0...65535).contains(tlsPort) { throw ValidationError("--tls-port must be between 0 and 65535.") }
        guard (0...36500).contains(fcmTokenExpiryDays) else { throw ValidationError("--fcm-token-expiry-days must be between 0 and 36500.") }
        guard (0...1440).contains(providerTokenUpdates) else { throw ValidationError("--provider-token-updates must be between 0 and 1440 minutes.") }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1.") }
        if printEnv, port == 0 { throw ValidationError("--print-env needs the port the proxy listens on: give --port (not 0).") }
    }

    func run() async throws {
        if printEnv {
            do {
                print(try ProxyEnvironment.script(port: port, dataDirectory: URL(fileURLWithPath: data)), terminator: "")
                return
            } catch {
                FileHandle.standardError.write(Data("Error: \(error.description)\n".utf8))
                throw ExitCode(2)
            }
        }
        var configuration = NSEServer.Configuration(dataDirectory: URL(fileURLWithPath: data))
        configuration.proxy = proxy ? proxyOther : nil
        configuration.port = port
        configuration.tlsPort = tlsPort
        configuration.acceptAnyToken = acceptAnyToken
        configuration.fcmTokenExpiry = fcmTokenExpiryDays == 0 ? nil : TimeInterval(fcmTokenExpiryDays) * 86400
        configuration.providerTokenUpdateInterval = providerTokenUpdates == 0 ? nil : TimeInterval(providerTokenUpdates) * 60
        configuration.maxConnections = maxConnections
        if let devices {
            do {
                let file = try DevicesFile.read(URL(fileURLWithPath: devices))
                configuration.devices = file.devices
                configuration.providerKeys = file.providerKeys
            } catch {
                throw ValidationError("--devices: \(error.description)")
            }
        }
        let mediaServer = try media.startServer()
        defer { mediaServer?.stop() }
        configuration.pipeline = PhonePipeline.Defaults(
            profile: device.profile, changes: changes.changes, hostMapping: MediaOptions.mapping(to: mediaServer))
        let server: NSEServer
        do {
            server = try await NSEServer.start(configuration)
        } catch {
            FileHandle.standardError.write(Data("Error: \(error.description)\n".utf8))
            throw ExitCode(2)
        }
        let base = "http://127.0.0.1:\(server.port)"
        var lines = [
            "nse serve: listening on \(base) (HTTP/1.1 and h2c)",
            "  APNs:     POST \(base)/3/device/<token>",
            "  FCM:      POST \(base)/v1/projects/<project>/messages:send (OAuth token_uri: \(base)/token)",
            "  devices:  GET  \(base)/emulator/v1/devices",
            "  journal:  \(configuration.dataDirectory.appendingPathComponent("journal.jsonl").path)",
        ]
        if let tlsPort = server.tlsPort, let ca = server.caCertificate {
            lines.insert("  TLS:      https://127.0.0.1:\(tlsPort) (ALPN h2 and http/1.1), certificate signed by the CA \(ca.path)", at: 1)
        }
        if proxy, let ca = server.caCertificate {
            let others = proxyOther == .deny ? "other hosts refused (403)" : "other hosts tunnelled"
            lines.insert("  proxy:    HTTPS_PROXY=\(base), push hosts emulated, \(others); trust \(ca.path) (nse serve --print-env)", at: 1)
        }
        if server.skippedJournalLines > 0 {
            lines.append("  warning:  \(server.skippedJournalLines) journal line(s) could not be read and were skipped")
        }
        // Written at once, unbuffered: a script waiting for the port reads it while the server runs.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        await Self.waitForInterrupt()
        await server.stop()
    }

    /// Returns on SIGINT or SIGTERM.
    private static func waitForInterrupt() async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: "nse.serve.signals")
            let once = OnceFlag()
            let sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
            for source in sources {
                source.setEventHandler {
                    if once.claim() { continuation.resume() }
                }
                source.resume()
            }
            // The sources live as long as the process: serve ends when they fire.
            SignalSources.keep(sources)
        }
    }
}

/// True once only, whichever signal comes first.
private final class OnceFlag: @unchecked Sendable {
    private var claimed = false
    private let lock = NSLock()

    func claim() -> Bool {
        lock.withLock {
            defer { claimed = true }
            return !claimed
        }
    }
}

private enum SignalSources {
    nonisolated(unsafe) static var kept: [any DispatchSourceSignal] = []
    static func keep(_ sources: [any DispatchSourceSignal]) {
        kept = sources
    }
}
