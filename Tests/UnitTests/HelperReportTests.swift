import Foundation
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Testing
import NSEMedia

/// Every report says which SDK's helper ran when it is not Firebase's by default, and none repeats the default.
struct HelperReportTests {
    private func result(_ helper: HelperChoice?) -> ProcessResult {
        var content = NotificationContent()
        content.title = "Sale"
        content.categoryIdentifier = "__onesignal__dynamic__x"
        var result = ProcessResult(
            input: "push.json", inputKind: .apns, extensionInvoked: true, outcome: .modifiedWithoutAttachment, imageShown: false,
            content: content, diagnostics: [.error(.sdkOneSignalUnsupportedType, "OneSignal skips `att.id`.")], timings: ["total": 3])
        result.helper = helper
        return result
    }

    private let oneSignal = HelperChoice(sdk: .onesignal, selection: .detected, reason: "the payload has `att`, OneSignal's key", matched: [.onesignal])
    private let firebase = HelperChoice(sdk: .firebase, selection: .default, reason: "no SDK's key in the payload: Firebase's helper, the default")

    private func report(_ result: ProcessResult) -> BatchReport {
        let entry = BatchEntry(result, outputPath: "push.json")
        return BatchReport(
            inputs: [BatchInput(file: URL(fileURLWithPath: "push.json"), outputPath: "push.json")], entries: [entry],
            summary: BatchSummary(entries: [entry], media: .init(), jobs: 1, elapsedMilliseconds: 3, interrupted: false))
    }

    @Test func anotherSDKsHelperIsNamedEverywhere() {
        let result = result(oneSignal)
        let text = TextResultRenderer().render(result)
        #expect(text.contains("  helper   OneSignal (detected: the payload has `att`, OneSignal's key)"))
        #expect(text.contains(#"    category "__onesignal__dynamic__x""#))
        let batch = report(result)
        #expect(BatchTextRenderer().line(for: BatchEntry(result, outputPath: "push.json")).contains("modified-without-attachment [onesignal]"))
        #expect(BatchTextRenderer().summary(batch.summary).contains("helpers: onesignal 1"))
        #expect(JUnitRenderer().render(batch).contains("helper onesignal: detected, the payload has `att`"))
        #expect(MarkdownSummaryRenderer().render(batch.summary).contains("Helpers: onesignal 1"))
        #expect(HTMLReportRenderer().card(ReportCard(result: result, exitStatus: 1)).contains(#"<p class="helper" data-sdk="onesignal">"#))
    }

    @Test func firebaseByDefaultIsNotRepeated() {
        let result = result(firebase)
        let batch = report(result)
        #expect(!TextResultRenderer().render(result).contains("helper"))
        #expect(!TextResultRenderer().render(result).contains("category"))
        #expect(!BatchTextRenderer().line(for: BatchEntry(result, outputPath: "push.json")).contains("["))
        #expect(!BatchTextRenderer().summary(batch.summary).contains("helpers:"))
        #expect(!JUnitRenderer().render(batch).contains("helper "))
        #expect(!HTMLReportRenderer().card(ReportCard(result: result, exitStatus: 1)).contains("class=\"helper\""))
        // The JSON result always has it, with the reason.
        let json = String(decoding: JSONResultRenderer().encode(result), as: UTF8.self)
        #expect(json.contains(#""selection" : "default""#))
    }
}
