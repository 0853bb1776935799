import Foundation
@testable import NSEBatch
import NSEHarness
@testable import NSEMedia
import NSEMediaServer
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import SDKTestSupport
import Testing

/// The Android side of `process`: firebase-messaging's image download (1 MiB, 5 s, BitmapFactory's formats)
/// against a real server on 127.0.0.1.
@Suite(.timeLimit(.minutes(1)))
struct AndroidImageCheckTests {
    /// The stalled server's test waits this long.
    private static let budget: Duration = .seconds(1)
    /// Every other test gets a budget it cannot run into, so a starved machine never turns its verdict into a time-out.
    private static let unreachableBudget: Duration = .seconds(50)

    private func message(image: String?, androidImage: String? = nil) throws -> FCMMessage {
        var notification: [String: JSONValue] = ["title": .string("Sale")]
        if let image { notification["image"] = .string(image) }
        var fields: [String: JSONValue] = ["token": .string("t"), "notification": .object(notification)]
        if let androidImage { fields["android"] = .object(["notification": .object(["image": .string(androidImage)])]) }
        return try #require(FCMMessage(root: ["message": .object(fields)]))
    }

    private func verify(_ response: ServedResponse, path: String = "/a.jpg", budget: Duration = unreachableBudget) async throws -> AndroidResult {
        let server = try cdn([path: response])
        defer { server.stop() }
        return await AndroidImageCheck(budget: budget).verify(try message(image: server.baseURL + path))
    }

    private func errors(_ result: AndroidResult) -> [DiagnosticCode] {
        result.diagnostics.filter { $0.severity == .error }.map(\.code)
    }

    @Test func aJPEGIsDecodedAndShown() async throws {
        let jpeg = try Fixture.jpeg(width: 80, height: 40)
        let result = try await verify(.ok(jpeg, contentType: "image/jpeg"))
        #expect(result.imageShown)
        #expect(errors(result).isEmpty)
        #expect(result.image?.format == .jpeg)
        #expect(result.image?.decoded == true)
        #expect(result.image?.width == 80 && result.image?.height == 40)
        #expect(result.image?.bytes == jpeg.count)
        #expect(result.notification?["title"] == .string("Sale"))
        // Loopback is plain http: Android's cleartext rule is a warning, not a verdict.
        #expect(result.diagnostics.map(\.code) == [.androidImageInsecureURL])
    }

    @Test func aPNGIsShownWhateverItsNameOrMIMEType() async throws {
        let result = try await verify(.ok(try Fixture.png(), contentType: "application/octet-stream"), path: "/banner")
        #expect(result.imageShown, "BitmapFactory decodes by content; there is no extension rule on Android")
        #expect(result.image?.format == .png)
    }

    @Test func anAnimatedGIFShowsItsFirstFrame() async throws {
        let result = try await verify(.ok(try Fixture.gif(frames: 3), contentType: "image/gif"), path: "/a.gif")
        #expect(result.imageShown)
        #expect(result.image?.frames == 3)
        #expect(result.diagnostics.contains { $0.code == .androidImageFirstFrame && $0.severity == .info })
    }

