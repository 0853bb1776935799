import Foundation
import NSEHarness
import NSEMedia
import NSEPipeline
import NSEPush
import NSETestSupport
import Testing

/// A push's image request is read once: the push model reads `fcm_options.image` (`ReceivedPush.imageRequest`), the
/// checks judge that reading, and the built-in helper's plan parses its URL once; the helper's run takes the plan's
/// decision rather than reading the payload again. Counted in debug builds (`ImageRequestParses`), per URL.
@Suite(.timeLimit(.minutes(1)))
struct ImageRequestParseTests {
    private static func push(_ url: String) throws -> ReceivedPush {
        try PushReader.parse(Data(#"""
        {"aps": {"alert": {"title": "Sale"}, "mutable-content": 1}, "fcm_options": {"image": "\#(url)"}}
        """#.utf8))
    }

    @Test func aPushThroughThePipelineParsesItsImageRequestOnce() async throws {
        let url = "https://cdn.example.com/\(UUID().uuidString).png"
        ImageRequestParses.watch(url)
        let png = [UInt8](try Data(contentsOf: RepositoryFolders.samples.appendingPathComponent("media/img/back-in-stock.png")))
        let clock = ManualClock()
        let pipeline = Pipeline(device: DeviceProfile())
            .with(transport: ScriptedTransport([url: .ok(png, contentType: "image/png")], clock: clock), clock: clock)

        let result = await pipeline.run(try Self.push(url))

        #expect(result.imageShown)
        let parses = ImageRequestParses.count(url)
        #expect(parses.keys == 1, "fcm_options.image read \(parses.keys) times")
        #expect(parses.urls == 1, "the image URL parsed \(parses.urls) times")
    }

    /// `nse lint` foretells the download from the same reading: one of each too.
    @Test func theChecksAloneParseItOnce() throws {
        let url = "https://cdn.example.com/\(UUID().uuidString).png"
        ImageRequestParses.watch(url)
        let checks = PushChecks.run(try Self.push(url))
        #expect(checks.imageRequest?.url == url)
        let parses = ImageRequestParses.count(url)
        #expect(parses.keys == 1)
        #expect(parses.urls == 1)
    }
}
