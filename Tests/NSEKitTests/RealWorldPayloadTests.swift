import Foundation
@testable import NSEBatch
import NSEHarness
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Testing

private func push(_ text: String, fileExtension: String = "json") throws -> ReceivedPush {
    try PushReader.parse(Data(text.utf8), fileExtension: fileExtension)
}

private func codes(_ text: String) throws -> [DiagnosticCode] {
    PushChecks.run(try push(text)).diagnostics.warningsAndErrors.map(\.code)
}

/// Runs the built-in extension (no content changes) on a push, without a network: for pushes that never
/// download anything.
private func process(_ text: String) async throws -> ProcessResult {
    await Pipeline().run(try push(text), input: "p.json")
}

/// FCM messages that carry nothing to show on an iPhone are valid for every command, `process` included.
struct MessagesWithoutApsTests {
    static let messages = [
        #"{"message": {"token": "t", "data": {"kind": "sync"}}}"#,
        #"{"message": {"token": "t", "android": {"notification": {"title": "Hi"}}}}"#,
        #"{"message": {"token": "t", "webpush": {"notification": {"title": "Hi"}}}}"#,
        #"{"message": {"token": "t", "data": {"kind": "sync"}, "apns": {"headers": {"apns-priority": "5"}}}}"#,
    ]

    @Test(arguments: messages)
    func everyCommandAcceptsThem(message: String) async throws {
        let received = try push(message)
        #expect(Linter.lint(received, input: "m").verdict == .pass)
        for state in AppState.allCases {
            #expect(DeliveryRoutes.route(received, input: "m", appState: state).verdict == .pass)
        }
        #expect(FCMResolver.resolve(received, input: "m").verdict == .pass)
        let result = try await process(message)
        #expect(result.outcome == .notDisplayed, "\(result.diagnostics)")
        #expect(result.verdict == .pass)
        #expect(!result.codes.contains(.payloadApsMissing))
    }

    @Test func anAndroidOnlyMessageReachesNoIOSCode() throws {
        let report = DeliveryRoutes.route(try push(Self.messages[1]), input: "m", appState: .foreground)
        #expect(report.ios?.receiver == .notDelivered)
        #expect(report.ios?.explanation.contains("nothing for iOS") == true)
        #expect(report.android?.receiver == .onMessageReceived)
    }

    @Test func anAPNsPayloadWithoutApsIsStillRefused() async throws {
        let text = #"{"fcm_options": {"image": "https://x/y.jpg"}, "gcm.message_id": "1"}"#
        #expect(try codes(text) == [.payloadApsMissing])
        #expect(try await process(text).outcome == .rejected)
    }
}

/// Live Activity pushes as Apple's documentation shows them ("Starting and updating Live Activities with ActivityKit
/// push notifications").
struct LiveActivityTests {
    static func envelope(_ aps: String, pushType: String = "liveactivity", headers: String = "") -> String {
        #"{"headers": {"apns-push-type": "\#(pushType)", "apns-topic": "com.example.app.push-type.liveactivity"\#(headers)}, "payload": {"aps": \#(aps)}}"#
    }

