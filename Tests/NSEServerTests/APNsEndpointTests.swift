import Foundation
@testable import NSEServer
import Testing

/// Each APNs answer the emulator gives (device-behaviour.md section 8), sent by curl over HTTP/2 with prior
/// knowledge: the status, the `reason` body and the `apns-id` header, as Apple documents them.
@Suite(.timeLimit(.minutes(10)))
struct APNsEndpointTests {
    @Test func acceptedPushIsAnswered200WithTheSendersApnsIDAndShownOnThePhone() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let id = "123E4567-E89B-12D3-A456-426614174000"
        let answer = try await apns(fixture, headers: ["apns-id": id, "apns-push-type": "alert"])
        #expect(answer.httpVersion == "2")
        #expect(answer.status == 200)
        #expect(answer.body.isEmpty)
        #expect(answer.headers["apns-id"] == id)
        // The development environment also names the push for the Push Notifications Console's delivery log.
        #expect(answer.headers["apns-unique-id"].flatMap(UUID.init(uuidString:)) != nil)

        let shown = try await fixture.notifications()
        #expect(shown.count == 1)
        let first = try #require(shown.first)
        #expect(first["id"] as? String == id)
        #expect(first["status"] as? String == "delivered")
        let phone = try #require(first["phone"] as? [String: Any])
        #expect(phone["shown"] as? Bool == true)
        let content = try #require(phone["content"] as? [String: Any])
        #expect(content["title"] as? String == "Order shipped")
        #expect(content["body"] as? String == "Arrives Tuesday")
        // The diagnostics and verdict as `nse process --format json` gives them.
        let result = try #require(first["result"] as? [String: Any])
        #expect(result["outcome"] as? String == "original")
        #expect(result["diagnostics"] is [Any])
        let request = try #require(first["request"] as? [String: Any])
        #expect(request["protocol"] as? String == "HTTP/2")
        #expect(request["path"] as? String == "/3/device/\(ServeFixture.token)")
    }

    @Test func apnsIDIsGeneratedWhenTheSenderGivesNone() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let answer = try await apns(fixture)
        #expect(answer.status == 200)
        #expect(answer.headers["apns-id"].flatMap(UUID.init(uuidString:)) != nil)
    }

    @Test func productionPushHasNoUniqueID() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let answer = try await apns(fixture, token: ServeFixture.productionToken, extra: ["-H", "host: api.push.apple.com"])
        #expect(answer.status == 200)
        #expect(answer.headers["apns-unique-id"] == nil)
    }

    @Test func unknownTokenIsBadDeviceToken() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        try await expectRefusal(apns(fixture, token: String(repeating: "c", count: 64)), 400, "BadDeviceToken")
        try await expectRefusal(apns(fixture, token: "not-hex"), 400, "BadDeviceToken")
        #expect(try await fixture.notifications().isEmpty)
    }

    @Test func sandboxTokenSentToTheProductionHostIsBadDeviceToken() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        try await expectRefusal(apns(fixture, extra: ["-H", "host: api.push.apple.com"]), 400, "BadDeviceToken")
        try await expectRefusal(apns(fixture, token: ServeFixture.productionToken, extra: ["-H", "host: api.sandbox.push.apple.com"]), 400, "BadDeviceToken")
    }

    /// A backend names Apple's host in `:authority` as it likes: any case, with or without the port. Any other host
    /// (the emulator's own address, a look-alike) names no environment, so each device's own applies.
    @Test func theHostNamesTheEnvironmentWhateverItsCaseAndPort() {
        #expect(APNsEndpoint.environment(host: "api.push.apple.com") == .production)
        #expect(APNsEndpoint.environment(host: "API.Push.Apple.COM:443") == .production)
        #expect(APNsEndpoint.environment(host: "api.sandbox.push.apple.com:2197") == .development)
        #expect(APNsEndpoint.environment(host: "Api.Development.Push.Apple.Com") == .development)
        #expect(APNsEndpoint.environment(host: "127.0.0.1:8085") == nil)
        #expect(APNsEndpoint.environment(host: "api.push.apple.com.example") == nil)
        #expect(APNsEndpoint.environment(host: "xapi.push.apple.com") == nil)
        #expect(APNsEndpoint.environment(host: "") == nil)
        #expect(APNsEndpoint.environment(host: nil) == nil)
    }

    @Test func acceptAnyTokenRegistersADefaultIPhone() async throws {
        let fixture = try await ServeFixture.start(acceptAnyToken: true)
        defer { Task { await fixture.stop() } }
        let token = String(repeating: "d", count: 64)
        #expect(try await apns(fixture, token: token).status == 200)
        let devices = try await curl([fixture.base + "/emulator/v1/devices"]).json?["devices"] as? [[String: Any]]
        let registered = try #require(devices?.first { $0["key"] as? String == token })
        #expect(registered["bundleId"] as? String == ServeFixture.topic)
        #expect(try await fixture.notifications(token).count == 1)
    }

    /// A sender of random tokens cannot grow the emulator without bound: `--accept-any-token` registers devices up
    /// to the control API's cap (100,000 in all), and past it an unknown token is what it is to APNs, BadDeviceToken.
    @Test func acceptAnyTokenStopsAtTheDeviceCap() async throws {
        // A devices file one device short of the cap.
        let entries = (1..<100_000).map { #"{"apns":{"token":"\#(String(format: "%064x", $0))"},"bundleId":"\#(ServeFixture.topic)"}"# }
        let fixture = try await ServeFixture.start(devices: #"{"devices":[\#(entries.joined(separator: ","))]}"#, acceptAnyToken: true)
        defer { Task { await fixture.stop() } }
        let last = String(repeating: "d", count: 64)
        #expect(try await apns(fixture, token: last).status == 200)
        let refused = String(repeating: "e", count: 64)
        try await expectRefusal(apns(fixture, token: refused), 400, "BadDeviceToken")
        #expect(try await curl([fixture.base + "/emulator/v1/devices/\(refused)/notifications"]).status == 404)
        // The devices registered before keep being served.
        #expect(try await apns(fixture, token: last).status == 200)
        #expect(try await fixture.notifications(last).count == 2)
    }

    @Test func requestFormRefusals() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        try await expectRefusal(apns(fixture, path: "/3/device/"), 400, "MissingDeviceToken")
        try await expectRefusal(apns(fixture, path: "/3/notdevice/\(ServeFixture.token)"), 404, "BadPath")
        try await expectRefusal(apns(fixture, method: "GET"), 405, "MethodNotAllowed")
        try await expectRefusal(apns(fixture, extra: ["-H", "apns-topic: \(ServeFixture.topic)"]), 400, "DuplicateHeaders")
        try await expectRefusal(apns(fixture, topic: nil), 400, "MissingTopic")
        try await expectRefusal(apns(fixture, topic: "com.example.other"), 400, "DeviceTokenNotForTopic")
        try await expectRefusal(apns(fixture, payload: ""), 400, "PayloadEmpty")
        try await expectRefusal(apns(fixture, payload: #"{"aps": {"alert": "#), 400, "BadPayload")
        let large = #"{"aps":{"alert":"\#(String(repeating: "x", count: 4100))"}}"#
        try await expectRefusal(apns(fixture, payload: large), 413, "PayloadTooLarge")
        #expect(try await fixture.notifications().isEmpty)
    }

    @Test func providerTokenRefusals() async throws {
        let now = Date()
        let fixture = try await ServeFixture.start(clock: { now })
        defer { Task { await fixture.stop() } }
        try await expectRefusal(apns(fixture, authorization: nil), 403, "MissingProviderToken")
        try await expectRefusal(apns(fixture, authorization: "bearer not.a-token"), 403, "InvalidProviderToken")
        try await expectRefusal(apns(fixture, authorization: "bearer \(providerToken(header: #"{"alg":"HS256","kid":"K"}"#))"), 403, "InvalidProviderToken")
        // Older than an hour: expired. Just under an hour: still good.
        try await expectRefusal(apns(fixture, authorization: "bearer \(providerToken(issuedAt: now - 3601))"), 403, "ExpiredProviderToken")
        #expect(try await apns(fixture, authorization: "bearer \(providerToken(issuedAt: now - 3500))").status == 200)
    }

    /// The payload and header rules are the checks stage's (`nse lint`'s): each refusing finding is APNs's reason.
    @Test func checksStageRefusalsCarryApplesReasons() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        try await expectRefusal(apns(fixture, headers: ["apns-push-type": "banner"]), 400, "InvalidPushType")
        try await expectRefusal(apns(fixture, headers: ["apns-priority": "7"]), 400, "BadPriority")
        try await expectRefusal(apns(fixture, headers: ["apns-collapse-id": String(repeating: "c", count: 65)]), 400, "BadCollapseId")
        try await expectRefusal(apns(fixture, headers: ["apns-expiration": "tomorrow"]), 400, "BadExpirationDate")
        let badID = try await apns(fixture, headers: ["apns-id": "not-a-uuid"])
        try expectRefusal(badID, 400, "BadMessageId")
        // The sender's apns-id was no UUID: the answer carries one APNs made.
        #expect(badID.headers["apns-id"].flatMap(UUID.init(uuidString:)) != nil)
        try await expectRefusal(apns(fixture, payload: #"{"data": 1}"#), 400, "BadPayload")
        #expect(try await fixture.notifications().isEmpty)
    }

    @Test func plainHTTP1IsServedOnTheSamePort() async throws {
        let fixture = try await ServeFixture.start()
        defer { Task { await fixture.stop() } }
        let answer = try await curl([
            "--http1.1", "-H", "authorization: bearer \(providerToken())", "-H", "apns-topic: \(ServeFixture.topic)",
            "--data-binary", #"{"aps":{"alert":"Hi"}}"#, fixture.base + "/3/device/\(ServeFixture.token)",
        ])
        #expect(answer.httpVersion == "1.1")
        #expect(answer.status == 200)
    }

    /// Fails the test unless `answer` is APNs's refusal: the status, `{"reason": ...}` and an apns-id.
    private func expectRefusal(_ answer: CurlAnswer, _ status: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(answer.status == status, "expected \(status) \(reason), got \(answer.status) \(String(decoding: answer.body, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(answer.json?["reason"] as? String == reason, "body: \(String(decoding: answer.body, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(answer.headers["apns-id"].flatMap(UUID.init(uuidString:)) != nil, sourceLocation: sourceLocation)
    }
}
