import Foundation
import NSEMedia
import NSEMediaServer
import NSEServer
import Testing

/// `GET /phones/notifications/<seq>`: how the phones page draws an Android phone's notification (the HTML report's
/// renderer), with the image the FCM SDK would show: the large icon collapsed, the big picture expanded, and no image
/// when none was asked for or it failed its checks. Sent as a backend sends, to the emulator's FCM endpoint.
@Suite(.timeLimit(.minutes(5)))
struct PhoneNotificationViewsTests {
    @Test func anAndroidPhoneDrawsTheImageItsNotificationShows() async throws {
        let media = try LocalMediaFolder(folder: packageRoot.appendingPathComponent("samples/media"))
        defer { media.stop() }
        let fixture = try await ServeFixture.start(pipeline: PhonePipeline.Defaults(hostMapping: MediaHostMapping(origin: try #require(URL(string: media.server.baseURL)))))
        defer { Task { await fixture.stop() } }
        let bearer = try #require(try await curl([
            "--data-urlencode", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", "--data-urlencode", "assertion=\(providerToken())",
            fixture.base + "/token",
        ]).json?["access_token"] as? String)

        /// Sends a notification (with `image`, if any) to Ben's Pixel; the page's views of it once delivered.
        func views(title: String, image: String?) async throws -> String {
            var notification = ["title": title, "body": "New colours"]
            notification["image"] = image
            let body = try JSONSerialization.data(withJSONObject: ["message": ["token": ServeFixture.androidToken, "notification": notification]])
            let sent = try await curl([
                "-H", "authorization: Bearer \(bearer)", "-H", "content-type: application/json", "--data-binary", String(decoding: body, as: UTF8.self),
                fixture.base + "/v1/projects/\(ServeFixture.project)/messages:send",
            ])
            #expect(sent.status == 200, "\(String(decoding: sent.body, as: UTF8.self))")
            let newest = try #require(try await fixture.notifications(ServeFixture.androidToken).first)
            let seq = try #require(newest["seq"] as? Int)
            let page = try await curl([fixture.base + "/phones/notifications/\(seq)"])
            #expect(page.status == 200)
            return try #require(page.json?["views"] as? String)
        }

        let shown = try await views(title: "With its image", image: "https://media.example.com/img/sale.jpg")
        #expect(shown.contains("With its image"))
        // sale.jpg is 2:1, wider than 16:9: the large icon is capped at 16:9 of its height.
        #expect(shown.contains(#"<img class="large-icon" alt="large icon" width="71" height="40" src="data:image/jpeg;base64,"#), "\(shown.prefix(600))")
        #expect(shown.contains(#"<img class="picture" alt="big picture""#))

        let none = try await views(title: "No image asked for", image: nil)
        #expect(none.contains("No image asked for"))
        #expect(!none.contains("<img"))

        let broken = try await views(title: "Image that does not decode", image: "https://media.example.com/img/corrupt.png")
        #expect(broken.contains("Image that does not decode"))
        #expect(!broken.contains("<img"), "BitmapFactory returns null: the notification shows without the image")
        #expect(broken.contains("image not shown: see the findings"))
    }
}
