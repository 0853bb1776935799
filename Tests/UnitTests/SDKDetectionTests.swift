import Foundation
import NSEPush
import NSETestSupport
import Testing

/// `--sdk auto`: which helper a payload's keys point to, as each SDK's servers send them.
struct SDKDetectionTests {
    private func payload(_ json: String) throws -> [String: JSONValue] {
        try PushReader.parse(Data(json.utf8)).userInfo
    }

    @Test(arguments: [
        (#"{"aps": {"alert": "A"}, "fcm_options": {"image": "https://x/a.jpg"}, "gcm.message_id": "1"}"#, PushSDK.firebase),
        (#"{"aps": {"alert": "A"}, "custom": {"i": "x"}, "att": {"id": "https://x/a.jpg"}}"#, .onesignal),
        (#"{"aps": {"alert": "A"}, "os_data": {"i": "x"}}"#, .onesignal),
        (#"{"aps": {"alert": "A"}, "ab": {"att": {"url": "https://x/a.jpg", "type": "jpg"}}}"#, .braze),
        (#"{"aps": {"alert": "A"}, "ct_mediaUrl": "https://x/a.png", "ct_mediaType": "image", "wzrk_id": "1"}"#, .clevertap),
        (#"{"aps": {"alert": "A"}, "itbl": {"attachment-url": "https://x/a.jpg"}}"#, .iterable),
        (#"{"aps": {"alert": "A"}, "CIO": {"push": {"image": "https://x/a.jpg"}}, "CIO-Delivery-ID": "d"}"#, .customerio),
        (#"{"aps": {"alert": "A"}, "pw_msg": "1", "attachment": "https://x/a.jpg"}"#, .pushwoosh),
        (#"{"aps": {"alert": "A"}, "com.batch": {"at": {"u": "https://x/a.jpg", "t": "image/jpeg"}}}"#, .batch),
        (#"{"aps": {"alert": "A"}, "com.urbanairship.media_attachment": {"url": ["https://x/a.jpg"]}}"#, .airship),
        (#"{"aps": {"alert": "A"}, "mp": {"c": "1"}, "mp_media_url": "https://x/a.jpg"}"#, .mixpanel),
    ])
    func eachSDKsKeysPickItsHelper(json: String, sdk: PushSDK) throws {
        let (choice, warning) = SDKDetection.choose(for: try payload(json))
        #expect(choice.sdk == sdk)
        #expect(choice.selection == .detected)
        #expect(warning == nil)
    }

    @Test func noSDKKeyIsFirebaseByDefaultWithTheReasonSaid() throws {
        let (choice, warning) = SDKDetection.choose(for: try payload(#"{"aps": {"alert": "A", "mutable-content": 1}}"#))
        #expect(choice.sdk == .firebase)
        #expect(choice.selection == .default)
        #expect(choice.reason.contains("no SDK's key"))
        #expect(choice.isFirebaseByDefault)
        #expect(warning == nil)
    }

    @Test func severalSDKsAreAWarningNamingThemAndTheMediaKeyDecides() throws {
        let json = #"{"aps": {"alert": "A"}, "gcm.message_id": "1", "ab_uri": "app://x", "custom": {"i": "x"}, "att": {"id": "https://x/a.jpg"}}"#
        let (choice, warning) = SDKDetection.choose(for: try payload(json))
        #expect(choice.sdk == .onesignal)
        #expect(choice.matched == [.firebase, .onesignal, .braze])
        let finding = try #require(warning)
        #expect(finding.code == .sdkDetectAmbiguous)
        #expect(finding.severity == .warning)
        for name in ["Firebase", "OneSignal", "Braze"] { #expect(finding.message.contains(name)) }
    }

    @Test func firebasesTransportKeysGiveWayToAnotherSDK() throws {
        let (choice, warning) = SDKDetection.choose(for: try payload(#"{"aps": {"alert": "A"}, "gcm.message_id": "1", "ab": {"c": "x"}}"#))
        #expect(choice.sdk == .braze)
        #expect(warning?.code == .sdkDetectAmbiguous)
    }

    @Test func selectionParsesEveryDocumentedValue() {
        for value in SDKSelection.argumentValues {
            #expect(SDKSelection(argument: value)?.description == value)
        }
        #expect(SDKSelection(argument: "firebase") == .only(.firebase))
        #expect(SDKSelection(argument: "sendbird") == nil)
    }

    @Test func anExtensionCallingOneSDKWarnsOfAnotherSDKsPayload() throws {
        let braze = try payload(#"{"aps": {"alert": "A"}, "ab": {"att": {"url": "https://x/a.jpg", "type": "jpg"}}}"#)
        let (choice, warning) = SDKDetection.extensionHelper(payload: braze, importedSDKs: [.onesignal], selection: .auto)
        #expect(choice?.sdk == .onesignal)
        #expect(choice?.selection == .extension)
        #expect(warning?.code == .sdkExtensionMismatch)
        #expect(SDKDetection.extensionHelper(payload: braze, importedSDKs: [.braze], selection: .auto).warning == nil)
        // An extension that calls no SDK's helper is held to no SDK's rules.
        #expect(SDKDetection.extensionHelper(payload: braze, importedSDKs: [], selection: .auto).choice == nil)
    }

    @Test func theMediaURLIsReadFromTheHelpersOwnKey() throws {
        let json = #"{"aps": {"alert": "A"}, "fcm_options": {"image": "https://x/f.jpg"}, "att": {"b": "https://x/b.jpg", "a": "https://x/a.jpg"}}"#
        let info = try payload(json)
        #expect(SDKDetection.mediaURL(of: .firebase, in: info) == "https://x/f.jpg")
        #expect(SDKDetection.mediaURL(of: .onesignal, in: info) == "https://x/a.jpg")
        #expect(SDKDetection.mediaURL(of: .braze, in: info) == nil)
    }
}

/// Another SDK's image request counts as an image request for every command: a push that never reaches the
/// extension loses it, so `extension.not-invoked` is an error in `lint` as in `process`.
struct SDKImageRequestTests {
    @Test func aOneSignalImageWithoutMutableContentIsAnError() throws {
        let push = try PushReader.parse(Data(#"{"aps": {"alert": "A"}, "custom": {"i": "x"}, "att": {"id": "https://x/a.jpg"}}"#.utf8))
        let findings = Linter.check(push)
        #expect(findings.contains { $0.code == .extensionNotInvoked && $0.severity == .error })
    }

    @Test func aOneSignalPushWithoutMediaIsOnlyANote() throws {
        let push = try PushReader.parse(Data(#"{"aps": {"alert": "A"}, "custom": {"i": "x"}}"#.utf8))
        let findings = Linter.check(push)
        #expect(findings.contains { $0.code == .extensionNotInvoked && $0.severity == .info })
    }
}
