import Foundation
import NSEHarness
import NSEKit
import Testing

/// The command line's built-in extension per `--sdk`: the helper each selection runs, and an SDK whose stand-in is
/// not in the build reported, never skipped.
struct SDKSelectionTests {
    private func push(_ json: String) throws -> ReceivedPush {
        try PushReader.parse(Data(json.utf8))
    }

    @Test func everyBuiltInIsAServiceExtensionAndFirebaseAndOneSignalAreIn() {
        #expect(BuiltInExtensions.isAvailable(.firebase))
        #expect(BuiltInExtensions.isAvailable(.onesignal))
        #expect(BuiltInExtensions.available == PushSDK.allCases.filter(BuiltInExtensions.isAvailable))
    }

    @Test func aDetectedSDKWithoutItsStandInFailsUnchecked() async throws {
        // Holds until every SDK's stand-in is merged.
        guard let missing = PushSDK.allCases.first(where: { !BuiltInExtensions.isAvailable($0) }),
              let signature = SDKDetection.signatures.first(where: { $0.sdk == missing }), let key = signature.keys.first else { return }
        let payload = #"{"aps": {"alert": {"title": "Sale"}, "mutable-content": 1}, "\#(key)": {"x": "https://cdn.example.com/a.jpg"}}"#

        let result = await Emulator().process(try push(payload), input: "push.json")

        #expect(result.helper?.sdk == missing)
        #expect(result.outcome == .modifiedWithoutAttachment)
        let finding = try #require(result.diagnostics.first { $0.code == .sdkUnavailable })
        #expect(finding.severity == .error)
        #expect(finding.message.contains("not in this build"))
    }

    @Test func anExplicitSDKRunsWhateverTheKeys() async throws {
        let payload = #"{"aps": {"alert": {"title": "Sale"}, "mutable-content": 1}, "fcm_options": {"image": "https://cdn.example.com/a.jpg"}}"#

        let result = await Emulator(sdk: .only(.onesignal)).process(try push(payload), input: "push.json")

        #expect(result.helper == HelperChoice(sdk: .onesignal, selection: .explicit, reason: "--sdk onesignal", matched: [.firebase]))
        // OneSignal's helper reads no `fcm_options`: nothing is downloaded.
        #expect(result.outcome == .modified)
        #expect(!result.imageShown)
    }
}