    static let update = #"""
        {"timestamp": 1717401440, "event": "update", "content-state": {"score": "2-1"}, "relevance-score": 100,
         "stale-date": 1717405040, "alert": {"title": {"loc-key": "GOAL_TITLE", "loc-args": ["Lyon"]},
         "body": {"loc-key": "GOAL_BODY", "loc-args": ["Lyon", "2"]}, "sound": "goal.caf"}}
        """#

    @Test func applesSampleShapeHasNoFindings() throws {
        #expect(try codes(Self.envelope(Self.update)) == [])
    }

    @Test func aDictionaryTitleOutsideALiveActivityIsStillAnError() throws {
        let findings = try codes(#"{"aps": {"alert": {"title": {"loc-key": "K"}}, "mutable-content": 1}}"#)
        #expect(findings.contains(.lintApsAlertFieldType))
    }

    @Test(arguments: [(true, 100.0), (true, 25.0), (false, 100.0)])
    func relevanceScoreIsAnyNumberOnlyForLiveActivities(liveActivity: Bool, score: Double) throws {
        let text = liveActivity
            ? Self.envelope(#"{"timestamp": 1, "event": "update", "content-state": {}, "relevance-score": \#(score)}"#)
            : #"{"aps": {"alert": "Hi", "relevance-score": \#(score)}}"#
        let warned = try codes(text).contains(.lintApsRelevanceScore)
        #expect(warned == !liveActivity)
    }

    @Test(arguments: AppState.allCases)
    func itGoesToActivityKitInEveryState(state: AppState) throws {
        let report = DeliveryRoutes.route(try push(Self.envelope(Self.update)), input: "la", appState: state)
        #expect(report.ios?.receiver == .activityKit)
        #expect(report.ios?.serviceExtension == false)
        #expect(report.ios?.explanation.contains("ActivityKit") == true)
        #expect(report.verdict == .pass)
    }

    @Test func processShowsNothingInNotificationCenterAndPasses() async throws {
        let result = try await process(Self.envelope(Self.update))
        #expect(result.outcome == .notDisplayed)
        #expect(result.destination == .activityKit)
        #expect(result.verdict == .pass, "\(result.diagnostics)")
        #expect(!result.codes.contains(.extensionNotInvoked), "a Live Activity was never meant for the extension")
    }

    @Test func pushToStartKeysAreKnown() throws {
        let start = #"{"timestamp": 1717401440, "event": "start", "content-state": {}, "attributes-type": "MatchAttributes", "attributes": {"home": "Lyon"}, "input-push-token": 1, "alert": {"title": "Kick-off", "body": "Lyon v Nice"}}"#
        #expect(try codes(Self.envelope(start)) == [])
        #expect(try codes(Self.envelope(#"{"timestamp": 1, "event": "start", "content-state": {}, "input-push-token": "yes"}"#)) == [.lintApsLiveActivity])
    }

    @Test func aBroadcastChannelHeaderIsApples() throws {
        let text = Self.envelope(Self.update, headers: ##", "apns-channel-id": "dHN0LXNyY2gtY2hubA==""##)
        #expect(try codes(text) == [])
    }

    @Test func fcmSendsALiveActivityWithItsToken() throws {
        let message = #"{"message": {"token": "t", "apns": {"live_activity_token": "la-token", "headers": {"apns-priority": "10"}, "payload": {"aps": \#(Self.update)}}}}"#
        let received = try push(message)
        #expect(received.pushType == .liveactivity)
        #expect(try codes(message) == [], "\(PushChecks.run(received).diagnostics)")
        #expect(DeliveryRoutes.route(received, input: "m", appState: .background).ios?.receiver == .activityKit)
    }

    @Test func aPriorityAppleDoesNotDocumentForLiveActivitiesIsAWarning() throws {
        let findings = PushChecks.run(try push(Self.envelope(Self.update, headers: #", "apns-priority": "1""#))).diagnostics
        #expect(severity(of: .lintHeaderPriorityMismatch, in: findings) == .warning)
    }
}

/// `apns-push-type: widgets` and `controls` (iOS 18: WidgetKit push updates).
struct WidgetAndControlPushTests {
    @Test(arguments: [(PushType.widgets, PlatformRoute.Receiver.widgetKit), (.controls, .controls)])
    func theyAreKnownAndRouted(type: PushType, receiver: PlatformRoute.Receiver) throws {
        let text = #"{"headers": {"apns-push-type": "\#(type.rawValue)", "apns-topic": "com.example.app.push-type.\#(type.rawValue)", "apns-priority": "5"}, "payload": {"aps": {"content-changed": true}}}"#
        #expect(try codes(text) == [])
        let route = DeliveryRoutes.route(try push(text), input: "w", appState: .background)
        #expect(route.ios?.receiver == receiver)
        #expect(route.verdict == .pass)
    }

    @Test(arguments: [PushType.widgets, .controls])
    func theirTopicCarriesTheSuffix(type: PushType) throws {
        let text = #"{"headers": {"apns-push-type": "\#(type.rawValue)", "apns-topic": "com.example.app"}, "payload": {"aps": {"content-changed": true}}}"#
        #expect(try codes(text) == [.lintHeaderTopic])
        #expect(PushChecks.run(try push(text)).refused)
    }

    @Test func aWidgetsTopicOnAnAlertPushIsRefused() throws {
        let text = #"{"headers": {"apns-push-type": "alert", "apns-topic": "com.example.app.push-type.widgets"}, "payload": {"aps": {"alert": "Hi"}}}"#
        let finding = try #require(PushChecks.run(try push(text)).diagnostics.first { $0.code == .lintHeaderTopic })
        #expect(finding.message.contains("\"com.example.app\""))
    }

    @Test func contentChangedIsTrue() throws {
        let text = #"{"headers": {"apns-push-type": "controls", "apns-topic": "com.example.app.push-type.controls"}, "payload": {"aps": {"content-changed": 1}}}"#
        let findings = PushChecks.run(try push(text)).diagnostics
        #expect(findings.map(\.code) == [.lintApsContentChanged])
        #expect(findings.first?.severity == .warning)
    }

    @Test func aBodyWithoutContentChangedIsAWarning() throws {
        let text = #"{"headers": {"apns-push-type": "widgets", "apns-topic": "com.example.app.push-type.widgets"}, "payload": {"aps": {}}}"#
        #expect(try codes(text) == [.lintHeaderPushTypeMismatch])
    }
}

/// Where every push type goes (`nse route`).
struct PushTypeRouteTests {
    static let expected: [PushType: PlatformRoute.Receiver] = [
        .liveactivity: .activityKit, .widgets: .widgetKit, .controls: .controls, .voip: .pushKitVoIP,
        .location: .locationPushExtension, .pushtotalk: .pushToTalk, .fileprovider: .fileProvider,
        .complication: .complication, .mdm: .deviceManagement, .background: .didReceiveRemoteNotification,
        .alert: .systemNotification,
    ]

    @Test(arguments: PushType.allCases)
    func everyPushTypeHasAReceiver(type: PushType) throws {
        let aps = switch type {
        case .alert: #"{"alert": "Hi"}"#
        case .background: #"{"content-available": 1}"#
        case .liveactivity: #"{"timestamp": 1, "event": "update", "content-state": {}}"#
        case .widgets, .controls: #"{"content-changed": true}"#
        default: "{}"
        }
        let topic = "com.example.app" + (type.topicSuffix ?? "")
        let text = #"{"headers": {"apns-push-type": "\#(type.rawValue)", "apns-topic": "\#(topic)", "apns-priority": "5"}, "payload": {"aps": \#(aps)}}"#
        let route = DeliveryRoutes.route(try push(text), input: "p", appState: .background)
        #expect(route.ios?.receiver == Self.expected[type], "\(route.diagnostics)")
        #expect(route.verdict == .pass, "\(route.diagnostics)")
    }
}

/// FCM's targets and FCM's own refusals (Firebase: FCM HTTP v1 reference; firebase/firebase-admin-java#214,
/// firebase/firebase-admin-dotnet#39).
struct FCMRefusalTests {
    @Test func aFirebaseInstallationIDIsATarget() throws {
        #expect(try codes(#"{"message": {"fid": "cXkA5bq1SgaQ", "notification": {"title": "T"}}}"#).isEmpty)
        #expect(try codes(#"{"message": {"fid": "f", "token": "t", "notification": {"title": "T"}}}"#) == [.fcmTargetCount])
    }

    @Test(arguments: [
        #"{"message": {"token": "t", "notification": {"title": "T"}, "apns": {"payload": {"order": "42"}}}}"#,
        #"{"message": {"token": "t", "notification": {"title": "T"}, "apns": {"payload": {"aps": {}}}}}"#,
        #"{"message": {"token": "t", "apns": {"payload": {"aps": "alert"}}}}"#,
    ])
    func anApnsPayloadNeedsANonEmptyAps(message: String) async throws {
        let checks = PushChecks.run(try push(message))
        #expect(checks.diagnostics.warningsAndErrors.map(\.code) == [.fcmApnsPayloadAps])
        #expect(checks.refusedByFCM, "FCM refuses the whole request")
        #expect(try await process(message).outcome == .rejected)
        #expect(DeliveryRoutes.route(try push(message), input: "m", appState: .background).android?.receiver == .notDelivered)
    }

    @Test func resolveKeepsTheEmptyApsTheSenderWrote() throws {
        let report = FCMResolver.resolve(try push(#"{"message": {"token": "t", "apns": {"payload": {"aps": {}}}}}"#), input: "m")
        #expect(report.ios?.payload["aps"] == .object([:]))
        #expect(report.rejected)
    }

    @Test func theLegacyAPIIsNamedOnce() throws {
        let legacy = #"{"to": "fKx9", "priority": "high", "content_available": true, "notification": {"title": "T"}, "data": {"k": 1}}"#
        let report = Linter.lint(try push(legacy), input: "legacy.json")
        #expect(report.diagnostics.map(\.code) == [.fcmLegacyAPI])
        #expect(report.diagnostics.first?.message.contains("shut down") == true)
        #expect(report.rejected)
        #expect(try push(#"{"registration_ids": ["a", "b"], "data": {"k": "v"}}"#).fcmMessage?.isLegacy == true)
    }
}

/// `mutable-content` where iOS does not read it.
struct MisplacedMutableContentTests {
    @Test(arguments: ["mutable_content", "mutable-content", "mutableContent"])
    func besideApsIsNamed(key: String) throws {
        let text = #"{"aps": {"alert": "Hi"}, "\#(key)": 1, "fcm_options": {"image": "https://x/y.jpg"}}"#
        let checks = PushChecks.run(try push(text))
        let misplaced = try #require(checks.diagnostics.first { $0.code == .lintApsMisplacedKey })
        #expect(misplaced.message.contains("`\(key)` beside `aps`"))
        #expect(checks.eligibility.reason?.contains("found `\(key)` beside `aps`") == true)
        #expect(checks.diagnostics.contains { $0.code == .extensionNotInvoked && $0.severity == .error })
    }

    @Test func fcmsLegacyFlagBesideApsInAPNsPayloadIsNamed() throws {
        let message = #"{"message": {"token": "t", "notification": {"title": "T"}, "apns": {"payload": {"aps": {"sound": "default"}, "mutable_content": true}, "fcm_options": {"image": "https://x/y.jpg"}}}}"#
        let findings = try codes(message)
        #expect(findings.contains(.lintApsMisplacedKey))
        #expect(findings.contains(.extensionNotInvoked))
    }
}

/// Localized alerts show their keys and arguments, never an empty body.
struct LocalizedAlertTests {
    static let payload = ##"{"aps": {"alert": {"title-loc-key": "SHIPPED_TITLE", "loc-key": "SHIPPED_BODY", "loc-args": ["#4821", "Tuesday"]}, "mutable-content": 1}}"##

    @Test func theContentCarriesTheKeysAndArguments() throws {
        let content = NotificationContent(try push(Self.payload))
        #expect(content.body == "SHIPPED_BODY")
        #expect(content.bodyLocalization == NotificationContent.Localization(key: "SHIPPED_BODY", arguments: ["#4821", "Tuesday"]))
        #expect(content.titleLocalization?.key == "SHIPPED_TITLE")
        #expect(PushChecks.run(try push(Self.payload)).diagnostics.map(\.code) == [.payloadLocalizedAlert])
    }

    @Test func theLocalizationSurvivesTheExtension() async throws {
        let result = try await process(Self.payload)
        #expect(result.outcome == .modified)
        #expect(result.content?.bodyLocalization?.arguments == ["#4821", "Tuesday"])
        let text = TextResultRenderer().render(result)
        #expect(text.contains(##"the app's string for "SHIPPED_BODY" with "#4821", "Tuesday""##))
    }

    @Test func aLineTheExtensionRewritesIsNoLongerLocalized() async throws {
        let pipeline = Pipeline(changes: ContentChanges(body: "Rewritten"))
        let result = await pipeline.run(try push(Self.payload), input: "p")
        #expect(result.content?.body == "Rewritten")
        #expect(result.content?.bodyLocalization == nil)
        #expect(result.content?.titleLocalization?.key == "SHIPPED_TITLE")
    }

    @Test func payloadTypesSurviveTheHarness() async throws {
        let text = #"{"aps": {"alert": "Hi", "mutable-content": 1}, "flag": true, "count": 1, "price": 2.5, "none": null, "nested": {"list": [1, true, "x"]}}"#
        let result = try await process(text)
        #expect(result.content?.userInfo == (try push(text)).userInfo)
    }
}

/// Images that can never show, found without the network, by `lint` as by `process`.
struct StaticImageTests {
    static func payload(aps: String = #"{"alert": {"title": "Sale"}, "mutable-content": 1}"#, image: String) -> String {
        #"{"aps": \#(aps), "fcm_options": {"image": \#(image)}}"#
    }

    @Test(arguments: [
        (payload(aps: #"{"alert": {"title": "Sale"}}"#, image: #""https://x/a.jpg""#), DiagnosticCode.extensionNotInvoked),
        (payload(aps: #"{"badge": 1, "mutable-content": 1}"#, image: #""https://x/a.jpg""#), .extensionNotInvoked),
        (payload(image: #""http://x/a.jpg""#), .mediaInsecureURL),
        (payload(image: #""https://x/a.webp""#), .mediaUnsupportedFormat),
        (payload(image: #""https://x/a.BMP?v=2""#), .mediaUnsupportedFormat),
        (payload(image: #""https://x/a.svg""#), .mediaUnsupportedFormat),
        (payload(image: #""https://x/a.heic""#), .mediaUnsupportedFormat),
        (payload(image: #""not a url""#), .mediaInvalidURL),
        (payload(image: "42"), .lintImageType),
        (#"{"aps": {"alert": "Hi", "mutable-content": 1}, "fcm_options": "https://x/a.jpg"}"#, .lintImageType),
    ])
    func lintFindsWhatNeverShows(payload: String, code: DiagnosticCode) throws {
        let report = Linter.lint(try push(payload), input: "p.json")
        #expect(report.verdict == .fail)
        #expect(severity(of: code, in: report.diagnostics) == .error, "\(report.diagnostics)")
    }

    @Test func aGoodImageLintsClean() throws {
        #expect(Linter.lint(try push(Self.payload(image: #""https://x/a.jpg""#)), input: "p").diagnostics.isEmpty)
    }

    @Test func processCallsANonStringImageAnError() async throws {
        let result = try await process(Self.payload(image: "42"))
        #expect(result.verdict == .fail)
        #expect(result.outcome == .modifiedWithoutAttachment)
        #expect(severity(of: .lintImageType, in: result.diagnostics) == .error)
    }
}

/// One verdict, one exit status for it.
struct VerdictTests {
    @Test(arguments: [
        ([Diagnostic](), Verdict.pass, Int32(0)),
        ([.warning(.lintApsUnknownKey, "w"), .info(.mediaNone, "i")], .pass, 0),
        ([.error(.lintApsBadgeType, "e")], .fail, 1),
        ([.error(.inputUnreadable, "u")], .notChecked, 2),
        ([.error(.internalCrash, "c")], .notChecked, 2),
    ])
    func aVerdictComesFromTheFindings(findings: [Diagnostic], verdict: Verdict, status: Int32) {
        #expect(Verdict(findings) == verdict)
        #expect(verdict.exitStatus == status)
    }
}