    @Test(arguments: [
        (Array("RIFF\u{24}\0\0\0WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 32), MediaFormat.webp),
        (Array("BM".utf8) + [UInt8](repeating: 0, count: 60), .bmp),
    ])
    func webPAndBMPAreRecognisedByTheirMagicOnly(bytes: [UInt8], format: MediaFormat) async throws {
        let result = try await verify(.ok(bytes, contentType: "image/\(format.rawValue)"))
        #expect(result.imageShown)
        #expect(result.image?.format == format)
        #expect(result.image?.decoded == false)
        #expect(errors(result).isEmpty)
    }

    @Test(arguments: [
        (Array("<!DOCTYPE html><html><body>gone</body></html>".utf8), "text/html"),
        (Array("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8), "image/svg+xml"),
        ([0, 0, 0, 24] + Array("ftypheic".utf8) + [UInt8](repeating: 0, count: 16), "image/heic"),
    ])
    func otherFormatsAreNotDecoded(bytes: [UInt8], contentType: String) async throws {
        let result = try await verify(.ok(bytes, contentType: contentType))
        #expect(!result.imageShown)
        #expect(errors(result) == [.androidImageUnsupportedFormat])
    }

    @Test func aCorruptPNGIsNotShown() async throws {
        var png = try Fixture.png(width: 64, height: 64)
        let idat = try #require(png.indices.first { Array(png[$0..<min($0 + 4, png.count)]) == Array("IDAT".utf8) })
        for offset in 8..<12 { png[idat + offset] ^= 0xFF }
        let result = try await verify(.ok(png, contentType: "image/png"))
        #expect(!result.imageShown)
        #expect(errors(result) == [.androidImageCorrupt])
    }

    @Test func exactlyOneMebibyteIsAccepted() async throws {
        let webp = Array("RIFF\u{24}\0\0\0WEBPVP8 ".utf8)
        let body = webp + [UInt8](repeating: 0, count: AndroidImageCheck.maxBytes - webp.count)
        let result = try await verify(.ok(body, contentType: "image/webp"))
        #expect(result.imageShown)
        #expect(result.image?.bytes == 1_048_576)
    }

    @Test func oneByteMoreIsRefused() async throws {
        let webp = Array("RIFF\u{24}\0\0\0WEBPVP8 ".utf8)
        let body = webp + [UInt8](repeating: 0, count: AndroidImageCheck.maxBytes + 1 - webp.count)
        let result = try await verify(.ok(body, contentType: "image/webp"))
        #expect(!result.imageShown)
        #expect(errors(result) == [.androidImageTooLarge])
    }

    @Test func anAnnouncedLengthOverTheLimitIsRefusedBeforeTheBody() async throws {
        let result = try await verify(ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .fileStream(.init(path: nil, length: 2_000_000))))
        #expect(errors(result) == [.androidImageTooLarge])
        #expect(result.diagnostics.first { $0.code == .androidImageTooLarge }?.message.contains("2000000") == true)
    }

    @Test func aBodyWithoutLengthIsCutAtTheLimit() async throws {
        let result = try await verify(ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .endless(byte: 0xFF)))
        #expect(errors(result) == [.androidImageTooLarge])
    }

    @Test func aStalledServerRunsOutTheFiveSecondWait() async throws {
        let started = ContinuousClock.now
        let result = try await verify(ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall), budget: Self.budget)
        let elapsed = started.duration(to: .now)
        #expect(errors(result) == [.androidImageTimeout])
        #expect(elapsed >= Self.budget, "the wait is not cut short")
    }

    @Test func anErrorStatusIsNotShown() async throws {
        let server = try cdn([:])
        defer { server.stop() }
        let result = await AndroidImageCheck(budget: Self.unreachableBudget).verify(try message(image: server.baseURL + "/gone.jpg"))
        #expect(errors(result) == [.androidImageHTTPStatus])
    }

    @Test func aClosedPortIsANetworkError() async throws {
        let url = SDKSamples.refusedOrigin + "/a.jpg"
        let result = await AndroidImageCheck(budget: Self.unreachableBudget).verify(try message(image: url))
        #expect(errors(result) == [.androidImageNetwork])
    }

    @Test(arguments: ["not a url", "/relative.jpg", "ftp://example.com/a.jpg"])
    func unusableURLsAreInvalid(url: String) async throws {
        let result = await AndroidImageCheck(budget: Self.unreachableBudget).verify(try message(image: url))
        #expect(errors(result) == [.androidImageInvalidURL])
        #expect(!result.imageShown)
    }

    @Test func androidNotificationImageWinsOverNotificationImage() async throws {
        let jpeg = try Fixture.jpeg()
        let server = try cdn(["/android.jpg": .ok(jpeg, contentType: "image/jpeg"), "/common.jpg": .ok(jpeg, contentType: "image/jpeg")])
        defer { server.stop() }
        let result = await AndroidImageCheck(budget: Self.unreachableBudget).verify(
            try message(image: server.baseURL + "/common.jpg", androidImage: server.baseURL + "/android.jpg"))
        #expect(result.imageShown)
        #expect(result.imageURL?.hasSuffix("/android.jpg") == true)
        #expect(server.requests.map(\.path) == ["/android.jpg"])
    }

    @Test func noImageOrNoNotificationMeansNothingToFetch() async throws {
        let plain = await AndroidImageCheck().verify(try message(image: nil))
        #expect(plain.diagnostics.map(\.code) == [.androidImageNone])
        #expect(!plain.imageShown)
        let dataOnly = await AndroidImageCheck().verify(try #require(FCMMessage(root: ["message": .object(["token": .string("t"), "data": .object(["k": .string("v")])])])))
        #expect(dataOnly.notification == nil)
        #expect(dataOnly.data == ["k": .string("v")])
        #expect(dataOnly.diagnostics.map(\.severity) == [.info])
    }
}

/// `--platform` in the pipeline: where the Android section goes and how it counts.
struct AndroidPipelineTests {
    private func pipeline(_ platform: Platform) -> Pipeline {
        var pipeline = Pipeline(device: loopbackProfile())
        pipeline.platform = platform
        // No test here expects a time-out: a budget a starved machine cannot run into.
        pipeline.androidBudget = .seconds(50)
        return pipeline
    }

    private func push(_ message: String) throws -> ReceivedPush {
        try PushReader.parse(Data(#"{"message": \#(message)}"#.utf8))
    }

    @Test func bothVerifiesEachSideWithItsOwnImage() async throws {
        let server = try cdn([
            "/ios.jpg": .ok(try Fixture.jpeg(), contentType: "image/jpeg"),
            "/android.webp": .ok(Array("RIFF\u{24}\0\0\0WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 32), contentType: "image/webp"),
        ])
        defer { server.stop() }
        let result = await pipeline(.both).run(try push("""
            {"token": "t", "notification": {"title": "T"},
             "android": {"notification": {"image": "\(server.baseURL)/android.webp"}},
             "apns": {"payload": {"aps": {"mutable-content": 1}}, "fcm_options": {"image": "\(server.baseURL)/ios.jpg"}}}
            """), input: "m.json")
        #expect(result.outcome == .modified)
        #expect(result.imageShown)
        #expect(result.android?.imageShown == true)
        #expect(result.android?.image?.format == .webp)
        #expect(result.timings["android"] != nil)
        #expect(result.exitStatus == 0)
    }

    @Test func anAndroidFailureFailsTheRun() async throws {
        let server = try cdn([:])
        defer { server.stop() }
        let result = await pipeline(.both).run(try push(#"{"token": "t", "notification": {"title": "T"}, "android": {"notification": {"image": "\#(server.baseURL)/gone.png"}}}"#), input: "m.json")
        #expect(result.outcome == .original, "iOS: no mutable-content, no image asked for")
        #expect(result.android?.diagnostics.contains { $0.code == .androidImageHTTPStatus } == true)
        #expect(result.exitStatus == 1)
    }

    @Test func androidOnlySkipsIOSAndItsLint() async throws {
        let server = try cdn(["/a.png": .ok(try Fixture.png(), contentType: "image/png")])
        defer { server.stop() }
        let result = await pipeline(.android).run(try push(#"{"token": "t", "notification": {"title": "T", "image": "\#(server.baseURL)/a.png"}, "apns": {"headers": {"apns-priority": "7"}}}"#), input: "m.json")
        #expect(result.outcome == .notEmulated)
        #expect(!result.extensionInvoked)
        #expect(result.diagnostics.isEmpty, "APNs header findings are iOS's: \(result.diagnostics)")
        #expect(result.android?.imageShown == true)
        #expect(result.exitStatus == 0)
        #expect(server.requests.count == 1, "only the Android download")
    }

    @Test func aMessageFCMRefusesIsNotDownloadedForAndroid() async throws {
        let server = try cdn(["/a.png": .ok(try Fixture.png(), contentType: "image/png")])
        defer { server.stop() }
        let result = await pipeline(.android).run(try push(#"{"notification": {"image": "\#(server.baseURL)/a.png"}}"#), input: "m.json")
        #expect(result.outcome == .rejected)
        #expect(result.diagnostics.map(\.code) == [.fcmTargetCount])
        #expect(result.android?.imageShown == false)
        #expect(server.requests.isEmpty)
    }

    @Test func anAPNsPayloadHasNoAndroidSide() async {
        let result = await pipeline(.both).run(firebasePayload(imageURL: nil), input: "p.json")
        #expect(result.android?.diagnostics.map(\.code) == [.androidNotFCM])
        #expect(result.codes == [.mediaNone])
        #expect(result.exitStatus == 0)
    }

    @Test func theDefaultIsIOSOnly() async {
        let result = await Pipeline(device: loopbackProfile()).run(firebasePayload(imageURL: nil), input: "p.json")
        #expect(result.android == nil)
    }
}
