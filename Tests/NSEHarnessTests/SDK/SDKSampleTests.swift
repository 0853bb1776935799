import Foundation
import NSEHarness
import NSEMedia
import NSEMediaServer
import NSEPipeline
import NSEPush
import SDKTestSupport
import Testing
import UserNotifications

/// `nse process --sdk <name>`'s built-in extension over each SDK's samples (samples/sdks/<name>), served from
/// samples/media by a loopback server: what expected.json says is what the command line reports.
@Suite(.timeLimit(.minutes(2)))
struct SDKSampleTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples")

    /// The SDKs of this branch whose samples are in the repository.
    static let sdks: [PushSDK] = [.braze, .clevertap, .iterable, .customerio]

    static func expectations(_ sdk: PushSDK) throws -> [String: SDKSampleExpectation] {
        try SDKSamples.expectations(sdk.rawValue)
    }

    static let cases: [(PushSDK, String)] = sdks.flatMap { sdk in
        ((try? expectations(sdk)) ?? [:]).keys.sorted().map { (sdk, $0) }
    }

    @Test(arguments: sdks)
    func everySampleHasAnExpectation(sdk: PushSDK) throws {
        let folder = Self.root.appendingPathComponent("sdks/\(sdk.rawValue)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") && $0 != "expected.json" }
        #expect(!files.isEmpty)
        #expect(Set(files) == Set(try Self.expectations(sdk).keys))
    }

    @Test(arguments: cases)
    func theBuiltInShowsWhatTheSampleExpects(sdk: PushSDK, name: String) async throws {
        let media = MediaDirectory(root: Self.root.appendingPathComponent("media").path)
        let server = try LoopbackHTTPServer { media.respond(to: $0) }
        defer { server.stop() }
        let expected = try #require(try Self.expectations(sdk)[name])
        var profile = DeviceProfile()
        profile.timeBudget = expected.budget
        let runner = HarnessRunner(expiryGrace: expected.expiryGrace ?? .seconds(1), memoryMeasurement: .off) { BuiltInExtensions.make(sdk, changes: ContentChanges()) ?? UNNotificationServiceExtension() }
        let pipeline = Pipeline(device: profile, extensionRunner: runner, hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))

        let result = await pipeline.run(file: Self.root.appendingPathComponent("sdks/\(sdk.rawValue)/\(name)"))

        #expect(result.outcome == expected.outcome, "\(result.diagnostics)")
        #expect(result.imageShown == expected.imageShown)
        #expect(result.verdict == expected.verdict)
        // A download still running when iOS ends the extension is stopped either by its own deadline
        // (`media.timeout`) or by the end of the run, at the same instant: which one comes first is a race, so a
        // time-out's expectation leaves that code out.
        let codes = Set(result.diagnostics.map(\.code.rawValue))
        let compared = expected.outcome == .bestAttempt ? codes.subtracting(["media.timeout"]) : codes
        #expect(compared == Set(expected.codes), "\(result.diagnostics)")
        // The journal's and `--format jsonl`'s encoder writes what JSONEncoder writes for this result.
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(try SortedJSONEncoder().encode(result) == foundation.encode(result))
    }
}
