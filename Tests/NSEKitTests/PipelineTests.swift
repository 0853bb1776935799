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

/// The whole path, push to what the phone shows, against a real HTTP server on 127.0.0.1 and the real codecs.
struct PipelineTests {
    private func run(
        _ push: ReceivedPush, profile: DeviceProfile = loopbackProfile(),
        changes: ContentChanges = ContentChanges(titleSuffix: " [modified]"), saveTo folder: URL? = nil
    ) async -> ProcessResult {
        await Pipeline(device: profile, changes: changes).run(push, input: "test.json", attachmentDirectory: folder)
    }

    @Test func aValidJPEGIsShownWithTheContentChanges() async throws {
        let jpeg = try Fixture.jpeg(width: 120, height: 80)
        let server = try cdn(["/sale.jpg": .ok(jpeg, contentType: "image/jpeg")])
        defer { server.stop() }
        let out = try TemporaryFolder()

        let result = await run(firebasePayload(imageURL: server.baseURL + "/sale.jpg"), saveTo: out.url)

        #expect(result.outcome == .modified)
        #expect(result.imageShown)
        #expect(result.extensionInvoked)
        #expect(result.exitStatus == 0)
        #expect(result.errorCodes.isEmpty)
        let content = try #require(result.content)
        #expect(content.title == "Sale [modified]")
        #expect(content.body == "50% off today")
        let attachment = try #require(content.attachments.first)
        #expect(content.attachments.count == 1)
        #expect(attachment.type == "public.jpeg")
        #expect(attachment.width == 120 && attachment.height == 80 && attachment.frames == 1)
        #expect(attachment.bytes == jpeg.count)
        let hasher = SHA256()
        hasher.update(jpeg)
        #expect(attachment.sha256 == hasher.finalizeHex())
        let saved = try #require(attachment.file)
        #expect(saved.hasSuffix("attachment.jpg"))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: saved))) == jpeg)
    }

    @Test func pngAndAnimatedGIFAreDecodedFully() async throws {
        let server = try cdn([
            "/a.png": .ok(try Fixture.png(width: 30, height: 20), contentType: "image/png"),
            "/b.gif": .ok(try Fixture.gif(width: 16, height: 16, frames: 4), contentType: "image/gif"),
        ])
        defer { server.stop() }
        let png = await run(firebasePayload(imageURL: server.baseURL + "/a.png"))
        #expect(png.content?.attachments.first?.type == "public.png")
        #expect(png.content?.attachments.first?.width == 30)
        let gif = await run(firebasePayload(imageURL: server.baseURL + "/b.gif"))
        #expect(gif.imageShown)
        #expect(gif.content?.attachments.first?.type == "com.compuserve.gif")
        #expect(gif.content?.attachments.first?.frames == 4)
    }

    @Test func anExtensionlessURLTakesItsTypeFromAnImageMIMEType() async throws {
        let server = try cdn(["/hero": .ok(try Fixture.jpeg(), contentType: "image/jpeg")])
        defer { server.stop() }
        let result = await run(firebasePayload(imageURL: server.baseURL + "/hero"))
        #expect(result.imageShown)
        #expect(result.content?.attachments.first?.type == "public.jpeg")
    }

    @Test func anExtensionlessURLServedAsOctetStreamIsUnrecognized() async throws {
        let server = try cdn(["/banner": .ok(try Fixture.jpeg(), contentType: "application/octet-stream")])
        defer { server.stop() }
        let result = await run(firebasePayload(imageURL: server.baseURL + "/banner"))
        #expect(result.outcome == .modifiedWithoutAttachment)
        #expect(!result.imageShown)
        #expect(result.errorCodes == [.mediaUnrecognizedType])
        #expect(result.diagnostics.first { $0.code == .mediaUnrecognizedType }?.message.contains(".jpg") == true)
        #expect(result.content?.title == "Sale [modified]")
        #expect(result.content?.attachments.isEmpty == true)
        #expect(result.exitStatus == 1)
    }

