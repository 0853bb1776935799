import Foundation
import NSEPipeline
import NSEPush
import Testing

/// `nse process` end to end: the real executable, the bundled samples, the loopback media server it starts.
struct ProcessCommandTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `nse` binary SwiftPM built next to this test bundle.
    static let executable: URL = {
        var folder = Bundle.main.bundleURL
        while folder.path != "/", !FileManager.default.fileExists(atPath: folder.appendingPathComponent("nse").path) {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("nse")
    }()

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    private func nse(_ arguments: [String]) async throws -> Run {
        try await runNSE(arguments)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try decodeJSON(type, text)
    }

    @Test func aGoodPushExitsZeroWithTheJSONResult() async throws {
        let run = try await nse(["process", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--title-suffix", " [modified]", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try decode(ProcessResult.self, run.stdout)
        #expect(result.outcome == .modified)
        #expect(result.imageShown)
        #expect(result.input == "samples/payloads/jpeg-ok.json")
        #expect(result.content?.title.hasSuffix(" [modified]") == true)
    }

    /// `--media DIR` stands in for every host: a 404 from it names the local file it looked for, on the push that
    /// asked for it (NSEMediaServer's LocalMediaFolder, the harness's message).
    @Test func aMappedNotFoundNamesTheLocalPathItLookedFor() async throws {
        let run = try await nse(["process", "samples/payloads/not-found.json", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--format", "json"])
        let results = try decode([ProcessResult].self, run.stdout)
        try #require(results.count == 2, "\(run.stderr)")
        // Named as the user named the folder: a path relative to where they ran nse.
        let looked = "samples/media/img/summer-sale-2023.jpg"
        let named = results[0].diagnostics.filter { $0.code == .mediaHTTPStatus && $0.message.contains("nse looked for \(looked)") }
        #expect(named.count == 1, "\(results[0].diagnostics)")
        #expect(named.first?.severity == .warning)
        #expect(!results[1].diagnostics.contains { $0.message.contains("nse looked for") }, "\(results[1].diagnostics)")
    }

    /// nse loads libcurl when it first downloads (Sources/CNSE/curl_library.c): one it cannot load leaves the push
    /// unchecked with a diagnostic that says why, not a crash and not a verdict on the image.
    @Test func aLibcurlThatCannotBeLoadedLeavesThePushUncheckedAndSaysWhy() async throws {
        let run = try await runNSE(
            ["process", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--format", "json"],
            environment: ["NSE_LIBCURL": "/nonexistent/libcurl.so.4"])
        #expect(run.status == 2, "\(run.stderr)")
        let result = try decode(ProcessResult.self, run.stdout)
        #expect(result.diagnostics.map(\.code) == [.internalNoLibcurl])
        let message = try #require(result.diagnostics.first?.message)
        #expect(message.contains("/nonexistent/libcurl.so.4: cannot open shared object file"), "\(message)")
        #expect(message.contains("install libcurl 7.68 or later"), "\(message)")
        #expect(!result.imageShown)

        let text = try await runNSE(
            ["process", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--format", "text"],
            environment: ["NSE_LIBCURL": "/nonexistent/libcurl.so.4"])
        #expect(text.status == 2)
        #expect(text.stdout.contains("NOT CHECKED: nse could not judge this push"), "\(text.stdout)")
    }

    @Test func aFailingPushExitsOne() async throws {
        let run = try await nse(["process", "samples/payloads/webp.json", "--media", "samples/media", "--format", "json"])
        #expect(run.status == 1)
        let result = try decode(ProcessResult.self, run.stdout)
        #expect(result.diagnostics.map(\.code) == [.mediaUnsupportedFormat])
    }

    @Test func severalPushesInTextEndWithTotals() async throws {
        let run = try await nse(["process", "samples/payloads/jpeg-ok.json", "samples/payloads/webp.json", "samples/payloads/does-not-exist.json", "--media", "samples/media", "--format", "text"])
        #expect(run.status == 2)
        #expect(run.stdout.hasSuffix("\n\n3 pushes: 1 pass, 1 fail, 1 not checked; 1 of the 2 images asked for would show\n"), "\(run.stdout)")
    }

    @Test func anUnreadableFileExitsTwo() async throws {
        let run = try await nse(["process", "samples/payloads/does-not-exist.json", "--format", "json"])
        #expect(run.status == 2)
        let result = try decode(ProcessResult.self, run.stdout)
        #expect(result.diagnostics.map(\.code) == [.inputUnreadable])
        #expect(result.outcome == .rejected)
    }

    @Test(arguments: [["process"], ["process", "x.json", "--time-budget", "0"], ["process", "x.json", "--megabyte", "1024"], ["frobnicate"]])
    func usageErrorsExitTwo(arguments: [String]) async throws {
        let run = try await nse(arguments)
        #expect(run.status == 2)
        #expect(!run.stderr.isEmpty)
    }

    @Test func severalFilesGiveAnArrayAndTheWorstStatus() async throws {
        let run = try await nse(["process", "samples/payloads/png-ok.json", "samples/payloads/invalid-json.json", "--media", "samples/media", "--format", "json"])
        #expect(run.status == 1)
        let results = try decode([ProcessResult].self, run.stdout)
        #expect(results.map(\.outcome) == [.modified, .rejected])
    }

    @Test func outWritesContentAndAttachmentAtomically() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("nse-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        for _ in 0..<2 {
            let run = try await nse(["process", "samples/payloads/gif-animated-ok.json", "--media", "samples/media", "--out", out.path, "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let folder = out.appendingPathComponent("gif-animated-ok.json")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["attachment.gif", "content.json"], "no temporary files are left behind")
        let saved = try JSONDecoder().decode(ProcessResult.self, from: Data(contentsOf: folder.appendingPathComponent("content.json")))
        let attachment = try #require(saved.content?.attachments.first)
        #expect(attachment.file == folder.appendingPathComponent("attachment.gif").path)
        #expect(attachment.frames == 4)
        #expect(try Data(contentsOf: folder.appendingPathComponent("attachment.gif")).count == attachment.bytes)
    }

    @Test func textOutputNamesTheVerdictAndTheCodes() async throws {
        let run = try await nse(["process", "samples/payloads/missing-mutable-content.json", "--format", "text"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("extension not run"))
        #expect(run.stdout.contains("extension.not-invoked"))
    }
}

/// Every diagnostic code is documented in docs/reference.md's table, where users look them up.
struct DocumentationTests {
    @Test func everyDiagnosticCodeIsInTheReference() async throws {
        let reference = try String(contentsOf: ProcessCommandTests.root.appendingPathComponent("docs/reference.md"), encoding: .utf8)
        for code in DiagnosticCode.allCases {
            #expect(reference.contains("| `\(code.rawValue)` |"), "docs/reference.md lacks \(code.rawValue)")
        }
    }
}
