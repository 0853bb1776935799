import Foundation
import NSEHarness
import NSEMediaServer
import NSEPipeline
import NSEPush
import SDKTestSupport
import Testing

/// Mixpanel's helper (`--sdk mixpanel`: the built-in extension over the Mixpanel stand-in), on payloads shaped as
/// Mixpanel sends them, against a real loopback server serving samples/media.
struct MixpanelTests {
    private func payload(media: String? = nil, buttons: String? = nil, mp: String? = #"{"m": "4211037", "c": "381273", "distinct_id": "user-8842", "token": "f6e2c1b0"}"#, category: String? = nil) -> String {
        var extra = ""
        if let mp { extra += #", "mp": \#(mp)"# }
        if let media { extra += #", "mp_media_url": "\#(media)""# }
        if let buttons { extra += #", "mp_buttons": \#(buttons)"# }
        let categoryKey = category.map { #", "category": "\#($0)""# } ?? ""
        return #"{"aps": {"alert": {"title": "Sale", "body": "Today only"}, "mutable-content": 1\#(categoryKey)}\#(extra)}"#
    }

    @Test func theImageAndTheButtonsShowAndTheDeliveryIsTrackedButNotSent() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(
            .mixpanel, payload(media: "https://media.example.com/img/sale.jpg", buttons: #"[{"lbl": "Shop now"}, {"lbl": "Later"}]"#),
            changes: ContentChanges(titleSuffix: " [modified]"), origin: server.baseURL)

        #expect(result.outcome == .modified)
        #expect(result.imageShown)
        #expect(result.content?.attachments.first?.type == "public.jpeg")
        #expect(result.content?.title == "Sale [modified]")
        // A category named after the time, holding the two buttons.
        let category = try #require(result.content?.categoryIdentifier)
        #expect(Double(category) != nil)
        let buttons = try #require(result.diagnostics.first { $0.code == .sdkMixpanelButtons })
        #expect(buttons.message.contains(#"buttons "Shop now", "Later""#))
        #expect(result.diagnostics.contains { $0.code == .sdkMixpanelTracking && $0.severity == .info })
        // Only the image was fetched: the tracking is recorded, never sent.
        #expect(server.requests.map(\.path) == ["/img/sale.jpg"])
    }

    /// Every media failure puts nil into an NSArray, which raises: the extension crashes, iOS shows the original.
    @Test(arguments: [
        ("https://media.example.com/img/gift-card.jpg?w=600", DiagnosticCode.mediaUnrecognizedType),
        ("https://media.example.com/img/hero", DiagnosticCode.mediaUnrecognizedType),
        ("https://media.example.com/img/spring.webp", DiagnosticCode.mediaUnsupportedFormat),
        ("http://media.example.com/img/sale.jpg", DiagnosticCode.mediaInsecureURL),
    ])
    func aMediaFailureCrashesTheExtensionAndShowsTheOriginal(url: String, cause: DiagnosticCode) async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(
            .mixpanel, payload(media: url, buttons: #"[{"lbl": "Shop now"}]"#), changes: ContentChanges(titleSuffix: " [modified]"),
            origin: server.baseURL)

        #expect(result.outcome == .original)
        #expect(result.content?.title == "Sale")
        #expect(result.content?.categoryIdentifier == "")
        let codes = result.diagnostics.map(\.code)
        #expect(codes.contains(cause))
        #expect(codes.contains(.sdkMixpanelCrash))
        #expect(!codes.contains(.extensionTimeExpired))
    }

    @Test func aConnectionFailureCrashesTheExtensionToo() async throws {
        // Nothing listens on port 1 of loopback: the connection is refused.
        let result = try await SDKSamples.process(.mixpanel, payload(media: "https://media.example.com/img/sale.jpg"), origin: SDKSamples.refusedOrigin)
        #expect(result.outcome == .original)
        #expect(result.diagnostics.map(\.code).contains(.mediaNetwork))
        #expect(result.diagnostics.map(\.code).contains(.sdkMixpanelCrash))
    }

    @Test func theQueryStringBecomesPartOfTheFileExtension() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.mixpanel, payload(media: "https://media.example.com/img/gift-card.jpg?w=600"), origin: server.baseURL)
        let crash = try #require(result.diagnostics.first { $0.code == .sdkMixpanelCrash })
        #expect(crash.message.contains(".jpg?w=600"))
    }

    @Test(.timeLimit(.minutes(1)))
    func onExpiryTheBestAttemptKeepsTheCategoryWithoutTheImage() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(
            .mixpanel, payload(media: "https://media.example.com/img/slow.jpg", buttons: #"[{"lbl": "See the deal"}]"#),
            changes: ContentChanges(titleSuffix: " [modified]"), profile: SDKSamples.profile(budget: .milliseconds(600)), origin: server.baseURL)

        #expect(result.outcome == .bestAttempt)
        #expect(!result.imageShown)
        #expect(result.content?.title == "Sale [modified]")
        #expect(Double(result.content?.categoryIdentifier ?? "") != nil)
        #expect(result.diagnostics.map(\.code).contains(.extensionTimeExpired))
    }

    @Test func aPushWithoutMpIsDeliveredUnchangedWithoutDownloading() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.mixpanel, payload(media: "https://media.example.com/img/sale.jpg", mp: nil), origin: server.baseURL)
        #expect(result.content?.title == "Sale")
        #expect(!result.imageShown)
        #expect(server.requests.isEmpty)
        #expect(result.diagnostics.contains { $0.code == .sdkMixpanelNotMixpanel && $0.severity == .warning })
    }

    @Test func thePayloadsOwnCategoryIsKeptAndNoButtonsAreMade() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(
            .mixpanel, payload(media: "https://media.example.com/img/new-arrivals.png", buttons: #"[{"lbl": "Shop now"}]"#, category: "NEW_ARRIVALS"),
            origin: server.baseURL)
        #expect(result.content?.categoryIdentifier == "NEW_ARRIVALS")
        #expect(result.imageShown)
    }

    @Test func buttonsThatAreNotAnArrayCrashTheExtension() async throws {
        let result = try await SDKSamples.process(.mixpanel, payload(buttons: #""Shop now""#), origin: SDKSamples.refusedOrigin)
        #expect(result.outcome == .original)
        #expect(result.diagnostics.map(\.code).contains(.sdkMixpanelCrash))
    }

    @Test func trackingNeedsTheDistinctIdAndToken() async throws {
        let result = try await SDKSamples.process(.mixpanel, payload(mp: #"{"m": "1", "c": "2"}"#), origin: SDKSamples.refusedOrigin)
        let tracking = try #require(result.diagnostics.first { $0.code == .sdkMixpanelTracking })
        #expect(tracking.severity == .warning)
        #expect(tracking.message.contains("distinct_id"))
    }
}
