import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif
import NSEMediaServer
import NSETestSupport
import Testing
@testable import NSEPush
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEReports
@testable import NSEBatch

/// `report.json`, the JUnit XML and the text a batch prints: well-formed, complete, with the right counts.
struct BatchReportTests {
    /// One push of each kind: passing, failing on its image, invalid JSON, and a folder that cannot be listed.
    private func mixedBatch(out: URL) async throws -> (BatchRun, LoopbackHTTPServer) {
        let server = try cdn(["/ok.jpg": .ok(try Fixture.jpeg(), contentType: "image/jpeg")])
        let inputs = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        try tree.add("a-ok.json", imageURL: server.baseURL + "/ok.jpg")
        try tree.add("b-missing.json", imageURL: server.baseURL + "/missing.jpg")
        try tree.write("c-broken.json", "{\"aps\": {},}")
        var discovered = try BatchInputDiscovery.discover([tree.root.path])
        discovered.append(BatchInput(file: inputs.file("d-locked"), outputPath: "d-locked", listingError: "Permission denied"))
        return (try await runBatch(discovered, out: out), server)
    }

    @Test func reportJSONHoldsEveryResultInInputOrderAndTheSummary() async throws {
        let out = try TemporaryFolder()
        let (run, server) = try await mixedBatch(out: out.url)
        defer { server.stop() }

        let data = try Data(contentsOf: out.file("report.json"))
        struct Report: Decodable {
            var interrupted: Bool
            var results: [ProcessResult]
            var summary: BatchSummary
        }
        let report = try JSONDecoder().decode(Report.self, from: data)
        #expect(!report.interrupted)
        #expect(report.results.map { URL(fileURLWithPath: $0.input).lastPathComponent } == ["a-ok.json", "b-missing.json", "c-broken.json", "d-locked"])
        #expect(report.results.map(\.exitStatus) == [0, 1, 1, 2])
        #expect(report.summary == run.report.summary)
        #expect(report.summary.payloads == 4 && report.summary.passed == 1 && report.summary.failed == 2 && report.summary.unreadable == 1)
        #expect(report.summary.imagesRequested == 2 && report.summary.imagesShown == 1)
        #expect(report.summary.failuresByCode["media.http-status"]?.count == 1)
        #expect(report.summary.failuresByCode["input.invalid-json"]?.first?.hasSuffix("c-broken.json") == true)
        #expect(report.summary.exitStatus == 2)
        // Every content.json is the same result as in the report.
        let saved = try JSONDecoder().decode(ProcessResult.self, from: Data(contentsOf: out.file("b-missing.json/content.json")))
        #expect(saved.diagnostics == report.results[1].diagnostics)
    }

    @Test func junitHasOneCasePerPushAndTheErrorsAsFailureMessages() async throws {
        let out = try TemporaryFolder()
        let (run, server) = try await mixedBatch(out: out.url)
        defer { server.stop() }

        let xml = JUnitRenderer().render(run.report)
        let document = try XMLOutline(Data(xml.utf8))

        #expect(document.elements("testsuites").first?["tests"] == "4")
        #expect(document.elements("testsuite").first?["failures"] == "2")
        #expect(document.elements("testsuite").first?["errors"] == "1")
        #expect(document.elements("testcase").map { $0["name"] } == ["a-ok.json", "b-missing.json", "c-broken.json", "d-locked"])
        let failures = document.elements("failure")
        #expect(failures.map { $0["type"] } == ["media.http-status", "input.invalid-json"])
        #expect(failures.first?["message"]?.hasPrefix("media.http-status: The image server answered HTTP 404") == true)
        #expect(document.elements("error").map { $0["type"] } == ["input.unreadable"])
    }

    @Test func junitStaysWellFormedWhateverThePayloadSays() throws {
        var entry = BatchEntry(
            ProcessResult(
                input: "x.json", inputKind: .apns, extensionInvoked: true, outcome: .modifiedWithoutAttachment,
                imageShown: false, content: nil,
                diagnostics: [.error(.mediaInvalidURL, "bad \"<url>\" & 'quotes'\u{0}\u{1B}[31m\u{FFFE} ]]> done\nnext line")],
                timings: ["total": 12]),
            outputPath: "dir/x.json")
        entry.milliseconds = 12
        let report = BatchReport(
            inputs: [BatchInput(file: URL(fileURLWithPath: "x.json"), outputPath: "dir/x.json")], entries: [entry],
            summary: BatchSummary(entries: [entry], media: .init(), jobs: 1, elapsedMilliseconds: 12, interrupted: false))

        let document = try XMLOutline(Data(JUnitRenderer().render(report).utf8))

        let failure = try #require(document.elements("failure").first)
        #expect(failure["message"] == "media.invalid-url: bad \"<url>\" & 'quotes'\u{FFFD}\u{FFFD}[31m\u{FFFD} ]]> done\nnext line")
        #expect(document.elements("testcase").first?["classname"] == "dir")
        #expect(document.elements("testcase").first?["time"] == "0.012")
    }

    @Test func theTextSummaryGroupsFailuresByCode() async throws {
        let out = try TemporaryFolder()
        let (run, server) = try await mixedBatch(out: out.url)
        defer { server.stop() }
        var renderer = BatchTextRenderer()
        renderer.filesPerCode = 1

        let text = renderer.summary(run.report.summary)

        #expect(text.hasPrefix("4 payloads in "))
        #expect(text.contains("passed 1, failed 2, unreadable 1"))
        #expect(text.contains("images: 1 of the 2 requested would show"))
        #expect(text.contains("failures by code:\n  input.invalid-json (1)\n    "), "codes with as many files come in name order")
        #expect(text.contains("  media.http-status (1)\n    "))
        #expect(text.contains("slowest downloads:"))
        let lines = run.report.entries.compactMap { $0 }.map(renderer.line(for:))
        #expect(lines.map { String($0.prefix(5)) } == ["PASS ", "FAIL ", "FAIL ", "ERROR"])
        #expect(lines[1].contains("modified-without-attachment: media.http-status"))
    }
}
