import Foundation
import NSEHarness
import NSEMedia
import NSEMediaServer
import NSEPush
import SDKTestSupport
import Testing
import UserNotifications

/// Batch's helper (`--sdk batch`) on payloads shaped as Batch sends them, against a real loopback server.
struct BatchTests {
    private func payload(_ at: String?) -> String {
        let attachment = at.map { #", "at": \#($0)"# } ?? ""
        return #"{"aps": {"alert": {"title": "Sale", "body": "Today only"}, "mutable-content": 1}, "com.batch": {"i": "6y4g8guj-u1717400060376_000000", "t": "c"\#(attachment)}}"#
    }

    @Test func theDownloadedFileIsAttachedAsItIsWithTheTypeHint() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(
            .batch, payload(#"{"u": "https://media.example.com/img/banner", "t": "public.jpeg"}"#), changes: ContentChanges(titleSuffix: " [modified]"), origin: server.baseURL)
        #expect(result.outcome == .modified)
        #expect(result.imageShown)
        #expect(result.content?.title == "Sale [modified]")
        let attachment = try #require(result.content?.attachments.first)
        #expect(attachment.identifier == "batch_rich_attachment")
        #expect(attachment.type == "public.jpeg")
    }

    @Test func theHintDecidesEvenAgainstTheURL() async throws {
        // A PNG hinted as public.jpeg is attached as JPEG (the file is not renamed); iOS then finds PNG bytes in it.
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.batch, payload(#"{"u": "https://media.example.com/img/new-arrivals.png", "t": "public.jpeg"}"#), origin: server.baseURL)
        #expect(result.content?.attachments.first?.type == "public.jpeg")
        #expect(result.diagnostics.contains { $0.code == .mediaTypeMismatch && $0.severity == .warning })
    }

    @Test(arguments: [
        (#"{"u": "https://media.example.com/img/gift-card.jpg", "t": "public.gift-card"}"#, DiagnosticCode.mediaUnrecognizedType),
        (#"{"u": "https://media.example.com/img/spring.webp", "t": "org.webmproject.webp"}"#, DiagnosticCode.mediaUnsupportedFormat),
        (#"{"u": "http://media.example.com/img/sale.jpg", "t": "public.jpeg"}"#, DiagnosticCode.mediaInsecureURL),
    ])
    func aFailureDeliversTheOriginalContent(at: String, cause: DiagnosticCode) async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.batch, payload(at), origin: server.baseURL)
        #expect(result.outcome == .modifiedWithoutAttachment)
        #expect(result.content?.title == "Sale")
        let codes = result.diagnostics.map(\.code)
        #expect(codes.contains(cause))
        #expect(codes.contains(.sdkBatchFailure))
    }

    /// Batch's servers send a MIME type in `t` (the SDK's own tests use "image/png"); what iOS makes of a MIME type
    /// as a type hint is undocumented, so it is an assumption with a warning, never a failure, and the image shows.
    @Test func aMIMETypeAsTheHintIsAnAssumptionAndTheImageShows() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.batch, payload(#"{"u": "https://media.example.com/img/gift-card.jpg", "t": "image/jpeg"}"#), origin: server.baseURL)
        #expect(result.outcome == .modified)
        #expect(result.imageShown)
        #expect(result.verdict == .pass)
        #expect(result.content?.attachments.first?.type == "public.jpeg")
        let hint = try #require(result.diagnostics.first { $0.code == .mediaMIMETypeHint })
        #expect(hint.severity == .warning)
        #expect(hint.message.contains("--no-mime-type-hint"))
        #expect(!result.diagnostics.contains { $0.severity == .error })
    }

    @Test func theOtherReadingOfAMIMETypeHintIsAChoice() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        var profile = SDKSamples.profile()
        profile.typeHintReadsMIMEType = false
        let result = try await SDKSamples.process(
            .batch, payload(#"{"u": "https://media.example.com/img/gift-card.jpg", "t": "image/jpeg"}"#), profile: profile, origin: server.baseURL)
        #expect(!result.imageShown)
        let codes = result.diagnostics.map(\.code)
        #expect(codes.contains(.mediaUnrecognizedType))
        #expect(codes.contains(.sdkBatchTypeHint))
        #expect(!codes.contains(.mediaMIMETypeHint))
    }

    @Test func aConnectionFailureDeliversTheOriginalContent() async throws {
        let result = try await SDKSamples.process(.batch, payload(#"{"u": "https://media.example.com/img/sale.jpg", "t": "public.jpeg"}"#), origin: SDKSamples.refusedOrigin)
        #expect(!result.imageShown)
        #expect(result.diagnostics.map(\.code).contains(.mediaNetwork))
        #expect(result.diagnostics.map(\.code).contains(.sdkBatchFailure))
    }

    @Test(arguments: [nil, #"{"u": "https://media.example.com/img/sale.jpg"}"#, #"{"t": "public.jpeg"}"#])
    func withoutBothUAndTNothingIsDownloaded(at: String?) async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.batch, payload(at), origin: server.baseURL)
        #expect(server.requests.isEmpty)
        #expect(result.content?.title == "Sale")
        #expect(result.diagnostics.contains { $0.code == .sdkBatchNoRichData && $0.severity == (at == nil ? .info : .warning) })
    }

    @Test(.timeLimit(.minutes(1)))
    func onExpiryBatchDeliversNothingSoTheOriginalShows() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(
            .batch, payload(#"{"u": "https://media.example.com/img/slow.jpg", "t": "public.jpeg"}"#), changes: ContentChanges(titleSuffix: " [modified]"),
            profile: SDKSamples.profile(budget: .milliseconds(600)), origin: server.baseURL)
        #expect(result.outcome == .original)
        #expect(result.content?.title == "Sale")
        #expect(result.diagnostics.map(\.code).contains(.extensionHandlerNotCalled))
    }

    /// Batch's session limits the whole download (`timeoutIntervalForResource`, 20 s): the stand-in's URLSession
    /// honours that limit, shown here with half a second.
    @Test(.timeLimit(.minutes(1)))
    func theSessionsResourceTimeoutEndsAStalledDownload() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        var harness = ExtensionHarness(profile: SDKSamples.profile(budget: .seconds(10)), hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        harness.memoryMeasurement = .off
        let delivered = try await harness.run(ResourceTimeoutService.self, payload: #"{"aps": {"alert": {"title": "Sale", "body": "Today"}, "mutable-content": 1}, "u": "https://media.example.com/img/slow.jpg"}"#)
        #expect(delivered.content.body == "-1001")
        #expect(delivered.outcome != .bestAttempt)
    }
}

/// Downloads `u` with a session whose resource timeout is half a second and shows the error code in the body.
final class ResourceTimeoutService: UNNotificationServiceExtension, @unchecked Sendable {
    // No state shared between threads.
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForResource = 0.5
        let url = URL(string: request.content.userInfo["u"] as? String ?? "")!
        URLSession(configuration: configuration).downloadTask(with: url) { _, _, error in
            let content = request.content.mutableCopy() as! UNMutableNotificationContent
            content.body = error.map { "\(($0 as NSError).code)" } ?? "no error"
            contentHandler(content)
        }.resume()
    }
}
