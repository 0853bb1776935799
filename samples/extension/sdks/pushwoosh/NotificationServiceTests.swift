// Runs the app's Pushwoosh NotificationService over every Pushwoosh sample (samples/sdks/pushwoosh) and checks what
// the phone shows against expected.json.
import NSEHarness
import NSEKit
import SDKTestSupport
import Testing

struct PushwooshNotificationServiceTests {
    @Test func theSamplesAreThere() throws {
        #expect(try !SDKSamples.expectations("pushwoosh").isEmpty)
    }

    @Test(.timeLimit(.minutes(1)), arguments: SDKSamples.names("pushwoosh"))
    func theExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let (delivered, expected) = try await SDKSamples.runSample(NotificationService.self, sdk: "pushwoosh", name: name)
        let codes = delivered.diagnostics.map(\.code.rawValue)
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        #expect(delivered.result.verdict == expected.verdict)
        for code in expected.codes { #expect(codes.contains(code), "\(name) lacks \(code): \(codes)") }
    }

    // A file importing only PushwooshFramework: the badge from `aps.pw_badge` (the count starts at 0 here) and the
    // attachment, as with the subclass.
    @Test(.timeLimit(.minutes(1)))
    func theManagerStyleExtensionSetsTheBadgeFromApsPwBadge() async throws {
        let (delivered, _) = try await SDKSamples.runSample(ManagerNotificationService.self, sdk: "pushwoosh", name: "badge-increment.json")
        #expect(delivered.content.badge == 1, "\(delivered.diagnostics)")
        #expect(delivered.diagnostics.contains { $0.code == .sdkPushwooshBadge && $0.message.contains("`aps.pw_badge` \"+1\"") }, "\(delivered.diagnostics)")
    }
}
