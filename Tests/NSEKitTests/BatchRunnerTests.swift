import Foundation
@testable import NSEBatch
import NSEHarness
@testable import NSEMedia
import NSEMediaServer
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import Synchronization
import Testing

/// `BatchRunner` against a real loopback server: layout, atomic replacement, shared downloads, hostile
/// servers and cancellation.
struct BatchRunnerTests {
    /// A real JPEG for the servers here to serve.
    static let okJPEG: [UInt8] = (try? Fixture.jpeg()) ?? []

    @Test func eachResultIsSavedUnderItsRelativePathWithItsAttachment() async throws {
        let server = try cdn([
            "/a.jpg": .ok(try Fixture.jpeg(), contentType: "image/jpeg"),
            "/b.png": .ok(try Fixture.png(), contentType: "image/png"),
        ])
        defer { server.stop() }
        let inputs = try TemporaryFolder()
        let out = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        try tree.add("fr/sale.json", imageURL: server.baseURL + "/a.jpg")
        try tree.add("en/sale.json", imageURL: server.baseURL + "/b.png")
        try tree.add("en/plain.json", imageURL: nil)

        let run = try await runBatch(tree, out: out.url)

        #expect(run.report.entries.map { $0?.outputPath } == ["en/plain.json", "en/sale.json", "fr/sale.json"])
        #expect(run.report.entries.allSatisfy { $0?.passed == true })
        #expect(listing(out.url) == [
            "en", "en/plain.json", "en/plain.json/content.json", "en/sale.json", "en/sale.json/attachment.png",
            "en/sale.json/content.json", "fr", "fr/sale.json", "fr/sale.json/attachment.jpg", "fr/sale.json/content.json",
            "report.json",
        ], "nothing but results: no staging or temporary files")
        let saved = try JSONDecoder().decode(ProcessResult.self, from: Data(contentsOf: out.file("fr/sale.json/content.json")))
        #expect(saved.input == inputs.file("fr/sale.json").path)
        #expect(saved.content?.title == "Sale [b]")
        let attachment = try #require(saved.content?.attachments.first)
        #expect(attachment.file == out.file("fr/sale.json/attachment.jpg").path, "the final path, not the staging folder's")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: try #require(attachment.file)))) == (try Fixture.jpeg()))
    }

    @Test func aRerunReplacesEveryResultFolderWhole() async throws {
        let server = try cdn([
            "/a.png": .ok(try Fixture.png(), contentType: "image/png"),
            "/a.jpg": .ok(try Fixture.jpeg(), contentType: "image/jpeg"),
        ])
        defer { server.stop() }
        let inputs = try TemporaryFolder()
        let out = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        try tree.add("promo.json", imageURL: server.baseURL + "/a.png")
        _ = try await runBatch(tree, out: out.url)
        #expect(listing(out.file("promo.json")) == ["attachment.png", "content.json"])
        try Data("left by hand".utf8).write(to: out.file("promo.json/stale.txt"))

        try tree.add("promo.json", imageURL: server.baseURL + "/a.jpg", title: "Second")
        let run = try await runBatch(tree, out: out.url)

        #expect(run.report.summary.passed == 1)
        #expect(listing(out.url) == ["promo.json", "promo.json/attachment.jpg", "promo.json/content.json", "report.json"])
        let saved = try JSONDecoder().decode(ProcessResult.self, from: Data(contentsOf: out.file("promo.json/content.json")))
        #expect(saved.content?.title == "Second [b]")
    }

    @Test func aKilledBatchsLeftoversAreRemovedByTheNextOne() async throws {
        let inputs = try TemporaryFolder()
        let out = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        try tree.add("plain.json", imageURL: nil)
        // No process has this id (it is above Linux's pid_max); PID 1 always runs.
        let abandoned = out.file(".nse-work-2147483646-0A1B/stage/3")
        let running = out.file(".nse-work-1-0A1B")
        for folder in [abandoned, running] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }

        _ = try await runBatch(tree, out: out.url)

        #expect(listing(out.url) == [".nse-work-1-0A1B", "plain.json", "plain.json/content.json", "report.json"])
    }

    @Test func aSharedURLIsDownloadedAndDecodedOnceYetEveryPushGetsItsOwnFile() async throws {
        let jpeg = try Fixture.jpeg(width: 400, height: 300)
        let server = try cdn(["/shared.jpg": .ok(jpeg, contentType: "image/jpeg")])
        defer { server.stop() }
        let inputs = try TemporaryFolder()
        let out = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        for index in 0..<12 { try tree.add("p\(index).json", imageURL: server.baseURL + "/shared.jpg") }

        let run = try await runBatch(tree, out: out.url, jobs: 6)

        #expect(server.requests.count == 1, "concurrent pushes wait for the transfer in flight")
        #expect(run.report.summary.media == SharedMediaCache.Statistics(
            downloadsRequested: 12, downloadsMade: 1, validationsRequested: 12, validationsMade: 1))
        #expect(run.report.summary.imagesShown == 12)
        for index in 0..<12 {
            let folder = out.file("p\(index).json")
            #expect(Array(try Data(contentsOf: folder.appendingPathComponent("attachment.jpg"))) == jpeg)
            let saved = try JSONDecoder().decode(ProcessResult.self, from: Data(contentsOf: folder.appendingPathComponent("content.json")))
            #expect(saved.content?.attachments.first?.file == folder.appendingPathComponent("attachment.jpg").path)
            #expect(saved.content?.attachments.first?.width == 400)
        }
        // Each push's file is its own: removing one leaves the others.
        try FileManager.default.removeItem(at: out.file("p0.json/attachment.jpg"))
        #expect(FileManager.default.fileExists(atPath: out.file("p1.json/attachment.jpg").path))
    }

    /// Judged by events, not clocks: the stalled image is held until every other push is saved. Were the others
    /// queued behind the stalled ones, they could never finish and the hold would end on its cap instead.
    @Test func aStalledServerHoldsUpNobodyElse() async throws {
        final class Events: Sendable {
            let goodSaved = Mutex(0)
            let releasedByEvent = Mutex(false)
        }
        let events = Events()
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/stall.jpg" else { return .ok(Self.okJPEG, contentType: "image/jpeg") }
            // A hang guard, not a measure: the twenty others take seconds, minutes on a starved machine.
            let cap = ContinuousClock.now + .seconds(240)
            while events.goodSaved.withLock({ $0 }) < 20, ContinuousClock.now < cap { usleep(1_000) }
            events.releasedByEvent.withLock { $0 = events.goodSaved.withLock { $0 } == 20 }
            return .ok(Self.okJPEG, contentType: "image/jpeg")
        }
        defer { server.stop() }
        let inputs = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        // Sorted first, so the stalled pushes take their job slots before anything else starts.
        for index in 0..<3 { try tree.add("a-stall-\(index).json", imageURL: server.baseURL + "/stall.jpg") }
        for index in 0..<20 { try tree.add("b-ok-\(index).json", imageURL: server.baseURL + "/ok.jpg") }

        let runner = BatchRunner(pipeline: Pipeline(device: loopbackProfile(budget: .seconds(600))), jobs: 4, outDirectory: nil)
        let report = try await runner.run(try BatchInputDiscovery.discover([tree.root.path])) { _, entry in
            if entry.input.contains("b-ok") { events.goodSaved.withLock { $0 += 1 } }
        }

        #expect(events.releasedByEvent.withLock { $0 }, "every other push finished while the stalled ones waited")
        let entries = report.entries.compactMap { $0 }
        #expect(entries.count == 23 && entries.allSatisfy { $0.passed })
        #expect(server.requests.filter { $0.path == "/stall.jpg" }.count == 1, "one download shared by the three pushes")
    }

    /// Judged by events: the first push's image is held until the second push's request arrives, which, with one
    /// push in flight, only a download started ahead of the second push's turn can make happen before the cap.
    @Test func aQueuedPushsDownloadStartsBeforeItsTurnAndReportsItsTransferTime() async throws {
        let serverDelay: Duration = .milliseconds(300)
        let aheadAsked = Mutex(false)
        let releasedByEvent = Mutex(false)
        let server = try LoopbackHTTPServer { request in
            if request.path == "/held.jpg" {
                let cap = ContinuousClock.now + .seconds(20)
                while !aheadAsked.withLock({ $0 }), ContinuousClock.now < cap { usleep(1_000) }
                releasedByEvent.withLock { $0 = aheadAsked.withLock { $0 } }
            } else {
                aheadAsked.withLock { $0 = true }
                usleep(UInt32(serverDelay.milliseconds * 1000))
            }
            return .ok(Self.okJPEG, contentType: "image/jpeg")
        }
        defer { server.stop() }
        let inputs = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        try tree.add("a.json", imageURL: server.baseURL + "/held.jpg")
        try tree.add("b.json", imageURL: server.baseURL + "/ahead.jpg")

        let run = try await runBatch(tree, out: nil, jobs: 1, readAhead: 1)

        #expect(releasedByEvent.withLock { $0 }, "the second push's download started while the first push waited")
        #expect(run.report.entries.allSatisfy { $0?.passed == true })
        #expect(server.requests.map(\.path).sorted() == ["/ahead.jpg", "/held.jpg"], "each downloaded once")
        #expect(run.report.summary.media.downloadsRequested == 2 && run.report.summary.media.downloadsMade == 2)
        // The second push started after its transfer had begun, yet reports the whole transfer, as a device would
        // wait for it: no less than the server's own delay.
        let ahead = try #require(run.report.entries.compactMap { $0 }.first { $0.input.hasSuffix("b.json") })
        #expect((ahead.downloadMilliseconds ?? 0) >= serverDelay.milliseconds, "\(ahead.downloadMilliseconds ?? 0) ms")
    }

    /// A push iOS would not run the extension for (no `mutable-content`) downloads nothing, ahead or not.
    @Test func nothingIsDownloadedAheadForAPushTheExtensionWouldNotRunFor() async throws {
        let server = try cdn([
            "/a.jpg": .ok(Self.okJPEG, contentType: "image/jpeg"),
            "/b.jpg": .ok(Self.okJPEG, contentType: "image/jpeg"),
        ])
        defer { server.stop() }
        let inputs = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        try tree.add("a.json", imageURL: server.baseURL + "/a.jpg")
        try tree.write("b.json", #"{"aps": {"alert": {"title": "Sale", "body": "b"}}, "fcm_options": {"image": "\#(server.baseURL)/b.jpg"}}"#)

        let run = try await runBatch(tree, out: nil, jobs: 1, readAhead: 4)

        #expect(run.report.entries.compactMap { $0?.outcome } == [.modified, .original])
        #expect(server.requests.map(\.path) == ["/a.jpg"])
        #expect(run.report.summary.media.downloadsMade == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func aTimeOutSharedByPushesOfTheSameURLIsWaitedForOnce() async throws {
        let budget: Duration = .seconds(2)
        let server = try cdn(["/stall.jpg": ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall)])
        defer { server.stop() }
        let inputs = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        for index in 0..<3 { try tree.add("stall-\(index).json", imageURL: server.baseURL + "/stall.jpg") }

        let started = ContinuousClock.now
        let run = try await runBatch(tree, out: nil, jobs: 4, profile: loopbackProfile(budget: budget))
        let elapsed = started.duration(to: .now)

        #expect(run.completed.count == 3)
        #expect(run.completed.allSatisfy { $0.entry.outcome == .bestAttempt && $0.entry.errors.map(\.code) == [.mediaTimeout, .extensionTimeExpired] })
        #expect(server.requests.filter { $0.path == "/stall.jpg" }.count == 1, "the time-out is shared, not waited for three times")
        #expect(elapsed >= budget, "\(elapsed)")
    }

    /// The budget is ten times the time limit: only transfers aborted by the cancellation let the test finish.
    @Test(.timeLimit(.minutes(1)))
    func cancellingKeepsOnlyCompleteResults() async throws {
        let server = try cdn([
            "/stall.jpg": ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall),
            "/ok.jpg": .ok(try Fixture.jpeg(), contentType: "image/jpeg"),
        ])
        defer { server.stop() }
        let inputs = try TemporaryFolder()
        let out = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        for index in 0..<3 { try tree.add("a-ok-\(index).json", imageURL: server.baseURL + "/ok.jpg") }
        for index in 0..<4 { try tree.add("b-stall-\(index).json", imageURL: server.baseURL + "/stall.jpg?\(index)") }
        for index in 0..<5 { try tree.add("c-never-\(index).json", imageURL: server.baseURL + "/ok.jpg") }
        let discovered = try BatchInputDiscovery.discover([tree.root.path])

        let batch = Task { try await runBatch(discovered, out: out.url, jobs: 4, profile: loopbackProfile(budget: .seconds(600))) }
        // Wait until the three good results are saved and the four stalled transfers are in flight (their downloads
        // start ahead of their turn), then interrupt. No deadline of its own: on a starved machine this took more than
        // 10 s, and the test's time limit is the hang guard.
        let good = (0..<3).map { out.file("a-ok-\($0).json/content.json").path }
        while server.requests.filter({ $0.path == "/stall.jpg" }).count < 4 || !good.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        batch.cancel()
        let run = try await batch.value

        #expect(run.report.summary.interrupted)
        #expect(run.report.summary.exitStatus == 130)
        #expect(run.report.summary.processed == 3 && run.report.summary.notRun == 9)
        #expect(listing(out.url) == [
            "a-ok-0.json", "a-ok-0.json/attachment.jpg", "a-ok-0.json/content.json",
            "a-ok-1.json", "a-ok-1.json/attachment.jpg", "a-ok-1.json/content.json",
            "a-ok-2.json", "a-ok-2.json/attachment.jpg", "a-ok-2.json/content.json",
            "report.json",
        ])
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: out.file("report.json"))) as? [String: Any]
        #expect(report?["interrupted"] as? Bool == true)
        #expect((report?["results"] as? [Any])?.count == 3)
    }

    @Test func unlistableFoldersAndOversizedFilesAreFailuresNotReads() async throws {
        let inputs = try TemporaryFolder()
        let tree = PayloadTree(root: inputs.url)
        try tree.write("huge.json", Data(repeating: 0x20, count: 2 << 20))
        var discovered = try BatchInputDiscovery.discover([tree.root.path])
        discovered.append(BatchInput(file: inputs.file("locked"), outputPath: "locked", listingError: "Permission denied"))

        let run = try await runBatch(discovered, out: nil)

        let entries = run.report.entries.compactMap { $0 }
        #expect(entries.map { $0.errors.map(\.code) } == [[.payloadTooLarge], [.inputUnreadable]])
        #expect(entries.map(\.exitStatus) == [1, 2])
        #expect(run.report.summary.exitStatus == 2)
        #expect(run.report.summary.unreadable == 1)
    }
}

