import Foundation
import NSEHarness
import NSEMediaServer
import NSEPush
import Testing

/// One payload (samples/sdks/compare/extensionless-png.json) carrying Braze's, CleverTap's, Iterable's and
/// Customer.io's keys, all pointing at the same extensionless PNG served as application/octet-stream: what a team
/// migrating between them must know, as `--sdk all` shows it side by side.
@Suite(.timeLimit(.minutes(1)))
struct SDKDisagreementTests {
    static let payload = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples/sdks/compare/extensionless-png.json")

    @Test func theHelpersDisagreeOnAnExtensionlessPNG() async throws {
        // samples/media serves `arrivals` (a PNG without extension) as application/octet-stream.
        let bench = try SDKTestBench(["/img/arrivals": .ok(try SDKTestBench.bytes("arrivals"), contentType: "application/octet-stream")])
        var shown: [PushSDK: Bool] = [:]
        var codes: [PushSDK: Set<String>] = [:]
        for sdk in [PushSDK.braze, .clevertap, .iterable, .customerio] {
            let result = try await bench.runBuiltIn(sdk, String(decoding: try Data(contentsOf: Self.payload), as: UTF8.self))
            shown[sdk] = result.imageShown
            codes[sdk] = result.diagnostics.codes
        }

        // Braze and CleverTap name the file from the payload (".jpg"); iOS reads the PNG's bytes and shows it.
        #expect(shown[.braze] == true)
        #expect(shown[.clevertap] == true)
        #expect(codes[.braze]?.contains("media.type-mismatch") == true)
        #expect(codes[.clevertap]?.isSuperset(of: ["media.type-mismatch", "sdk.clevertap.media-type"]) == true)
        // Iterable and Customer.io name it from the response: "banner", no extension, UNError 101.
        #expect(shown[.iterable] == false)
        #expect(shown[.customerio] == false)
        #expect(codes[.iterable]?.contains("media.unrecognized-type") == true)
        #expect(codes[.customerio]?.isSuperset(of: ["media.unrecognized-type", "sdk.customerio.original-content"]) == true)
    }
}
