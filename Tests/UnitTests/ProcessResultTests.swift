import Foundation
@testable import NSEMedia
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import NSETestSupport
import Testing

/// A result keeps its fields in a shared box (`CopyOnWrite`), yet behaves as the value it was: a copy changed in
/// one place (a batch's `onResult` reader, a renderer's own copy) never changes another, and its JSON is the fields'.
struct ProcessResultTests {
    private func result() -> ProcessResult {
        var content = NotificationContent()
        content.title = "Sale"
        return ProcessResult(
            input: "push.json", inputKind: .apns, extensionInvoked: true, outcome: .modified, imageShown: true,
            content: content, diagnostics: [], timings: ["total": 3])
    }

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let original = result()
        var copy = original
        copy.outcome = .original
        copy.timings["total", default: 0] += 4
        copy.content?.title = "Changed"
        copy.diagnostics.append(.warning(.mediaNotSaved, "not saved"))

        #expect(original.outcome == .modified)
        #expect(original.timings == ["total": 3])
        #expect(original.content?.title == "Sale")
        #expect(original.diagnostics.isEmpty)
        #expect(copy.outcome == .original)
        #expect(copy.timings == ["total": 7])
        #expect(copy.content?.title == "Changed")
        #expect(copy.diagnostics.count == 1)
    }

    @Test func itsJSONIsItsFieldsAlone() throws {
        var result = result()
        result.destination = .notificationCenter
        let data = try JSONEncoder().encode(result)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["outcome"] as? String == "modified")
        #expect(object["input"] as? String == "push.json")
        #expect(object["fields"] == nil)
        let decoded = try JSONDecoder().decode(ProcessResult.self, from: data)
        #expect(decoded.outcome == .modified)
        #expect(decoded.content?.title == "Sale")
        #expect(decoded.destination == .notificationCenter)
    }
}
