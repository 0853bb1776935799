import Foundation
import NSEServer
import Testing

/// An APNs request as a Python backend sends it: httpx over HTTP/2 with a real ES256 provider token (PyJWT).
@Suite(.timeLimit(.minutes(10)))
struct HTTP2ClientTests {
    @Test func httpxOverHTTP2IsAcceptedAndItsApnsIDEchoed() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let id = "0A1B2C3D-0000-4000-8000-000000000001"
        let answer = try await python("apns_httpx_client.py", [
            String(fixture.port), ServeFixture.token, ServeFixture.topic, #"{"aps":{"alert":{"title":"From httpx"}}}"#, "--apns-id", id,
        ])
        #expect(answer["http_version"] as? String == "HTTP/2")
        #expect(answer["status"] as? Int == 200)
        #expect((answer["headers"] as? [String: String])?["apns-id"] == id)
        let title = ((try await fixture.notifications().first?["phone"] as? [String: Any])?["content"] as? [String: Any])?["title"] as? String
        #expect(title == "From httpx")
    }

    /// Room for every stream's APNs payload at once from the first byte: at HTTP/2's default 64 KiB a backend
    /// sending a hundred 3 KB pushes at once waits for window updates, and httpx's wait can hang for good
    /// (pydantic/httpx2 issue #1133; EventsTests' sender hit it).
    @Test func theConnectionWindowHoldsEveryStreamsPayloadBeforeTheFirstByte() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let answer = try await python("h2_window.py", [String(fixture.port)])
        let streams = try #require(answer["max_concurrent_streams"] as? Int)
        #expect(streams == 1000)
        #expect((answer["connection_window"] as? Int ?? 0) >= streams * 4096)
    }

    @Test func httpxSeesAppleReasonForAnUnknownToken() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let answer = try await python("apns_httpx_client.py", [
            String(fixture.port), String(repeating: "e", count: 64), ServeFixture.topic, #"{"aps":{"alert":"Hi"}}"#,
        ])
        #expect(answer["status"] as? Int == 400)
        #expect(answer["body"] as? String == #"{"reason":"BadDeviceToken"}"#)
    }

    @Test func httpxOverTLSNegotiatesH2WithTheLocalCA() async throws {
        let fixture = try await ServeFixture.start(tls: true)
        defer { Task { await fixture.stop() } }
        let ca = try #require(fixture.server.caCertificate)
        let port = try #require(fixture.server.tlsPort)
        let answer = try await python("apns_httpx_client.py", [
            String(port), ServeFixture.token, ServeFixture.topic, #"{"aps":{"alert":{"title":"Over TLS"}}}"#, "--ca", ca.path,
        ])
        #expect(answer["http_version"] as? String == "HTTP/2")
        #expect(answer["status"] as? Int == 200)
        let request = try await fixture.notifications().first?["request"] as? [String: Any]
        #expect(request?["protocol"] as? String == "HTTP/2")
    }

    @Test func curlOverTLSGetsH2OrHTTP1ByALPN() async throws {
        let fixture = try await ServeFixture.start(tls: true)
        defer { Task { await fixture.stop() } }
        let ca = try #require(fixture.server.caCertificate).path
        let port = try #require(fixture.server.tlsPort)
        let url = "https://localhost:\(port)/emulator/v1/devices"
        let h2 = try await curl(["--http2", "--cacert", ca, url])
        #expect(h2.status == 200)
        #expect(h2.httpVersion == "2")
        let http1 = try await curl(["--http1.1", "--cacert", ca, url])
        #expect(http1.status == 200)
        #expect(http1.httpVersion == "1.1")
        // The same CA on a restart: a client's trust survives it.
        let before = try Data(contentsOf: URL(fileURLWithPath: ca))
        await fixture.stop(keepingData: true)
        let restarted = try await ServeFixture.start(data: fixture.data, tls: true)
        defer { Task { await restarted.stop() } }
        #expect(try Data(contentsOf: try #require(restarted.server.caCertificate)) == before)
        let again = try await curl(["--http2", "--cacert", ca, "https://127.0.0.1:\(try #require(restarted.server.tlsPort))/emulator/v1/devices"])
        #expect(again.status == 200)
    }
}
