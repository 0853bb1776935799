import Foundation
import NSEHarness
import SDKTestSupport
import Testing

/// A container seed (`nse extension --container DIR`) holding a FIFO once made the copy wait for a writer for
/// ever, and the run with it. The seed is now checked before anything is copied.
struct ContainerSeedTests {
    @Test(.timeLimit(.minutes(1)))
    func aSeedWithAFIFOIsNotCopiedAndTheRunGoesOn() async throws {
        let seed = FileManager.default.temporaryDirectory.appendingPathComponent("nse-seed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: seed) }
        let preferences = seed.appendingPathComponent("Library/Preferences")
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: preferences.appendingPathComponent("settings.json"))
        let fifo = seed.appendingPathComponent("Library/pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)

        let push = #"{"aps": {"alert": {"title": "Sale", "body": "Today only"}, "mutable-content": 1}, "pw_msg": "1", "p": "3b1"}"#
        let result = try await SDKSamples.process(.pushwoosh, push, origin: SDKSamples.refusedOrigin, containerSeed: seed)

        #expect(result.content?.title == "Sale")
        let warning = result.diagnostics.first { $0.code == .extensionContainerSeed }
        #expect(warning?.severity == .warning)
        #expect(warning?.message.contains("\(fifo): it is a FIFO (named pipe)") == true, "\(String(describing: warning))")
    }
}
