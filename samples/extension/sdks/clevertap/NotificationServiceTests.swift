// Runs CleverTap's documented extension file over every CleverTap sample (samples/sdks/clevertap) and checks what the phone
// would show against samples/sdks/clevertap/expected.json.
import NSEHarness
import NSEKit
import SDKTestSupport
import Testing

struct CleverTapExtensionTests {
    @Test func everyCleverTapSampleHasAnExpectation() throws {
        #expect(try SDKSamples.sampleFiles("clevertap") == Set(SDKSamples.expectations("clevertap").keys))
    }

    @Test(arguments: SDKSamples.names("clevertap"))
    func theDocumentedExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let (delivered, expected) = try await SDKSamples.runSample(NotificationService.self, sdk: "clevertap", name: name, expiryGrace: .seconds(1))
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        #expect(delivered.result.verdict == expected.verdict)
        // The app's own extension also records the push impression (`sdk.clevertap.event`); the rest is what
        // `nse process --sdk clevertap` reports.
        #expect(delivered.diagnostics.contains { $0.code == .sdkCleverTapEvent && $0.severity == .info })
        #expect(SDKSamples.comparableCodes(delivered, expected: expected, ignoring: ["sdk.clevertap.event"]) == Set(expected.codes), "\(delivered.diagnostics)")
    }

    // CleverTap.h's account-in-code set-up: the image still shows and the account is recorded.
    @Test func anExtensionSettingTheAccountInCodeShowsTheImage() async throws {
        let (delivered, expected) = try await SDKSamples.runSample(CredentialsInCodeService.self, sdk: "clevertap", name: "image-ok.json", expiryGrace: .seconds(1))
        #expect(expected.imageShown)
        #expect(delivered.imageShown == expected.imageShown, "\(delivered.diagnostics)")
        #expect(delivered.diagnostics.contains { $0.code == .sdkCleverTapEvent && $0.message.contains("TEST-ACC-ID, region eu1") }, "\(delivered.diagnostics)")
    }
}
