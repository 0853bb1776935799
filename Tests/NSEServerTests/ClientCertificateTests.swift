import Foundation
import NSEServer
import Testing

/// APNs's certificate-based trust: a client certificate the local CA issued for a topic authorizes requests without
/// a provider token on its connection; and TooManyProviderTokenUpdates for a token changed too soon on one
/// connection.
@Suite(.timeLimit(.minutes(10)))
struct ClientCertificateTests {
    static func issue(_ fixture: ServeFixture, topic: String) async throws -> String {
        let answer = try await curl(["--data-binary", #"{"topic": "\#(topic)"}"#, fixture.base + "/emulator/v1/client-certificates"])
        #expect(answer.status == 200)
        #expect((answer.json?["certificate"] as? String)?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
        return try #require(answer.json?["path"] as? String)
    }

    static func send(_ fixture: ServeFixture, certificate: String?, headers: [String] = []) async throws -> CurlAnswer {
        let ca = try #require(fixture.server.caCertificate).path
        let port = try #require(fixture.server.tlsPort)
        var arguments = ["--http2", "--cacert", ca, "--data-binary", #"{"aps":{"alert":{"title":"By certificate"}}}"#]
        if let certificate { arguments += ["--cert", certificate] }
        for header in headers { arguments += ["-H", header] }
        return try await curl(arguments + ["https://localhost:\(port)/3/device/\(ServeFixture.token)"])
    }

    @Test func certificateAuthorizesRequestsWithoutAProviderToken() async throws {
        let fixture = try await ServeFixture.start(tls: true)
        defer { Task { await fixture.stop() } }
        let certificate = try await Self.issue(fixture, topic: ServeFixture.topic)

        // No token, no apns-topic: the certificate's topic.
        let accepted = try await Self.send(fixture, certificate: certificate)
        #expect(accepted.status == 200, "\(String(decoding: accepted.body, as: UTF8.self))")
        #expect(accepted.httpVersion == "2")
        let shown = try await fixture.notifications().first?["phone"] as? [String: Any]
        #expect((shown?["content"] as? [String: Any])?["title"] as? String == "By certificate")
        // A push type's suffix on the certificate's topic is allowed; another app's topic is not.
        #expect(try await Self.send(fixture, certificate: certificate, headers: ["apns-topic: \(ServeFixture.topic).voip", "apns-push-type: voip"]).status == 200)
        let other = try await Self.send(fixture, certificate: certificate, headers: ["apns-topic: com.example.other"])
        #expect(other.status == 400)
        #expect(other.json?["reason"] as? String == "TopicDisallowed")
        // Without the certificate the same request needs a provider token.
        let anonymous = try await Self.send(fixture, certificate: nil)
        #expect(anonymous.status == 403)
        #expect(anonymous.json?["reason"] as? String == "MissingProviderToken")
    }

    @Test func aTokenOnACertificateConnectionIsTokenAuthentication() async throws {
        let fixture = try await ServeFixture.start(tls: true)
        defer { Task { await fixture.stop() } }
        let certificate = try await Self.issue(fixture, topic: ServeFixture.topic)
        // The token's checks apply, and apns-topic is required again.
        let invalid = try await Self.send(fixture, certificate: certificate, headers: ["authorization: bearer not.a.jwt"])
        #expect(invalid.status == 403)
        #expect(invalid.json?["reason"] as? String == "InvalidProviderToken")
        let noTopic = try await Self.send(fixture, certificate: certificate, headers: ["authorization: bearer \(providerToken())"])
        #expect(noTopic.status == 400)
        #expect(noTopic.json?["reason"] as? String == "MissingTopic")
        let valid = try await Self.send(fixture, certificate: certificate, headers: ["authorization: bearer \(providerToken())", "apns-topic: \(ServeFixture.topic)"])
        #expect(valid.status == 200)
    }

    @Test func certificateNotFromTheLocalCAEndsTheHandshake() async throws {
        let fixture = try await ServeFixture.start(tls: true)
        defer { Task { await fixture.stop() } }
        // Another emulator's CA issues it: this one's does not trust it.
        let stranger = try await ServeFixture.start(tls: true)
        let foreign = try await Self.issue(stranger, topic: ServeFixture.topic)
        await stranger.stop()
        let ca = try #require(fixture.server.caCertificate).path
        let run = try await runChild("/usr/bin/curl", ["-s", "--http2", "--cacert", ca, "--cert", foreign, "--data-binary", "{}",
                                                       "https://localhost:\(try #require(fixture.server.tlsPort))/3/device/\(ServeFixture.token)"])
        #expect(run.status != 0)
        #expect(try await fixture.notifications().isEmpty)
    }

    @Test func providerTokenChangedTooSoonOnOneConnectionIsTooManyProviderTokenUpdates() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let fixture = try await ServeFixture.start(clock: { start })
        defer { Task { await fixture.stop() } }
        let first = providerToken(issuedAt: start)
        let second = providerToken(issuedAt: start + 60)
        func request(_ jwt: String) -> [String: String] { ["token": ServeFixture.token, "topic": ServeFixture.topic, "jwt": jwt] }
        let steps: [[String: Any]] = [
            request(first), request(first), request(second),
            ["control": "/emulator/v1/clock", "body": ["advance": 19 * 60]], request(second),
            ["control": "/emulator/v1/clock", "body": ["advance": 60]], request(second), request(first),
        ]
        let answer = try await python("apns_one_connection.py", [String(fixture.port), String(decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)])
        let answers = try #require(answer["answers"] as? [[String: Any]])
        #expect(answers.compactMap { $0["http_version"] as? String } == Array(repeating: "HTTP/2", count: 6))
        #expect(answers.compactMap { $0["status"] as? Int } == [200, 200, 429, 429, 200, 429])
        #expect(answers[2]["body"] as? String == #"{"reason":"TooManyProviderTokenUpdates"}"#)
        // A new connection may use any valid token (curl opens one per run).
        #expect(try await apns(fixture, authorization: "bearer \(first)").status == 200)
    }
}
