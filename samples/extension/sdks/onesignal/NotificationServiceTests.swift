// Runs OneSignal's documented NotificationService, compiled unchanged, over every OneSignal sample payload
// (samples/sdks/onesignal) on Linux, and checks what the phone would show against expected.json.
import NSEHarness
import SDKTestSupport
import Testing

struct OneSignalNotificationServiceTests {
    @Test func everyOneSignalSampleHasAnExpectation() throws {
        #expect(try SDKSamples.sampleFiles("onesignal") == Set(SDKSamples.expectations("onesignal").keys))
    }

    @Test(.timeLimit(.minutes(1)), arguments: SDKSamples.names("onesignal"))
    func theExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let (delivered, expected) = try await SDKSamples.runSample(NotificationService.self, sdk: "onesignal", name: name)
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        for code in expected.codes {
            #expect(delivered.diagnostics.contains { $0.code.rawValue == code }, "\(name) lacks \(code): \(delivered.diagnostics)")
        }
        #expect(delivered.result.verdict == expected.verdict, "\(delivered.diagnostics)")
        // OneSignal's requests go through the emulated network and are recorded on the run.
        #expect(delivered.activity.requests.allSatisfy { $0.api == "OneSignal data task" })
    }

    // An extension importing only OneSignalExtension (which re-exports UserNotifications, as its header does)
    // and calling the handler-less form gets the same image as the documented file.
    @Test(.timeLimit(.minutes(1)))
    func anExtensionImportingOnlyOneSignalShowsTheImage() async throws {
        let (delivered, expected) = try await SDKSamples.runSample(OnlyOneSignalImportedService.self, sdk: "onesignal", name: "image-jpg.json")
        #expect(expected.imageShown)
        #expect(delivered.imageShown == expected.imageShown, "\(delivered.diagnostics)")
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
    }
}
