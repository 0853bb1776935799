import Foundation
import NSEMedia
import NSEMediaServer
import NSEPush
import NSEServer
import Testing

/// A push whose delivery waits on nothing (no extension runs, no image is downloaded) is delivered before its
/// sender's answer: a backend's test reads what the phone shows right after the 200, without waiting, even while
/// every delivery worker is held by image downloads that do not end. A push whose delivery waits is answered
/// without waiting for it.
@Suite(.timeLimit(.minutes(5)))
struct DeliveredAtOnceTests {
    @Test func aTextPushIsShownWhenItsAnswerArrivesWhileImageDownloadsStall() async throws {
        let stalled = try LoopbackHTTPServer { _ in ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall) }
        var profile = DeviceProfile()
        // Longer than the test: the image pushes stay pending until the media server stops.
        profile.timeBudget = .seconds(600)
        let fixture = try await ServeFixture.start(
            pipeline: PhonePipeline.Defaults(profile: profile, hostMapping: MediaHostMapping(origin: try #require(URL(string: stalled.baseURL)))))

        // More image pushes than the server runs deliveries at once (32): every worker waits on a download.
        let imagePushes = 40
        let imagePayload = #"{"aps":{"alert":{"title":"Sale"},"mutable-content":1},"fcm_options":{"image":"https://media.example.com/sale.jpg"}}"#
        for _ in 0..<imagePushes {
            #expect(try await apns(fixture, payload: imagePayload).status == 200)
        }
        let textID = "123E4567-E89B-12D3-A456-426614174301"
        #expect(try await apns(fixture, headers: ["apns-id": textID]).status == 200)

        // Not `?settled=1`: the list as it is the moment the answer came.
        let listed = try await curl([fixture.base + "/emulator/v1/devices/\(ServeFixture.token)/notifications?limit=100"])
        let notifications = try #require(listed.json?["notifications"] as? [[String: Any]])
        let text = try #require(notifications.first)
        #expect(text["id"] as? String == textID)
        #expect(text["status"] as? String == "delivered")
        #expect((text["phone"] as? [String: Any])?["shown"] as? Bool == true)
        #expect(notifications.dropFirst().allSatisfy { $0["status"] as? String == "pending" }, "the image pushes wait on their downloads")
        #expect(notifications.count == imagePushes + 1)

        // In the journal the text push's delivery line follows its push line and names that line's position.
        #expect(try fixture.pushesDeliveredInTheirWrite(id: textID) == 1)

        // The downloads end when the media server stops; every image push is then delivered (its image failed).
        stalled.stop()
        let settled = try await fixture.notifications()
        #expect(settled.count == imagePushes + 1)
        #expect(settled.allSatisfy { $0["status"] as? String == "delivered" })

        // A restart reads the text push back delivered, from the lines written together.
        await fixture.stop(keepingData: true)
        let restarted = try await ServeFixture.start(data: fixture.data)
        defer { Task { await restarted.stop() } }
        let again = try await curl([restarted.base + "/emulator/v1/devices/\(ServeFixture.token)/notifications?limit=1"])
        let first = try #require((again.json?["notifications"] as? [[String: Any]])?.first)
        #expect(first["id"] as? String == textID)
        #expect(first["status"] as? String == "delivered")
    }
}
