import Foundation
import NSEHarness
@testable import NSEMedia
import NSEMediaServer
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import SDKTestSupport
import Testing

/// Every bundled sample gives the outcome and diagnostics `samples/expected.json` promises, served by the same
/// loopback media server `nse process --media samples/media` uses.
struct SampleTests {
    struct Expectation: Decodable, Sendable {
        var outcome: Outcome
        var imageShown: Bool
        var codes: [DiagnosticCode]
        /// `pass`: the phone shows what the sender intended (or the push goes where it should); `fail` otherwise.
        var verdict: Verdict

        /// The budget to run the sample with (`sampleBudget(expecting:)`, the SDK samples' rule too).
        var budget: Duration { sampleBudget(expecting: codes.map(\.rawValue)) }
    }

    static let samples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples")

    static let expectations: [String: Expectation] = {
        guard let data = try? Data(contentsOf: samples.appendingPathComponent("expected.json")) else { return [:] }
        return (try? JSONDecoder().decode([String: Expectation].self, from: data)) ?? [:]
    }()

    @Test func everySampleFileHasAnExpectation() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.samples.appendingPathComponent("payloads").path)
        #expect(!files.isEmpty)
        #expect(Set(files) == Set(Self.expectations.keys))
    }

    @Test(arguments: expectations.keys.sorted())
    func sampleMatchesItsExpectation(name: String) async throws {
        let expected = try #require(Self.expectations[name])
        let directory = MediaDirectory(root: Self.samples.appendingPathComponent("media").path)
        let server = try LoopbackHTTPServer { directory.respond(to: $0) }
        defer { server.stop() }
        var profile = DeviceProfile()
        profile.timeBudget = expected.budget
        let pipeline = Pipeline(
            profile: profile, changes: ContentChanges(titleSuffix: " [modified]"),
            hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))

        let result = await pipeline.run(file: Self.samples.appendingPathComponent("payloads").appendingPathComponent(name))

        #expect(result.outcome == expected.outcome, "\(result.diagnostics)")
        #expect(result.imageShown == expected.imageShown)
        for code in expected.codes {
            #expect(result.codes.contains(code), "\(name) lacks \(code.rawValue): \(result.diagnostics)")
        }
        #expect(result.verdict == expected.verdict)
        // The journal's and `--format jsonl`'s encoder writes what JSONEncoder writes for this result.
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(try SortedJSONEncoder().encode(result) == foundation.encode(result))
    }
}
