// Runs Customer.io's documented extension file over every Customer.io sample (samples/sdks/customerio) and checks what the phone
// would show against samples/sdks/customerio/expected.json.
import NSEHarness
import SDKTestSupport
import Testing

struct CustomerIOExtensionTests {
    @Test func everyCustomerIOSampleHasAnExpectation() throws {
        #expect(try SDKSamples.sampleFiles("customerio") == Set(SDKSamples.expectations("customerio").keys))
    }

    @Test(arguments: SDKSamples.names("customerio"))
    func theDocumentedExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let (delivered, expected) = try await SDKSamples.runSample(NotificationService.self, sdk: "customerio", name: name, expiryGrace: .seconds(1))
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        #expect(delivered.result.verdict == expected.verdict)
        #expect(SDKSamples.comparableCodes(delivered, expected: expected) == Set(expected.codes), "\(delivered.diagnostics)")
    }

    /// The newer samples' style (types from CioInternalCommon, a @Sendable handler, didReceive from a Task) shows
    /// what the documented file shows. Not on the slow CDN: there the expiry call races the Task's start (on a
    /// busy machine the Task may not have run by then, on a device as here), so the outcome is not the file's alone.
    @Test(arguments: SDKSamples.names("customerio").filter { $0 != "slow-cdn.json" })
    func theConcurrentStyleShowsWhatTheSampleExpects(name: String) async throws {
        let (delivered, expected) = try await SDKSamples.runSample(ConcurrentNotificationService.self, sdk: "customerio", name: name, expiryGrace: .seconds(1))
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        #expect(delivered.result.verdict == expected.verdict)
    }
}
