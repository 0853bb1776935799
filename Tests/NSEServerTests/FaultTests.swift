import Foundation
import NSEServer
import Testing

/// Faults on demand: a backend's retry and back-off, tested against the answers an overloaded service gives.
@Suite(.timeLimit(.minutes(10)))
struct FaultTests {
    private func fault(_ fixture: ServeFixture, _ body: String) async throws -> CurlAnswer {
        try await curl(["-H", "content-type: application/json", "--data-binary", body, fixture.base + "/emulator/v1/faults"])
    }

    @Test func nextAPNsRequestsGetTheFaultThenServiceResumes() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        #expect(try await fault(fixture, #"{"service": "apns", "status": 503, "count": 2}"#).status == 200)
        for _ in 0..<2 {
            let answer = try await apns(fixture)
            #expect(answer.status == 503)
            #expect(answer.json?["reason"] as? String == "ServiceUnavailable")
            #expect(answer.headers["apns-id"].flatMap(UUID.init(uuidString:)) != nil)
        }
        #expect(try await apns(fixture).status == 200)
        #expect(try await fault(fixture, #"{"service": "apns", "status": 429, "count": 1}"#).status == 200)
        let limited = try await apns(fixture)
        #expect(limited.status == 429)
        #expect(limited.json?["reason"] as? String == "TooManyRequests")
        // Refused pushes reach no phone.
        #expect(try await fixture.notifications().count == 1)
    }

    @Test func firebaseAdminRetriesA503AndRaisesQuotaExceededOnA429() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        // firebase-admin retries 500 and 503 itself (its DEFAULT_RETRY_CONFIG): one 503 ends in a delivered push.
        #expect(try await fault(fixture, #"{"service": "fcm", "status": 503, "count": 1, "retryAfter": 0}"#).status == 200)
        let retried = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send", ServeFixture.fcmToken])
        #expect(retried["name"] is String, "firebase-admin answered \(retried)")
        #expect(try await fixture.notifications().count == 1)

        // A 429 with Retry-After is retried too (urllib3 honours the header), so this one has none.
        #expect(try await fault(fixture, #"{"service": "fcm", "status": 429, "count": 1}"#).status == 200)
        let limited = try await python("fcm_admin_client.py", [String(fixture.port), ServeFixture.project, "send", ServeFixture.fcmToken])
        #expect(limited["exception"] as? String == "QuotaExceededError")
        #expect(limited["http_status"] as? Int == 429)
    }

    @Test func fcmFaultCarriesRetryAfter() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        #expect(try await fault(fixture, #"{"service": "fcm", "status": 503, "count": 1, "retryAfter": 7}"#).status == 200)
        let answer = try await curl(["--data-binary", "{}", fixture.base + "/v1/projects/\(ServeFixture.project)/messages:send"])
        #expect(answer.status == 503)
        #expect(answer.headers["retry-after"] == "7")
        let error = try #require(answer.json?["error"] as? [String: Any])
        #expect(error["status"] as? String == "UNAVAILABLE")
        #expect((error["details"] as? [[String: Any]])?.first?["errorCode"] as? String == "UNAVAILABLE")
    }

    @Test func badFaultRequestsAreRefused() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        for body in [#"{"service": "apns", "status": 404, "count": 1}"#, #"{"service": "sms", "status": 503, "count": 1}"#, #"{"service": "apns", "status": 503}"#, "nope"] {
            #expect(try await fault(fixture, body).status == 400, "\(body)")
        }
        #expect(try await apns(fixture).status == 200)
    }
}
