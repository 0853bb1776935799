// Runs the app's Airship NotificationService over every Airship sample (samples/sdks/airship) and checks what
// the phone shows against expected.json.
import NSEHarness
import NSEKit
import SDKTestSupport
import Testing

struct AirshipNotificationServiceTests {
    @Test func theSamplesAreThere() throws {
        #expect(try !SDKSamples.expectations("airship").isEmpty)
    }

    @Test(.timeLimit(.minutes(1)), arguments: SDKSamples.names("airship"))
    func theExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let (delivered, expected) = try await SDKSamples.runSample(NotificationService.self, sdk: "airship", name: name)
        let codes = delivered.diagnostics.map(\.code.rawValue)
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        #expect(delivered.result.verdict == expected.verdict)
        for code in expected.codes { #expect(codes.contains(code), "\(name) lacks \(code): \(codes)") }
    }
}
