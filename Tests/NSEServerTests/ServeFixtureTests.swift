import Foundation
import NSEServer
import Testing

/// The fixture itself: a stopped server leaves nothing in TMPDIR, unless the test restarts one on its folder.
@Suite(.timeLimit(.minutes(10)))
struct ServeFixtureTests {
    @Test func stoppedFixtureDeletesItsDataFolderAndDevicesFile() async throws {
        let fixture = try await ServeFixture.start()
        #expect(try await apns(fixture).status == 200)
        let devicesFile = fixture.data.appendingPathExtension("devices.json")
        #expect(FileManager.default.fileExists(atPath: fixture.data.appendingPathComponent("journal.jsonl").path))
        #expect(FileManager.default.fileExists(atPath: devicesFile.path))
        await fixture.stop()
        #expect(!FileManager.default.fileExists(atPath: fixture.data.path))
        #expect(!FileManager.default.fileExists(atPath: devicesFile.path))
        // A restart on the deleted folder would start afresh: it is refused, naming what keeps the folder.
        await #expect(throws: ServeSetupError.self) { try await ServeFixture.start(data: fixture.data) }
    }

    @Test func restartedFixtureKeepsTheFolderUntilItsOwnStop() async throws {
        let first = try await ServeFixture.start()
        #expect(try await apns(first).status == 200)
        await first.stop(keepingData: true)
        let second = try await ServeFixture.start(data: first.data)
        #expect(try await second.notifications().count == 1)
        await second.stop()
        #expect(!FileManager.default.fileExists(atPath: first.data.path))
    }
}
