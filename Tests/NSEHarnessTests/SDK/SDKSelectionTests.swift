import Foundation
import NSEHarness
import NSEPipeline
import NSEPush
import Testing

/// The command line's built-in extension per `--sdk`: the helper each selection runs.
struct SDKSelectionTests {
    private func push(_ json: String) throws -> ReceivedPush {
        try PushReader.parse(Data(json.utf8))
    }

    @Test func anExplicitSDKRunsWhateverTheKeys() async throws {
        let payload = #"{"aps": {"alert": {"title": "Sale"}, "mutable-content": 1}, "fcm_options": {"image": "https://cdn.example.com/a.jpg"}}"#

        let result = await Pipeline(sdk: .only(.onesignal)).run(try push(payload), input: "push.json")

        #expect(result.helper == HelperChoice(sdk: .onesignal, selection: .explicit, reason: "--sdk onesignal", matched: [.firebase]))
        // OneSignal's helper reads no `fcm_options`: nothing is downloaded.
        #expect(result.outcome == .modified)
        #expect(!result.imageShown)
    }
}
