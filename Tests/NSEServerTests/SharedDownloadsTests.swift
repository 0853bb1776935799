import Foundation
import NSEMedia
import NSEMediaServer
import NSEServer
import Synchronization
import Testing

/// Pushes delivered in one burst share each image's download, as `nse batch` shares them: a campaign to many phones
/// fetches its image once. Once every push of the burst is delivered, the next push downloads afresh, so a test that
/// waits for its deliveries before changing what a URL serves sees the change. `--no-shared-downloads` gives every
/// push its own download, as each real phone makes.
@Suite(.timeLimit(.minutes(5)))
struct SharedDownloadsTests {
    static let imagePayload = #"{"aps":{"alert":{"title":"Sale"},"mutable-content":1},"fcm_options":{"image":"https://media.example.com/gift-card.jpg"}}"#

    /// The loopback media server, holding every answer until the test opens it: the pushes sent meanwhile are all
    /// waiting on the first one's download, so they are one burst whatever the machine's speed.
    final class HeldImageServer: Sendable {
        /// Shut until `open()`; a request that waited passes the opening on to the next one waiting.
        final class Gate: Sendable {
            private let opened = Mutex(false)
            private let semaphore = DispatchSemaphore(value: 0)

            func pass() {
                guard !opened.withLock({ $0 }) else { return }
                semaphore.wait()
                semaphore.signal()
            }

            func open() {
                opened.withLock { $0 = true }
                semaphore.signal()
            }
        }

        let server: LoopbackHTTPServer
        private let gate = Gate()

        init() throws {
            let image = Array(try Data(contentsOf: packageRoot.appending(path: "samples/media/img/gift-card.jpg")))
            let gate = gate
            server = try LoopbackHTTPServer { _ in
                gate.pass()
                return .ok(image, contentType: "image/jpeg")
            }
        }

        func open() {
            gate.open()
        }

        /// Opens the gate first: a test that failed before opening it must not leave an answer waiting, which the
        /// server's stop would wait for.
        func stop() {
            gate.open()
            server.stop()
        }

        var imageRequests: Int { server.requests.filter { $0.path == "/gift-card.jpg" }.count }
    }

    @Test func pushesToTwoPhonesInOneBurstShareOneDownloadAndTheNextBurstDownloadsAfresh() async throws {
        let media = try HeldImageServer()
        defer { media.stop() }
        let fixture = try await ServeFixture.start(
            pipeline: PhonePipeline.Defaults(hostMapping: MediaHostMapping(origin: try #require(URL(string: media.server.baseURL)))))
        defer { Task { await fixture.stop() } }

        for token in [ServeFixture.token, ServeFixture.productionToken] {
            for _ in 0..<4 {
                #expect(try await apns(fixture, token: token, payload: Self.imagePayload).status == 200)
            }
        }
        media.open()
        for token in [ServeFixture.token, ServeFixture.productionToken] {
            let shown = try await fixture.notifications(token)
            #expect(shown.count == 4)
            #expect(shown.allSatisfy { ($0["phone"] as? [String: Any])?["imageShown"] as? Bool == true }, "\(shown)")
        }
        #expect(media.imageRequests == 1, "eight pushes to two phones in one burst download the image once")

        // Every push delivered (`?settled=1` answered above): the next push starts a new burst and downloads again.
        #expect(try await apns(fixture, payload: Self.imagePayload).status == 200)
        let again = try await fixture.notifications()
        #expect(again.count == 5)
        #expect((again.first?["phone"] as? [String: Any])?["imageShown"] as? Bool == true)
        #expect(media.imageRequests == 2)
    }

    @Test func withoutSharingEveryPushDownloadsItsOwnImage() async throws {
        let media = try HeldImageServer()
        defer { media.stop() }
        let fixture = try await ServeFixture.start(
            pipeline: PhonePipeline.Defaults(hostMapping: MediaHostMapping(origin: try #require(URL(string: media.server.baseURL)))),
            sharedDownloads: false)
        defer { Task { await fixture.stop() } }

        for _ in 0..<3 {
            #expect(try await apns(fixture, payload: Self.imagePayload).status == 200)
        }
        media.open()
        let shown = try await fixture.notifications()
        #expect(shown.count == 3)
        #expect(shown.allSatisfy { ($0["phone"] as? [String: Any])?["imageShown"] as? Bool == true })
        #expect(media.imageRequests == 3)
    }
}
