import Foundation
import NSEConcurrency
import Synchronization
import Testing

/// `nse serve` as a user runs it: it prints where it listens, answers APNs requests, and ends on SIGTERM.
@Suite(.timeLimit(.minutes(2)))
struct ServeCommandTests {
    static let token = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

    private func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func servesUntilSIGTERMAndAnswersAPNs() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let devices = folder.appendingPathComponent("devices.json")
        try Data(#"{"devices": [{"apns": {"token": "\#(Self.token)"}, "bundleId": "com.example.shop"}]}"#.utf8).write(to: devices)
        let status = Mutex<Int?>(nil)
        let firstLine = Mutex("")
        let run = try await runNSE(["serve", "--port", "0", "--devices", devices.path, "--data", folder.appendingPathComponent("data").path]) { child in
            // The first line names the port: read up to it, then send one push with curl, then stop the server.
            var seen = Data()
            while !seen.contains(0x0A), let chunk = try child.standardOutput?.read(upToCount: 1), !chunk.isEmpty { seen.append(chunk) }
            let line = String(decoding: seen, as: UTF8.self)
            firstLine.withLock { $0 = line }
            guard let port = line.split(separator: ":").last.flatMap({ Int($0.prefix { $0.isNumber }) }) else {
                child.terminate()
                return
            }
            let curl = try ChildProcess(
                "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2-prior-knowledge",
                                  "-H", "authorization: bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IksxIn0.eyJpc3MiOiJUIiwiaWF0Ijo5OTk5OTk5OTk5fQ.c2ln",
                                  "-H", "apns-topic: com.example.shop", "--data-binary", #"{"aps":{"alert":"Hi"}}"#,
                                  "http://127.0.0.1:\(port)/3/device/\(Self.token)"],
                standardInput: .null, standardOutput: .pipe, standardError: .null)
            let code = curl.standardOutput?.readToEndRetryingInterruptions() ?? Data()
            _ = curl.wait()
            status.withLock { $0 = Int(String(decoding: code, as: UTF8.self)) }
            child.terminate()
        }
        #expect(firstLine.withLock { $0 }.hasPrefix("nse serve: listening on http://127.0.0.1:"))
        #expect(run.stdout.contains("APNs:     POST http://127.0.0.1:"))
        #expect(status.withLock { $0 } == 200)
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func badDevicesFileIsAUsageError() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let devices = folder.appendingPathComponent("devices.json")
        try Data(#"{"devices": [{"apns": {"token": "xyz"}, "bundleId": "a"}]}"#.utf8).write(to: devices)
        let run = try await runNSE(["serve", "--port", "0", "--devices", devices.path, "--data", folder.appendingPathComponent("data").path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("not hexadecimal"))
    }
}