/// The extension runner's plan (which helper, which download) is made once per push, ahead of its turn or not, and
/// each push is read once.
struct ExtensionPlanTests {
    /// Counts the plans it is asked for and checks each run gets one.
    final class CountingRunner: ExtensionRunner {
        let plans = Mutex(0)
        let runsWithoutAPlan = Mutex(0)

        func plan(for original: NotificationContent, checks: CheckReport, profile: DeviceProfile) -> ExtensionPlan {
            plans.withLock { $0 += 1 }
            return ExtensionPlan(helper: HelperChoice(sdk: .firebase, selection: .default, reason: "test"))
        }

        func run(_ state: inout ExtensionState, context: ExtensionContext) async -> ExtensionDelivery {
            if state.plan.helper == nil { runsWithoutAPlan.withLock { $0 += 1 } }
            return .delivered
        }
    }

    @Test(arguments: [0, 8])
    func aBatchAsksForOnePlanPerPush(readAhead: Int) async throws {
        let folder = try TemporaryFolder()
        let tree = PayloadTree(root: folder.url)
        for index in 0..<6 { try tree.add("p\(index).json", imageURL: nil) }
        let runner = CountingRunner()
        let inputs = try BatchInputDiscovery.discover([tree.root.path], excluding: [])
        var batch = BatchRunner(pipeline: Pipeline(device: loopbackProfile(), extensionRunner: runner), jobs: 2, readAhead: readAhead, outDirectory: nil)
        let starts = Mutex<[Int]>([])
        batch.onStart = { index in starts.withLock { $0.append(index) } }

        let report = try await batch.run(inputs)

        #expect(report.summary.processed == 6)
        #expect(runner.plans.withLock { $0 } == 6)
        #expect(runner.runsWithoutAPlan.withLock { $0 } == 0)
        // Each push is journaled as started once (a supervisor reruns the pushes started when a worker dies).
        #expect(starts.withLock { $0 }.sorted() == Array(0..<6))
    }
}
