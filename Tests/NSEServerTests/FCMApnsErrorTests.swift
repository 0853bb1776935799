import Foundation
import NSEServer
import Testing

/// An FCM message to an iPhone that APNs refuses: the sender gets FCM's error with an ApnsError detail holding
/// APNs's status and reason (Firebase: ApnsError reference), the reason the emulator's APNs endpoint gives the same
/// request.
@Suite(.timeLimit(.minutes(10)))
struct FCMApnsErrorTests {
    struct Refusal: Sendable, CustomTestStringConvertible {
        var headers: [String: String]
        var payload = #"{"aps": {"alert": {"title": "Order shipped", "body": "Arrives Tuesday"}}}"#
        var status: Int
        var reason: String

        var testDescription: String { "\(reason) for \(headers)" }
    }

    static let refusals: [Refusal] = [
        Refusal(headers: ["apns-priority": "7"], status: 400, reason: "BadPriority"),
        Refusal(headers: ["apns-push-type": "banner"], status: 400, reason: "InvalidPushType"),
        Refusal(headers: ["apns-collapse-id": String(repeating: "c", count: 65)], status: 400, reason: "BadCollapseId"),
        Refusal(headers: ["apns-topic": "com.example.other"], status: 400, reason: "DeviceTokenNotForTopic"),
        Refusal(headers: ["apns-topic": "com.example.shop.voip", "apns-push-type": "alert"], status: 400, reason: "DeviceTokenNotForTopic"),
        Refusal(
            headers: [:], payload: #"{"aps": {"alert": {"title": "Order shipped"}}, "order": "\#(String(repeating: "x", count: 4200))"}"#,
            status: 413, reason: "PayloadTooLarge"),
    ]

    static let apnsErrorType = "type.googleapis.com/google.firebase.fcm.v1.ApnsError"

    /// The ApnsError detail of what firebase-admin raised (`fcm_admin_client.py`'s answer), once the exception, the
    /// HTTP status it kept and, if given, the FcmError detail's code are checked.
    static func apnsError(
        in answer: [String: Any], exception: String, httpStatus: Int, errorCode: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        #expect(answer["exception"] as? String == exception, "firebase-admin answered \(answer)", sourceLocation: sourceLocation)
        #expect(answer["http_status"] as? Int == httpStatus, sourceLocation: sourceLocation)
        let details = try #require(answer["details"] as? [[String: Any]], sourceLocation: sourceLocation)
        if let errorCode { #expect(details.first?["errorCode"] as? String == errorCode, sourceLocation: sourceLocation) }
        return try #require(details.first { $0["@type"] as? String == apnsErrorType }, "details: \(details)", sourceLocation: sourceLocation)
    }
    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

    @Test(arguments: refusals)
    func apnsRefusalComesBackAsAnApnsErrorDetail(_ refusal: Refusal) async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        // The APNs endpoint's own answer to the request FCM would make.
        var headers = refusal.headers
        let topic = headers.removeValue(forKey: "apns-topic") ?? ServeFixture.topic
        let direct = try await apns(fixture, payload: refusal.payload, headers: headers, topic: topic)
        #expect(direct.status == refusal.status)
        #expect(direct.json?["reason"] as? String == refusal.reason)

        let headersJSON = String(decoding: try JSONSerialization.data(withJSONObject: refusal.headers, options: .sortedKeys), as: UTF8.self)
        let answer = try await sendFCM(
            fixture, #"{"token": "\#(ServeFixture.fcmToken)", "apns": {"headers": \#(headersJSON), "payload": \#(refusal.payload)}}"#)
        #expect(answer.status == 400)
        let error = try #require(answer.json?["error"] as? [String: Any], "answered \(String(decoding: answer.body, as: UTF8.self))")
        #expect(error["code"] as? Int == 400)
        #expect(error["status"] as? String == "INVALID_ARGUMENT")
        let details = try #require(error["details"] as? [[String: Any]])
        #expect(details.first?["@type"] as? String == Self.fcmErrorType)
        #expect(details.first?["errorCode"] as? String == "INVALID_ARGUMENT")
        let apnsError = try #require(details.first { $0["@type"] as? String == Self.apnsErrorType }, "details: \(details)")
        #expect(Set(apnsError.keys) == ["@type", "statusCode", "reason"])
        #expect(apnsError["statusCode"] as? Int == refusal.status)
        #expect(apnsError["reason"] as? String == refusal.reason)
        #expect(try await fixture.notifications().isEmpty)
    }

    /// firebase-admin raises by the FcmError detail (InvalidArgumentError); the ApnsError is in the answer it keeps.
    @Test func firebaseAdminRaisesInvalidArgumentErrorAndKeepsTheApnsError() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        for (headers, reason) in [(#"{"apns-priority": "7"}"#, "BadPriority"), (#"{"apns-topic": "com.example.other"}"#, "DeviceTokenNotForTopic")] {
            let refused = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "apns_headers", ServeFixture.fcmToken, headers])
            let apnsError = try Self.apnsError(in: refused, exception: "InvalidArgumentError", httpStatus: 400)
            #expect(apnsError["statusCode"] as? Int == 400)
            #expect(apnsError["reason"] as? String == reason)
        }
        // An Android phone's message never reaches APNs: its `apns` headers do not matter.
        let android = try await python(
            "fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "apns_headers", ServeFixture.androidToken, #"{"apns-priority": "7"}"#])
        #expect(android["name"] is String, "firebase-admin answered \(android)")
        #expect(try await fixture.notifications().isEmpty)
    }

