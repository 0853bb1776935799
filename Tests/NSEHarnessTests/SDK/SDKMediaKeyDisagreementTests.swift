import Foundation
import NSEHarness
import NSEMediaServer
import NSEPush
import SDKTestSupport
import Testing

/// One image asked for through each SDK's own key, run through each SDK's built-in: what a team migrating from
/// one SDK to another sees change for the same file.
struct SDKMediaKeyDisagreementTests {
    /// A payload carrying every one of these SDKs' keys for the same image URL (as a migrating backend sends
    /// during the switch).
    private func payload(_ url: String) -> String {
        #"""
        {"aps": {"alert": {"title": "Sale", "body": "Today only"}, "mutable-content": 1},
         "mp": {"m": "1", "c": "2", "distinct_id": "u", "token": "t"}, "mp_media_url": "\#(url)",
         "com.urbanairship.media_attachment": {"url": "\#(url)"},
         "pw_msg": "1", "p": "h", "attachment": "\#(url)",
         "com.batch": {"at": {"u": "\#(url)", "t": "public.jpeg"}}}
        """#
    }

    private func shown(_ url: String, origin: String) async throws -> [PushSDK: Bool] {
        var shown: [PushSDK: Bool] = [:]
        for sdk in [PushSDK.mixpanel, .airship, .pushwoosh, .batch] {
            shown[sdk] = try await SDKSamples.process(sdk, payload(url), origin: origin).imageShown
        }
        return shown
    }

    @Test func anExtensionlessJPEGServedAsOctetStreamShowsOnlyWhereTheTypeIsNotTakenFromTheName() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        // Airship sniffs the bytes, Batch trusts its hint; Mixpanel and Pushwoosh go by the name and fail.
        let shown = try await shown("https://media.example.com/img/banner", origin: server.baseURL)
        #expect(shown == [.mixpanel: false, .airship: true, .pushwoosh: false, .batch: true])
    }

    @Test func aQueryStringOnlyBreaksMixpanel() async throws {
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let shown = try await shown("https://media.example.com/img/sale.jpg?w=600", origin: server.baseURL)
        #expect(shown == [.mixpanel: false, .airship: true, .pushwoosh: true, .batch: true])
    }

    @Test func notificareReadsItsOwnAttachmentShapeNotPushwooshs() async throws {
        // Pushwoosh's `attachment` is a URL string; Notificare's is {mimeType, uri}: Notificare finds no URI here.
        let server = try SDKSamples.mediaServer()
        defer { server.stop() }
        let result = try await SDKSamples.process(.notificare, payload("https://media.example.com/img/sale.jpg"), origin: server.baseURL)
        #expect(!result.imageShown)
        #expect(result.diagnostics.map(\.code).contains(.sdkNotificareNoAttachment))
    }
}
