@testable import NSEBatch
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import Testing

/// The terminal report of what an app's extension did, asserted whole.
struct ActivityTextTests {
    @Test func requestsLogHandlerCallsAndMemoryAreListed() {
        var activity = ExtensionActivity()
        activity.requests = [
            ExtensionRequest(api: "URLSession.downloadTask", method: "GET", url: "https://cdn.example.com/a.jpg", status: 200, bytes: 1060, redirects: 1, startMilliseconds: 3, milliseconds: 2.4, outcome: .completed),
            ExtensionRequest(api: "Data(contentsOf:)", method: "GET", url: "http://cdn.example.com/b.png", startMilliseconds: 5, milliseconds: 0.2, outcome: .failed, error: "NSURLErrorDomain -1022", diagnostic: .mediaInsecureURL),
        ]
        activity.log = [ExtensionLogLine(milliseconds: 1, source: "Logger", level: .info, subsystem: "com.shop.app", category: "push", message: "downloading\nnow")]
        activity.handlerCalls = [
            ContentHandlerCall(milliseconds: 6.5, thread: "URLSession", used: true),
            ContentHandlerCall(milliseconds: 7, thread: "URLSession", used: false),
        ]
        activity.memory = ExtensionMemory(accountedPeakBytes: 297_132, processGrowthBytes: nil, processMeasurement: .notMeasuredConcurrentRuns)
        var result = ProcessResult(
            input: "payload", inputKind: .apns, extensionInvoked: true, outcome: .modified, imageShown: true, content: nil,
            diagnostics: [], timings: [:])
        result.extensionActivity = activity

        #expect(TextResultRenderer().render(result) == """
            payload (apns)
              OK: extension ran, image shown
              the extension:
                request  GET https://cdn.example.com/a.jpg -> 200, 1060 bytes, 1 redirects in 2 ms (URLSession.downloadTask)
                request  GET http://cdn.example.com/b.png -> failed, NSURLErrorDomain -1022 in 0 ms (Data(contentsOf:)) [media.insecure-url]
                log      [info] com.shop.app/push: downloading\\nnow
                handler  7 ms from URLSession (shown); 7 ms from URLSession (ignored)
                memory   held by the stand-ins at most 297132 bytes; process not measured (other runs overlapped)
            """)
    }

    @Test func aChattyLogIsCutAfterTwentyLines() {
        var activity = ExtensionActivity()
        activity.log = (0..<25).map { ExtensionLogLine(milliseconds: Double($0), source: "print", level: .default, message: "line \($0)") }
        var result = ProcessResult(
            input: "p", inputKind: nil, extensionInvoked: true, outcome: .original, imageShown: false, content: nil, diagnostics: [], timings: [:])
        result.extensionActivity = activity
        let text = TextResultRenderer().render(result)
        #expect(text.contains("line 19"))
        #expect(!text.contains("line 20"))
        #expect(text.contains("... 5 more lines (--format json has them all)"))
        #expect(text.contains("handler  never called"))
    }
}
