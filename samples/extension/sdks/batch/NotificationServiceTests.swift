// Runs the app's Batch NotificationService over every Batch sample (samples/sdks/batch) and checks what
// the phone shows against expected.json.
import NSEHarness
import NSEKit
import SDKTestSupport
import Testing

struct BatchNotificationServiceTests {
    @Test func theSamplesAreThere() throws {
        #expect(try !SDKSamples.expectations("batch").isEmpty)
    }

    @Test(.timeLimit(.minutes(1)), arguments: SDKSamples.names("batch"))
    func theExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let (delivered, expected) = try await SDKSamples.runSample(NotificationService.self, sdk: "batch", name: name)
        let codes = delivered.diagnostics.map(\.code.rawValue)
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        #expect(delivered.result.verdict == expected.verdict)
        for code in expected.codes { #expect(codes.contains(code), "\(name) lacks \(code): \(codes)") }
    }

    // Batch's manual integration (BAERichNotificationHelper beside BAEDisplayReceiptHelper): the image shows and
    // the receipt Batch would send is on the run's log.
    @Test(.timeLimit(.minutes(1)))
    func theManualHelpersShowTheImageAndLogTheReceipt() async throws {
        let (delivered, expected) = try await SDKSamples.runSample(ManualHelpersService.self, sdk: "batch", name: "display-receipt.json")
        #expect(expected.imageShown)
        #expect(delivered.imageShown == expected.imageShown, "\(delivered.diagnostics)")
        #expect(delivered.activity.log.contains { $0.message.contains("display receipt (mode 1)") }, "\(delivered.activity.log.map(\.message))")
    }
}
