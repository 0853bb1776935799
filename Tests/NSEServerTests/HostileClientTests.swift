import Foundation
import NSEServer
import Testing

/// Clients that misbehave: each gets an answer or a closed connection in bounded time, and the server serves on.
@Suite(.timeLimit(.minutes(10)))
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

    /// Runs a Python client script (socket, h2) against the server; its last line of output.
    private func client(_ script: String) async throws -> String {
        let run = try await runChild("/usr/bin/env", ["python3", "-c", script])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").last.map(String.init) ?? ""
    }

    /// A raw HTTP/1.1 APNs request, as Python bytes.
    private func rawAPNsRequest() -> String {
        let body = #"{"aps":{"alert":{"title":"Order shipped","body":"Arrives Tuesday"}}}"#
        let head = "POST /3/device/\(ServeFixture.token) HTTP/1.1\\r\\nhost: 127.0.0.1\\r\\nauthorization: bearer \(providerToken())\\r\\n"
            + "apns-topic: \(ServeFixture.topic)\\r\\ncontent-length: \(body.utf8.count)\\r\\n\\r\\n"
        return "b'" + head + body + "'"
    }

    /// Python that reads an HTTP/1.1 answer's status line from socket `s` ("closed" when the server closed it).
    private static let readStatus = """
        def status(s):
            seen = b""
            while b"\\r\\n" not in seen:
                chunk = s.recv(65536)
                if not chunk:
                    return "closed"
                seen += chunk
            return seen.split(b"\\r\\n")[0].decode().split(" ")[1]
        """

    @Test func connectionsOverTheLimitAreClosedAndTheOthersServed() async throws {
        let fixture = try await ServeFixture.start(maxConnections: 2)
        defer { Task { await fixture.stop() } }
        // Connections are accepted in the order they were made: the third is over the limit of two.
        let answer = try await client("""
            import socket
            \(Self.readStatus)
            first = socket.create_connection(("127.0.0.1", \(fixture.port)))
            second = socket.create_connection(("127.0.0.1", \(fixture.port)))
            third = socket.create_connection(("127.0.0.1", \(fixture.port)))
            third.settimeout(60)
            try:
                third_state = "closed" if third.recv(1) == b"" else "answered"
            except ConnectionResetError:
                third_state = "closed"
            except socket.timeout:
                third_state = "open"
            first.sendall(\(rawAPNsRequest()))
            print("third", third_state, "first", status(first))
            """)
        #expect(answer == "third closed first 200")
    }

    @Test func requestThatTricklesIsClosedAtItsDeadline() async throws {
        // The idle timeout is far off: a byte every 50 ms keeps the connection busy; only the request's deadline ends it.
        let fixture = try await ServeFixture.start(idleTimeout: .seconds(300), requestTimeout: .milliseconds(500))
        defer { Task { await fixture.stop() } }
        let answer = try await client("""
            import select, socket, time
            \(Self.readStatus)
            request = \(rawAPNsRequest())
            s = socket.create_connection(("127.0.0.1", \(fixture.port)))
            for sent in range(len(request)):
                try:
                    s.sendall(request[sent:sent + 1])
                except (BrokenPipeError, ConnectionResetError):
                    print("closed after", sent, "of", len(request))
                    break
                if select.select([s], [], [], 0.05)[0]:
                    try:
                        closed = s.recv(65536) == b""
                    except ConnectionResetError:
                        closed = True
                    print("closed after", sent + 1, "of", len(request)) if closed else print("answered")
                    break
            else:
                print("sent whole, then", status(s))
            """)
        #expect(answer.hasPrefix("closed after"), "\(answer)")
        #expect(try await apns(fixture).status == 200)
    }

    @Test func http2StreamThatTricklesIsResetAndTheConnectionServes() async throws {
        let fixture = try await ServeFixture.start(idleTimeout: .seconds(300), requestTimeout: .milliseconds(500))
        defer { Task { await fixture.stop() } }
        // h2 (the HTTP/2 library httpx uses): stream 1's body trickles a byte every 50 ms; once the server resets
        // it, stream 3 sends a whole push on the same connection.
        let answer = try await client("""
            import select, socket
            import h2.config, h2.connection, h2.events
            s = socket.create_connection(("127.0.0.1", \(fixture.port)))
            c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
            c.initiate_connection()
            s.sendall(c.data_to_send())
            def headers():
                return [(":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"),
                        (":path", "/3/device/\(ServeFixture.token)"), ("authorization", "bearer \(providerToken())"),
                        ("apns-topic", "\(ServeFixture.topic)")]
            body = b'{"aps":{"alert":{"title":"Order shipped","body":"Arrives Tuesday"}}}'
            c.send_headers(1, headers())
            s.sendall(c.data_to_send())
            outcome = None
            status = {}
            sent = 0
            while outcome != "answered" and (outcome is None or 3 not in status):
                if outcome is None and sent < len(body):
                    c.send_data(1, body[sent:sent + 1], end_stream=sent + 1 == len(body))
                    s.sendall(c.data_to_send())
                    sent += 1
                if not select.select([s], [], [], 0.05)[0]:
                    continue
                data = s.recv(65536)
                if not data:
                    outcome = outcome or "connection closed"
                    break
                for event in c.receive_data(data):
                    if isinstance(event, h2.events.StreamReset) and event.stream_id == 1:
                        outcome = "reset after %d of %d bytes" % (sent, len(body))
                        c.send_headers(3, headers())
                        c.send_data(3, body, end_stream=True)
                    elif isinstance(event, h2.events.ResponseReceived):
                        status[event.stream_id] = dict(event.headers)[b":status"].decode()
                        if event.stream_id == 1:
                            outcome = "answered"
                s.sendall(c.data_to_send())
            print(outcome, "then stream 3", status.get(3))
            """)
        #expect(answer.hasPrefix("reset after"), "\(answer)")
        #expect(answer.hasSuffix("then stream 3 200"), "\(answer)")
    }

    @Test func tenThousandIdleConnectionsAreHeldAndPushesStillServed() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        // The client raises its own open-file limit as the server does; it polls every connection for a close.
        let answer = try await client("""
            import resource, select, socket
            \(Self.readStatus)
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            idle = [socket.create_connection(("127.0.0.1", \(fixture.port))) for _ in range(10000)]
            working = socket.create_connection(("127.0.0.1", \(fixture.port)))
            working.sendall(\(rawAPNsRequest()))
            answered = status(working)
            poller = select.poll()
            for s in idle:
                poller.register(s, select.POLLIN | select.POLLHUP)
            print("closed by the server", len(poller.poll(0)), "answered", answered)
            """)
        #expect(answer == "closed by the server 0 answered 200")
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
