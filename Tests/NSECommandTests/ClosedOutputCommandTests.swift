import Foundation
import NSEConcurrency
import Testing

/// `nse batch ... | head`: the reader closes the pipe. The batch once took the SIGPIPE for a crash of its own,
/// re-ran every push to find the culprit, reported each as `internal.crash` and wrote no report; even
/// `nse batch --help | head` printed the crash line. A closed standard output now only ends the printing.
struct ClosedOutputCommandTests {
    struct Run {
        var termination: ChildProcess.Termination
        var stderr: String
    }

    /// Runs `nse` with a standard output whose reader is gone before the child starts, so every write to it fails
    /// (EPIPE, or SIGPIPE where that is not ignored) whatever the timing.
    private func runWithClosedOutput(_ arguments: [String]) async throws -> Run {
        try await BlockingExecutor.shared.run("test.closedOutput") {
            Result { () throws -> Run in
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
                close(ends[0])
                defer { close(ends[1]) }
                let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("nse-stderr-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: errFile) }
                let child = try ChildProcess(
                    ProcessCommandTests.executable.path, arguments, currentDirectory: ProcessCommandTests.root.path,
                    standardInput: .null, standardOutput: .descriptor(ends[1]), standardError: .file(errFile.path))
                let termination = child.wait()
                return Run(termination: termination, stderr: String(decoding: try Data(contentsOf: errFile), as: UTF8.self))
            }
        }.get()
    }

    @Test(.timeLimit(.minutes(1)))
    func aBatchWhoseReaderLeftWritesEveryFileItWasAskedFor() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-closed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out"), junit = folder.appendingPathComponent("junit.xml")
        let html = folder.appendingPathComponent("report.html")
        let samples = try FileManager.default.contentsOfDirectory(atPath: ProcessCommandTests.root.appendingPathComponent("samples/payloads").path)

        let run = try await runWithClosedOutput([
            "batch", "samples/payloads", "--media", "samples/media", "--time-budget", "5",
            "--out", out.path, "--junit", junit.path, "--html", html.path,
        ])

        // The samples hold deliberate failures: 1, as with an open output; never a signal or a crash status.
        #expect(run.termination == .exited(1), "\(run.stderr)")
        #expect(!run.stderr.contains("crash"), "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json"))) as? [String: Any]
        let results = report?["results"] as? [[String: Any]] ?? []
        #expect(results.count == samples.count)
        let codes = results.flatMap { ($0["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String } }
        #expect(!codes.contains("internal.crash"))
        #expect(FileManager.default.fileExists(atPath: junit.path))
        #expect(FileManager.default.fileExists(atPath: html.path))
    }

    @Test(.timeLimit(.minutes(1)), arguments: [["batch", "--help"], ["--help"], ["process", "--help"]])
    func helpToAClosedOutputEndsQuietly(arguments: [String]) async throws {
        let run = try await runWithClosedOutput(arguments)
        #expect(run.termination == .exited(0), "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    /// `process` prints its results before it writes the HTML report: the report must not be lost with the reader.
    @Test(.timeLimit(.minutes(1)))
    func processWritesItsReportWhenItsReaderLeft() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-closed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let html = folder.appendingPathComponent("report.html")

        let run = try await runWithClosedOutput(["process", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--html", html.path])

        #expect(run.termination == .exited(0), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: html.path))
    }
}
