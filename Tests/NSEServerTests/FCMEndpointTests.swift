import Foundation
import NSEServer
import Testing

/// FCM HTTP v1 as Google's own Admin SDK (firebase-admin for Python) and curl speak it to the emulator.
@Suite(.timeLimit(.minutes(10)))
struct FCMEndpointTests {
    @Test func firebaseAdminSendReachesTheIPhoneAndTheAndroidPhone() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let sent = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send", ServeFixture.fcmToken])
        let name = try #require(sent["name"] as? String, "firebase-admin answered \(sent)")
        #expect(name.hasPrefix("projects/\(ServeFixture.project)/messages/"))

        let shown = try await fixture.notifications()
        let first = try #require(shown.first)
        #expect(first["id"] as? String == name)
        #expect(first["service"] as? String == "fcm")
        let content = try #require((first["phone"] as? [String: Any])?["content"] as? [String: Any])
        #expect(content["title"] as? String == "Order shipped")

        let android = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send", ServeFixture.androidToken])
        #expect(android["name"] is String, "firebase-admin answered \(android)")
        let androidShown = try await fixture.notifications(ServeFixture.androidToken)
        let phone = try #require(androidShown.first?["phone"] as? [String: Any])
        #expect(phone["shown"] as? Bool == true)
    }

    @Test func dryRunAnswersWithANameAndDeliversNothing() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let sent = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "dry_run", ServeFixture.fcmToken])
        #expect((sent["name"] as? String)?.hasPrefix("projects/\(ServeFixture.project)/messages/") == true, "firebase-admin answered \(sent)")
        #expect(try await fixture.notifications().isEmpty)
        // validate_only still refuses an unknown token.
        let unknown = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "dry_run", "no-such-token"])
        #expect(unknown["exception"] as? String == "InvalidArgumentError")
    }

    @Test func sdkRaisesItsOwnExceptionTypesFromTheEmulatorsErrors() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let unknown = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send", "no-such-token"])
        #expect(unknown["exception"] as? String == "InvalidArgumentError")
        #expect(unknown["http_status"] as? Int == 400)
        let otherProject = try await python("fcm_admin_client.py", [String(fixture.port), "another-project", "send", ServeFixture.fcmToken])
        #expect(otherProject["exception"] as? String == "SenderIdMismatchError")
        #expect(otherProject["http_status"] as? Int == 403)
        let reserved = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "reserved_data_key", ServeFixture.fcmToken])
        #expect(reserved["exception"] as? String == "InvalidArgumentError")
        #expect(try await fixture.notifications().isEmpty)
    }

    @Test func sendEachMakesOneCallPerMessage() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let batch = try await python(
            "fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send_each", ServeFixture.fcmToken, "no-such-token", ServeFixture.androidToken])
        #expect(batch["success_count"] as? Int == 2, "firebase-admin answered \(batch)")
        let responses = try #require(batch["responses"] as? [[String: Any]])
        #expect(responses.count == 3)
        #expect(responses[0]["name"] is String)
        #expect(responses[1]["exception"] as? String == "InvalidArgumentError")
        #expect(responses[2]["name"] is String)
    }

    @Test func missingOrUnknownBearerIsUnauthenticated() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let url = fixture.base + "/v1/projects/\(ServeFixture.project)/messages:send"
        let body = #"{"message": {"token": "\#(ServeFixture.fcmToken)", "notification": {"title": "Hi"}}}"#
        for extra in [[], ["-H", "authorization: Bearer ya29.made-up"]] {
            let answer = try await curl(["--http2-prior-knowledge", "--data-binary", body] + extra + [url])
            #expect(answer.status == 401)
            let error = try #require(answer.json?["error"] as? [String: Any])
            #expect(error["code"] as? Int == 401)
            #expect(error["status"] as? String == "UNAUTHENTICATED")
        }
    }

    /// A bad field: google.rpc.Status with the FcmError detail and a BadRequest naming the field, over HTTP/2.
    @Test func badFieldIsInvalidArgumentWithFieldViolations() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let token = try #require(try await curl([
            "--data-binary", "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(providerToken())",
            fixture.base + "/token",
        ]).json?["access_token"] as? String)
        let body = #"{"message": {"token": "\#(ServeFixture.fcmToken)", "data": {"count": 3}}}"#
        let answer = try await curl([
            "--http2-prior-knowledge", "-H", "authorization: Bearer \(token)", "--data-binary", body,
            fixture.base + "/v1/projects/\(ServeFixture.project)/messages:send",
        ])
        #expect(answer.httpVersion == "2")
        #expect(answer.status == 400)
        let error = try #require(answer.json?["error"] as? [String: Any])
        #expect(error["status"] as? String == "INVALID_ARGUMENT")
        let details = try #require(error["details"] as? [[String: Any]])
        #expect(details.contains { $0["@type"] as? String == "type.googleapis.com/google.firebase.fcm.v1.FcmError" && $0["errorCode"] as? String == "INVALID_ARGUMENT" })
        let badRequest = try #require(details.first { $0["@type"] as? String == "type.googleapis.com/google.rpc.BadRequest" })
        let violations = try #require(badRequest["fieldViolations"] as? [[String: Any]])
        #expect(violations.contains { ($0["field"] as? String)?.hasPrefix("message.data") == true })
    }

    @Test func tokenEndpointRefusesOtherGrants() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let answer = try await curl(["--data-binary", "grant_type=password&username=a", fixture.base + "/token"])
        #expect(answer.status == 400)
        #expect(answer.json?["error"] as? String == "unsupported_grant_type")
    }
}
