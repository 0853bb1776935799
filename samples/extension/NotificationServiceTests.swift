// Runs the app's own NotificationService over every bundled sample payload, on Linux, and checks what the
// phone would show. This is the whole workflow of a team testing its extension in CI.
import Foundation
import NSEHarness
import NSEKit
import NSEMediaServer
import Testing

struct NotificationServiceTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    struct Expectation: Decodable, Sendable {
        var outcome: Outcome
        var imageShown: Bool
    }

    /// samples/expected.json, or why it could not be read: a missing file must fail the suite, not leave it
    /// with no cases to run.
    static let loaded: Result<[String: Expectation], any Error> = Result {
        let data = try Data(contentsOf: samples.appendingPathComponent("expected.json"))
        return try JSONDecoder().decode([String: Expectation].self, from: data)
    }

    static let expectations = (try? loaded.get()) ?? [:]

    /// Payloads that are pushes at all (the others are refused before any extension runs).
    static let payloads = expectations.filter { $0.value.outcome != .rejected }.keys.sorted()

    @Test func theSampleExpectationsAreThere() throws {
        let expectations = try Self.loaded.get()
        #expect(!Self.payloads.isEmpty, "expected.json lists no payload the extension runs on (\(expectations.count) entries)")
    }

    @Test(arguments: payloads)
    func theExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let media = MediaDirectory(root: Self.samples.appendingPathComponent("media").path)
        let server = try LoopbackHTTPServer { media.respond(to: $0) }
        defer { server.stop() }
        let expected = try #require(Self.expectations[name])
        var harness = ExtensionHarness(hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        // iOS's own 30 s budget, which a busy CI machine cannot run into; 2 s for the sample that is expected to run
        // out of time (the best attempt is what iOS shows then), so the suite stays quick.
        harness.profile.timeBudget = expected.outcome == .bestAttempt ? .seconds(2) : .seconds(30)
        harness.measuresMemory = false

        let delivered = try await harness.run(
            NotificationService.self, payloadFile: Self.samples.appendingPathComponent("payloads").appendingPathComponent(name))

        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        if delivered.extensionInvoked {
            #expect(delivered.content.title.hasSuffix(" [modified]"))
        } else {
            #expect(!delivered.content.title.hasSuffix(" [modified]"))
        }
        #expect(delivered.content.attachments.count == (expected.imageShown ? 1 : 0))
    }
}
