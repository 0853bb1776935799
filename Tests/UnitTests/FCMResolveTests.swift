import Foundation
@testable import NSEPush
import NSETestSupport
import Testing

/// `nse resolve`: a worked example of FCM's precedence rules (Firebase: FCM HTTP v1 reference, "REST Resource:
/// projects.messages") on both platforms, then every precedence rule on its own.
struct FCMResolveTests {
    private func push(_ message: String) throws -> ReceivedPush {
        try PushReader.parse(Data(#"{"message": \#(message)}"#.utf8))
    }

    private func android(_ message: String) throws -> AndroidMessage {
        FCMResolver.resolveForAndroid(try #require(try push(message).fcmMessage))
    }

    private func ios(_ message: String) throws -> [String: JSONValue] {
        try push(message).userInfo
    }

    static let workedExample = """
        {"token": "t",
         "notification": {"title": "Default Title", "body": "Default Body"},
         "data": {"type": "Default Type", "url": "Default Url"},
         "android": {"notification": {"title": "Android Title"}, "data": {"type": "Android Type"}},
         "apns": {"payload": {"aps": {"alert": {"body": "iOS Body"}}, "url": "iOS Url"}}}
        """

    @Test func theWorkedExampleOnBothPlatforms() throws {
        let report = FCMResolver.resolve(try push(Self.workedExample), input: "example.json")
        #expect(report.diagnostics.warningsAndErrors.isEmpty, "\(report.diagnostics)")
        #expect(!report.rejected)

        let android = try #require(report.android)
        #expect(android.notification?["title"] == .string("Android Title"))
        #expect(android.notification?["body"] == .string("Default Body"))
        #expect(android.data == ["type": .string("Android Type"), "url": .string("Default Url")])

        let ios = try #require(report.ios)
        let content = NotificationContent(userInfo: ios.payload)
        #expect(content.title == "Default Title")
        #expect(content.body == "iOS Body")
        #expect(ios.payload["type"] == .string("Default Type"))
        #expect(ios.payload["url"] == .string("iOS Url"))
        #expect(ios.payloadBytes == JSONValue.object(ios.payload).compactData().count)
        #expect(ios.payloadLimit == 4096)
    }

    // MARK: iOS precedence, one rule each

    @Test func iOSNotificationTitleAndBodyFormTheAlert() throws {
        let payload = try ios(#"{"token": "t", "notification": {"title": "T", "body": "B"}}"#)
        #expect(payload["aps"]?["alert"] == .object(["title": .string("T"), "body": .string("B")]))
    }

    @Test func iOSApsAlertOverridesKeyByKey() throws {
        let payload = try ios(#"{"token": "t", "notification": {"title": "T", "body": "B"}, "apns": {"payload": {"aps": {"alert": {"title": "iOS T", "subtitle": "S"}}}}}"#)
        #expect(payload["aps"]?["alert"] == .object(["title": .string("iOS T"), "body": .string("B"), "subtitle": .string("S")]))
    }

    @Test func iOSApsAlertStringReplacesTheBody() throws {
        let payload = try ios(#"{"token": "t", "notification": {"title": "T", "body": "B"}, "apns": {"payload": {"aps": {"alert": "iOS B"}}}}"#)
        #expect(payload["aps"]?["alert"] == .object(["title": .string("T"), "body": .string("iOS B")]))
    }

    @Test func iOSDataKeysSitBesideAps() throws {
        let payload = try ios(#"{"token": "t", "notification": {"title": "T"}, "data": {"k": "v"}}"#)
        #expect(payload["k"] == .string("v"))
        #expect(payload["data"] == nil)
    }

    @Test func iOSApnsPayloadKeysOverrideDataKeys() throws {
        let payload = try ios(#"{"token": "t", "data": {"k": "data", "other": "o"}, "apns": {"payload": {"aps": {}, "k": "apns"}}}"#)
        #expect(payload["k"] == .string("apns"))
        #expect(payload["other"] == .string("o"))
    }

    @Test func iOSApnsFcmOptionsImageWinsOverNotificationImage() throws {
        let push = try push(#"{"token": "t", "notification": {"image": "https://x/n.jpg"}, "apns": {"fcm_options": {"image": "https://x/a.jpg"}}}"#)
        #expect(push.userInfo["fcm_options"]?["image"] == .string("https://x/a.jpg"))
        #expect(!push.diagnostics.contains { $0.code == .fcmInferredImage })
    }

    @Test func iOSNotificationImageAloneIsAnInferredCopy() throws {
        let report = FCMResolver.resolve(try push(#"{"token": "t", "notification": {"title": "T", "image": "https://x/n.jpg"}}"#), input: "m.json")
        #expect(report.ios?.payload["fcm_options"]?["image"] == .string("https://x/n.jpg"))
        // FCM adds no `mutable-content`, so the extension does not run and the image cannot show.
        #expect(report.diagnostics.map(\.code) == [.fcmInferredImage, .extensionNotInvoked])
        #expect(report.diagnostics.first?.severity == .warning)
        #expect(report.diagnostics.last?.severity == .error)
        #expect(report.android?.image == "https://x/n.jpg", "documented for Android: no inference warning of its own")
    }

    @Test func iOSGetsNoMutableContentFromFCM() throws {
        let payload = try ios(#"{"token": "t", "notification": {"title": "T", "image": "https://x/n.jpg"}}"#)
        #expect(payload["aps"]?["mutable-content"] == nil)
    }

    // MARK: Android precedence, one rule each

    @Test func androidNotificationOverridesFieldByField() throws {
        let message = try android(#"{"token": "t", "notification": {"title": "T", "body": "B"}, "android": {"notification": {"body": "Android B", "channel_id": "sales"}}}"#)
        #expect(message.notification == ["title": .string("T"), "body": .string("Android B"), "channel_id": .string("sales")])
    }

    @Test func androidDataOverridesKeyByKey() throws {
        let message = try android(#"{"token": "t", "data": {"a": "1", "b": "2"}, "android": {"data": {"b": "android"}}}"#)
        #expect(message.data == ["a": .string("1"), "b": .string("android")])
    }

    @Test func androidNotificationImageWinsOverNotificationImage() throws {
        let message = try android(#"{"token": "t", "notification": {"image": "https://x/n.jpg"}, "android": {"notification": {"image": "https://x/a.jpg"}}, "apns": {"fcm_options": {"image": "https://x/i.jpg"}}}"#)
        #expect(message.image == "https://x/a.jpg")
    }

    @Test func androidUsesNotificationImageAlone() throws {
        let message = try android(#"{"token": "t", "notification": {"image": "https://x/n.jpg"}, "apns": {"fcm_options": {"image": "https://x/i.jpg"}}}"#)
        #expect(message.image == "https://x/n.jpg", "apns.fcm_options is for iOS only")
    }

    @Test func androidDataOnlyHasNoNotification() throws {
        let message = try android(#"{"token": "t", "data": {"k": "v"}, "apns": {"payload": {"aps": {"alert": "iOS only"}}}}"#)
        #expect(message.notification == nil)
        #expect(message.data == ["k": .string("v")])
    }

    @Test func androidCamelCaseFieldsAreReportedUnderTheirProtoName() throws {
        let message = try android(#"{"token": "t", "android": {"notification": {"channelId": "sales", "clickAction": "OPEN"}}}"#)
        #expect(message.notification == ["channel_id": .string("sales"), "click_action": .string("OPEN")])
    }

    // MARK: Platforms and validation

    @Test func platformChoosesTheSides() throws {
        let push = try push(Self.workedExample)
        let ios = FCMResolver.resolve(push, input: "m", platform: .ios)
        #expect(ios.ios != nil && ios.android == nil)
        let android = FCMResolver.resolve(push, input: "m", platform: .android)
        #expect(android.ios == nil && android.android != nil)
    }

    @Test func androidOnlySkipsTheAPNsChecks() throws {
        let push = try push(#"{"token": "t", "notification": {"title": "T"}, "apns": {"headers": {"apns-priority": "7"}}}"#)
        #expect(FCMResolver.resolve(push, input: "m", platform: .android).diagnostics.isEmpty)
        #expect(FCMResolver.resolve(push, input: "m", platform: .ios).diagnostics.warningsAndErrors.map(\.code) == [.lintHeaderPriority])
    }

    @Test func theAPNsLimitAppliesAfterResolution() throws {
        let filler = String(repeating: "x", count: 2100)
        // Each half fits; together, beside `aps`, they pass 4096 bytes.
        let push = try push(#"{"token": "t", "notification": {"title": "T"}, "data": {"a": "\#(filler)"}, "apns": {"payload": {"aps": {"badge": 1}, "b": "\#(filler)"}}}"#)
        let report = FCMResolver.resolve(push, input: "m")
        #expect(report.diagnostics.warningsAndErrors.map(\.code) == [.payloadTooLarge])
        #expect(report.rejected)
        #expect(report.exitStatus == 1)
    }

    @Test func anAPNsPayloadHasNothingToResolve() throws {
        let push = try PushReader.parse(Data(#"{"aps": {"alert": "Hi"}}"#.utf8))
        let report = FCMResolver.resolve(push, input: "p.json")
        #expect(report.diagnostics.map(\.code) == [.inputUnknownKind])
        #expect(report.exitStatus == 1)
    }
}
