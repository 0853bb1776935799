import Foundation
@testable import NSEBatch
@testable import NSEMedia
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Testing

/// Parses `text` as a JSON object, for tables that write payloads inline.
func object(_ text: String) throws -> [String: JSONValue] {
    try #require(JSONValue.parse(Data(text.utf8)).objectValue)
}

/// One rule of `aps`, one test each: every row is a value and the severity the rule gives it (nil: accepted).
struct ApsLintTests {
    private func lint(_ aps: String) throws -> [Diagnostic] {
        ApsLint.check(try object(aps), path: "aps")
    }

    private func expect(_ aps: String, _ code: DiagnosticCode, _ expected: Diagnostic.Severity?) throws {
        let findings = try lint(aps)
        #expect(severity(of: code, in: findings) == expected, "\(aps): \(findings)")
        if expected != nil {
            #expect(findings.first { $0.code == code }?.message.contains("`aps.") == true, "the message names the key path")
        }
    }

    @Test(arguments: [
        (#"{"alert": "Hi"}"#, nil), (#"{"alert": {"title": "T", "body": "B"}}"#, nil),
        (#"{"alert": 3}"#, Diagnostic.Severity.error), (#"{"alert": ["a"]}"#, .error), (#"{"alert": true}"#, .error),
    ])
    func alertIsAStringOrADictionary(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsAlertType, expected)
    }

    @Test(arguments: [
        (#"{"alert": {"title": "T", "subtitle": "S", "body": "B", "launch-image": "L", "title-loc-key": "K", "subtitle-loc-key": "K", "loc-key": "K"}}"#, nil),
        (#"{"alert": {"loc-key": "K", "loc-args": ["a", "b"], "title-loc-key": "T", "title-loc-args": []}}"#, nil),
        (#"{"alert": {"action-loc-key": null, "summary-arg": "x", "summary-arg-count": 2}}"#, nil),
        (#"{"alert": {"title": 1}}"#, Diagnostic.Severity.error), (#"{"alert": {"body": null}}"#, .error),
        (#"{"alert": {"loc-key": ["K"]}}"#, .error), (#"{"alert": {"loc-key": "K", "loc-args": "a"}}"#, .error),
        (#"{"alert": {"loc-key": "K", "loc-args": [1]}}"#, .error), (#"{"alert": {"summary-arg-count": "2"}}"#, .error),
    ])
    func alertFieldsHaveTheirTypes(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsAlertFieldType, expected)
    }

    @Test(arguments: [
        (#"{"alert": {"title": "T"}}"#, nil), (#"{"alert": {"Title": "T"}}"#, Diagnostic.Severity.warning),
        (#"{"alert": {"image": "https://x/y.jpg"}}"#, .warning),
        (#"{"alert": {"sound": "a"}}"#, .warning), (#"{"alert": {"sound": "a"}, "event": "update", "timestamp": 1}"#, nil),
    ])
    func unknownAlertKeysWarn(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsAlertUnknownKey, expected)
    }

    @Test(arguments: [
        (#"{"alert": {"loc-key": "K", "loc-args": ["a"]}}"#, nil),
        (#"{"alert": {"loc-args": ["a"]}}"#, Diagnostic.Severity.warning),
        (#"{"alert": {"title-loc-args": ["a"]}}"#, .warning), (#"{"alert": {"subtitle-loc-args": ["a"]}}"#, .warning),
    ])
    func locArgsNeedTheirKey(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsAlertLocArgs, expected)
    }

    @Test(arguments: [
        (#"{"badge": 3}"#, nil), (#"{"badge": 0}"#, nil), (#"{"badge": 3.0}"#, nil),
        (#"{"badge": "3"}"#, Diagnostic.Severity.error), (#"{"badge": 1.5}"#, .error), (#"{"badge": true}"#, .error),
        (#"{"badge": null}"#, .error),
    ])
    func badgeIsAnInteger(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsBadgeType, expected)
    }

    @Test(arguments: [
        (#"{"sound": "default"}"#, nil), (#"{"sound": {"critical": 1, "name": "default", "volume": 0.5}}"#, nil),
        (#"{"sound": {"name": "chime.aiff"}}"#, nil),
        (#"{"sound": 1}"#, Diagnostic.Severity.error), (#"{"sound": {"critical": 1}}"#, .error),
        (#"{"sound": {"name": 3}}"#, .error), (#"{"sound": {"name": "a", "critical": 2}}"#, .error),
        (#"{"sound": {"name": "a", "loud": true}}"#, .warning),
    ])
    func soundIsANameOrACriticalDictionary(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsSoundType, expected)
    }

    @Test(arguments: [
        (#"{"sound": {"name": "a", "volume": 0}}"#, nil), (#"{"sound": {"name": "a", "volume": 1}}"#, nil),
        (#"{"sound": {"name": "a", "volume": 1.5}}"#, Diagnostic.Severity.error),
        (#"{"sound": {"name": "a", "volume": -0.1}}"#, .error), (#"{"sound": {"name": "a", "volume": "1"}}"#, .error),
    ])
    func soundVolumeIsBetweenZeroAndOne(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsSoundVolume, expected)
    }

    @Test(arguments: [
        (#"{"content-available": 1}"#, nil), (#"{"content-available": 0}"#, Diagnostic.Severity.warning),
        (#"{"content-available": true}"#, .warning), (#"{"content-available": "1"}"#, .error),
        (#"{"content-available": 2}"#, .error),
    ])
    func contentAvailableIsOne(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsContentAvailable, expected)
    }

    @Test(arguments: [
        (#"{"mutable-content": 1}"#, nil), (#"{"mutable-content": 0}"#, Diagnostic.Severity.warning),
        (#"{"mutable-content": "1"}"#, .error), (#"{"mutable-content": 1.5}"#, .error),
    ])
    func mutableContentIsOne(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsMutableContent, expected)
    }

    @Test func mutableContentTrueKeepsItsOwnCode() throws {
        let findings = try lint(#"{"mutable-content": true}"#)
        #expect(findings.map(\.code) == [.payloadMutableContentNotNumber])
        #expect(findings.first?.severity == .warning)
    }

    @Test(arguments: [
        (#"{"interruption-level": "passive"}"#, nil), (#"{"interruption-level": "active"}"#, nil),
        (#"{"interruption-level": "time-sensitive"}"#, nil), (#"{"interruption-level": "critical"}"#, nil),
        (#"{"interruption-level": "urgent"}"#, Diagnostic.Severity.error), (#"{"interruption-level": "timeSensitive"}"#, .error),
        (#"{"interruption-level": 1}"#, .error),
    ])
    func interruptionLevelIsOneOfFour(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsInterruptionLevel, expected)
    }

    @Test(arguments: [
        (#"{"relevance-score": 0}"#, nil), (#"{"relevance-score": 0.75}"#, nil), (#"{"relevance-score": 1}"#, nil),
        (#"{"relevance-score": 1.5}"#, Diagnostic.Severity.warning), (#"{"relevance-score": -1}"#, .warning),
        (#"{"relevance-score": "0.5"}"#, .error),
    ])
    func relevanceScoreIsBetweenZeroAndOne(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsRelevanceScore, expected)
    }

    @Test(arguments: [
        (#"{"thread-id": "t", "category": "c", "target-content-id": "x", "filter-criteria": "work"}"#, nil),
        (#"{"thread-id": 1}"#, Diagnostic.Severity.error), (#"{"category": ["c"]}"#, .error),
        (#"{"target-content-id": 3}"#, .error), (#"{"filter-criteria": false}"#, .error),
    ])
    func identifiersAreStrings(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsStringType, expected)
    }

    @Test(arguments: [
        (#"{"event": "update", "timestamp": 1700000000, "content-state": {}, "stale-date": 1, "dismissal-date": 2}"#, nil),
        (#"{"event": "start", "attributes-type": "A", "attributes": {}, "content-state": {}, "timestamp": 1}"#, nil),
        (#"{"event": "refresh"}"#, Diagnostic.Severity.error), (#"{"timestamp": "now"}"#, .error),
        (#"{"content-state": []}"#, .error), (#"{"stale-date": 1.5}"#, .error),
    ])
    func liveActivityKeysHaveTheirTypes(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsLiveActivity, expected)
    }

    @Test(arguments: [
        (#"{"alert": "Hi", "badge": 1, "sound": "default", "mutable-content": 1}"#, nil),
        (#"{"mutable_content": 1}"#, Diagnostic.Severity.warning), (#"{"image": "x"}"#, .warning),
        (#"{"contentAvailable": 1}"#, .warning),
    ])
    func unknownApsKeysWarn(aps: String, expected: Diagnostic.Severity?) throws {
        try expect(aps, .lintApsUnknownKey, expected)
    }

    @Test func aNearMissNamesTheRightSpelling() throws {
        let finding = try #require(try lint(#"{"mutable_content": 1}"#).first)
        #expect(finding.message.contains("`aps.mutable_content`"))
        #expect(finding.message.contains("spelled `mutable-content`"))
    }
}

/// The header rules, each on its own, against the payload they carry.
struct HeaderLintTests {
    private func lint(_ headers: String, aps: String = #"{"alert": "Hi"}"#, viaFCM: Bool = false) throws -> [Diagnostic] {
        HeaderLint.check(try object(headers), aps: try object(aps), path: "headers", viaFCM: viaFCM)
    }

    private static let alert = #"{"alert": "Hi"}"#
    private static let background = #"{"content-available": 1}"#

    @Test(arguments: PushType.allCases)
    func everyPushTypeIsKnown(pushType: PushType) throws {
        let findings = try lint(#"{"apns-push-type": "\#(pushType.rawValue)"}"#)
        #expect(severity(of: .lintHeaderPushType, in: findings) == nil)
    }

    @Test(arguments: ["Alert", "silent", "", "notification"])
    func unknownPushTypesAreRefused(value: String) throws {
        let findings = try lint(#"{"apns-push-type": "\#(value)"}"#)
        #expect(severity(of: .lintHeaderPushType, in: findings) == .error)
        #expect(findings.first { $0.code == .lintHeaderPushType }?.rejectsPush == true)
    }

    @Test(arguments: [
        (#"{"apns-push-type": "alert", "apns-priority": "10"}"#, alert, nil),
        (#"{"apns-push-type": "alert"}"#, #"{"badge": 1}"#, nil),
        (#"{"apns-push-type": "alert"}"#, background, Diagnostic.Severity.warning),
        (#"{"apns-push-type": "background", "apns-priority": "5"}"#, background, nil),
        (#"{"apns-push-type": "background", "apns-priority": "5"}"#, #"{}"#, .error),
        (#"{"apns-push-type": "background", "apns-priority": "5"}"#, #"{"content-available": 1, "alert": "Hi"}"#, .error),
        (#"{"apns-push-type": "liveactivity", "apns-priority": "10"}"#, #"{"event": "update", "content-state": {}, "timestamp": 1}"#, nil),
        (#"{"apns-push-type": "liveactivity"}"#, alert, .error),
        (#"{"apns-push-type": "alert"}"#, #"{"alert": "Hi", "event": "update", "content-state": {}}"#, .warning),
    ])
    func pushTypeMatchesThePayload(headers: String, aps: String, expected: Diagnostic.Severity?) throws {
        #expect(severity(of: .lintHeaderPushTypeMismatch, in: try lint(headers, aps: aps)) == expected)
    }

    @Test func aMissingPushTypeWarnsInAnEnvelopeNotThroughFCM() throws {
        #expect(severity(of: .lintHeaderPushTypeMissing, in: try lint(#"{"apns-priority": "10"}"#)) == .warning)
        #expect(severity(of: .lintHeaderPushTypeMissing, in: try lint(#"{"apns-priority": "10"}"#, viaFCM: true)) == nil)
    }

    @Test(arguments: [("10", nil), ("5", nil), ("1", nil), ("7", Diagnostic.Severity.error), ("high", .error), ("", .error)])
    func priorityIsTenFiveOrOne(value: String, expected: Diagnostic.Severity?) throws {
        #expect(severity(of: .lintHeaderPriority, in: try lint(#"{"apns-push-type": "alert", "apns-priority": "\#(value)"}"#)) == expected)
    }

    @Test(arguments: [
        (#"{"apns-push-type": "background", "apns-priority": "5"}"#, false, nil),
        (#"{"apns-push-type": "background", "apns-priority": "10"}"#, false, Diagnostic.Severity.error),
        (#"{"apns-push-type": "background"}"#, false, .error),
        (#"{"apns-push-type": "background"}"#, true, nil),
        (#"{"apns-push-type": "background", "apns-priority": "10"}"#, true, .error),
        (#"{"apns-priority": "10"}"#, false, .error),
    ])
    func backgroundPushesUsePriorityFive(headers: String, viaFCM: Bool, expected: Diagnostic.Severity?) throws {
        let findings = try lint(headers, aps: Self.background, viaFCM: viaFCM)
        #expect(severity(of: .lintHeaderPriorityMismatch, in: findings) == expected)
    }

    @Test(arguments: [(64, nil), (65, Diagnostic.Severity.error)])
    func collapseIDIsAtMost64Bytes(length: Int, expected: Diagnostic.Severity?) throws {
        let id = String(repeating: "x", count: length)
        #expect(severity(of: .lintHeaderCollapseID, in: try lint(#"{"apns-push-type": "alert", "apns-collapse-id": "\#(id)"}"#)) == expected)
    }

    @Test func collapseIDCountsBytesNotCharacters() throws {
        let id = String(repeating: "é", count: 33)  // 66 bytes of UTF-8
        #expect(severity(of: .lintHeaderCollapseID, in: try lint(#"{"apns-push-type": "alert", "apns-collapse-id": "\#(id)"}"#)) == .error)
    }

    @Test(arguments: [
        ("0", nil), ("1700000000", nil), ("1700000000000", Diagnostic.Severity.warning),
        ("tomorrow", .error), ("-1", .error), ("1.5", .error), ("", .error),
    ])
    func expirationIsUNIXSeconds(value: String, expected: Diagnostic.Severity?) throws {
        #expect(severity(of: .lintHeaderExpiration, in: try lint(#"{"apns-push-type": "alert", "apns-expiration": "\#(value)"}"#)) == expected)
    }

    @Test(arguments: [
        ("123e4567-e89b-12d3-a456-426614174000", nil), ("123E4567-E89B-12D3-A456-426614174000", nil),
        ("123e4567e89b12d3a456426614174000", Diagnostic.Severity.error), ("42", .error),
    ])
    func apnsIDIsAUUID(value: String, expected: Diagnostic.Severity?) throws {
        #expect(severity(of: .lintHeaderAPNsID, in: try lint(#"{"apns-push-type": "alert", "apns-id": "\#(value)"}"#)) == expected)
    }

    @Test(arguments: [
        ("alert", "com.example.app", nil), ("background", "com.example.app", nil),
        ("voip", "com.example.app.voip", nil), ("complication", "com.example.app.complication", nil),
        ("fileprovider", "com.example.app.pushkit.fileprovider", nil),
        ("liveactivity", "com.example.app.push-type.liveactivity", nil),
        ("location", "com.example.app.location-query", nil), ("pushtotalk", "com.example.app.voip-ptt", nil),
        ("voip", "com.example.app", Diagnostic.Severity.error),
        ("liveactivity", "com.example.app", .error),
        ("alert", "com.example.app.voip", .error),
    ])
    func topicSuffixMatchesThePushType(pushType: String, topic: String, expected: Diagnostic.Severity?) throws {
        let findings = try lint(#"{"apns-push-type": "\#(pushType)", "apns-priority": "5", "apns-topic": "\#(topic)"}"#, aps: #"{"content-available": 1}"#)
        #expect(severity(of: .lintHeaderTopic, in: findings) == expected, "\(findings)")
    }

    @Test func unknownHeadersWarnAndNamesAreCaseInsensitive() throws {
        let findings = try lint(#"{"APNS-Push-Type": "alert", "apns-prority": "10"}"#)
        #expect(findings.map(\.code) == [.lintHeaderUnknown])
        #expect(findings.first?.message.contains("apns-prority") == true)
    }

    @Test func headerValuesAreText() throws {
        #expect(severity(of: .lintHeaderValueType, in: try lint(#"{"apns-push-type": "alert", "apns-priority": 10}"#)) == nil)
        #expect(severity(of: .lintHeaderValueType, in: try lint(#"{"apns-push-type": "alert", "apns-priority": true}"#)) == .error)
    }
}

/// Lint of whole files: envelopes, FCM messages, and the promise of no noise on good payloads.
struct LinterTests {
    static let samples = RepositoryFolders.samples.appendingPathComponent("payloads")

    @Test(arguments: ["jpeg-ok.json", "png-ok.json", "gif-animated-ok.json", "fcm-v1-message.json", "extensionless-image-jpeg.json", "no-image.json"])
    func goodSamplesLintClean(name: String) {
        let report = Linter.lint(file: Self.samples.appendingPathComponent(name))
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        #expect(report.exitStatus == 0)
        #expect(report.payloadLimit == 4096)
        #expect((report.payloadBytes ?? 0) > 0)
    }

    @Test func anEnvelopeIsAnAPNsPayloadWithHeaders() throws {
        let text = """
            {"headers": {"apns-push-type": "alert", "apns-priority": "10"},
             "payload": {"aps": {"alert": {"title": "Sale"}, "mutable-content": 1}, "fcm_options": {"image": "https://x/y.jpg"}}}
            """
        let push = try PushReader.parse(Data(text.utf8))
        #expect(push.kind == .apns)
        #expect(push.isEnvelope)
        #expect(push.headers?["apns-push-type"] == .string("alert"))
        #expect(push.userInfo["aps"]?["mutable-content"] == .int(1))
        #expect(push.userInfo["headers"] == nil)
        let compact = #"{"aps":{"alert":{"title":"Sale"},"mutable-content":1},"fcm_options":{"image":"https://x/y.jpg"}}"#
        #expect(push.payloadBytes == compact.utf8.count, "the payload alone, measured on the sender's bytes")
        #expect(Linter.check(push).isEmpty)
    }

    @Test func envelopeFindingsNameThePayloadPath() throws {
        let push = try PushReader.parse(Data(#"{"headers": {"apns-push-type": "alert"}, "payload": {"aps": {"badge": "1"}}}"#.utf8))
        let finding = try #require(Linter.check(push).first { $0.code == .lintApsBadgeType })
        #expect(finding.message.contains("`payload.aps.badge`"))
    }

    @Test(arguments: [#"{"payload": [1]}"#, #"{"headers": "x", "payload": {"aps": {}}}"#])
    func aMalformedEnvelopeIsNotAPush(text: String) {
        #expect(throws: InputError.self) { try PushReader.parse(Data(text.utf8)) }
    }

    @Test func memberRangeFindsTheRawBytes() {
        let text = #"{"headers" : {"a": "}\"{"}, "payload" : { "aps" : [1, {"b": "]"}] } , "z": 1}"#
        let data = Data(text.utf8)
        let range = CompactJSON.memberRange(of: "payload", in: data)
        #expect(range.map { String(decoding: data[$0], as: UTF8.self) } == #"{ "aps" : [1, {"b": "]"}] }"#)
        #expect(CompactJSON.memberRange(of: "missing", in: data) == nil)
    }

    @Test func aVoIPPushMayCarry5120Bytes() throws {
        let filler = String(repeating: "x", count: 4500)
        let push = try PushReader.parse(Data(#"{"headers": {"apns-push-type": "voip", "apns-topic": "com.example.voip"}, "payload": {"aps": {}, "call": "\#(filler)"}}"#.utf8))
        #expect(push.payloadLimit == 5120)
        #expect(DeliveryRules.check(push).isEmpty)
        let alert = try PushReader.parse(Data(#"{"headers": {"apns-push-type": "alert"}, "payload": {"aps": {"alert": "Hi"}, "call": "\#(filler)"}}"#.utf8))
        #expect(DeliveryRules.check(alert).map(\.code) == [.payloadTooLarge])
    }

    @Test func lintReportsTheSizeAndRejectsOversizedPayloads() {
        let report = Linter.lint(file: Self.samples.appendingPathComponent("payload-too-large.json"))
        #expect(report.rejected)
        #expect((report.payloadBytes ?? 0) > 4096)
        #expect(report.diagnostics.map(\.code) == [.payloadTooLarge])
        #expect(report.exitStatus == 1)
    }

    @Test func anFCMDataMessageWithoutApsIsNotAFinding() throws {
        let push = try PushReader.parse(Data(#"{"message": {"token": "t", "data": {"k": "v"}}}"#.utf8))
        let report = Linter.lint(push, input: "m.json")
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
    }

    @Test func fcmMessagesAreLintedWhereTheSenderWroteThem() throws {
        let push = try PushReader.parse(Data("""
            {"message": {"token": "t", "notification": {"title": "T"},
             "apns": {"headers": {"apns-priority": "7"}, "payload": {"aps": {"badge": "2"}}}}}
            """.utf8))
        let findings = Linter.check(push)
        #expect(findings.first { $0.code == .lintApsBadgeType }?.message.contains("`message.apns.payload.aps.badge`") == true)
        #expect(findings.first { $0.code == .lintHeaderPriority }?.message.contains("`message.apns.headers.apns-priority`") == true)
        #expect(findings.contains { $0.rejectsPush })
    }

    @Test func unreadableFilesExitTwo() {
        let report = Linter.lint(file: URL(fileURLWithPath: "/nonexistent/push.json"))
        #expect(report.exitStatus == 2)
        #expect(!report.rejected)
    }
}
