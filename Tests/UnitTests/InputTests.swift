import Foundation
@testable import NSEBatch
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Testing

struct InputTests {
    private func parse(_ text: String, fileExtension: String = "json") throws(InputError) -> ReceivedPush {
        try PushReader.parse(Data(text.utf8), fileExtension: fileExtension)
    }

    private func inputError(_ text: String) -> InputError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    /// Found by fuzzing: bytes that are not UTF-8 inside a string were read as U+FFFD and the payload passed.
    @Test func aStringThatIsNotUTF8IsInvalidJSON() throws {
        let bytes = Data(#"{"aps": {"alert": "caf"#.utf8) + Data([0xE9]) + Data(#""}}"#.utf8)
        #expect {
            try PushReader.parse(bytes)
        } throws: { error in
            let diagnostic = (error as? InputError)?.diagnostic
            return diagnostic?.code == .inputInvalidJSON && diagnostic?.message.contains("not valid UTF-8") == true
        }
        #expect(try PushReader.parse(Data(#"{"aps": {"alert": "café"}}"#.utf8)).aps.alert != nil)
    }

    @Test func apnsPayloadIsReadAsIs() throws {
        let push = try parse(#"{"aps": {"alert": {"title": "Sale"}, "mutable-content": 1}, "fcm_options": {"image": "https://x/y.jpg"}}"#)
        #expect(push.kind == .apns)
        #expect(push.userInfo["fcm_options"]?["image"] == .string("https://x/y.jpg"))
        #expect(push.userInfo["aps"]?["mutable-content"] == .int(1))
    }

    @Test func simctlFileDropsTheSimulatorKey() throws {
        let push = try parse(#"{"Simulator Target Bundle": "com.example", "aps": {"alert": "Hi"}}"#, fileExtension: "apns")
        #expect(push.kind == .simctl)
        #expect(push.userInfo["Simulator Target Bundle"] == nil)
        let byKey = try parse(#"{"Simulator Target Bundle": "com.example", "aps": {"alert": "Hi"}}"#)
        #expect(byKey.kind == .simctl)
    }

    @Test func payloadSizeIgnoresWhitespaceButKeepsEscapes() throws {
        let pretty = "{\n  \"aps\" : {\n    \"alert\" : \"a b\\/c\"\n  }\n}\n"
        let push = try parse(pretty)
        #expect(push.payloadBytes == #"{"aps":{"alert":"a b\/c"}}"#.utf8.count)
    }

    @Test(arguments: [
        ("{\"aps\": ", DiagnosticCode.inputInvalidJSON),
        ("[1, 2]", .inputUnknownKind),
        ("{\"hello\": \"world\"}", .inputUnknownKind),
        ("{\"aps\": {\"alert\": \"Hi\"},}", .inputInvalidJSON),
        ("{\"aps\": [1, 2,]}", .inputInvalidJSON),
        ("{\"aps\": {}} trailing", .inputInvalidJSON),
        ("{\"aps\": {\"badge\": 01}}", .inputInvalidJSON),
    ])
    func unusableFilesAreDiagnosed(text: String, code: DiagnosticCode) {
        let error = inputError(text)
        #expect(error?.diagnostic.code == code)
        #expect(error?.unreadable == false)
    }

    @Test func aMissingFileIsUnreadable() {
        do {
            _ = try PushReader.read(URL(fileURLWithPath: "/nonexistent/push.json"))
            Issue.record("reading a missing file succeeded")
        } catch {
            #expect(error.diagnostic.code == .inputUnreadable)
            #expect(error.unreadable)
        }
    }

    @Test func firebaseKeysWithoutApsAreAPayloadMissingAps() throws {
        let push = try parse(#"{"fcm_options": {"image": "https://x/y.jpg"}, "gcm.message_id": "1"}"#)
        #expect(push.kind == .apns)
        #expect(DeliveryRules.check(push).map(\.code) == [.payloadApsMissing])
    }

    @Test func apsThatIsNotAnObjectIsRejected() throws {
        let push = try parse(#"{"aps": "alert"}"#)
        #expect(DeliveryRules.check(push).map(\.code) == [.payloadApsMissing])
    }

    @Test func payloadsOver4096BytesAreRejected() throws {
        let filler = String(repeating: "x", count: 4096)
        let push = try parse(#"{"aps": {"alert": "Hi"}, "data": "\#(filler)"}"#)
        #expect(DeliveryRules.check(push).map(\.code) == [.payloadTooLarge])
        let small = try parse(#"{"aps": {"alert": "Hi"}}"#)
        #expect(DeliveryRules.check(small).isEmpty)
    }
}

struct FCMResolutionTests {
    private func resolve(_ text: String) throws -> ReceivedPush {
        try PushReader.parse(Data(text.utf8))
    }

    /// A worked example of FCM's precedence rules, iOS side (Firebase: FCM HTTP v1 reference, "REST Resource:
    /// projects.messages").
    @Test func workedExampleResolvesAsTheDeviceReceivesIt() throws {
        let push = try resolve("""
            {"message": {
              "notification": {"title": "Default Title", "body": "Default Body"},
              "data": {"type": "Default Type", "url": "Default Url"},
              "android": {"notification": {"title": "Android Title"}, "data": {"type": "Android Type"}},
              "apns": {"payload": {"aps": {"alert": {"body": "iOS Body"}}, "url": "iOS Url"}}
            }}
            """)
        #expect(push.kind == .fcmV1)
        let content = NotificationContent(userInfo: push.userInfo)
        #expect(content.title == "Default Title")
        #expect(content.body == "iOS Body")
        #expect(push.userInfo["type"] == .string("Default Type"))
        #expect(push.userInfo["url"] == .string("iOS Url"))
    }

    @Test func apnsFcmOptionsImageWinsOverNotificationImage() throws {
        let push = try resolve("""
            {"message": {"token": "t", "notification": {"title": "T", "image": "https://a/n.jpg"},
             "apns": {"payload": {"aps": {"mutable-content": 1}}, "fcm_options": {"image": "https://a/apns.jpg"}}}}
            """)
        #expect(push.userInfo["fcm_options"]?["image"] == .string("https://a/apns.jpg"))
        #expect(push.diagnostics.isEmpty)
        #expect(push.userInfo["aps"]?["mutable-content"] == .int(1))
    }

    @Test func notificationImageAloneIsCopiedWithAnInferenceWarning() throws {
        let push = try resolve(#"{"token": "t", "notification": {"title": "T", "image": "https://a/n.jpg"}}"#)
        #expect(push.kind == .fcmV1)
        #expect(push.userInfo["fcm_options"]?["image"] == .string("https://a/n.jpg"))
        #expect(push.diagnostics.map(\.code) == [.fcmInferredImage])
        // FCM adds no mutable-content for v1 sends.
        #expect(push.userInfo["aps"]?["mutable-content"] == nil)
    }

    @Test func apnsCustomKeysOverrideDataKeys() throws {
        let push = try resolve(#"{"message": {"data": {"k": "data"}, "apns": {"payload": {"k": "apns", "aps": {}}}}}"#)
        #expect(push.userInfo["k"] == .string("apns"))
    }
}

struct JSONParserTests {
    @Test func valuesKeepTheirJSONTypes() throws {
        let value = try JSONValue.parse(Data(#"{"i": -12, "d": 0.5, "e": 1e3, "t": true, "n": null, "s": "a\"\u00e9\ud83d\ude00\/", "a": []}"#.utf8))
        #expect(value["i"] == .int(-12))
        #expect(value["d"] == .double(0.5))
        #expect(value["e"] == .double(1000))
        #expect(value["t"] == .bool(true))
        #expect(value["n"] == .null)
        #expect(value["s"] == .string("a\"é😀/"))
        #expect(value["a"] == .array([]))
    }

    @Test func errorsSayWhere() {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONValue.parse(Data("{\n  \"a\": 1,\n}".utf8)) }
        do {
            _ = try JSONParser.parse(Data("{\n  \"a\": 1,\n}".utf8))
        } catch {
            #expect(error.line == 3)
            #expect(error.reason.contains("trailing comma"))
        }
    }

    @Test func hostileNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParser.SyntaxError.self) { try JSONValue.parse(Data(deep.utf8)) }
    }
}