    /// APNs refusing the Firebase project's APNs key, as a fault plan gives it: THIRD_PARTY_AUTH_ERROR with APNs's
    /// 403 InvalidProviderToken, which firebase-admin raises as ThirdPartyAuthError. google-auth answers any 401 by
    /// refreshing its token and sending again, twice (AuthorizedSession's max_refresh_attempts), so one send is three
    /// requests.
    @Test func firebaseAdminRaisesThirdPartyAuthErrorWhenAPNsRefusesTheProjectsKey() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let faults = fixture.base + "/emulator/v1/faults"
        #expect(try await curl(["--data-binary", #"{"service": "apns", "status": 401, "count": 1}"#, faults]).status == 400)
        #expect(try await curl(["--data-binary", #"{"service": "fcm", "status": 401, "count": 3}"#, faults]).status == 200)
        let refused = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send", ServeFixture.fcmToken])
        let apnsError = try Self.apnsError(in: refused, exception: "ThirdPartyAuthError", httpStatus: 401, errorCode: "THIRD_PARTY_AUTH_ERROR")
        #expect(apnsError["statusCode"] as? Int == 403)
        #expect(apnsError["reason"] as? String == "InvalidProviderToken")
        // The plan's three requests are used: the next send goes through.
        let sent = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send", ServeFixture.fcmToken])
        #expect(sent["name"] is String, "firebase-admin answered \(sent)")
        #expect(try await fixture.notifications().count == 1)
    }

    /// An uninstalled iPhone: APNs answers FCM 410 Unregistered, which comes back beside UNREGISTERED (firebase-admin's
    /// UnregisteredError). A dry run never reaches APNs, nor does an Android phone's message.
    @Test func uninstalledIPhonesUnregisteredCarriesAPNsUnregistered() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        for token in [ServeFixture.token, ServeFixture.androidToken] {
            #expect(try await curl(["-X", "POST", fixture.base + "/emulator/v1/devices/\(token)/uninstall"]).status == 200)
        }
        let iPhone = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send", ServeFixture.fcmToken])
        let apnsError = try Self.apnsError(in: iPhone, exception: "UnregisteredError", httpStatus: 404, errorCode: "UNREGISTERED")
        #expect(apnsError["statusCode"] as? Int == 410)
        #expect(apnsError["reason"] as? String == "Unregistered")
        for (scenario, token) in [("dry_run", ServeFixture.fcmToken), ("send", ServeFixture.androidToken)] {
            let answer = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, scenario, token])
            #expect(answer["exception"] as? String == "UnregisteredError", "firebase-admin answered \(answer)")
            let details = try #require(answer["details"] as? [[String: Any]])
            #expect(!details.contains { $0["@type"] as? String == Self.apnsErrorType }, "\(scenario) \(token): \(details)")
        }
    }

    /// FCM answers a topic message, and a `validate_only` one, before anything reaches APNs: the same refusal is FCM's
    /// INVALID_ARGUMENT with the finding, no ApnsError (docs/serve.md).
    @Test func onlyAMessageSentToOneIPhoneCarriesAnApnsError() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let notification = #""notification": {"title": "Order shipped"}, "apns": {"headers": {"apns-priority": "7"}}"#
        for message in [
            #"{"topic": "news", \#(notification)}"#,
            #"{"token": "\#(ServeFixture.fcmToken)", \#(notification)}"#,
        ] {
            let validateOnly = message.contains("\"token\"")
            let answer = try await sendFCM(fixture, message, validateOnly: validateOnly)
            #expect(answer.status == 400)
            let details = try #require((answer.json?["error"] as? [String: Any])?["details"] as? [[String: Any]])
            #expect(details.first?["errorCode"] as? String == "INVALID_ARGUMENT")
            #expect(!details.contains { $0["@type"] as? String == Self.apnsErrorType }, "details: \(details)")
            #expect(details.contains { $0["@type"] as? String == "type.googleapis.com/google.rpc.BadRequest" })
        }
    }

    /// A send with an access token from the emulator's `/token`, as curl makes it.
    private func sendFCM(_ fixture: ServeFixture, _ message: String, validateOnly: Bool = false) async throws -> CurlAnswer {
        let token = try #require(try await curl([
            "--data-binary", "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(providerToken())",
            fixture.base + "/token",
        ]).json?["access_token"] as? String)
        return try await curl([
            "-H", "authorization: Bearer \(token)", "-H", "content-type: application/json",
            "--data-binary", #"{"validate_only": \#(validateOnly), "message": \#(message)}"#,
            fixture.base + "/v1/projects/\(ServeFixture.project)/messages:send",
        ])
    }
}