    @Test func webPIsRefusedAsAnAttachmentType() async throws {
        let webp = Array("RIFF\u{24}\0\0\0WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 32)
        let server = try cdn(["/p.webp": .ok(webp, contentType: "image/webp")])
        defer { server.stop() }
        let result = await run(firebasePayload(imageURL: server.baseURL + "/p.webp"))
        #expect(result.errorCodes == [.mediaUnsupportedFormat])
        #expect(result.outcome == .modifiedWithoutAttachment)
    }

    @Test func plainHTTPIsBlockedByAppTransportSecurityUnlessAllowed() async throws {
        let server = try cdn(["/a.jpg": .ok(try Fixture.jpeg(), contentType: "image/jpeg")])
        defer { server.stop() }
        var strict = loopbackProfile()
        strict.allowsHTTP = false
        let blocked = await run(firebasePayload(imageURL: server.baseURL + "/a.jpg"), profile: strict)
        #expect(blocked.errorCodes == [.mediaInsecureURL])
        #expect(server.requests.isEmpty, "ATS blocks the request before it is sent")
        let allowed = await run(firebasePayload(imageURL: server.baseURL + "/a.jpg"))
        #expect(allowed.imageShown)
    }

    @Test func anErrorStatusIsReportedEvenThoughFirebaseSavesTheBody() async throws {
        let server = try cdn([:])
        defer { server.stop() }
        let result = await run(firebasePayload(imageURL: server.baseURL + "/gone.jpg"))
        #expect(result.errorCodes == [.mediaHTTPStatus])
        #expect(result.diagnostics.first?.message.contains("404") == true)
    }

    @Test func redirectsAreFollowedAndLoopsStop() async throws {
        let jpeg = try Fixture.jpeg()
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/r1": .redirect(to: "/r2")
            case "/r2": .redirect(to: "/final.jpg", status: 301)
            case "/final.jpg": .ok(jpeg, contentType: "image/jpeg")
            case "/loop": .redirect(to: "/loop?\(request.query ?? "")x")
            default: .notFound
            }
        }
        defer { server.stop() }
        let followed = await run(firebasePayload(imageURL: server.baseURL + "/r1"))
        #expect(followed.imageShown)
        // The name comes from the final URL: "final.jpg".
        #expect(followed.content?.attachments.first?.type == "public.jpeg")
        let loop = await run(firebasePayload(imageURL: server.baseURL + "/loop"))
        #expect(loop.errorCodes == [.mediaTooManyRedirects])
        #expect(server.requests.filter { $0.path == "/loop" }.count == 17, "the first request and 16 redirects")
    }

    @Test func aCorruptPNGIsDroppedBySystemValidation() async throws {
        var png = try Fixture.png(width: 64, height: 64)
        // Flip bytes inside the first IDAT chunk's data: its CRC no longer matches.
        let idat = try #require(png.indices.first { Array(png[$0..<min($0 + 4, png.count)]) == Array("IDAT".utf8) })
        for offset in 8..<12 { png[idat + offset] ^= 0xFF }
        let server = try cdn(["/c.png": .ok(png, contentType: "image/png")])
        defer { server.stop() }
        let result = await run(firebasePayload(imageURL: server.baseURL + "/c.png"))
        #expect(result.errorCodes == [.mediaCorrupt])
        #expect(result.outcome == .modifiedWithoutAttachment)
    }

    @Test func anHTMLPageNamedJPGIsATypeMismatch() async throws {
        let html = Array("<!DOCTYPE html><html><body>Not here</body></html>".utf8)
        let server = try cdn(["/e.jpg": .ok(html, contentType: "text/html")])
        defer { server.stop() }
        let result = await run(firebasePayload(imageURL: server.baseURL + "/e.jpg"))
        #expect(result.errorCodes == [.mediaTypeMismatch])
        #expect(!result.imageShown)
    }

    @Test func aPNGNamedJPGStillShowsWithAWarning() async throws {
        let server = try cdn(["/p.jpg": .ok(try Fixture.png(), contentType: "image/png")])
        defer { server.stop() }
        let result = await run(firebasePayload(imageURL: server.baseURL + "/p.jpg"))
        #expect(result.imageShown)
        #expect(result.codes.contains(.mediaTypeMismatch))
        #expect(result.errorCodes.isEmpty)
        #expect(result.content?.attachments.first?.width == 64)
    }

    @Test func imagesOverThePixelLimitAreRefusedBeforeDecoding() async throws {
        let server = try cdn(["/big.jpg": .ok(try Fixture.jpeg(width: 200, height: 100), contentType: "image/jpeg")])
        defer { server.stop() }
        var profile = loopbackProfile()
        profile.maxPixels = 10_000
        let result = await run(firebasePayload(imageURL: server.baseURL + "/big.jpg"), profile: profile)
        #expect(result.errorCodes == [.mediaTooManyPixels])
        #expect(result.diagnostics.first?.message.contains("200 x 100") == true)
    }

    @Test func aClosedPortIsANetworkError() async throws {
        let url = SDKSamples.refusedOrigin + "/a.jpg"
        let result = await run(firebasePayload(imageURL: url))
        #expect(result.errorCodes == [.mediaNetwork])
    }

    @Test(arguments: ["not a url", "ftp://example.com/a.jpg", "/relative/a.jpg", ""])
    func unusableURLsAreInvalid(url: String) async {
        let result = await run(firebasePayload(imageURL: url))
        #expect(result.errorCodes == [.mediaInvalidURL])
        #expect(result.outcome == .modifiedWithoutAttachment)
    }

    @Test func withoutMutableContentTheExtensionNeverRunsAndNothingIsFetched() async throws {
        let server = try cdn(["/a.jpg": .ok(try Fixture.jpeg(), contentType: "image/jpeg")])
        defer { server.stop() }
        let result = await run(firebasePayload(imageURL: server.baseURL + "/a.jpg", mutableContent: false))
        #expect(result.outcome == .original)
        #expect(!result.extensionInvoked)
        #expect(result.errorCodes == [.extensionNotInvoked])
        #expect(result.content?.title == "Sale", "the original title, without the suffix")
        #expect(server.requests.isEmpty)
    }

    @Test func withoutAnImageTheExtensionDeliversItsChanges() async {
        let result = await run(firebasePayload(imageURL: nil))
        #expect(result.outcome == .modified)
        #expect(!result.imageShown)
        #expect(result.codes == [.mediaNone])
        #expect(result.exitStatus == 0)
        #expect(result.content?.title == "Sale [modified]")
    }

    @Test func aRejectedPayloadShowsNothing() async {
        let small = firebasePayload(imageURL: "https://example.com/a.jpg")
        let push = ReceivedPush(kind: .apns, userInfo: small.userInfo, payloadBytes: 5000, diagnostics: [])
        let result = await run(push)
        #expect(result.outcome == .rejected)
        #expect(result.content == nil)
        #expect(result.errorCodes == [.payloadTooLarge])
    }

    @Test func anUnwritableOutputFolderIsAWarningNotAVerdict() async throws {
        let server = try cdn(["/a.png": .ok(try Fixture.png(), contentType: "image/png")])
        defer { server.stop() }
        let folder = try TemporaryFolder()
        let blocker = folder.file("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let result = await run(firebasePayload(imageURL: server.baseURL + "/a.png"), saveTo: blocker.appendingPathComponent("out"))
        #expect(result.imageShown)
        #expect(result.content?.attachments.first?.file == nil)
        #expect(result.diagnostics.map(\.severity) == [.warning])
        #expect(result.codes == [.mediaNotSaved])
    }

    @Test func contentChangesCoverEveryFlag() async {
        let changes = ContentChanges(
            title: "New", titleSuffix: "!", subtitle: "Sub", body: "Body", badge: 9, sound: "default",
            categoryIdentifier: "CAT", threadIdentifier: "TH")
        let content = await run(firebasePayload(imageURL: nil), changes: changes).content
        #expect(content?.title == "New!")
        #expect(content?.subtitle == "Sub")
        #expect(content?.body == "Body")
        #expect(content?.badge == 9)
        #expect(content?.sound == "default")
        #expect(content?.categoryIdentifier == "CAT")
        #expect(content?.threadIdentifier == "TH")
    }
}
