// Runs Iterable's documented extension file over every Iterable sample (samples/sdks/iterable) and checks what the phone
// would show against samples/sdks/iterable/expected.json.
import NSEHarness
import SDKTestSupport
import Testing

struct IterableExtensionTests {
    @Test func everyIterableSampleHasAnExpectation() throws {
        #expect(try SDKSamples.sampleFiles("iterable") == Set(SDKSamples.expectations("iterable").keys))
    }

    @Test(arguments: SDKSamples.names("iterable"))
    func theDocumentedExtensionShowsWhatTheSampleExpects(name: String) async throws {
        let (delivered, expected) = try await SDKSamples.runSample(NotificationService.self, sdk: "iterable", name: name, expiryGrace: .seconds(1))
        #expect(delivered.outcome == expected.outcome, "\(delivered.diagnostics)")
        #expect(delivered.imageShown == expected.imageShown)
        #expect(delivered.result.verdict == expected.verdict)
        #expect(SDKSamples.comparableCodes(delivered, expected: expected) == Set(expected.codes), "\(delivered.diagnostics)")
    }

    // A file importing only IterableAppExtensions uses UIKit's UIImage, as the CocoaPods framework allows.
    @Test func aSubclassReadingTheImageWithUIKitShowsItsSubtitle() async throws {
        let (delivered, expected) = try await SDKSamples.runSample(SubtitledNotificationService.self, sdk: "iterable", name: "image-ok.json", expiryGrace: .seconds(1))
        #expect(expected.imageShown)
        #expect(delivered.imageShown, "\(delivered.diagnostics)")
        #expect(delivered.content.subtitle.hasSuffix(" px wide"), "\(delivered.content.subtitle)")
    }
}
