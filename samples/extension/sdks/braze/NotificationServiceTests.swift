// Runs Braze's documented extension file over every Braze sample (samples/sdks/braze) and checks what the phone
// would show against samples/sdks/braze/expected.json.
import NSEHarness
import SDKTestSupport
import Testing

struct BrazeExtensionTests {
    @Test func everyBrazeSampleHasAnExpectation() throws {
        #expect(try SDKSamples.sampleFiles("braze") == Set(SDKSamples.expectations("braze").keys))
    }

    @Test(arguments: SDKSamples.names("braze"))
    func theDocumentedExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let (delivered, expected) = try await SDKSamples.runSample(NotificationService.self, sdk: "braze", name: name, expiryGrace: .seconds(1))
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        #expect(delivered.result.verdict == expected.verdict)
        #expect(SDKSamples.comparableCodes(delivered, expected: expected) == Set(expected.codes), "\(delivered.diagnostics)")
    }
}
