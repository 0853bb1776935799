import Foundation
@testable import NSEBatch
import NSEHarness
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import Testing

/// Lint as the first stage of `process`: its findings are in the result, refusals stop the pipeline, and good
/// payloads gain nothing.
struct LintPipelineTests {
    private func run(_ text: String) async throws -> ProcessResult {
        let push = try PushReader.parse(Data(text.utf8))
        return await Pipeline(device: loopbackProfile()).run(push, input: "test.json")
    }

    @Test func lintIsTimedAndSilentOnAConsolePayload() async {
        let result = await Pipeline(device: loopbackProfile()).run(firebasePayload(imageURL: nil), input: "test.json")
        #expect(result.timings["lint"] != nil)
        #expect(result.codes == [.mediaNone])
    }

    @Test func lintFindingsComeBeforeTheOthers() async throws {
        let result = try await run(#"{"aps": {"alert": {"title": "T"}, "mutable-content": 1, "badge": "3"}}"#)
        #expect(result.codes == [.lintApsBadgeType, .mediaNone])
        #expect(result.outcome == .modified)
        #expect(result.exitStatus == 1, "an ignored badge is not what the sender intended")
    }

    @Test func aRequestAPNsRefusesIsRejected() async throws {
        let result = try await run(#"{"headers": {"apns-push-type": "alert", "apns-priority": "11"}, "payload": {"aps": {"alert": "Hi", "mutable-content": 1}}}"#)
        #expect(result.outcome == .rejected)
        #expect(result.content == nil)
        #expect(result.errorCodes == [.lintHeaderPriority])
    }

    @Test func aMessageFCMRefusesIsRejected() async throws {
        let result = try await run(#"{"message": {"notification": {"title": "T"}, "apns": {"payload": {"aps": {"mutable-content": 1}}}}}"#)
        #expect(result.outcome == .rejected)
        #expect(result.errorCodes == [.fcmTargetCount])
    }

    @Test func mutableContentTrueIsReportedOnce() async throws {
        let result = try await run(#"{"aps": {"alert": "Hi", "mutable-content": true}}"#)
        #expect(result.extensionInvoked)
        #expect(result.codes.filter { $0 == .payloadMutableContentNotNumber }.count == 1)
    }

    @Test func anEnvelopeIsProcessedAsItsPayload() async throws {
        let result = try await run(#"{"headers": {"apns-push-type": "alert", "apns-priority": "10"}, "payload": {"aps": {"alert": {"title": "Sale"}, "mutable-content": 1}}}"#)
        #expect(result.inputKind == .apns)
        #expect(result.outcome == .modified)
        #expect(result.content?.title == "Sale")
        #expect(result.content?.userInfo["headers"] == nil)
        #expect(result.codes == [.mediaNone])
    }
}
