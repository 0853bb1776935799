import Foundation
import NSEServer
import Testing

/// `nse serve --proxy` against clients that ask for too much or for nonsense: each CONNECT gets a status line that
/// says why, or its connection closed, in bounded time; nothing reaches a real push host.
@Suite(.timeLimit(.minutes(10)))
struct ProxyBoundsTests {
    /// Sends `request` (`{pad}` in it becomes 70,000 letters) on a new connection to `port`, reads until the server
    /// closes it; prints the status line then "closed", or "still open" when the server kept it open 60 seconds
    /// (a hang guard, never expected).
    static func answer(_ port: Int, _ request: String) async throws -> [String] {
        let script = """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", \(port)))
            s.settimeout(60)
            s.sendall(bytes.fromhex(sys.argv[1]).replace(b"{pad}", b"a" * 70000))
            seen = b""
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    seen += chunk
                end = "closed"
            except socket.timeout:
                end = "still open"
            print(seen.split(b"\\r\\n")[0].decode("latin-1"))
            print(end)
            """
        let hex = Data(request.utf8).map { String(format: "%02x", $0) }.joined()
        let run = try await runChild("/usr/bin/env", ["python3", "-c", script, hex])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test(arguments: [
        // A push host on a port its service does not listen on: refused, never tunnelled to the real host.
        ("CONNECT api.push.apple.com:80 HTTP/1.1\r\nhost: api.push.apple.com:80\r\n\r\n",
         "HTTP/1.1 403 Forbidden by nse serve --proxy: api.push.apple.com answers on ports 443 and 2197 only"),
        ("CONNECT fcm.googleapis.com:8443 HTTP/1.1\r\n\r\n",
         "HTTP/1.1 403 Forbidden by nse serve --proxy: fcm.googleapis.com answers on ports 443 and 2197 only"),
        // No port (RFC 9110 section 9.3.6 requires one), a port out of range, a character no host name has.
        ("CONNECT api.push.apple.com HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request: nse serve --proxy cannot read the target"),
        ("CONNECT api.push.apple.com:65536 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request: nse serve --proxy cannot read the target"),
        ("CONNECT api.push.apple.com:0 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request: nse serve --proxy cannot read the target"),
        ("CONNECT push%2eexample.com:443 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request: nse serve --proxy cannot read the target"),
        ("CONNECT [::1:443 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request: nse serve --proxy cannot read the target"),
        // Longer than any DNS name.
        ("CONNECT \(String(repeating: "a", count: 300)).com:443 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request: nse serve --proxy cannot read the target"),
        ("CONNECT {pad}.com:443 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request: nse serve --proxy cannot read the target"),
        // An IPv6 literal is read, and refused as any other host in deny mode.
        ("CONNECT [::1]:443 HTTP/1.1\r\nhost: [::1]:443\r\n\r\n", "HTTP/1.1 403 Forbidden by nse serve --proxy-other deny: [::1]:443"),
    ])
    func hostileConnectLinesGetAStatusThatSaysWhyAndAClosedConnection(request: String, statusLine: String) async throws {
        // Tunnel mode: even there a push host's other ports are not passed on.
        let fixture = try await ServeFixture.start(proxy: statusLine.contains("--proxy-other deny") ? .deny : .tunnel)
        defer { Task { await fixture.stop() } }
        let answer = try await Self.answer(fixture.port, request)
        #expect(answer == [statusLine, "closed"])
    }

    @Test func aConnectThatNeverSendsItsClientHelloIsClosedAfterTheRequestTimeout() async throws {
        // Idle timeout far away: only the handshake's own deadline can end the connection within the hang guard.
        let fixture = try await ServeFixture.start(idleTimeout: .seconds(600), requestTimeout: .seconds(1), proxy: .deny)
        defer { Task { await fixture.stop() } }
        let answer = try await Self.answer(fixture.port, "CONNECT api.push.apple.com:443 HTTP/1.1\r\nhost: api.push.apple.com:443\r\n\r\n")
        #expect(answer == ["HTTP/1.1 200 Connection Established", "closed"])
    }

    @Test func tunnelsCountAgainstMaxConnectionsAndOneTooManyGets503() async throws {
        let upstream = try await ServeFixture.start()
        defer { Task { await upstream.stop() } }
        // Three sockets: the first client's connection and its tunnel's outgoing one, then the second client's.
        let fixture = try await ServeFixture.start(maxConnections: 3, proxy: .tunnel)
        defer { Task { await fixture.stop() } }
        let connect = "CONNECT 127.0.0.1:\(upstream.port) HTTP/1.1\r\nhost: 127.0.0.1:\(upstream.port)\r\n\r\n"
        let script = """
            import socket, sys
            def status(s):
                seen = b""
                while b"\\r\\n\\r\\n" not in seen:
                    chunk = s.recv(65536)
                    if not chunk:
                        return "closed"
                    seen += chunk
                return seen.split(b"\\r\\n")[0].decode()
            first = socket.create_connection(("127.0.0.1", \(fixture.port)))
            first.settimeout(60)
            first.sendall(sys.argv[1].encode())
            print(status(first))
            second = socket.create_connection(("127.0.0.1", \(fixture.port)))
            second.settimeout(60)
            second.sendall(sys.argv[1].encode())
            print(status(second))
            # The first tunnel still works: a request through it reaches the other server.
            first.sendall(b"GET /emulator/v1/devices HTTP/1.1\\r\\nhost: x\\r\\nconnection: close\\r\\n\\r\\n")
            print(status(first))
            """
        let run = try await runChild("/usr/bin/env", ["python3", "-c", script, connect])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n") == [
            "HTTP/1.1 200 Connection Established", "HTTP/1.1 503 Service Unavailable: nse serve holds --max-connections 3 sockets already",
            "HTTP/1.1 200 OK",
        ])
    }
}
