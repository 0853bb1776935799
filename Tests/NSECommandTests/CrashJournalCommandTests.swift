import Foundation
import NSEConcurrency
import NSEMediaServer
import Synchronization
import Testing

/// The batch supervisor's crash journal: a batch killed with SIGKILL once left its `nse-journal-*` in TMPDIR for
/// ever. It now lives inside `--out` when there is one, and a later batch removes what dead runs left.
struct CrashJournalCommandTests {
    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-journal-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A pid no process has: one that ran and was reaped.
    private func deadPID() throws -> pid_t {
        let child = try ChildProcess("/bin/true", [], standardInput: .null, standardOutput: .null, standardError: .null)
        child.wait()
        return child.pid
    }

    @Test(.timeLimit(.minutes(1)))
    func aLaterBatchRemovesTheJournalsOfDeadRunsAndKeepsLiveOnes() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scratchTMP = folder.appendingPathComponent("tmp"), out = folder.appendingPathComponent("out")
        for made in [scratchTMP, out] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        let dead = try deadPID()
        let deadJournals = [scratchTMP.appendingPathComponent("nse-journal-\(dead)-\(UUID().uuidString)"), out.appendingPathComponent(".nse-journal-\(dead)-\(UUID().uuidString)")]
        // This test's own process is alive: its journal is not abandoned.
        let liveJournal = scratchTMP.appendingPathComponent("nse-journal-\(getpid())-\(UUID().uuidString)")
        for file in deadJournals + [liveJournal] { try Data("S 0 x.json\n".utf8).write(to: file) }

        let run = try await runNSE(["batch", "samples/payloads/jpeg-ok.json", "--media", "samples/media", "--out", out.path], environment: ["TMPDIR": scratchTMP.path])

        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for file in deadJournals { #expect(!FileManager.default.fileExists(atPath: file.path), "\(file.lastPathComponent) stayed") }
        #expect(FileManager.default.fileExists(atPath: liveJournal.path))
    }

    /// While a batch with --out runs, its journal is in the output folder and nothing of it is in TMPDIR.
    @Test(.timeLimit(.minutes(3)))
    func theJournalLivesInsideTheOutputFolder() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scratchTMP = folder.appendingPathComponent("tmp"), out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: scratchTMP, withIntermediateDirectories: true)
        let push = folder.appendingPathComponent("stalled.json")
        // A download that never ends keeps the batch running until the test has looked and interrupted it. The budget
        // is far longer than any wait for the request: a 5 s budget ran out first once on a loaded CI machine, and
        // the batch ended on its own (exit 1) before the interrupt.
        let server = try LoopbackHTTPServer { _ in ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall) }
        defer { server.stop() }
        try Data(#"{"aps": {"alert": {"title": "T"}, "mutable-content": 1}, "fcm_options": {"image": "\#(server.baseURL)/a.jpg"}}"#.utf8).write(to: push)
        let seenInOut = Mutex(false), seenInTMP = Mutex(false)

        let run = try await runNSE(["batch", push.path, "--allow-http", "--time-budget", "600", "--out", out.path], environment: ["TMPDIR": scratchTMP.path]) { process in
            while process.isRunning, server.requests.isEmpty {
                usleep(10_000)
            }
            let inOut = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
            let inTMP = (try? FileManager.default.contentsOfDirectory(atPath: scratchTMP.path)) ?? []
            seenInOut.withLock { $0 = inOut.contains { $0.hasPrefix(".nse-journal-") } }
            seenInTMP.withLock { $0 = inTMP.contains { $0.contains("nse-journal-") } }
            process.signal(SIGINT)
        }

        // Should it fail again: whether the request reached the server, and what the batch said.
        #expect(
            run.status == 130,
            "connections accepted: \(server.connectionsAccepted), requests: \(server.requests.map(\.path)); stderr: \(run.stderr)")
        #expect(seenInOut.withLock { $0 }, "the journal is inside --out while the batch runs")
        #expect(!seenInTMP.withLock { $0 }, "nothing of the journal is in TMPDIR")
        let left = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }
        // What was left, file by file: the late writer's traces, should it happen again.
        let tree = left.flatMap { name in (FileManager.default.subpaths(atPath: out.appendingPathComponent(name).path) ?? []).map { "\(name)/\($0)" } }
        #expect(left.isEmpty, "removed at the end: \(left), holding \(tree)")
    }
}
