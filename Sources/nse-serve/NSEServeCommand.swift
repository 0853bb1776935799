import ArgumentParser
import Foundation
import NSECommandLine
import NSEConcurrency
import NSEMediaServer
import NSEServer
import Synchronization

/// `nse-serve`: the server behind `nse serve`, which checks its options and runs this program in its place. A
/// program of its own so that `nse`'s other commands do not load SwiftNIO, swift-nio-ssl and swift-crypto
/// (docs/performance.md: 4 to 6 MB of a batch's peak memory and a few milliseconds of every start).
@main
struct NSEServeCommand: AsyncParsableCommand {
    static let configuration = ServeOptions.configuration(commandName: "nse-serve")

    @OptionGroup
    var options: ServeOptions

    static func main() async {
        ProcessDefaults.apply()
        await parseAndRun(Array(CommandLine.arguments.dropFirst()))
    }

    func run() async throws {
        if options.printEnv {
            do {
                print(try ProxyEnvironment.script(port: options.port, dataDirectory: URL(fileURLWithPath: options.data)), terminator: "")
                return
            } catch {
                FileHandle.standardError.write(Data("Error: \(error.description)\n".utf8))
                throw ExitCode(2)
            }
        }
        var configuration = NSEServer.Configuration(dataDirectory: URL(fileURLWithPath: options.data))
        configuration.proxy = options.proxy ? ProxyOtherHosts(rawValue: options.proxyOther.rawValue) : nil
        configuration.port = options.port
        configuration.tlsPort = options.tlsPort
        configuration.acceptAnyToken = options.acceptAnyToken
        configuration.sharedDownloads = !options.noSharedDownloads
        configuration.fcmTokenExpiry = options.fcmTokenExpiryDays == 0 ? nil : TimeInterval(options.fcmTokenExpiryDays) * 86400
        configuration.providerTokenUpdateInterval = options.providerTokenUpdates == 0 ? nil : TimeInterval(options.providerTokenUpdates) * 60
        configuration.maxConnections = options.maxConnections
        if let devices = options.devices {
            do {
                let file = try DevicesFile.read(URL(fileURLWithPath: devices))
                configuration.devices = file.devices
                configuration.providerKeys = file.providerKeys
            } catch {
                throw ValidationError("--devices: \(error.description)")
            }
        }
        let mediaServer = try options.media.startServer()
        defer { mediaServer?.stop() }
        configuration.pipeline = PhonePipeline.Defaults(
            profile: options.device.profile, changes: options.changes.changes, hostMapping: MediaOptions.mapping(to: mediaServer))
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
            "  phones:   \(base)/ (the page: every device drawn as a phone, live)",
            "  journal:  \(configuration.dataDirectory.appendingPathComponent("journal.jsonl").path)",
        ]
        if let tlsPort = server.tlsPort, let ca = server.caCertificate {
            lines.insert("  TLS:      https://127.0.0.1:\(tlsPort) (ALPN h2 and http/1.1), certificate signed by the CA \(ca.path)", at: 1)
        }
        if options.proxy, let ca = server.caCertificate {
            let others = options.proxyOther == .deny ? "other hosts refused (403)" : "other hosts tunnelled"
            lines.insert("  proxy:    HTTPS_PROXY=\(base), push hosts emulated, \(others); trust \(ca.path) (nse serve --print-env)", at: 1)
        }
        if let reason = server.checkpointRejected {
            lines.append("  note:     the journal's checkpoint was not used (\(reason)): the whole journal was read")
        }
        if server.skippedJournalLines > 0 {
            lines.append("  warning:  \(server.skippedJournalLines) journal line(s) could not be read and were skipped")
        }
        // Caught before the banner says the server is up: a script that stops it as soon as it has read the port is
        // never lost (nor kills it mid-write). Before this, Ctrl-C ends a slow start at once, as it always has.
        TerminationSignals.startCatching()
        // Written at once, unbuffered: a script waiting for the port reads it while the server runs.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        await Self.waitForInterrupt()
        await server.stop()
    }

    /// Returns on SIGINT or SIGTERM, one that came since `TerminationSignals.startCatching()` included.
    private static func waitForInterrupt() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = OnceFlag()
            TerminationSignals.handle { _ in
                if once.claim() { continuation.resume() }
            }
        }
    }
}

/// True once only, whichever signal comes first.
private final class OnceFlag: Sendable {
    private let claimed = Mutex(false)

    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
