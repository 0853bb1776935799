import Foundation
import NSEConcurrency
import NSEMediaServer
import NSETestSupport
import Synchronization
import Testing

/// `nse batch` survives a crash of nse itself: the worker that crashed is replaced, the push it crashed on is
/// reported as `internal.crash`, and every other push gets its result. The crash here is a real death by signal:
/// SIGKILL (what the kernel's out-of-memory killer sends), delivered to the worker while it waits on the push's
/// download. Not SIGILL, a Swift trap's signal: sent from outside, Swift's crash backtracer may fail to suspend
/// the process's threads and let it run on, which a real trap inside the process does not.
@Suite(.timeLimit(.minutes(2)))
struct CrashContainmentTests {
    /// Counts requests for the poisoned image and lets the test wait for the next one; serves it by stalling.
    final class Poison: Sendable {
        let requests = Mutex(0)

        /// Returns false when `process` ended first.
        func waitForRequest(number: Int, while process: ChildProcess) -> Bool {
            while requests.withLock({ $0 }) < number {
                guard process.isRunning else { return false }
                usleep(2_000)
            }
            return true
        }
    }

    private func writePushes(_ names: [String], image: (String) -> String, into folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names {
            let push = #"{"aps": {"alert": {"title": "T"}, "mutable-content": 1}, "fcm_options": {"image": "\#(image(name))"}}"#
            try Data(push.utf8).write(to: folder.appendingPathComponent("\(name).json"))
        }
    }

    /// A live child of the supervisor whose arguments satisfy `matching` (a worker that already crashed may
    /// linger as a zombie until the supervisor reaps it).
    private func worker(of supervisor: pid_t, matching: ([String]) -> Bool) -> pid_t? {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
        for pid in pids {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, fields[0] != "Z", pid_t(fields[1]) == supervisor,
                  let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if matching(arguments) { return pid }
        }
        return nil
    }

    @Test func aPushThatCrashesNSEIsReportedAndTheRestOfTheBatchIsProcessed() async throws {
        let jpeg = try Data(contentsOf: ProcessCommandTests.root.appendingPathComponent("samples/media/img/sale.jpg"))
        let poison = Poison()
        let server = try LoopbackHTTPServer { request in
            if request.path == "/poison.jpg" {
                poison.requests.withLock { $0 += 1 }
                return ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall)
            }
            return .ok(Array(jpeg), contentType: "image/jpeg")
        }
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("in"), out = folder.appendingPathComponent("out")
        // The poisoned push's name has a space, a backslash and a line break: the supervisor learns the suspects'
        // names from the worker's journal, one line per event, and must name it exactly.
        let poisoned = "c \\ n\nx"
        try writePushes(["a", "b", poisoned, "d", "e"], image: { $0 == poisoned ? server.baseURL + "/poison.jpg" : server.baseURL + "/\($0).jpg" }, into: inputs)

        let run = try await runNSE(["batch", inputs.path, "--allow-http", "--jobs", "2", "--time-budget", "60", "--out", out.path, "--junit", folder.appendingPathComponent("junit.xml").path]) { supervisor in
            // First the batch, then the poisoned push re-run alone: each crashes while it waits on the download.
            // The batch's worker first; then, among the suspects re-run side by side, the one re-running the poisoned push
            // (the third input, index 2): the others must finish and be found innocent.
            let isBatch: ([String]) -> Bool = { !$0.contains("--worker-only") }
            let isPoisonAlone: ([String]) -> Bool = { arguments in
                arguments.firstIndex(of: "--worker-only").map { arguments.indices.contains($0 + 1) && arguments[$0 + 1] == "2" } ?? false
            }
            for (attempt, matching) in [isBatch, isPoisonAlone].enumerated() {
                guard poison.waitForRequest(number: attempt + 1, while: supervisor) else { return }
                var target: pid_t?
                while target == nil, supervisor.isRunning { target = worker(of: supervisor.pid, matching: matching) }
                if let target { kill(target, SIGKILL) }
            }
        }

        #expect(run.status == 2, "a push nse could not check: \(run.stderr)")
        #expect(run.stderr.contains("crashed (SIGKILL, perhaps the kernel's out-of-memory killer) while processing"), "\(run.stderr)")
        #expect(run.stderr.contains("/\(poisoned).json crashes nse (SIGKILL"), "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json"))) as? [String: Any]
        let results = report?["results"] as? [[String: Any]] ?? []
        #expect(results.count == 5)
        let codes = results.map { (($0["diagnostics"] as? [[String: Any]]) ?? []).filter { $0["severity"] as? String == "error" }.compactMap { $0["code"] as? String } }
        #expect(codes == [[], [], ["internal.crash"], [], []])
        #expect(poison.requests.withLock { $0 } == 2, "not requested again once known to crash")
        let outline = try XMLOutline(Data(contentsOf: folder.appendingPathComponent("junit.xml")))
        #expect(outline.elements("testcase").count == 5)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "the crashed worker's folder is removed by the next run: \(leftovers)")
    }
}
