import Foundation
@testable import NSEBatch
import NSEConcurrency
import NSEHarness
@testable import NSEMedia
import NSEMediaServer
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import Synchronization
import Testing

/// Every download shares one network thread (libcurl's multi interface): many transfers in flight without a
/// thread each, connections reused, cancellation and each push's own budget kept. Hang guards only; no test
/// asserts a time.
@Suite(.timeLimit(.minutes(2)))
struct TransferEngineTests {
    /// Holds every response until `count` requests are in at once (or a generous backstop passes).
    final class Gate: Sendable {
        let count: Int
        private let arrived = Mutex(0)
        let open = Latch<Bool>()

        init(count: Int) { self.count = count }

        /// True when all `count` requests were in before this one was answered.
        func arrive() -> Bool {
            if arrived.withLock({ $0 += 1; return $0 }) >= count { open.open(true) }
            return open.wait(until: .now + .seconds(60)) ?? false
        }
    }

    @Test func aHundredTransfersAreInFlightAtOnceOnOneNetworkThread() async throws {
        let count = 100
        let gate = Gate(count: count)
        let allIn = Mutex(0)
        let body = try Fixture.jpeg()
        let server = try LoopbackHTTPServer { _ in
            if gate.arrive() { allIn.withLock { $0 += 1 } }
            return .ok(body, contentType: "image/jpeg")
        }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        let fetcher = MediaFetcher(profile: loopbackProfile())
        // A hundred waits from tasks on a cooperative pool of a thread or two: only possible if no transfer
        // holds a thread while it waits for its response.
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<count {
                group.addTask {
                    let media = try? await fetcher.fetch(
                        URL(string: "\(server.baseURL)/\(index).jpg")!, to: folder.file("\(index).jpg"),
                        deadline: .now + .seconds(90)) { _ in 10_000_000 }
                    return media?.head.status
                }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(statuses.count == count && statuses.allSatisfy { $0 == 200 })
        #expect(allIn.withLock { $0 } == count, "every request reached the server before any was answered")
        #expect(TransferEngine.shared.counts.peak >= count)
    }

    /// The network thread gathers the bodies' writes in one buffer (`BodyWriter`): with twenty transfers arriving
    /// interleaved, in small paced pieces, each file still holds exactly its own bytes.
    @Test func interleavedTransfersEachWriteTheirOwnBytes() async throws {
        let count = 20
        let bodies = (0..<count).map { index in
            (0..<300_000).map { UInt8(truncatingIfNeeded: ($0 &* 31) ^ ($0 >> 9) &+ index &* 97) }
        }
        let server = try LoopbackHTTPServer { request in
            guard let index = Int(request.path.dropFirst().prefix { $0.isNumber }), bodies.indices.contains(index) else { return .notFound }
            return ServedResponse(headers: [("Content-Type", "application/octet-stream")],
                                  body: .trickle(bodies[index], bytesPerChunk: 24_000, interval: .milliseconds(2)))
        }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        let fetcher = MediaFetcher(profile: loopbackProfile())
        let fetched = await withTaskGroup(of: (Int, FetchedMedia?).self) { group in
            for index in 0..<count {
                group.addTask {
                    (index, try? await fetcher.fetch(URL(string: "\(server.baseURL)/\(index).bin")!, to: folder.file("\(index).bin"),
                                                     deadline: .now + .seconds(90)) { _ in 10_000_000 })
                }
            }
            return await group.reduce(into: [Int: FetchedMedia?]()) { $0[$1.0] = $1.1 }
        }
        for index in 0..<count {
            #expect(fetched[index]??.bytes == bodies[index].count)
            #expect(try Data(contentsOf: folder.file("\(index).bin")) == Data(bodies[index]), "file \(index) holds its own body")
        }
    }

    /// A write that fails is that transfer's failure, also when its bytes were gathered and written only at its
    /// end: /dev/full takes the open and refuses every write.
    @Test(arguments: [50_000, 1_000_000])
    func aFailedWriteFailsTheTransfer(size: Int) async throws {
        let body = [UInt8](repeating: 7, count: size)
        let server = try LoopbackHTTPServer { _ in .ok(body, contentType: "application/octet-stream") }
        defer { server.stop() }
        let fetcher = MediaFetcher(profile: loopbackProfile())
        var message: String?
        do {
            _ = try await fetcher.fetch(URL(string: server.baseURL + "/a.bin")!, to: URL(fileURLWithPath: "/dev/full"),
                                        deadline: .now + .seconds(60)) { _ in 10_000_000 }
        } catch {
            if case .cannotSave(let text) = error { message = text } else { message = "not cannotSave: \(error)" }
        }
        #expect(message?.hasPrefix("cannot write /dev/full") == true, "\(message ?? "the download succeeded")")
    }

    @Test func transfersToOneHostReuseItsConnection() async throws {
        let body = try Fixture.png()
        // The server keeps an idle connection far longer than its default 5 s: on a starved machine this task once
        // got back to its next download more than 5 s after the last, and the server had rightly closed it.
        let server = try LoopbackHTTPServer(idleTimeout: .seconds(600)) { request in
            request.path == "/a.png" ? .ok(body, contentType: "image/png") : .notFound
        }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        let fetcher = MediaFetcher(profile: loopbackProfile())
        for index in 0..<10 {
            let media = try await fetcher.fetch(URL(string: server.baseURL + "/a.png")!, to: folder.file("\(index).png"), deadline: .now + .seconds(60)) { _ in 10_000_000 }
            #expect(media.bytes == body.count)
        }
        #expect(server.requests.count == 10)
        #expect(server.connectionsAccepted == 1, "ten downloads one after the other share one keep-alive connection")
    }

    @Test func cancellingTheTaskAbortsItsTransferAtOnce() async throws {
        let requested = Latch<Bool>()
        let server = try LoopbackHTTPServer { _ in
            requested.open(true)
            return ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall)
        }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        let fetcher = MediaFetcher(profile: loopbackProfile())
        let download = Task {
            try await fetcher.fetch(URL(string: server.baseURL + "/stall.jpg")!, to: folder.file("stall.jpg"), deadline: .now + .seconds(600)) { _ in 10_000_000 }
        }
        _ = await BlockingExecutor.shared.run("test.wait") { requested.wait() }
        download.cancel()
        do {
            _ = try await download.value
            Issue.record("a stalled download cannot succeed")
        } catch let error as MediaFetchError {
            #expect(error == .cancelled)
        }
    }

    @Test func eachPushKeepsItsOwnBudgetAmongHundredsInFlight() async throws {
        let body = try Fixture.jpeg()
        let server = try LoopbackHTTPServer { request in
            request.path == "/stall.jpg"
                ? ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall)
                : ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .bytes(body), delayBeforeHeaders: .milliseconds(200))
        }
        defer { server.stop() }
        // A budget the slow-but-honest pushes cannot miss on a busy machine; the stalled one always does.
        let pipeline = Pipeline(device: loopbackProfile(budget: .seconds(8)))
        let results = await withTaskGroup(of: (Int, ProcessResult).self) { group in
            for index in 0..<150 {
                group.addTask {
                    let path = index == 75 ? "/stall.jpg" : "/\(index).jpg"
                    return (index, await pipeline.run(firebasePayload(imageURL: server.baseURL + path), input: "\(index).json"))
                }
            }
            return await group.reduce(into: [Int: ProcessResult]()) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 150)
        for (index, result) in results where index != 75 {
            #expect(result.imageShown, "push \(index): \(result.codes)")
        }
        #expect(results[75]?.errorCodes == [.mediaTimeout, .extensionTimeExpired])
        #expect(results[75]?.outcome == .bestAttempt)
    }
}
