import Foundation
import NSEServer
import Testing

/// An APNs request as a Python backend sends it: httpx over HTTP/2 with a real ES256 provider token (PyJWT).
@Suite(.timeLimit(.minutes(2)))
struct HTTP2ClientTests {
    @Test func httpxOverHTTP2IsAcceptedAndItsApnsIDEchoed() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let id = "0A1B2C3D-0000-4000-8000-000000000001"
        let answer = try await python("apns_httpx_client.py", [
            String(fixture.port), ServeFixture.token, ServeFixture.topic, #"{"aps":{"alert":{"title":"From httpx"}}}"#, id,
        ])
        #expect(answer["http_version"] as? String == "HTTP/2")
        #expect(answer["status"] as? Int == 200)
        #expect((answer["headers"] as? [String: String])?["apns-id"] == id)
        let title = ((try await fixture.notifications().first?["phone"] as? [String: Any])?["content"] as? [String: Any])?["title"] as? String
        #expect(title == "From httpx")
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
}
