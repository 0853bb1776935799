import Foundation
import NSEServer
import Testing

/// A TLS client that starts its handshake and never finishes it is closed once the request timeout has passed
/// since the accept, however busy it keeps the connection: the idle timeout alone would let it trickle for ever.
@Suite(.timeLimit(.minutes(10)))
struct TLSHandshakeDeadlineTests {
    @Test func aTricklingClientHelloIsClosed() async throws {
        // The idle timeout is far away: only the handshake's deadline (the request timeout) can end the connection.
        let fixture = try await ServeFixture.start(tls: true, idleTimeout: .seconds(300), requestTimeout: .seconds(1))
        defer { Task { await fixture.stop() } }
        let port = try #require(fixture.server.tlsPort)
        // A TLS record header announcing a 512-byte ClientHello, then its first bytes one at a time: the server
        // waits for the rest. The socket's own timeout is the hang guard, not the assertion.
        let script = """
            import socket, time
            s = socket.create_connection(("127.0.0.1", \(port)))
            s.settimeout(0.2)
            s.sendall(bytes.fromhex("1603010200"))
            hello = bytes.fromhex("010001fc0303") + bytes(506)
            state = "open"
            for _ in range(450):
                try:
                    if not s.recv(65536):
                        state = "closed"
                        break
                except socket.timeout:
                    pass
                except ConnectionResetError:
                    state = "closed"
                    break
                if hello:
                    try:
                        s.sendall(hello[:1])
                    except (BrokenPipeError, ConnectionResetError):
                        state = "closed"
                        break
                    hello = hello[1:]
            print(state)
            """
        let run = try await runChild("/usr/bin/env", ["python3", "-c", script])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "closed")

        // A client that completes its handshake is served as before.
        let ca = try #require(fixture.server.caCertificate).path
        let answer = try await curl(["--http2", "--cacert", ca, "https://localhost:\(port)/emulator/v1/devices"])
        #expect(answer.status == 200)
    }
}
