import Foundation
@testable import NSEBatch
import NSEHarness
@testable import NSEMedia
import NSEMediaServer
@testable import NSEPipeline
@testable import NSEPush
@testable import NSEReports
import Testing

/// Servers that misbehave: every transfer must end within the time budget with the right diagnosis.
/// The hang guard is the suite's time limit; durations are checked only from below (nothing ends before its budget).
@Suite(.timeLimit(.minutes(1)))
struct HostileServerTests {
    private static let budget: Duration = .seconds(2)

    /// Failures other than the time-out get a budget they cannot run into, even on a machine busy with other work:
    /// otherwise a slow machine would turn "too large" into "timed out".
    private static let unreachableBudget: Duration = .seconds(50)

    private func run(_ response: ServedResponse, budget: Duration = budget) async throws -> (ProcessResult, Duration) {
        let server = try cdn(["/a.jpg": response])
        defer { server.stop() }
        let pipeline = Pipeline(device: loopbackProfile(budget: budget), changes: ContentChanges(titleSuffix: " [modified]"))
        let started = ContinuousClock.now
        let result = await pipeline.run(firebasePayload(imageURL: server.baseURL + "/a.jpg"), input: "hostile.json")
        return (result, started.duration(to: .now))
    }

    @Test func aStalledServerExpiresTheBudgetAndShowsTheBestAttempt() async throws {
        let (result, elapsed) = try await run(ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .stall))
        #expect(result.outcome == .bestAttempt)
        #expect(result.errorCodes == [.mediaTimeout, .extensionTimeExpired])
        #expect(result.content?.title == "Sale [modified]", "the best attempt keeps the content changes")
        #expect(result.content?.attachments.isEmpty == true)
        #expect(elapsed >= Self.budget)
    }

    @Test func aSlowFirstByteExpiresTheBudget() async throws {
        let (result, elapsed) = try await run(ServedResponse(body: .bytes([1]), delayBeforeHeaders: .seconds(30)))
        #expect(result.outcome == .bestAttempt)
        #expect(result.codes.contains(.mediaTimeout))
        #expect(elapsed >= Self.budget)
    }

    @Test func aTricklingServerExpiresTheBudget() async throws {
        let body = try Fixture.jpeg(width: 300, height: 300)
        let (result, elapsed) = try await run(ServedResponse(
            headers: [("Content-Type", "image/jpeg")], body: .trickle(body, bytesPerChunk: 16, interval: .milliseconds(100))))
        #expect(result.outcome == .bestAttempt)
        #expect(result.errorCodes == [.mediaTimeout, .extensionTimeExpired])
        #expect(elapsed >= Self.budget)
    }

    @Test func anEndlessBodyStopsAtTheSizeLimit() async throws {
        let (result, _) = try await run(ServedResponse(headers: [("Content-Type", "image/jpeg")], body: .endless(byte: 0xFF)), budget: Self.unreachableBudget)
        #expect(result.errorCodes == [.mediaTooLarge])
        #expect(result.outcome == .modifiedWithoutAttachment)
    }

    @Test func anAnnouncedOversizedBodyIsRefusedBeforeItArrives() async throws {
        let (result, _) = try await run(ServedResponse(
            headers: [("Content-Type", "image/jpeg")], body: .truncated([0xFF, 0xD8], declaredLength: 11_000_000)), budget: Self.unreachableBudget)
        #expect(result.errorCodes == [.mediaTooLarge])
        #expect(result.diagnostics.first?.message.contains("11000000") == true)
        #expect(result.diagnostics.first?.message.contains("--megabyte") == false, "11 MB is over both readings of 10 MB")
    }

    @Test func aLyingContentLengthIsATruncatedDownload() async throws {
        let jpeg = try Fixture.jpeg()
        let (result, _) = try await run(ServedResponse(
            headers: [("Content-Type", "image/jpeg")], body: .truncated(jpeg, declaredLength: jpeg.count * 2)), budget: Self.unreachableBudget)
        #expect(result.errorCodes == [.mediaTruncated])
    }

    @Test func theImageLimitFollowsTheMegabyteAssumption() async throws {
        // 10,200,000 bytes: over 10 decimal MB, under 10 binary MB.
        let body = [UInt8](repeating: 0, count: 10_200_000)
        let server = try cdn(["/a.jpg": .ok(body, contentType: "image/jpeg")])
        defer { server.stop() }
        var decimal = loopbackProfile(budget: Self.unreachableBudget)
        // Unknown reading (the default): the file is let through, with a warning; it then fails only as a corrupt JPEG.
        let unknown = await Pipeline(device: decimal).run(firebasePayload(imageURL: server.baseURL + "/a.jpg"), input: "t")
        #expect(unknown.errorCodes == [.mediaTypeMismatch])
        #expect(unknown.diagnostics.contains { $0.code == .mediaTooLarge && $0.severity == .warning && $0.message.contains("--megabyte 1000000") })
        decimal.megabyteIsKnown = true
        let strict = await Pipeline(device: decimal).run(firebasePayload(imageURL: server.baseURL + "/a.jpg"), input: "t")
        #expect(strict.errorCodes == [.mediaTooLarge])
        #expect(strict.diagnostics.first?.message.contains("with --megabyte 1048576, the binary reading, it would pass") == true)
        decimal.megabyte = 1_048_576
        let binary = await Pipeline(device: decimal).run(firebasePayload(imageURL: server.baseURL + "/a.jpg"), input: "t")
        // Under the binary limit it downloads, then fails only as a corrupt JPEG.
        #expect(binary.errorCodes == [.mediaTypeMismatch])
    }
}
