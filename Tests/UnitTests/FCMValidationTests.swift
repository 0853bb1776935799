import Foundation
@testable import NSEMedia
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Testing

/// FCM's own checks, one rule per test.
struct FCMValidationTests {
    private func message(_ text: String) throws -> FCMMessage {
        try #require(FCMMessage(root: try object(text)))
    }

    private func validate(_ text: String) throws -> [Diagnostic] {
        let message = try message(text)
        return FCMValidation.validate(message) + FCMValidation.validateForApple(message)
    }

    @Test(arguments: [
        (#"{"message": {"token": "t"}}"#, nil), (#"{"message": {"topic": "news"}}"#, nil),
        (#"{"message": {"condition": "'a' in topics"}}"#, nil),
        (#"{"message": {"notification": {"title": "T"}}}"#, Diagnostic.Severity.error),
        (#"{"message": {"token": "t", "topic": "news"}}"#, .error),
        (#"{"message": {"token": "t", "topic": "n", "condition": "c"}}"#, .error),
    ])
    func exactlyOneTarget(text: String, expected: Diagnostic.Severity?) throws {
        let findings = try validate(text)
        #expect(severity(of: .fcmTargetCount, in: findings) == expected)
        #expect(findings.allSatisfy { $0.code != .fcmTargetCount || $0.rejectsPush })
    }

    @Test(arguments: [
        (#"{"message": {"token": "t", "data": {"a": "1", "b": ""}}}"#, 0),
        (#"{"message": {"token": "t", "data": {"a": 1}}}"#, 1),
        (#"{"message": {"token": "t", "data": {"a": true, "b": null, "c": {"d": "e"}, "f": ["g"]}}}"#, 4),
        (#"{"message": {"token": "t", "android": {"data": {"a": 1.5}}}}"#, 1),
    ])
    func dataValuesAreStrings(text: String, count: Int) throws {
        let findings = try validate(text).filter { $0.code == .fcmDataNotString }
        #expect(findings.count == count)
        #expect(findings.allSatisfy { $0.severity == .error && $0.rejectsPush })
    }

    @Test func aDataFindingNamesTheKeyAndTheFix() throws {
        let finding = try #require(try validate(#"{"message": {"token": "t", "data": {"count": 3}}}"#).first)
        #expect(finding.message.contains("`message.data.count`"))
        #expect(finding.message.contains("\"3\""))
    }

    @Test(arguments: [
        ("from", Diagnostic.Severity.error), ("message_type", .error), ("google.c.a.e", .error), ("gcm.n.e", .error),
        ("googleId", .warning), ("gcmToken", .warning),
        ("From", nil), ("type", nil), ("my.google.key", nil), ("fromage", nil),
    ])
    func reservedDataKeys(key: String, expected: Diagnostic.Severity?) throws {
        let findings = try validate(#"{"message": {"token": "t", "data": {"\#(key)": "x"}}}"#)
        #expect(severity(of: .fcmReservedDataKey, in: findings) == expected)
        let android = try validate(#"{"message": {"token": "t", "android": {"data": {"\#(key)": "x"}}}}"#)
        #expect(severity(of: .fcmReservedDataKey, in: android) == expected, "android.data too")
    }

    @Test(arguments: [
        // Data-only, priority 10: refused.
        (#"{"token": "t", "data": {"k": "v"}, "apns": {"headers": {"apns-priority": "10"}}}"#, Diagnostic.Severity.error),
        (#"{"token": "t", "data": {"k": "v"}, "apns": {"headers": {"apns-priority": "10"}, "payload": {"aps": {"content-available": 1}}}}"#, .error),
        // Priority 5, no priority, or a notification: accepted.
        (#"{"token": "t", "data": {"k": "v"}, "apns": {"headers": {"apns-priority": "5"}, "payload": {"aps": {"content-available": 1}}}}"#, nil),
        (#"{"token": "t", "data": {"k": "v"}}"#, nil),
        (#"{"token": "t", "notification": {"title": "T"}, "apns": {"headers": {"apns-priority": "10"}}}"#, nil),
        (#"{"token": "t", "apns": {"headers": {"apns-priority": "10"}, "payload": {"aps": {"alert": "Hi"}}}}"#, nil),
    ])
    func dataMessagesToAppleUsePriorityFive(message: String, expected: Diagnostic.Severity?) throws {
        let findings = try validate(#"{"message": \#(message)}"#)
        #expect(severity(of: .fcmDataOnlyPriority, in: findings) == expected)
    }

    @Test func aRefusedDataMessageIsNotReportedTwice() throws {
        let push = try PushReader.parse(Data(#"{"message": {"token": "t", "data": {"k": "v"}, "apns": {"headers": {"apns-push-type": "background", "apns-priority": "10"}, "payload": {"aps": {"content-available": 1}}}}}"#.utf8))
        let codes = Linter.check(push).map(\.code)
        #expect(codes.contains(.fcmDataOnlyPriority))
        #expect(!codes.contains(.lintHeaderPriorityMismatch))
    }

    @Test(arguments: [
        // Unknown names, at every level FCM defines.
        #"{"message": {"token": "t", "notification": {"title": "T", "imageUrl": "x"}}}"#,
        #"{"message": {"token": "t", "mutable_content": true}}"#,
        #"{"message": {"token": "t", "apns": {"fcm_options": {"img": "x"}}}}"#,
        #"{"message": {"token": "t", "android": {"notification": {"channel": "x"}}}}"#,
        #"{"message": {"token": "t"}, "dry_run": true}"#,
        // Wrong types.
        #"{"message": {"token": 1}}"#,
        #"{"message": {"token": "t", "notification": {"title": 1}}}"#,
        #"{"message": {"token": "t", "data": ["a"]}}"#,
        #"{"message": {"token": "t", "apns": {"headers": {"apns-priority": 10}}}}"#,
        #"{"message": {"token": "t", "apns": {"payload": "x"}}}"#,
        #"{"message": {"token": "t", "android": {"priority": "urgent"}}}"#,
        #"{"message": {"token": "t", "android": {"ttl": 3600}}}"#,
        #"{"message": {"token": "t", "android": {"notification": {"body_loc_args": [1]}}}}"#,
    ])
    func fieldsFCMDoesNotKnowAreRefused(text: String) throws {
        let findings = try validate(text)
        #expect(severity(of: .fcmInvalidField, in: findings) == .error, "\(findings)")
        #expect(findings.contains { $0.rejectsPush })
    }

    @Test(arguments: [
        #"{"message": {"token": "t", "apns": {"fcmOptions": {"image": "https://x/y.jpg"}}}}"#,
        #"{"message": {"token": "t", "android": {"collapseKey": "k", "ttl": "3.5s", "priority": "HIGH", "notification": {"channelId": "c", "clickAction": "OPEN", "notificationCount": 2}}}}"#,
        #"{"message": {"token": "t", "webpush": {"anything": {"goes": 1}}, "fcm_options": {"analytics_label": "x"}}, "validate_only": true}"#,
        #"{"message": {"token": "t", "apns": {"live_activity_token": "x", "headers": {"apns-push-type": "liveactivity"}}}}"#,
    ])
    func protoAndJSONNamesAreBothAccepted(text: String) throws {
        let findings = try validate(text)
        #expect(findings.isEmpty, "\(findings)")
    }

    @Test func aNearMissIsNamed() throws {
        let finding = try #require(try validate(#"{"message": {"token": "t", "notification": {"imageUrl": "x"}}}"#).first)
        #expect(finding.message.contains("Did you mean `image`?"))
    }

    @Test func camelCaseFcmOptionsCarriesTheImageToIOS() throws {
        let push = try PushReader.parse(Data(#"{"message": {"token": "t", "apns": {"fcmOptions": {"image": "https://x/y.jpg"}}}}"#.utf8))
        #expect(push.userInfo["fcm_options"]?["image"] == .string("https://x/y.jpg"))
    }
}
