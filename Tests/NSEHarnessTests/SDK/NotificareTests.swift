import Foundation
import NSEHarness
import NSEMediaServer
import NSEPipeline
import NSEPush
import SDKTestSupport
import Testing

/// Notificare's helper (`--sdk notificare`) on payloads shaped as Notificare sends them, against a real loopback
/// server.
struct NotificareTests {
    private func payload(uri: String?) -> String {
        let attachment = uri.map { #", "attachment": {"mimeType": "image/jpeg", "uri": "\#($0)"}"# } ?? ""
        return #"{"aps": {"alert": {"title": "Sale", "body": "Today only"}, "mutable-content": 1}, "x-sender": "notificare", "notificationId": "66f2b1c0", "notificationType": "re.notifica.notification.Alert"\#(attachment)}"#
    }

    private let suffix = ContentChanges(titleSuffix: " [modified]")

    @Test func theImageIsAttachedWithAFullImageThumbnailCrop() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.notificare, payload(uri: "https://media.example.com/img/sale.jpg"), changes: suffix, origin: server.baseURL)
        #expect(result.outcome == .modified)
        #expect(result.imageShown)
        #expect(result.content?.title == "Sale [modified]")
        let attachment = try #require(result.content?.attachments.first)
        #expect(attachment.identifier == "file_sale.jpg")
        #expect(attachment.thumbnail?.clippingRect == ClippingRect(x: 0, y: 0, width: 1, height: 1))
    }

    @Test func theMIMETypesHintDecidesOverTheFileName() async throws {
        // A PNG served as image/png from a URL ending in .jpg is attached as PNG.
        let png = try Array(Data(contentsOf: SDKSamples.root.appendingPathComponent("samples/media/img/new-arrivals.png")))
        let server = try LoopbackHTTPServer { _ in .ok(png, contentType: "image/png") }
        defer { server.stop() }
        let result = try await SDKSamples.process(.notificare, payload(uri: "https://media.example.com/img/look.jpg"), origin: server.baseURL)
        #expect(result.imageShown)
        #expect(result.content?.attachments.first?.type == "public.png")
        #expect(result.diagnostics.contains { $0.code == .sdkNotificareTypeHint && $0.severity == .info })
    }

    @Test func aWebPServedUnderAJPEGNameIsRefusedByItsHint() async throws {
        let webp = try Array(Data(contentsOf: SDKSamples.root.appendingPathComponent("samples/media/img/spring.webp")))
        let server = try LoopbackHTTPServer { _ in .ok(webp, contentType: "image/webp") }
        defer { server.stop() }
        let result = try await SDKSamples.process(.notificare, payload(uri: "https://media.example.com/img/spring.jpg"), changes: suffix, origin: server.baseURL)
        #expect(!result.imageShown)
        // The documented extension delivers request.content on failure; the app's own change is made on it.
        #expect(result.content?.title == "Sale [modified]")
        let codes = result.diagnostics.map(\.code)
        #expect(codes.contains(.mediaUnsupportedFormat))
        #expect(codes.contains(.sdkNotificareFailure))
    }

    @Test func aConnectionFailureFailsTheRequest() async throws {
        let result = try await SDKSamples.process(.notificare, payload(uri: "https://media.example.com/img/sale.jpg"), origin: SDKSamples.refusedOrigin)
        #expect(!result.imageShown)
        let failure = try #require(result.diagnostics.first { $0.code == .sdkNotificareFailure })
        #expect(failure.message.contains("NSURLErrorDomain"))
    }

    @Test func aURLWithoutAPathCrashesTheExtension() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.notificare, payload(uri: "https://media.example.com"), changes: suffix, origin: server.baseURL)
        #expect(result.outcome == .original)
        #expect(result.content?.title == "Sale")
        #expect(result.diagnostics.map(\.code).contains(.sdkNotificareCrash))
    }

    @Test(.timeLimit(.minutes(1)))
    func onExpiryTheTemplatesBestAttemptShows() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(
            .notificare, payload(uri: "https://media.example.com/img/slow.jpg"), changes: suffix,
            profile: SDKSamples.profile(budget: .milliseconds(600)), origin: server.baseURL)
        #expect(result.outcome == .bestAttempt)
        #expect(result.content?.title == "Sale [modified]")
        #expect(result.diagnostics.map(\.code).contains(.extensionTimeExpired))
    }

    @Test func withoutAnAttachmentNothingIsDownloaded() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.notificare, payload(uri: nil), origin: server.baseURL)
        #expect(result.outcome == .modified)
        #expect(server.requests.isEmpty)
        #expect(result.diagnostics.map(\.code).contains(.sdkNotificareNoAttachment))
    }
}
