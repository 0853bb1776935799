import Foundation
import NSEServer
import Testing

/// APNs's certificate-based trust: a client certificate the local CA issued for a topic authorizes requests without
/// a provider token on its connection; and TooManyProviderTokenUpdates for a token changed too soon on one
/// connection.
@Suite(.timeLimit(.minutes(10)))
struct ClientCertificateTests {
    static func issue(_ fixture: ServeFixture, topic: String, environment: String? = nil) async throws -> String {
        let body = environment.map { #"{"topic": "\#(topic)", "environment": "\#($0)"}"# } ?? #"{"topic": "\#(topic)"}"#
        let answer = try await curl(["--data-binary", body, fixture.base + "/emulator/v1/client-certificates"])
        #expect(answer.status == 200)
        #expect((answer.json?["certificate"] as? String)?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
        return try #require(answer.json?["path"] as? String)
    }

    /// A push over TLS presenting `certificate`; to `host` (one of Apple's, which curl connects to the TLS port,
    /// the server certificate naming it) or localhost.
    static func send(
        _ fixture: ServeFixture, certificate: String?, headers: [String] = [], token: String = ServeFixture.token, host: String = "localhost"
    ) async throws -> CurlAnswer {
        let ca = try #require(fixture.server.caCertificate).path
        let port = try #require(fixture.server.tlsPort)
        var arguments = ["--http2", "--cacert", ca, "--data-binary", #"{"aps":{"alert":{"title":"By certificate"}}}"#]
        if let certificate { arguments += ["--cert", certificate] }
        for header in headers { arguments += ["-H", header] }
        if host == "localhost" { return try await curl(arguments + ["https://localhost:\(port)/3/device/\(token)"]) }
        return try await curl(arguments + ["--connect-to", "\(host):443:127.0.0.1:\(port)", "https://\(host)/3/device/\(token)"])
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

    @Test func certificateNotFromTheLocalCAIsBadCertificate() async throws {
        let fixture = try await ServeFixture.start(tls: true)
        defer { Task { await fixture.stop() } }
        // Another emulator's CA issues it: this one's does not trust it. APNs answers, as Apple documents, 403.
        let stranger = try await ServeFixture.start(tls: true)
        // Its certificate file is in its data folder, which its stop deletes.
        defer { Task { await stranger.stop() } }
        let foreign = try await Self.issue(stranger, topic: ServeFixture.topic)
        let refused = try await Self.send(fixture, certificate: foreign)
        #expect(refused.status == 403)
        #expect(refused.json?["reason"] as? String == "BadCertificate")
        #expect(refused.headers["apns-id"] != nil)
        // A provider token on the same connection is token authentication: the certificate does not matter.
        let byToken = try await Self.send(fixture, certificate: foreign, headers: ["authorization: bearer \(providerToken())", "apns-topic: \(ServeFixture.topic)"])
        #expect(byToken.status == 200)
        #expect(try await fixture.notifications().count == 1)
    }

    @Test func certificateForTheOtherEnvironmentIsBadCertificateEnvironment() async throws {
        let fixture = try await ServeFixture.start(tls: true)
        defer { Task { await fixture.stop() } }
        let development = try await Self.issue(fixture, topic: ServeFixture.topic, environment: "development")
        let production = try await Self.issue(fixture, topic: ServeFixture.topic, environment: "production")
        #expect(development.hasSuffix("\(ServeFixture.topic)-development.pem"))

        // The host names the environment: Apple's production host refuses a development certificate, and the
        // sandbox host a production one.
        let wrongHost = try await Self.send(fixture, certificate: development, token: ServeFixture.productionToken, host: "api.push.apple.com")
        #expect(wrongHost.status == 403)
        #expect(wrongHost.json?["reason"] as? String == "BadCertificateEnvironment")
        let wrongSandbox = try await Self.send(fixture, certificate: production, host: "api.sandbox.push.apple.com")
        #expect(wrongSandbox.json?["reason"] as? String == "BadCertificateEnvironment")
        #expect(try await Self.send(fixture, certificate: development, host: "api.sandbox.push.apple.com").status == 200)
        #expect(try await Self.send(fixture, certificate: production, token: ServeFixture.productionToken, host: "api.push.apple.com").status == 200)

        // On localhost (no environment of its own) the device's token decides.
        let wrongDevice = try await Self.send(fixture, certificate: development, token: ServeFixture.productionToken)
        #expect(wrongDevice.status == 403)
        #expect(wrongDevice.json?["reason"] as? String == "BadCertificateEnvironment")
        #expect(try await Self.send(fixture, certificate: development).status == 200)
        // Without `environment` the certificate is good for both, like Apple's "Sandbox & Production" ones.
        let both = try await Self.issue(fixture, topic: ServeFixture.topic)
        #expect(try await Self.send(fixture, certificate: both, token: ServeFixture.productionToken, host: "api.push.apple.com").status == 200)
        #expect(try await Self.send(fixture, certificate: both, host: "api.sandbox.push.apple.com").status == 200)
        #expect(try await curl(["--data-binary", #"{"topic": "x.y", "environment": "staging"}"#, fixture.base + "/emulator/v1/client-certificates"]).status == 400)
    }

    /// The certificate's dates are read on the emulator's clock, at every request: a test moves the clock past
    /// notAfter (a year after issue) and an open connection's next push is refused, as APNs refuses an expired
    /// certificate; moved back, the same connection is served again.
    @Test func certificatePastItsValidityOnTheEmulatorsClockIsBadCertificate() async throws {
        let fixture = try await ServeFixture.start(tls: true)
        defer { Task { await fixture.stop() } }
        let certificate = try await Self.issue(fixture, topic: ServeFixture.topic)
        let ca = try #require(fixture.server.caCertificate).path
        let tlsPort = try #require(fixture.server.tlsPort)
        let push = ["token": ServeFixture.token]
        let steps: [[String: Any]] = [
            push, ["control": "/emulator/v1/clock", "body": ["advance": 366 * 86400]], push,
            ["control": "/emulator/v1/clock", "body": ["advance": -366 * 86400]], push,
        ]
        let answer = try await python("apns_one_connection.py", [
            String(fixture.port), String(decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self), String(tlsPort), ca, certificate,
        ])
        let answers = try #require(answer["answers"] as? [[String: Any]])
        #expect(answers.compactMap { $0["status"] as? Int } == [200, 403, 200], "\(answers)")
        #expect(answers.dropFirst().first?["body"] as? String == #"{"reason":"BadCertificate"}"#)

        // A new connection after the clock passed notAfter is refused too; a certificate issued then is dated on the
        // emulator's clock, and valid.
        #expect(try await curl(["--data-binary", #"{"advance": \#(366 * 86400)}"#, fixture.base + "/emulator/v1/clock"]).status == 200)
        let expired = try await Self.send(fixture, certificate: certificate)
        #expect(expired.status == 403)
        #expect(expired.json?["reason"] as? String == "BadCertificate")
        let renewed = try await Self.issue(fixture, topic: ServeFixture.topic)
        #expect(try await Self.send(fixture, certificate: renewed).status == 200)
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
