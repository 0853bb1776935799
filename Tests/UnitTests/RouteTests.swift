import Foundation
@testable import NSEBatch
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Testing

/// `nse route`: every cell of the reception table (Firebase: "Receive messages in an Android app"; Apple: "Pushing
/// background updates to your App"), through the whole path
/// from an FCM message file to the route.
struct RouteTests {
    typealias Receiver = PlatformRoute.Receiver

    /// One FCM message per kind.
    static let messages: [MessageKind: String] = [
        .notificationOnly: #"{"token": "t", "notification": {"title": "T", "body": "B"}}"#,
        .dataOnly: #"{"token": "t", "data": {"k": "v"}}"#,
        .mixed: #"{"token": "t", "notification": {"title": "T", "body": "B"}, "data": {"k": "v"}}"#,
    ]

    /// The table: (kind, app state) -> (iOS receiver, Android receiver).
    static let table: [MessageKind: [AppState: (ios: Receiver, android: Receiver)]] = [
        .notificationOnly: [
            .foreground: (.notificationCenterDelegate, .onMessageReceived),
            .background: (.systemNotification, .systemTray),
        ],
        .dataOnly: [
            .foreground: (.didReceiveMessage, .onMessageReceived),
            .background: (.notDelivered, .onMessageReceived),
        ],
        .mixed: [
            .foreground: (.notificationCenterDelegate, .onMessageReceived),
            .background: (.systemNotification, .systemTray),
        ],
    ]

    private func route(_ message: String, _ state: AppState) throws -> RouteReport {
        DeliveryRoutes.route(try PushReader.parse(Data(#"{"message": \#(message)}"#.utf8)), input: "m.json", appState: state)
    }

    @Test(arguments: MessageKind.allCases, AppState.allCases)
    func everyCellOfTheReceptionTable(kind: MessageKind, state: AppState) throws {
        let expected = try #require(Self.table[kind]?[state])
        let report = try route(try #require(Self.messages[kind]), state)
        let ios = try #require(report.ios)
        let android = try #require(report.android)
        #expect(ios.messageKind == kind)
        #expect(android.messageKind == kind)
        #expect(ios.receiver == expected.ios)
        #expect(android.receiver == expected.android)
        #expect(ios.serviceExtension == false, "FCM adds no mutable-content")
        #expect(android.serviceExtension == nil)
        #expect(!ios.explanation.isEmpty && !android.explanation.isEmpty)
        #expect(report.exitStatus == 0)
    }

    @Test(arguments: [
        (MessageKind.notificationOnly, AppState.foreground, PlatformRoute.Display.app),
        (.notificationOnly, .background, .system), (.mixed, .background, .system), (.dataOnly, .background, .none),
    ])
    func whoShowsTheNotificationOnIOS(kind: MessageKind, state: AppState, display: PlatformRoute.Display) throws {
        #expect(try route(try #require(Self.messages[kind]), state).ios?.display == display)
    }

    @Test(arguments: [
        (MessageKind.notificationOnly, AppState.foreground, PlatformRoute.Display.app),
        (.notificationOnly, .background, .system), (.dataOnly, .foreground, .none), (.dataOnly, .background, .none),
    ])
    func whoShowsTheNotificationOnAndroid(kind: MessageKind, state: AppState, display: PlatformRoute.Display) throws {
        #expect(try route(try #require(Self.messages[kind]), state).android?.display == display)
    }

    @Test func theDirectChannelCellCarriesItsCaveat() throws {
        let report = try route(try #require(Self.messages[.dataOnly]), .foreground)
        #expect(report.diagnostics.warningsAndErrors.map(\.code) == [.routeDirectChannel])
        #expect(report.diagnostics.warningsAndErrors.first?.severity == .warning)
        #expect(try route(try #require(Self.messages[.mixed]), .foreground).diagnostics.warningsAndErrors.isEmpty)
    }

    @Test(arguments: AppState.allCases)
    func contentAvailableMakesADataMessageABackgroundPush(state: AppState) throws {
        let report = try route(#"{"token": "t", "data": {"k": "v"}, "apns": {"headers": {"apns-priority": "5"}, "payload": {"aps": {"content-available": 1}}}}"#, state)
        #expect(report.ios?.receiver == .didReceiveRemoteNotification)
        #expect(report.ios?.handlers.last?.contains("didReceiveRemoteNotification") == true)
        #expect(report.android?.receiver == .onMessageReceived)
    }

    @Test func theExtensionIsOnTheRouteWhenIOSRunsIt() throws {
        let report = try route(#"{"token": "t", "notification": {"title": "T"}, "apns": {"payload": {"aps": {"mutable-content": 1}}}}"#, .background)
        #expect(report.ios?.serviceExtension == true)
        #expect(report.ios?.handlers.contains { $0.contains("Notification Service Extension") } == true)
        let without = try route(try #require(Self.messages[.notificationOnly]), .background)
        #expect(without.ios?.explanation.contains("does not run") == true)
    }

    @Test func aRefusedMessageReachesNeitherPlatform() throws {
        let report = try route(#"{"token": "t", "topic": "news", "notification": {"title": "T"}}"#, .background)
        #expect(report.ios?.receiver == .notDelivered)
        #expect(report.android?.receiver == .notDelivered)
        #expect(report.diagnostics.warningsAndErrors.map(\.code) == [.fcmTargetCount])
        #expect(report.exitStatus == 1)
    }

    @Test func anAPNsRefusalStopsOnlyIOS() throws {
        let report = try route(#"{"token": "t", "notification": {"title": "T"}, "apns": {"headers": {"apns-priority": "7"}}}"#, .background)
        #expect(report.ios?.receiver == .notDelivered)
        #expect(report.android?.receiver == .systemTray)
    }

    @Test(arguments: [
        (#"{"aps": {"alert": "Hi"}, "gcm.message_id": "1", "google.c.a.e": "1"}"#, AppState.background, MessageKind.notificationOnly, Receiver.systemNotification),
        (#"{"aps": {"alert": "Hi"}, "order": "42"}"#, .foreground, .mixed, .notificationCenterDelegate),
        (#"{"aps": {"content-available": 1}, "sync": "1"}"#, .background, .dataOnly, .didReceiveRemoteNotification),
        (#"{"aps": {}, "sync": "1"}"#, .foreground, .dataOnly, .notDelivered),
    ])
    func anAPNsPayloadHasOnlyAnIOSRoute(payload: String, state: AppState, kind: MessageKind, receiver: Receiver) throws {
        let report = DeliveryRoutes.route(try PushReader.parse(Data(payload.utf8)), input: "p.json", appState: state)
        #expect(report.android == nil)
        #expect(report.ios?.messageKind == kind)
        #expect(report.ios?.receiver == receiver)
        #expect(report.diagnostics.warningsAndErrors.isEmpty)
    }
}
