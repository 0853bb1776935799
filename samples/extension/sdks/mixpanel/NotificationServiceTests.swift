// Runs the app's Mixpanel NotificationService over every Mixpanel sample (samples/sdks/mixpanel) and checks what
// the phone shows against expected.json.
import NSEHarness
import NSEKit
import SDKTestSupport
import Testing

struct MixpanelNotificationServiceTests {
    @Test func theSamplesAreThere() throws {
        #expect(try !SDKSamples.expectations("mixpanel").isEmpty)
    }

    @Test(.timeLimit(.minutes(1)), arguments: SDKSamples.names("mixpanel"))
    func theExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let (delivered, expected) = try await SDKSamples.runSample(NotificationService.self, sdk: "mixpanel", name: name)
        let codes = delivered.diagnostics.map(\.code.rawValue)
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        #expect(delivered.result.verdict == expected.verdict)
        for code in expected.codes { #expect(codes.contains(code), "\(name) lacks \(code): \(codes)") }
    }

    // Mixpanel.h's tracking calls made before the helper: recorded, and the image still shows.
    @Test(.timeLimit(.minutes(1)))
    func anExtensionTrackingItsOwnEventShowsTheImage() async throws {
        let (delivered, expected) = try await SDKSamples.runSample(TrackingNotificationService.self, sdk: "mixpanel", name: "image-and-buttons.json")
        #expect(expected.imageShown)
        #expect(delivered.imageShown == expected.imageShown, "\(delivered.diagnostics)")
        #expect(delivered.diagnostics.contains { $0.code == .sdkMixpanelTracking && $0.message.contains("Push Received with 1 property") }, "\(delivered.diagnostics)")
    }

    // Mixpanel.h's super properties and MixpanelPeople.h's profile updates, from a file that imports only Mixpanel
    // and uses UIKit: recorded, nothing sent; `sharedInstance()` is the instance made with the token.
    @Test func anExtensionUpdatingTheProfileShowsTheImageAndRecordsEachUpdate() async throws {
        let (delivered, expected) = try await SDKSamples.runSample(ProfileNotificationService.self, sdk: "mixpanel", name: "image-and-buttons.json")
        #expect(expected.imageShown)
        #expect(delivered.imageShown == expected.imageShown, "\(delivered.diagnostics)")
        let tracking = delivered.diagnostics.filter { $0.code == .sdkMixpanelTracking }.map(\.message)
        #expect(tracking.contains { $0.contains("people update ($add pushes_received)") }, "\(tracking)")
        #expect(tracking.contains { $0.contains("people update ($set last_push_image_width)") }, "\(tracking)")
        #expect(tracking.contains { $0.contains("Push Rendered with 1 property and 2 super properties") }, "\(tracking)")
    }
}
