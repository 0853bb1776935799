import Foundation
import NSEHarness
import NSEMedia
import NSEMediaServer
import NSEPipeline
import NSEPush
import SDKTestSupport
import Testing
import UserNotifications

/// What the SDK helpers' tests share (sdk-a: Braze, CleverTap, Iterable, Customer.io): a real loopback server
/// that `https://media.example.com` is mapped onto, real sample images, and the two ways of running a helper:
/// an extension class through `ExtensionHarness`, and the command line's built-in extension through the same
/// `HarnessRunner` the CLI uses.
struct SDKTestBench {
    static let media = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples/media/img")

    /// The bytes of a sample image (samples/media/img).
    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: media.appendingPathComponent(name)))
    }

    let server: LoopbackHTTPServer
    /// Where every media host is sent: the server, or a port where nothing listens.
    private(set) var origin: String
    /// iOS's own 30 s unless a test expects the time-out: a starved machine cannot run into it.
    var budget: Duration = .seconds(30)
    /// iOS's grace after the expiry call; a test that expects a call in it gives one starvation cannot run out.
    var expiryGrace: Duration = .milliseconds(500)

    /// Serves `routes` (path -> response); any other path is a 404.
    init(_ routes: [String: ServedResponse]) throws {
        server = try LoopbackHTTPServer { request in routes[request.path] ?? .notFound }
        origin = server.baseURL
    }

    /// A bench whose requests are all refused (`SDKSamples.refusedOrigin`).
    static func unreachable() throws -> SDKTestBench {
        var bench = try SDKTestBench([:])
        bench.server.stop()
        bench.origin = SDKSamples.refusedOrigin
        return bench
    }

    var requestedPaths: [String] { server.requests.map(\.path) }

    var harness: ExtensionHarness {
        var harness = ExtensionHarness(hostMapping: MediaHostMapping(origin: URL(string: origin)!))
        harness.profile.timeBudget = budget
        harness.expiryGrace = expiryGrace
        harness.measuresMemory = false
        return harness
    }

    /// Runs an extension class on a payload.
    func run<Extension: UNNotificationServiceExtension>(_ type: Extension.Type, _ payload: String) async throws -> DeliveredNotification {
        try await harness.run(type, payload: payload)
    }

    /// Runs `--sdk <sdk>`'s built-in extension on a payload, as the command line does.
    func runBuiltIn(_ sdk: PushSDK, changes: ContentChanges = ContentChanges(), _ payload: String) async throws -> ProcessResult {
        var profile = DeviceProfile()
        profile.timeBudget = budget
        let runner = HarnessRunner(expiryGrace: expiryGrace, memoryMeasurement: .off, changesContent: !changes.isEmpty) {
            BuiltInExtensions.make(sdk, changes: changes) ?? UNNotificationServiceExtension()
        }
        let pipeline = Pipeline(device: profile, extensionRunner: runner, hostMapping: MediaHostMapping(origin: URL(string: origin)!))
        return await pipeline.run(try PushReader.parse(Data(payload.utf8)), input: "payload")
    }

    /// An alert push with `mutable-content` and the SDK's own keys (JSON members, without the outer braces).
    static func payload(_ members: String, title: String = "Sale", body: String = "Today only") -> String {
        #"{"aps": {"alert": {"title": "\#(title)", "body": "\#(body)"}, "mutable-content": 1}\#(members.isEmpty ? "" : ", " + members)}"#
    }
}

extension [Diagnostic] {
    var codes: Set<String> { Set(map(\.code.rawValue)) }

    func first(_ code: DiagnosticCode) -> Diagnostic? { first { $0.code == code } }
}
