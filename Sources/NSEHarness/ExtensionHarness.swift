import Foundation
import NSEKit
import UserNotifications

/// Runs an app's own `UNNotificationServiceExtension` subclass on a payload, as iOS would, and returns what
/// the phone shows.
///
/// ```swift
/// let delivered = try await ExtensionHarness().run(NotificationService.self, payload: json)
/// #expect(delivered.content.title == "Sale [modified]")
/// #expect(delivered.imageShown)
/// ```
public struct ExtensionHarness: Sendable {
    public var profile: DeviceProfile
    /// Sends media downloads to a local server instead of the URLs' hosts (see `MediaHostMapping`).
    public var hostMapping: MediaHostMapping?
    /// How long to wait for the handler after `serviceExtensionTimeWillExpire()`.
    public var expiryGrace: Duration = .seconds(1)
    /// Measure memory growth against `profile.memoryLimit` (process-wide: run extensions one at a time).
    public var measuresMemory = true
    /// Where delivered attachments are kept for inspection; a new temporary folder by default.
    public var attachmentDirectory: URL?

    public init(profile: DeviceProfile = DeviceProfile(), hostMapping: MediaHostMapping? = nil) {
        self.profile = profile
        self.hostMapping = hostMapping
    }

    /// Runs `type` on a payload given as JSON text (APNs payload, simctl file or FCM v1 message).
    public func run<Extension: UNNotificationServiceExtension>(_ type: Extension.Type, payload: String) async throws -> DeliveredNotification {
        try await run(type, payload: Data(payload.utf8))
    }

    /// Runs `type` on a payload given as JSON bytes.
    public func run<Extension: UNNotificationServiceExtension>(_ type: Extension.Type, payload: Data, fileExtension: String = "json") async throws -> DeliveredNotification {
        let push = try PushReader.parse(payload, fileExtension: fileExtension)
        return await run(type, push: push, input: "payload")
    }

    /// Runs `type` on the payload in a file.
    public func run<Extension: UNNotificationServiceExtension>(_ type: Extension.Type, payloadFile: URL) async throws -> DeliveredNotification {
        let push = try PushReader.read(payloadFile)
        return await run(type, push: push, input: payloadFile.relativePath)
    }

    private func run<Extension: UNNotificationServiceExtension>(_ type: Extension.Type, push: ReceivedPush, input: String) async -> DeliveredNotification {
        let runner = HarnessRunner(expiryGrace: expiryGrace, measuresMemory: measuresMemory) { Extension() }
        let emulator = Emulator(profile: profile, extensionRunner: runner, hostMapping: hostMapping)
        let folder = attachmentDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("nse-harness-\(UUID().uuidString)")
        let result = await emulator.process(push, input: input, attachmentDirectory: folder)
        return DeliveredNotification(result: result)
    }
}

/// What the phone shows after the extension ran, with the findings on the way.
public struct DeliveredNotification: @unchecked Sendable {
    /// The full result, as `nse process --format json` prints it.
    public let result: ProcessResult
    /// The content the phone displays; its attachments are the files that passed the system's validation.
    /// (Immutable once built; shared freely.)
    public let content: UNNotificationContent

    init(result: ProcessResult) {
        self.result = result
        let shown = result.content ?? NotificationContent()
        let content = UNNotificationContent(shown, environment: nil)
        content.fields.attachments = shown.attachments.compactMap { attachment in
            guard let file = attachment.file, let type = AttachmentType(identifier: attachment.type) else { return nil }
            let staged = StagedAttachment(attachment: attachment, localFile: URL(fileURLWithPath: file), attachmentType: type)
            return UNNotificationAttachment(staged: staged)
        }
        self.content = content
    }

    public var imageShown: Bool { result.imageShown }
    public var outcome: Outcome { result.outcome }
    public var extensionInvoked: Bool { result.extensionInvoked }
    public var diagnostics: [Diagnostic] { result.diagnostics }
    /// How much memory the process gained while the extension ran, if measured.
    public var memoryPeakBytes: Int? { result.extensionMemoryBytes }
}
