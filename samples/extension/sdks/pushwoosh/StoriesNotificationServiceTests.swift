// Runs the stories extension (PushwooshNotificationUI's prefetch before Pushwoosh's own processing) against the
// samples' loopback CDN.
import Foundation
import NSEHarness
import NSEKit
import SDKTestSupport
import Testing

struct StoriesNotificationServiceTests {
    @Test(.timeLimit(.minutes(1)))
    func theStoryImagesAreFetchedBeforePushwooshAttachesItsOwn() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        var harness = ExtensionHarness(hostMapping: URL(string: server.baseURL).map(MediaHostMapping.init(origin:)))
        harness.measuresMemory = false
        let payload = """
            {"aps": {"alert": {"title": "New in", "body": "Swipe through"}, "mutable-content": 1}, "p": "3b1-Fv4Hk8G2zA1q", "pw_msg": "1",
             "attachment": "https://media.example.com/img/sale.jpg",
             "pw_stories": {"pages": [{"image": "https://media.example.com/img/gift-card.jpg", "duration": 5},
                                      {"image": "https://media.example.com/img/flash-deal.gif"}, {"image": "not a url"}]}}
            """
        let delivered = try await harness.run(StoriesNotificationService.self, payload: payload)
        #expect(delivered.imageShown, "\(delivered.diagnostics)")
        let fetched = delivered.activity.requests.map { URL(string: $0.url)?.path ?? "" }
        #expect(Set(fetched) == ["/img/gift-card.jpg", "/img/flash-deal.gif", "/img/sale.jpg"])
        #expect(delivered.activity.requests.allSatisfy { $0.outcome == .completed })
    }
}
