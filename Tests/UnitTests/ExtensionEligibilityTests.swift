import Foundation
@testable import NSEBatch
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Testing

struct ExtensionEligibilityTests {
    @Test(arguments: [
        (#"{"alert": {"title": "T"}, "mutable-content": 1}"#, true),
        (#"{"alert": "Body only", "mutable-content": 1}"#, true),
        (#"{"alert": {"loc-key": "SALE"}, "mutable-content": 1}"#, true),
        (#"{"alert": {"title": "T"}}"#, false),
        (#"{"alert": {"title": "T"}, "mutable-content": 0}"#, false),
        (#"{"alert": {"title": "T"}, "mutable-content": "1"}"#, false),
        (#"{"alert": {"title": "T"}, "mutable_content": 1}"#, false),
        (#"{"content-available": 1, "mutable-content": 1}"#, false),
        (#"{"badge": 3, "mutable-content": 1}"#, false),
        (#"{"sound": "default", "mutable-content": 1}"#, false),
        (#"{"alert": {"title": ""}, "mutable-content": 1}"#, false),
    ])
    func iOSRunsTheExtensionOnlyForMutableAlerts(aps: String, invoked: Bool) throws {
        let value = try JSONValue.parse(.init(aps.utf8))
        let decision = ExtensionEligibility.decide(aps: value.objectValue ?? [:])
        #expect(decision.invoked == invoked)
        #expect((decision.reason == nil) == invoked)
    }

    @Test func aMisspelledKeyIsNamedInTheReason() throws {
        let value = try JSONValue.parse(.init(#"{"alert": "Hi", "mutableContent": 1}"#.utf8))
        let decision = ExtensionEligibility.decide(aps: value.objectValue ?? [:])
        #expect(decision.reason?.contains("found `mutableContent`") == true)
    }

    @Test func trueIsAcceptedWithOneWarning() throws {
        let push = try PushReader.parse(Data(#"{"aps": {"alert": "Hi", "mutable-content": true}}"#.utf8))
        let checks = PushChecks.run(push)
        #expect(checks.eligibility.invoked)
        #expect(checks.diagnostics.map(\.code) == [.payloadMutableContentNotNumber])
    }

    @Test func simulatorPushesDoNotRunTheExtensionUnlessAsked() throws {
        let value = try JSONValue.parse(.init(#"{"alert": "Hi", "mutable-content": 1}"#.utf8))
        let aps = value.objectValue ?? [:]
        let simulator = ExtensionEligibility.decide(aps: aps, kind: .simctl)
        #expect(!simulator.invoked)
        #expect(simulator.reason?.contains("simctl") == true)
        var profile = DeviceProfile()
        profile.simulatorRunsExtension = true
        #expect(ExtensionEligibility.decide(aps: aps, kind: .simctl, profile: profile).invoked)
        #expect(ExtensionEligibility.decide(aps: aps, kind: .fcmV1).invoked)
    }

    @Test func contentIsReadFromAps() throws {
        let value = try JSONValue.parse(.init("""
            {"aps": {"alert": {"title": "T", "subtitle": "S", "body": "B"}, "badge": 4, "sound": {"name": "chime", "critical": 1},
             "category": "SALE", "thread-id": "th", "target-content-id": "tc", "interruption-level": "time-sensitive",
             "relevance-score": 0.5}, "custom": 1}
            """.utf8))
        let content = NotificationContent(userInfo: value.objectValue ?? [:])
        #expect(content.title == "T")
        #expect(content.subtitle == "S")
        #expect(content.body == "B")
        #expect(content.badge == 4)
        #expect(content.sound == "chime")
        #expect(content.categoryIdentifier == "SALE")
        #expect(content.threadIdentifier == "th")
        #expect(content.targetContentIdentifier == "tc")
        #expect(content.interruptionLevel == "time-sensitive")
        #expect(content.relevanceScore == 0.5)
        #expect(content.userInfo["custom"] == .int(1))
    }
}
