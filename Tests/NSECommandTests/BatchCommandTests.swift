import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif
import NSEConcurrency
import NSEMediaServer
import Synchronization
import NSETestSupport
import Testing

/// `nse batch` end to end: the real executable over the bundled samples and over folders made here.
struct BatchCommandTests {
    typealias Run = ProcessCommandTests.Run

    private func nse(
        _ arguments: [String], executable: URL = ProcessCommandTests.executable,
        whileRunning: @escaping @Sendable (ChildProcess) throws -> Void = { _ in }
    ) async throws -> Run {
        try await runNSE(arguments, executable: executable, whileRunning: whileRunning)
    }

    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-batch-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func theSamplesGiveALinePerFileInOrderReportsAndExitOne() async throws {
        let out = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let junit = out.appendingPathComponent("junit.xml")

        let run = try await nse(["batch", "samples/payloads", "--media", "samples/media", "--time-budget", "2", "--out", out.path, "--junit", junit.path])

        #expect(run.status == 1, "\(run.stderr)")
        let samples = try FileManager.default.contentsOfDirectory(atPath: ProcessCommandTests.root.appendingPathComponent("samples/payloads").path)
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let perFile = lines.prefix { $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") || $0.hasPrefix("ERROR") }
        #expect(perFile.map { $0.split(separator: " ", omittingEmptySubsequences: true)[1] } == samples.map { "samples/payloads/\($0)"[...] })
        #expect(perFile.contains { $0.hasPrefix("PASS  samples/payloads/jpeg-ok.json  modified, image shown") })
        #expect(perFile.contains { $0.hasPrefix("FAIL  samples/payloads/webp.json  modified-without-attachment: media.unsupported-format") })
        #expect(run.stdout.contains("\(samples.count) payloads in "))
        #expect(run.stdout.contains("failures by code:\n  extension.not-invoked (4)"))
        #expect(!run.stderr.contains("\r"), "no progress bar when not on a terminal")

        for sample in samples {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(sample).appendingPathComponent("content.json").path), "\(sample)")
        }
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json"))) as? [String: Any]
        #expect((report?["results"] as? [Any])?.count == samples.count)
        let outline = try XMLOutline(Data(contentsOf: junit))
        #expect(outline.elements("testcase").count == samples.count)
        #expect(outline.elements("testsuites").first?["failures"] == (report?["summary"] as? [String: Any])?["failed"].map { "\($0)" })
    }

    /// On a terminal (a pseudo-terminal from util-linux's `script`), a redrawn progress line instead of lines.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func aTerminalGetsAProgressBar() async throws {
        let command = [ProcessCommandTests.executable.path, "batch", "samples/payloads", "--media", "samples/media", "--time-budget", "2"]
        let run = try await nse(["-qfec", command.joined(separator: " "), "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"))

        let count = try FileManager.default.contentsOfDirectory(
            atPath: ProcessCommandTests.root.appendingPathComponent("samples/payloads").path).count
        #expect(run.status == 1, "\(run.stdout)")
        #expect(run.stdout.contains("\r\u{1B}[K["), "the line is redrawn in place")
        #expect(run.stdout.contains("/\(count)"))
        #expect(!run.stdout.contains("PASS "), "no line per file on a terminal")
        #expect(run.stdout.contains("\(count) payloads in "))
    }

    @Test func passingPushesExitZeroAndQuietPrintsOnlyTheSummary() async throws {
        let run = try await nse(["batch", "samples/payloads/jpeg-ok.json", "samples/payloads/png-ok.json", "--media", "samples/media", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("2 payloads in "))
        #expect(!run.stdout.contains("PASS"))
        #expect(run.stdout.contains("passed 2, failed 0, unreadable 0"))
        #expect(run.stderr.isEmpty)
    }

    @Test(arguments: [
        ["batch"], ["batch", "samples/payloads", "--jobs", "0"], ["batch", "samples/payloads", "--read-ahead", "2000"],
        ["batch", "samples/does-not-exist"], ["batch", "Sources/NSEMediaServer"],
        ["batch", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--out", "/proc/nse-cannot-write-here"],
        ["batch", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--junit", "/proc/nse-cannot-write-here/junit.xml"],
    ])
    func usageErrorsExitTwo(arguments: [String]) async throws {
        let run = try await nse(arguments)
        #expect(run.status == 2)
        // Said once, by whichever of the supervisor (arguments) and its worker (folders, files) found it.
        #expect(run.stderr.components(separatedBy: "Error: ").count == 2, "\(run.stderr)")
    }

    /// The budget is ten times the time limit: only transfers that Ctrl-C aborts let the test finish.
    @Test(.timeLimit(.minutes(1)))
    func ctrlCStopsCleanlyWithExitStatus130() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("in")
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let jpeg = try Data(contentsOf: ProcessCommandTests.root.appendingPathComponent("samples/media/img/sale.jpg"))
        let server = try LoopbackHTTPServer { request in
            request.path == "/ok.jpg" ? .ok(Array(jpeg), contentType: "image/jpeg")
                : ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall)
        }
        defer { server.stop() }
        func push(_ url: String) -> Data {
            Data(#"{"aps": {"alert": {"title": "T"}, "mutable-content": 1}, "fcm_options": {"image": "\#(url)"}}"#.utf8)
        }
        try push(server.baseURL + "/ok.jpg").write(to: inputs.appendingPathComponent("a-good.json"))
        for index in 0..<3 { try push(server.baseURL + "/stall.jpg?\(index)").write(to: inputs.appendingPathComponent("b-stalled-\(index).json")) }

        let run = try await nse(["batch", inputs.path, "--allow-http", "--time-budget", "600", "--out", out.path, "--jobs", "4"]) { process in
            // Interrupt once the good push is saved and the three stalled downloads are in flight.
            while process.isRunning, !FileManager.default.fileExists(atPath: out.appendingPathComponent("a-good.json/content.json").path)
                    || server.requests.filter({ $0.path == "/stall.jpg" }).count < 3 {
                usleep(10_000)
            }
            process.signal(SIGINT)
        }

        #expect(run.status == 130, "\(run.stderr)")
        #expect(run.stderr.contains("Interrupted"))
        #expect(run.stdout.contains("INTERRUPTED: 3 not run"))
        let entries = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(entries == ["a-good.json", "report.json"], "complete results only, nothing half-written")
    }
}
