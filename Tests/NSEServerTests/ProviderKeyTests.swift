import Crypto
import Foundation
import NSEServer
import Synchronization
import Testing

/// With the key's public part in the devices file, a provider token must be signed by it (ES256) and issued by
/// its team: as APNs checks the tokens of a team's `.p8` key.
@Suite(.timeLimit(.minutes(10)))
struct ProviderKeyTests {
    static let kid = "ABC123DEFG"
    static let team = "TEAM123456"

    static func devices(_ key: P256.Signing.PrivateKey) -> String {
        let pem = key.publicKey.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
        return """
            {"devices": [{"name": "Ana's iPhone", "apns": {"token": "\(ServeFixture.token)"}, "bundleId": "\(ServeFixture.topic)"}],
             "providerKeys": [{"keyID": "\(kid)", "teamID": "\(team)", "publicKey": "\(pem)"}]}
            """
    }

    /// A JWT signed as a backend signs it: ES256 over `header.claims`, the signature as r and s (JWS).
    static func signed(_ key: P256.Signing.PrivateKey, kid: String = kid, team: String = team, issuedAt: Date = Date()) throws -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header = base64URL(Data(#"{"alg":"ES256","kid":"\#(kid)"}"#.utf8))
        let claims = base64URL(Data(#"{"iss":"\#(team)","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#.utf8))
        let signature = try key.signature(for: Data("\(header).\(claims)".utf8))
        return "\(header).\(claims).\(base64URL(signature.rawRepresentation))"
    }

    @Test func tokenSignedByTheKeyIsAcceptedAnyOtherIsInvalid() async throws {
        let key = P256.Signing.PrivateKey()
        let fixture = try await ServeFixture.start(devices: Self.devices(key))
        defer { Task { await fixture.stop() } }
        #expect(try await apns(fixture, authorization: "bearer \(Self.signed(key))").status == 200)
        for token in [
            try Self.signed(P256.Signing.PrivateKey()),  // another key
            try Self.signed(key, kid: "OTHERKEYID"),  // a key ID not configured
            try Self.signed(key, team: "OTHERTEAM1"),  // the key's, but another team's claim
            providerToken(),  // well formed, not signed
        ] {
            let answer = try await apns(fixture, authorization: "bearer \(token)")
            #expect(answer.status == 403)
            #expect(answer.json?["reason"] as? String == "InvalidProviderToken")
        }
    }

    /// A sender that goes on with an expired token is answered ExpiredProviderToken each time, its age judged on
    /// the emulator's clock at every request (its signature verified once): with the clock set back, the same token
    /// is accepted. A token another key signed stays InvalidProviderToken, expired or not.
    @Test func anExpiredTokensAgeIsJudgedAtEveryRequest() async throws {
        let key = P256.Signing.PrivateKey()
        let offset = ClockOffset()
        let fixture = try await ServeFixture.start(devices: Self.devices(key), clock: { Date().addingTimeInterval(offset.seconds) })
        defer { Task { await fixture.stop() } }
        let expired = try Self.signed(key, issuedAt: Date().addingTimeInterval(-4000))
        let forged = try Self.signed(P256.Signing.PrivateKey(), issuedAt: Date().addingTimeInterval(-4000))
        for _ in 0..<2 {
            let answer = try await apns(fixture, authorization: "bearer \(expired)")
            #expect(answer.status == 403)
            #expect(answer.json?["reason"] as? String == "ExpiredProviderToken")
            #expect(try await apns(fixture, authorization: "bearer \(forged)").json?["reason"] as? String == "InvalidProviderToken")
        }
        offset.seconds = -3600
        #expect(try await apns(fixture, authorization: "bearer \(expired)").status == 200)
        #expect(try await apns(fixture, authorization: "bearer \(forged)").json?["reason"] as? String == "InvalidProviderToken")
    }

    final class ClockOffset: Sendable {
        private let value = Mutex<TimeInterval>(0)
        var seconds: TimeInterval {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }

    @Test func pyJWTSignedTokenFromHttpxIsAccepted() async throws {
        let key = P256.Signing.PrivateKey()
        let fixture = try await ServeFixture.start(devices: Self.devices(key))
        defer { Task { await fixture.stop() } }
        let p8 = fixture.data.appendingPathComponent("AuthKey_\(Self.kid).p8")
        try Data(key.pemRepresentation.utf8).write(to: p8)
        let answer = try await python("apns_httpx_client.py", [
            String(fixture.port), ServeFixture.token, ServeFixture.topic, #"{"aps":{"alert":"Signed"}}"#,
            "--key", p8.path, "--kid", Self.kid, "--team", Self.team,
        ])
        #expect(answer["status"] as? Int == 200, "\(answer)")
        let other = try await python("apns_httpx_client.py", [
            String(fixture.port), ServeFixture.token, ServeFixture.topic, #"{"aps":{"alert":"Signed"}}"#, "--kid", Self.kid, "--team", Self.team,
        ])
        #expect(other["status"] as? Int == 403)
        #expect(other["body"] as? String == #"{"reason":"InvalidProviderToken"}"#)
    }
}
