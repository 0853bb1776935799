import Foundation
import NSEHarness
import NSEMediaServer
import NSEPipeline
import NSEPush
import SDKTestSupport
import Testing

/// Airship's helper (`--sdk airship`) on payloads shaped as Airship sends them, against a real loopback server.
struct AirshipTests {
    private func payload(_ attachment: String) -> String {
        #"{"aps": {"alert": {"title": "Sale", "body": "Today only"}, "mutable-content": 1}, "_": "5a1e3c6e", "com.urbanairship.media_attachment": \#(attachment)}"#
    }

    private let suffix = ContentChanges(titleSuffix: " [modified]")

    @Test func theImageAndTheContentChangesShowWithTheThumbnailCrop() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.airship, payload(#"""
            {"url": "https://media.example.com/img/sale.jpg", "content": {"title": "Spring Sale", "subtitle": "Weekend", "body": "Half off"},
             "options": {"crop": {"x": 0.25, "y": 0, "width": 0.5, "height": 1}, "time": 2}}
            """#), changes: suffix, origin: server.baseURL)

        #expect(result.outcome == .modified)
        #expect(result.imageShown)
        #expect(result.content?.title == "Spring Sale [modified]")
        #expect(result.content?.subtitle == "Weekend")
        #expect(result.content?.body == "Half off")
        let thumbnail = try #require(result.content?.attachments.first?.thumbnail)
        #expect(thumbnail.clippingRect == ClippingRect(x: 0.25, y: 0, width: 0.5, height: 1))
        #expect(thumbnail.time == 2)
        #expect(thumbnail.hidden == false)
    }

    @Test func everyItemIsAttachedAndOnlyTheThumbnailItemShowsItsThumbnail() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.airship, payload(#"""
            {"urls": [{"url": "https://media.example.com/img/new-arrivals.png", "url_id": "a"},
                      {"url": "https://media.example.com/img/flash-deal.gif", "url_id": "b"}], "thumbnail_id": "b"}
            """#), origin: server.baseURL)

        let attachments = try #require(result.content?.attachments)
        #expect(attachments.count == 2)
        #expect(attachments.first { $0.identifier == "a" }?.thumbnail?.hidden == true)
        #expect(attachments.first { $0.identifier == "b" }?.thumbnail?.hidden == false)
    }

    @Test(arguments: [("/img/hero", "public.jpeg", "MIME type"), ("/img/banner", "public.jpeg", "first bytes")])
    func anExtensionlessFileIsTypedByItsMIMETypeElseItsBytes(path: String, type: String, source: String) async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.airship, payload(#"{"url": "https://media.example.com\#(path)"}"#), origin: server.baseURL)
        #expect(result.imageShown)
        #expect(result.content?.attachments.first?.type == type)
        let hint = try #require(result.diagnostics.first { $0.code == .sdkAirshipTypeHint })
        #expect(hint.message.contains(source))
    }

    @Test func anExifJPEGServedAsOctetStreamIsNotRecognised() async throws {
        // Airship's JPEG check wants FF D8 FF E0/E2/E3; an Exif JPEG starts FF D8 FF E1.
        var bytes = try Array(Data(contentsOf: SDKSamples.root.appendingPathComponent("samples/media/img/sale.jpg")))
        bytes[3] = 0xE1
        let exif = bytes
        let server = try LoopbackHTTPServer { _ in .ok(exif, contentType: "application/octet-stream") }
        defer { server.stop() }
        let result = try await SDKSamples.process(.airship, payload(#"{"url": "https://media.example.com/photo/8812", "content": {"title": "New"}}"#), origin: server.baseURL)

        #expect(!result.imageShown)
        #expect(result.content?.title == "Sale")
        let codes = result.diagnostics.map(\.code)
        #expect(codes.contains(.mediaUnrecognizedType))
        #expect(codes.contains(.sdkAirshipFailure))
        #expect(result.diagnostics.contains { $0.code == .sdkAirshipTypeHint && $0.severity == .warning })
    }

    @Test func oneFailedItemDropsEveryChangeAndShowsTheOriginal() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.airship, payload(#"""
            {"urls": [{"url": "https://media.example.com/img/sale.jpg"}, {"url": "https://media.example.com/img/spring.webp"}],
             "content": {"title": "Two looks", "body": "Pick one"}}
            """#), origin: server.baseURL)

        #expect(result.outcome == .modifiedWithoutAttachment)
        #expect(result.content?.title == "Sale")
        #expect(result.content?.body == "Today only")
        #expect(result.content?.attachments.isEmpty == true)
        #expect(Set(server.requests.map(\.path)) == ["/img/sale.jpg", "/img/spring.webp"])
        #expect(result.diagnostics.map(\.code).contains(.sdkAirshipFailure))
    }

    @Test func aConnectionFailureShowsTheOriginal() async throws {
        let result = try await SDKSamples.process(.airship, payload(#"{"url": "https://media.example.com/img/sale.jpg", "content": {"title": "New"}}"#), origin: SDKSamples.refusedOrigin)
        #expect(result.content?.title == "Sale")
        let codes = result.diagnostics.map(\.code)
        #expect(codes.contains(.mediaNetwork))
        #expect(codes.contains(.sdkAirshipFailure))
    }

    @Test func anErrorPageIsAttachedUnderTheURLsNameAndDroppedByIOS() async throws {
        // Airship does not check the status: the 404 page is saved as "...-missing.jpg" and its changes apply.
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.airship, payload(#"{"url": "https://media.example.com/img/missing.jpg", "content": {"title": "New"}}"#), origin: server.baseURL)
        #expect(result.content?.title == "New")
        #expect(!result.imageShown)
        #expect(result.diagnostics.map(\.code).contains(.mediaHTTPStatus))
        #expect(!result.diagnostics.map(\.code).contains(.sdkAirshipFailure))
    }

    @Test(.timeLimit(.minutes(1)))
    func onExpiryAirshipDeliversTheOriginalContentNotABestAttempt() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(
            .airship, payload(#"{"url": "https://media.example.com/img/slow.jpg", "content": {"title": "Flash deal"}}"#),
            changes: suffix, profile: SDKSamples.profile(budget: .milliseconds(600)), origin: server.baseURL)

        #expect(result.outcome == .bestAttempt)
        #expect(!result.imageShown)
        // What Airship delivers is request.content; the app's own change is made on it in its handler.
        #expect(result.content?.title == "Sale [modified]")
        let codes = result.diagnostics.map(\.code)
        #expect(codes.contains(.extensionTimeExpired))
        #expect(codes.contains(.sdkAirshipExpired))
    }

    @Test(arguments: [
        #"{"content": {"title": "No URL"}}"#,
        #"{"url": "https://media.example.com/img/sale.jpg", "options": {"hidden": 1}}"#,
        #"{"url": "https://media.example.com/img/sale.jpg", "options": {"crop": {"x": 0, "y": 0, "width": 300, "height": 200}}}"#,
        #"{"urls": [{"url": "https://media.example.com/img/sale.jpg", "url_id": 7}]}"#,
    ])
    func aPayloadThatDoesNotDecodeChangesNothing(attachment: String) async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.airship, payload(attachment), origin: server.baseURL)
        #expect(result.content?.title == "Sale")
        #expect(server.requests.isEmpty)
        #expect(result.outcome == .modifiedWithoutAttachment)
        #expect(result.diagnostics.map(\.code).contains(.sdkAirshipPayload))
    }

    @Test func aPushWithoutTheKeyIsDeliveredAsItCame() async throws {
        let result = try await SDKSamples.process(.airship, #"{"aps": {"alert": {"title": "Sale", "body": "Today"}, "mutable-content": 1}, "_": "x"}"#, origin: SDKSamples.refusedOrigin)
        #expect(result.outcome == .modified)
        #expect(result.content?.title == "Sale")
        #expect(result.diagnostics.filter { $0.code.rawValue.hasPrefix("sdk.") }.isEmpty)
    }
}
