import Foundation
import NSEPipeline
import NSEPush
import Testing
import NSEMedia
import NSEBatch

/// `nse lint`, `nse resolve` and `nse route` end to end: exit statuses and the JSON each prints.
struct LintCommandTests {
    @Test func aGoodPayloadExitsZero() async throws {
        let run = try await runNSE(["lint", "samples/payloads/jpeg-ok.json", "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let report = try decodeJSON(LintReport.self, run.stdout)
        #expect(report.diagnostics.isEmpty)
        #expect(report.payloadLimit == 4096)
        #expect(report.inputKind == .apns)
        #expect(!report.rejected)
    }

    @Test func warningsAloneExitZero() async throws {
        let file = try ScratchFile("warn.json", #"{"aps": {"alert": "Hi", "mutable-content": 1, "image": "https://x/y.jpg"}}"#)
        let run = try await runNSE(["lint", file.path, "--format", "json"])
        #expect(run.status == 0)
        #expect(try decodeJSON(LintReport.self, run.stdout).diagnostics.map(\.code) == [.lintApsUnknownKey])
    }

    @Test func aMisspelledMutableContentWithAnImageExitsOne() async throws {
        let run = try await runNSE(["lint", "samples/payloads/misspelled-mutable-content.json", "--format", "json"])
        #expect(run.status == 1, "the image can never show, as nse process finds")
        #expect(try decodeJSON(LintReport.self, run.stdout).diagnostics.map(\.code) == [.lintApsUnknownKey, .extensionNotInvoked])
    }

    @Test func anErrorExitsOne() async throws {
        let file = try ScratchFile("bad.json", #"{"headers": {"apns-push-type": "background", "apns-priority": "10"}, "payload": {"aps": {"content-available": 1, "badge": "1"}}}"#)
        let run = try await runNSE(["lint", file.path, "--format", "json"])
        #expect(run.status == 1)
        let report = try decodeJSON(LintReport.self, run.stdout)
        #expect(Set(report.diagnostics.map(\.code)) == [.lintApsBadgeType, .lintHeaderPushTypeMismatch, .lintHeaderPriorityMismatch])
    }

    @Test func severalFilesGiveAnArrayAndTheWorstStatus() async throws {
        let run = try await runNSE(["lint", "samples/payloads/png-ok.json", "samples/payloads/does-not-exist.json", "--format", "json"])
        #expect(run.status == 2)
        let reports = try decodeJSON([LintReport].self, run.stdout)
        #expect(reports.map(\.exitStatus) == [0, 2])
    }

    @Test func textNamesTheVerdictAndTheSize() async throws {
        let run = try await runNSE(["lint", "samples/payloads/payload-too-large.json", "--format", "text"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("REJECTED"))
        #expect(run.stdout.contains("of 4096 bytes"))
        #expect(run.stdout.contains("payload.too-large"))
    }

    @Test(arguments: [["lint"], ["lint", "x.json", "--format", "xml"]])
    func usageErrorsExitTwo(arguments: [String]) async throws {
        let run = try await runNSE(arguments)
        #expect(run.status == 2)
        #expect(!run.stderr.isEmpty)
    }
}

struct ResolveCommandTests {
    static let workedExample = """
        {"message": {"token": "t",
          "notification": {"title": "Default Title", "body": "Default Body"},
          "data": {"type": "Default Type", "url": "Default Url"},
          "android": {"notification": {"title": "Android Title"}, "data": {"type": "Android Type"}},
          "apns": {"payload": {"aps": {"alert": {"body": "iOS Body"}}, "url": "iOS Url"}}}}
        """

    @Test func theWorkedExampleForBothPlatforms() async throws {
        let file = try ScratchFile("example.json", Self.workedExample)
        let run = try await runNSE(["resolve", file.path, "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let report = try decodeJSON(ResolutionReport.self, run.stdout)
        #expect(report.android?.notification?["title"] == .string("Android Title"))
        #expect(report.android?.data["url"] == .string("Default Url"))
        #expect(report.ios?.payload["aps"]?["alert"]?["body"] == .string("iOS Body"))
        #expect(report.ios?.payload["url"] == .string("iOS Url"))
    }

    @Test(arguments: [("ios", true, false), ("android", false, true), ("both", true, true)])
    func platformSelectsTheSides(platform: String, ios: Bool, android: Bool) async throws {
        let run = try await runNSE(["resolve", "samples/payloads/fcm-v1-message.json", "--platform", platform, "--format", "json"])
        #expect(run.status == 0)
        let report = try decodeJSON(ResolutionReport.self, run.stdout)
        #expect((report.ios != nil) == ios)
        #expect((report.android != nil) == android)
    }

    @Test func aMessageFCMRefusesExitsOne() async throws {
        let file = try ScratchFile("bad.json", #"{"message": {"token": "t", "data": {"count": 3}}}"#)
        let run = try await runNSE(["resolve", file.path, "--format", "json"])
        #expect(run.status == 1)
        let report = try decodeJSON(ResolutionReport.self, run.stdout)
        #expect(report.rejected)
        #expect(report.diagnostics.map(\.code) == [.fcmDataNotString])
    }

    @Test func theInferredImageIsAWarningAndExitsZero() async throws {
        let run = try await runNSE(["resolve", "samples/payloads/fcm-v1-notification-image.json", "--format", "json"])
        #expect(run.status == 0)
        #expect(try decodeJSON(ResolutionReport.self, run.stdout).diagnostics.map(\.code) == [.fcmInferredImage])
    }

    @Test func textShowsBothSides() async throws {
        let file = try ScratchFile("example.json", Self.workedExample)
        let run = try await runNSE(["resolve", file.path, "--format", "text"])
        #expect(run.stdout.contains("iOS receives"))
        #expect(run.stdout.contains("Android receives"))
        #expect(run.stdout.contains("\"Android Title\""))
    }

    @Test(arguments: [["resolve", "x.json", "--platform", "web"], ["resolve", "samples/payloads/nope.json"]])
    func usageErrorsAndUnreadableFilesExitTwo(arguments: [String]) async throws {
        #expect(try await runNSE(arguments).status == 2)
    }
}

struct RouteCommandTests {
    @Test(arguments: [("foreground", PlatformRoute.Receiver.onMessageReceived), ("background", .systemTray)])
    func anFCMMessageHasBothRoutes(state: String, android: PlatformRoute.Receiver) async throws {
        let run = try await runNSE(["route", "samples/payloads/fcm-v1-message.json", "--app-state", state, "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let report = try decodeJSON(RouteReport.self, run.stdout)
        #expect(report.appState.rawValue == state)
        #expect(report.android?.receiver == android)
        #expect(report.ios?.messageKind == .mixed)
        #expect(report.ios?.serviceExtension == true)
    }

    @Test func anAPNsPayloadHasOnlyAnIOSRoute() async throws {
        let run = try await runNSE(["route", "samples/payloads/silent-push.json", "--app-state", "background", "--format", "json"])
        #expect(run.status == 1, "its image can never show: the same verdict as lint and process")
        let report = try decodeJSON(RouteReport.self, run.stdout)
        #expect(report.android == nil)
        #expect(report.ios?.receiver == .didReceiveRemoteNotification)
    }

    @Test func aRefusedMessageExitsOne() async throws {
        let file = try ScratchFile("bad.json", #"{"message": {"notification": {"title": "T"}}}"#)
        let run = try await runNSE(["route", file.path, "--app-state", "background", "--format", "json"])
        #expect(run.status == 1)
        let report = try decodeJSON(RouteReport.self, run.stdout)
        #expect(report.ios?.receiver == .notDelivered)
        #expect(report.android?.receiver == .notDelivered)
    }

    @Test func textNamesTheReceivers() async throws {
        let run = try await runNSE(["route", "samples/payloads/fcm-v1-message.json", "--app-state", "background", "--format", "text"])
        #expect(run.stdout.contains("iOS: mixed -> system-notification"))
        #expect(run.stdout.contains("Android: mixed -> system-tray"))
    }

    @Test(arguments: [["route"], ["route", "x.json", "--app-state", "asleep"]])
    func usageErrorsExitTwo(arguments: [String]) async throws {
        let run = try await runNSE(arguments)
        #expect(run.status == 2)
        #expect(!run.stderr.isEmpty)
    }
}

/// `nse process --platform`: the Android section of the result, end to end against the bundled media.
struct ProcessPlatformCommandTests {
    @Test func bothChecksEachSideItsOwnImage() async throws {
        let run = try await runNSE(["process", "samples/payloads/fcm-v1-android-image.json", "--media", "samples/media", "--platform", "both", "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let result = try decodeJSON(ProcessResult.self, run.stdout)
        #expect(result.imageShown)
        #expect(result.content?.attachments.first?.type == "public.png")
        #expect(result.android?.imageShown == true)
        #expect(result.android?.image?.format == .webp)
        #expect(result.android?.notification?["channel_id"] == .string("promotions"))
    }

    @Test func androidOnlyIsNotEmulatedOnIOS() async throws {
        let run = try await runNSE(["process", "samples/payloads/fcm-v1-notification-image.json", "--media", "samples/media", "--platform", "android", "--format", "json"])
        #expect(run.status == 0)
        let result = try decodeJSON(ProcessResult.self, run.stdout)
        #expect(result.outcome == .notEmulated)
        #expect(result.diagnostics.isEmpty, "fcm.inferred-image concerns iOS")
        #expect(result.android?.imageShown == true)
    }

    @Test func theDefaultHasNoAndroidSection() async throws {
        let run = try await runNSE(["process", "samples/payloads/fcm-v1-android-image.json", "--media", "samples/media", "--format", "json"])
        #expect(run.status == 0)
        #expect(!run.stdout.contains("\"android\""))
    }

    @Test func aLintRefusalIsRejected() async throws {
        let run = try await runNSE(["process", "samples/payloads/lint-errors.json", "--format", "json"])
        #expect(run.status == 1)
        let result = try decodeJSON(ProcessResult.self, run.stdout)
        #expect(result.outcome == .rejected)
        #expect(result.timings["lint"] != nil)
    }

    @Test func routeWithoutAnAppStateReportsBoth() async throws {
        let run = try await runNSE(["route", "samples/payloads/fcm-v1-message.json", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let reports = try decodeJSON([RouteReport].self, run.stdout)
        #expect(reports.map(\.appState) == [.foreground, .background])
    }

    @Test func theAndroidTapOpensTheClickActionActivity() async throws {
        let message = try ScratchFile("m.json", #"{"message": {"token": "t", "notification": {"title": "Hi"}, "android": {"notification": {"click_action": "OPEN_ORDER"}}}}"#)
        let run = try await runNSE(["route", message.path, "--app-state", "background", "--format", "json"])
        let report = try decodeJSON(RouteReport.self, run.stdout)
        #expect(report.android?.handlers.last == "the activity whose intent filter has the action `OPEN_ORDER` (`click_action`) when tapped")
    }

}
