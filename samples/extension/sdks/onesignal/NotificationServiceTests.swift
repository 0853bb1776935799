// Runs OneSignal's documented NotificationService, compiled unchanged, over every OneSignal sample payload
// (samples/sdks/onesignal) on Linux, and checks what the phone would show against expected.json.
import Foundation
import NSEHarness
import NSEKit
import NSEMediaServer
import Testing

struct OneSignalNotificationServiceTests {
    static let samples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let payloads = samples.appendingPathComponent("sdks/onesignal")

    struct Expectation: Decodable, Sendable {
        var outcome: Outcome
        var imageShown: Bool
        var codes: [DiagnosticCode]
        var verdict: Verdict
    }

    /// samples/sdks/onesignal/expected.json, or why it could not be read: a missing file fails the suite.
    static let loaded: Result<[String: Expectation], any Error> = Result {
        let data = try Data(contentsOf: payloads.appendingPathComponent("expected.json"))
        return try JSONDecoder().decode([String: Expectation].self, from: data)
    }

    static let expectations = (try? loaded.get()) ?? [:]

    @Test func everyOneSignalSampleHasAnExpectation() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.payloads.path).filter { $0 != "expected.json" }
        #expect(Set(files) == Set(try Self.loaded.get().keys))
    }

    @Test(.timeLimit(.minutes(1)), arguments: expectations.keys.sorted())
    func theExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let media = MediaDirectory(root: Self.samples.appendingPathComponent("media").path)
        let server = try LoopbackHTTPServer { media.respond(to: $0) }
        defer { server.stop() }
        var harness = ExtensionHarness(hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        harness.profile.timeBudget = .seconds(2)
        harness.measuresMemory = false

        let delivered = try await harness.run(NotificationService.self, payloadFile: Self.payloads.appendingPathComponent(name))

        let expected = try #require(Self.expectations[name])
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        for code in expected.codes {
            #expect(delivered.diagnostics.contains { $0.code == code }, "\(name) lacks \(code.rawValue): \(delivered.diagnostics)")
        }
        #expect(delivered.result.verdict == expected.verdict, "\(delivered.diagnostics)")
        // OneSignal's requests go through the emulated network and are recorded on the run.
        #expect(delivered.activity.requests.allSatisfy { $0.api == "OneSignal data task" })
    }
}
