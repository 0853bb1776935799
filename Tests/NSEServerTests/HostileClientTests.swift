import Foundation
import NSEServer
import Testing

/// Clients that misbehave: each gets an answer or a closed connection in bounded time, and the server serves on.
@Suite(.timeLimit(.minutes(2)))
struct HostileClientTests {
    /// Opens a connection, sends `bytes` (hex), and reports whether the server closed it (reading to its end).
    private func closedAfterSending(_ port: Int, hex: String) async throws -> String {
        let script = """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", \(port)))
            s.sendall(bytes.fromhex("\(hex)"))
            received = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                received += chunk
            print("closed", len(received))
            """
        let run = try await runChild("/usr/bin/env", ["python3", "-c", script])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func idleConnectionIsClosed() async throws {
        let fixture = try await ServeFixture.start(idleTimeout: .seconds(1))
        defer { Task { await fixture.stop() } }
        // Sends nothing: the server closes it once it has been idle for the timeout.
        #expect(try await closedAfterSending(fixture.port, hex: "") == "closed 0")
        #expect(try await apns(fixture).status == 200)
    }

    @Test func malformedHTTP2FramesCloseTheConnectionOnly() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        // The preface, then a frame header claiming a 16 MiB DATA frame on stream 0 (a protocol error).
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8).map { String(format: "%02x", $0) }.joined()
        let answer = try await closedAfterSending(fixture.port, hex: preface + "ffffff0000000000000000")
        #expect(answer.hasPrefix("closed"))
        #expect(try await apns(fixture).status == 200)
    }

    @Test func garbageInsteadOfHTTPIsRefused() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let garbage = Array("\u{01}\u{02}NOT HTTP AT ALL\r\n\r\n".utf8).map { String(format: "%02x", $0) }.joined()
        let answer = try await closedAfterSending(fixture.port, hex: garbage)
        #expect(answer.hasPrefix("closed"))
        #expect(try await apns(fixture).status == 200)
    }

    @Test func oversizedBodyIsPayloadTooLargeWithoutBeingKept() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let file = fixture.data.appendingPathComponent("big.json")
        try Data(repeating: 0x20, count: 3 << 20).write(to: file)
        let answer = try await apns(fixture, payload: "@" + file.path)
        #expect(answer.status == 413)
        #expect(answer.json?["reason"] as? String == "PayloadTooLarge")
    }
}
