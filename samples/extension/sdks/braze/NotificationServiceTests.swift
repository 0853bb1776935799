// Runs Braze's documented extension file over every Braze sample (samples/sdks/braze) and checks what the phone
// would show against samples/sdks/braze/expected.json.
import Foundation
import NSEHarness
import NSEKit
import NSEMediaServer
import Testing

struct BrazeExtensionTests {
    static let samples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let folder = samples.appendingPathComponent("sdks/braze")

    struct Expectation: Decodable, Sendable {
        var outcome: Outcome
        var imageShown: Bool
        var codes: [String]
        var verdict: Verdict
    }

    /// expected.json, or why it could not be read: a missing file must fail the suite, not leave it without cases.
    static let loaded: Result<[String: Expectation], any Error> = Result {
        try JSONDecoder().decode([String: Expectation].self, from: Data(contentsOf: folder.appendingPathComponent("expected.json")))
    }

    static let payloads = ((try? loaded.get()) ?? [:]).keys.sorted()

    @Test func everyBrazeSampleHasAnExpectation() throws {
        let expected = try Self.loaded.get()
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".json") && $0 != "expected.json" }
        #expect(Set(files) == Set(expected.keys))
    }

    @Test(arguments: payloads)
    func theDocumentedExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let media = MediaDirectory(root: Self.samples.appendingPathComponent("media").path)
        let server = try LoopbackHTTPServer { media.respond(to: $0) }
        defer { server.stop() }
        var harness = ExtensionHarness(hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        harness.profile.timeBudget = .seconds(2)
        harness.measuresMemory = false

        let delivered = try await harness.run(NotificationService.self, payloadFile: Self.folder.appendingPathComponent(name))

        let expected = try #require(try Self.loaded.get()[name])
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        #expect(delivered.result.verdict == expected.verdict)
        // The app's own extension also gets `extension.no-attachment` where nothing else is an error; the rest is
        // what `nse process --sdk braze` reports.
        let codes = Set(delivered.diagnostics.map(\.code.rawValue)).subtracting(["extension.no-attachment"])
        // A download still running when iOS ends the extension is stopped either by its own deadline
        // (`media.timeout`) or by the end of the run, at the same instant: which one comes first is a race, so a
        // time-out's expectation leaves that code out.
        let compared = expected.outcome == .bestAttempt ? codes.subtracting(["media.timeout"]) : codes
        #expect(compared == Set(expected.codes), "\(delivered.diagnostics)")
    }
}
