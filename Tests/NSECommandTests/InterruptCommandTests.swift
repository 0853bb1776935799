import Foundation
import NSEConcurrency
import NSEMediaServer
import Synchronization
import Testing

/// Ctrl-C and SIGTERM are never lost, whenever they come. `nse batch`'s supervisor and worker once caught them with
/// libdispatch's signal sources, which on Linux install their handler later, on another thread: a signal sent in
/// the first tens of milliseconds (on a loaded machine, far longer) was discarded, and the batch ran on for its
/// whole time budget, or it killed the worker mid-batch and left its working folder in `--out`.
struct InterruptCommandTests {
    /// Whether `pid` has a handler for `signal` (`SigCgt` in /proc/PID/status): from then on, a program that catches
    /// it must not lose it.
    private static func catches(_ signal: Int32, pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    /// Milliseconds between the supervisor catching SIGINT and the test sending it: each lands in another stage of
    /// the start (the worker not started yet, started and not catching yet, parsing, reading the push, downloading).
    static let delays = [0, 1, 2, 4, 6, 8, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150]

    /// The budget bounds a lost interrupt: the batch then ends on its own, exit 1, instead of 130.
    @Test(.timeLimit(.minutes(2)), arguments: delays)
    func aCtrlCOnceTheBatchCatchesItStopsIt(afterMilliseconds delay: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-interrupt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try LoopbackHTTPServer { _ in ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall) }
        defer { server.stop() }
        let push = folder.appendingPathComponent("stalled.json"), out = folder.appendingPathComponent("out")
        try Data(#"{"aps": {"alert": {"title": "T"}, "mutable-content": 1}, "fcm_options": {"image": "\#(server.baseURL)/a.jpg"}}"#.utf8).write(to: push)

        let run = try await runNSE(["batch", push.path, "--allow-http", "--time-budget", "30", "--out", out.path]) { process in
            while process.isRunning, !Self.catches(SIGINT, pid: process.pid) { usleep(200) }
            usleep(useconds_t(delay * 1000))
            process.signal(SIGINT)
        }

        #expect(run.status == 130, "an interrupt \(delay) ms after the supervisor caught SIGINT: \(run.stderr)")
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "left in --out: \(left)")
    }
}

/// `nse serve` stops on the SIGTERM a script sends as soon as it has read where the server listens.
struct ServeInterruptCommandTests {
    static let token = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

    /// Microseconds between reading the banner's first line and sending SIGTERM.
    static let delays = [0, 20, 50, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000]

    @Test(.timeLimit(.minutes(2)), arguments: delays)
    func aSIGTERMRightAfterTheBannerStopsTheServer(afterMicroseconds delay: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-interrupt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let devices = folder.appendingPathComponent("devices.json")
        try Data(#"{"devices": [{"apns": {"token": "\#(Self.token)"}, "bundleId": "com.example.shop"}]}"#.utf8).write(to: devices)
        let lost = Mutex(false)

        let run = try await runNSE(["serve", "--port", "0", "--devices", devices.path, "--data", folder.appendingPathComponent("data").path]) { child in
            var seen = Data()
            while !seen.contains(0x0A), let chunk = try child.standardOutput?.read(upToCount: 1), !chunk.isEmpty { seen.append(chunk) }
            usleep(useconds_t(delay))
            child.terminate()
            // Hang guard, not a measure: a server that lost the signal would serve for ever.
            let deadline = ContinuousClock.now + .seconds(30)
            while child.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            if child.isRunning {
                lost.withLock { $0 = true }
                child.signal(SIGKILL)
            }
        }

        #expect(!lost.withLock { $0 }, "the server ignored a SIGTERM sent \(delay) µs after its banner")
        #expect(run.status == 0, "\(run.stderr)")
    }
}
