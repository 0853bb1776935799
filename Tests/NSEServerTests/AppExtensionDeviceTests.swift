import Foundation
import NSEServer
import Testing

/// A device whose extension is the app's own source folder: its pushes run through that code, built as `nse
/// extension` builds it, not through nse's built-in extension.
@Suite(.timeLimit(.minutes(20)))
struct AppExtensionDeviceTests {
    static let source = """
        import UserNotifications

        class NotificationService: UNNotificationServiceExtension {
            override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
                let content = (request.content.mutableCopy() as? UNMutableNotificationContent) ?? UNMutableNotificationContent()
                content.title = "\\(content.title) [from the app's extension]"
                contentHandler(content)
            }
        }
        """

    @Test func devicesOwnExtensionRunsForItsPushes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-app-extension-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Self.source.utf8).write(to: folder.appendingPathComponent("NotificationService.swift"))
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-test-\(UUID().uuidString)")
        var configuration = NSEServer.Configuration(dataDirectory: data)
        let devicesFile = try Self.devicesFile(folder: folder)
        defer { try? FileManager.default.removeItem(at: devicesFile) }
        let file = try DevicesFile.read(devicesFile)
        configuration.devices = file.devices
        // The cache the other extension tests build in: nse's modules are compiled there once for all of them.
        configuration.extensionCache = packageRoot.appendingPathComponent(".build/nse-extension-test-cache")
        let fixture = ServeFixture(server: try await NSEServer.start(configuration), data: data)
        defer { Task { await fixture.stop() } }

        let payload = #"{"aps":{"alert":{"title":"Order shipped","body":"Arrives Tuesday"},"mutable-content":1}}"#
        #expect(try await apns(fixture, payload: payload).status == 200)
        #expect(try await apns(fixture, token: ServeFixture.productionToken, payload: payload).status == 200)
        // The first push waits for the build: each settled request waits up to a minute, so ask until delivered.
        var delivered: [String: Any]?
        while delivered == nil {
            // curl waits longer than the server's minute (the later --max-time wins).
            let answer = try await curl(["--max-time", "90", fixture.base + "/emulator/v1/devices/\(ServeFixture.token)/notifications?settled=1"])
            delivered = (answer.json?["notifications"] as? [[String: Any]])?.first { $0["status"] as? String == "delivered" }
        }
        let title = ((delivered?["phone"] as? [String: Any])?["content"] as? [String: Any])?["title"] as? String
        #expect(title == "Order shipped [from the app's extension]")
        // The other iPhone keeps nse's built-in extension.
        let other = try await fixture.notifications(ServeFixture.productionToken).first
        #expect(((other?["phone"] as? [String: Any])?["content"] as? [String: Any])?["title"] as? String == "Order shipped")
    }

    @Test func aFolderThatIsNotThereStopsTheStart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-no-such-\(UUID().uuidString)")
        let devicesFile = try Self.devicesFile(folder: folder)
        defer { try? FileManager.default.removeItem(at: devicesFile) }
        #expect(throws: ServeSetupError.self) { try DevicesFile.read(devicesFile) }
    }

    static func devicesFile(folder: URL) throws -> URL {
        let json = """
            {"devices": [
              {"name": "Ana's iPhone", "apns": {"token": "\(ServeFixture.token)"}, "bundleId": "\(ServeFixture.topic)",
               "extension": {"kind": "folder", "path": "\(folder.path)"}},
              {"name": "Carl's iPhone", "apns": {"token": "\(ServeFixture.productionToken)", "environment": "production"}, "bundleId": "\(ServeFixture.topic)"}
            ]}
            """
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-devices-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: url)
        return url
    }
}
