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
        let program = Mutex("")
        let run = try await runNSE(["serve", "--port", "0", "--devices", devices.path, "--data", folder.appendingPathComponent("data").path]) { child in
            // The first line names the port: read up to it, then send one push with curl, then stop the server.
            var seen = Data()
            while !seen.contains(0x0A), let chunk = try child.standardOutput?.read(upToCount: 1), !chunk.isEmpty { seen.append(chunk) }
            let line = String(decoding: seen, as: UTF8.self)
            firstLine.withLock { $0 = line }
            // The process the test started and signals is the server itself: nse ran nse-serve in its place.
            let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child.pid)/exe")) ?? ""
            program.withLock { $0 = URL(fileURLWithPath: exe).lastPathComponent }
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
        #expect(program.withLock { $0 } == "nse-serve")
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// `nse serve` runs `nse-serve` from its own folder; a copy of nse without it says where it looked.
    @Test func withoutNSEServeBesideNSEServeSaysWhereItLooked() async throws {
        let folder = try scratch().resolvingSymlinksInPath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lone = folder.appendingPathComponent("nse")
        // A hard link (a copy across file systems): /proc/self/exe then names this folder, where a symbolic link
        // would name the build folder, which has nse-serve.
        do {
            try FileManager.default.linkItem(at: ProcessCommandTests.executable, to: lone)
        } catch {
            try FileManager.default.copyItem(at: ProcessCommandTests.executable, to: lone)
        }
        let run = try await runNSE(["serve", "--port", "0", "--data", folder.appendingPathComponent("data").path], executable: lone)
        #expect(run.status == 2)
        #expect(run.stderr.contains("nse-serve, which must be beside nse: \(folder.path)/nse-serve does not exist"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("data").path))
    }

    /// `nse` runs `nse-serve` for `nse serve` rather than link the server: SwiftNIO, swift-nio-ssl and swift-crypto
    /// cost every other command 4 to 6 MB of peak memory and milliseconds of start (docs/performance.md).
    @Test func nseLinksNoServerCode() throws {
        let nse = try Data(contentsOf: ProcessCommandTests.executable, options: .alwaysMapped)
        let server = try Data(contentsOf: Self.server, options: .alwaysMapped)
        for module in ["NIOPosix", "NIOSSL", "NSEServer"] {
            // The module's name is in its type metadata and symbols: nse-serve, which links it, shows the check sees it.
            #expect(Self.contains(server, module), "nse-serve without \(module)?")
            #expect(!Self.contains(nse, module), "nse links \(module)")
        }
    }

    static let server = ProcessCommandTests.executable.deletingLastPathComponent().appendingPathComponent("nse-serve")

    /// Whether `text`'s bytes occur in `data` (memchr for the first byte; a binary is a few hundred MB).
    static func contains(_ data: Data, _ text: String) -> Bool {
        let needle = Array(text.utf8)
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            guard let base = bytes.baseAddress, bytes.count >= needle.count else { return false }
            let last = bytes.count - needle.count
            var offset = 0
            while offset <= last, let found = memchr(base + offset, Int32(needle[0]), last - offset + 1) {
                offset = base.distance(to: UnsafeRawPointer(found))
                if memcmp(base + offset, needle, needle.count) == 0 { return true }
                offset += 1
            }
            return false
        }
    }

    /// `nse-serve` run on its own parses the same options, and a usage error exits 2 as nse's do.
    @Test func nseServeAloneChecksTheSameOptions() async throws {
        let run = try await runNSE(["--port", "70000", "--title-suffix", "!"], executable: Self.server)
        #expect(run.status == 2)
        #expect(run.stderr.contains("--port must be between 0 and 65535."), "\(run.stderr)")
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
