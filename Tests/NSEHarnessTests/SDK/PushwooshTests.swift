import Foundation
import NSEHarness
import NSEMedia
import NSEMediaServer
import PushwooshFramework
import SDKTestSupport
import Testing
import UserNotifications

/// Pushwoosh's helper (`--sdk pushwoosh`, and the older manager API) on payloads shaped as Pushwoosh sends them,
/// against a real loopback server.
struct PushwooshTests {
    private func payload(attachment: String? = nil, badge: String? = nil, pwMsg: Bool = true) -> String {
        let badgeKey = badge.map { #", "pw_badge": \#($0)"# } ?? ""
        let attachmentKey = attachment.map { #", "attachment": "\#($0)""# } ?? ""
        let message = pwMsg ? #", "pw_msg": "1", "p": "3b1-Fv4Hk8G2""# : ""
        return #"{"aps": {"alert": {"title": "Sale", "body": "Today only"}, "mutable-content": 1\#(badgeKey)}\#(message)\#(attachmentKey)}"#
    }

    /// A container whose App Group defaults hold `badge_count`, as the app leaves them.
    private func container(badgeCount: Int) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-pushwoosh-\(UUID().uuidString)")
        let preferences = folder.appendingPathComponent("Library/Preferences")
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        let data = try PropertyListSerialization.data(fromPropertyList: ["badge_count": badgeCount], format: .xml, options: 0)
        try data.write(to: preferences.appendingPathComponent("group.nse.builtin.plist"))
        return folder
    }

    @Test func theImageIsAttachedAndTheDeliveryEventIsRecordedNotSent() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.pushwoosh, payload(attachment: "https://media.example.com/img/sale.jpg"), changes: ContentChanges(titleSuffix: " [modified]"), origin: server.baseURL)
        #expect(result.outcome == .modified)
        #expect(result.imageShown)
        #expect(result.content?.title == "Sale [modified]")
        #expect(result.diagnostics.contains { $0.code == .sdkPushwooshDeliveryEvent && $0.message.contains("3b1-Fv4Hk8G2") })
        #expect(server.requests.map(\.path) == ["/img/sale.jpg"])
    }

    @Test(arguments: [(#""+1""#, 4, 5), (#""-10""#, 4, 0), (#""7""#, 4, 7), ("2", 9, 2), (#""+x""#, 4, 4)])
    func pwBadgeWorksFromTheCountSavedInTheAppGroup(badge: String, saved: Int, expected: Int) async throws {
        let seed = try container(badgeCount: saved)
        defer { try? FileManager.default.removeItem(at: seed) }
        let result = try await SDKSamples.process(.pushwoosh, payload(badge: badge), origin: SDKSamples.refusedOrigin, containerSeed: seed)
        #expect(result.content?.badge == expected)
        #expect(result.diagnostics.contains { $0.code == .sdkPushwooshBadge && $0.severity == .info })
    }

    @Test func aFilenameFromContentDispositionTypesAnExtensionlessURL() async throws {
        let png = try Data(contentsOf: SDKSamples.root.appendingPathComponent("samples/media/img/new-arrivals.png"))
        let server = try LoopbackHTTPServer { _ in
            var response = ServedResponse.ok(Array(png), contentType: "application/octet-stream")
            response.headers.append(("Content-Disposition", #"attachment; filename="arrivals.png""#))
            return response
        }
        defer { server.stop() }
        let result = try await SDKSamples.process(.pushwoosh, payload(attachment: "https://media.example.com/m/8812"), origin: server.baseURL)
        #expect(result.imageShown)
        #expect(result.content?.attachments.first?.type == "public.png")
    }

    @Test func aFailedAttachmentKeepsTheBadge() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.pushwoosh, payload(attachment: "https://media.example.com/img/spring.webp", badge: #""3""#), origin: server.baseURL)
        #expect(result.outcome == .modifiedWithoutAttachment)
        #expect(result.content?.badge == 3)
        let codes = result.diagnostics.map(\.code)
        #expect(codes.contains(.mediaUnsupportedFormat))
        #expect(codes.contains(.sdkPushwooshNoAttachment))
    }

    @Test func aConnectionFailureShowsNoImage() async throws {
        let result = try await SDKSamples.process(.pushwoosh, payload(attachment: "https://media.example.com/img/sale.jpg"), origin: SDKSamples.refusedOrigin)
        #expect(result.outcome == .modifiedWithoutAttachment)
        #expect(result.diagnostics.map(\.code).contains(.mediaNetwork))
    }

    @Test(.timeLimit(.minutes(1)))
    func onExpiryTheBestAttemptKeepsTheBadge() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(
            .pushwoosh, payload(attachment: "https://media.example.com/img/slow.jpg", badge: #""+1""#),
            profile: SDKSamples.profile(budget: .milliseconds(600)), origin: server.baseURL)
        #expect(result.outcome == .bestAttempt)
        #expect(result.content?.badge == 1)
        #expect(result.diagnostics.map(\.code).contains(.extensionTimeExpired))
    }

    @Test func withoutPwMsgNothingIsDone() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.pushwoosh, payload(attachment: "https://media.example.com/img/sale.jpg", badge: #""+1""#, pwMsg: false), origin: server.baseURL)
        #expect(!result.imageShown)
        #expect(result.content?.badge == nil)
        #expect(server.requests.isEmpty)
        #expect(result.diagnostics.contains { $0.code == .sdkPushwooshNotPushwoosh && $0.severity == .warning })
    }

    @Test func theManagerAPIWithoutAnAppGroupIgnoresPwBadge() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        var harness = ExtensionHarness(profile: SDKSamples.profile(), hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        harness.memoryMeasurement = .off
        let delivered = try await harness.run(PushwooshManagerService.self, payload: payload(attachment: "https://media.example.com/img/sale.jpg", badge: #""+1""#))
        #expect(delivered.imageShown)
        #expect(delivered.content.badge == nil)
        #expect(delivered.diagnostics.contains { $0.code == .sdkPushwooshBadge && $0.severity == .warning })
    }

    @Test(.timeLimit(.minutes(1)))
    func theManagerAPILeavesTheExpiryToTheExtension() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        var harness = ExtensionHarness(profile: SDKSamples.profile(budget: .milliseconds(600)), hostMapping: MediaHostMapping(origin: URL(string: server.baseURL)!))
        harness.memoryMeasurement = .off
        harness.expiryGrace = .milliseconds(400)
        let delivered = try await harness.run(PushwooshManagerService.self, payload: payload(attachment: "https://media.example.com/img/slow.jpg"))
        // The extension's own serviceExtensionTimeWillExpire() delivers its own copy.
        #expect(delivered.outcome == .bestAttempt)
        #expect(delivered.content.title == "Sale")
    }
}

/// An extension written as Pushwoosh's documentation showed it before 7.1: the manager API, and the Xcode
/// template's expiry call.
final class PushwooshManagerService: UNNotificationServiceExtension, @unchecked Sendable {
    // Set in didReceive, read in the expiry call, as the Xcode template does.
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        PWNotificationExtensionManager.shared().handle(request, contentHandler: contentHandler)
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
    }
}
