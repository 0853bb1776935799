import Foundation
import NSEMedia
import NSEMediaServer
import NSEPipeline
import NSEPush
import NSEReports
import UserNotifications

/// Runs an app's own `UNNotificationServiceExtension` subclass on a payload, as iOS would, and returns what
/// the phone shows.
///
/// ```swift
/// let harness = ExtensionHarness(media: URL(fileURLWithPath: "Tests/media"))   // offline: every image from a folder
/// let delivered = try await harness.run(NotificationService.self, payload: json)
/// print(delivered)   // what `nse process` prints
/// #expect(delivered.content.title == "Sale [modified]")
/// #expect(delivered.imageShown)
/// ```
public struct ExtensionHarness: Sendable {
    public var profile: DeviceProfile
    /// Serves every request of the run from this folder, whatever its host: `https://cdn.example.com/img/sale.jpg`
    /// is `<folder>/img/sale.jpg`, as `nse process --media` does (each run gets its own loopback server). A file
    /// that is not there is HTTP 404, and the run's diagnostics name the path that was looked for.
    public var mediaFolder: URL?
    /// Sends media downloads to a server of your own instead of the URLs' hosts (see `MediaHostMapping`);
    /// `mediaFolder`, when set, takes its place.
    public var hostMapping: MediaHostMapping?
    /// How long to wait for the handler after `serviceExtensionTimeWillExpire()`.
    public var expiryGrace: Duration = .seconds(1)
    /// How memory is measured and judged against `profile.memoryLimit`; see `MemoryMeasurement`. The default
    /// is right for a parallel test suite: a run overlapped by another reports its process figure as not measured.
    public var memoryMeasurement: MemoryMeasurement = .whenAlone
    /// Where delivered attachments are kept. When nil, they go to a temporary folder that is removed once the
    /// `DeliveredNotification` and its attachments are gone.
    public var attachmentDirectory: URL?
    /// A folder whose contents are copied into the run's own app-group container before the extension starts
    /// (the container is new and private to each run, and removed after it).
    public var containerSeed: URL?
    /// The folder standing for the app's bundle: `UIImage(named: "avatar")` and `INImage(named:)` find
    /// `avatar.png` (or `avatar@2x.png`, `.jpg`, `.gif`, an asset catalog's `avatar.imageset`) in it; without one,
    /// or when the image is not there, a placeholder stands in with the warning `extension.bundle-image`.
    public var bundleDirectory: URL?

    /// Reads App Transport Security from the extension's Info.plist (XML or binary): `NSAllowsArbitraryLoads`
    /// and `NSExceptionDomains` decide which hosts its requests, and Firebase's download, may reach over http.
    public mutating func loadInfoPlist(_ file: URL) throws(TransportSecurityError) {
        profile.transportSecurity = try TransportSecurity(infoPlist: file)
    }

    /// The same, from the Info.plist's dictionary.
    public mutating func loadInfoPlist(_ dictionary: [String: Any]) {
        profile.transportSecurity = TransportSecurity(infoPlist: dictionary)
    }

    /// Off, or `.whenAlone`: kept for callers that set a flag.
    public var measuresMemory: Bool {
        get { memoryMeasurement != .off }
        set { memoryMeasurement = newValue ? .whenAlone : .off }
    }

    public init(profile: DeviceProfile = DeviceProfile(), hostMapping: MediaHostMapping? = nil) {
        self.profile = profile
        self.hostMapping = hostMapping
    }

    /// A harness that serves every media URL from `folder` (see `mediaFolder`): a test needs no network.
    public init(media folder: URL, profile: DeviceProfile = DeviceProfile()) {
        self.init(profile: profile)
        mediaFolder = folder
    }

    /// Runs `type` on a payload given as JSON text (APNs payload, simctl file or FCM v1 message).
    public func run<Extension: UNNotificationServiceExtension>(_ type: Extension.Type, payload: String) async throws -> DeliveredNotification {
        try await run(type, payload: Data(payload.utf8))
    }

    /// Runs `type` on a payload given as JSON bytes.
    public func run<Extension: UNNotificationServiceExtension>(_ type: Extension.Type, payload: Data, fileExtension: String = "json") async throws -> DeliveredNotification {
        let push = try PushReader.parse(payload, fileExtension: fileExtension)
        return try await run(type, push: push, input: "payload")
    }

    /// Runs `type` on the payload in a file.
    public func run<Extension: UNNotificationServiceExtension>(_ type: Extension.Type, payloadFile: URL) async throws -> DeliveredNotification {
        let push = try PushReader.read(payloadFile)
        return try await run(type, push: push, input: payloadFile.relativePath)
    }

    private func run<Extension: UNNotificationServiceExtension>(_ type: Extension.Type, push: ReceivedPush, input: String) async throws -> DeliveredNotification {
        let media = try mediaFolder.map(LocalMedia.init(folder:))
        defer { media?.folder.stop() }
        var runner = HarnessRunner(expiryGrace: expiryGrace, memoryMeasurement: memoryMeasurement) { type.init() }
        runner.containerSeed = containerSeed
        runner.bundleDirectory = bundleDirectory
        let pipeline = Pipeline(device: profile, extensionRunner: runner, hostMapping: media?.mapping ?? hostMapping)
        let temporary = attachmentDirectory == nil ? TemporaryFolder() : nil
        let folder = attachmentDirectory ?? temporary?.url
        var result = await pipeline.run(push, input: input, attachmentDirectory: folder)
        if let media { result.diagnostics += media.folder.takeMissingFiles() }
        return DeliveredNotification(result: result, keeping: temporary)
    }
}

/// A folder that is removed when the last value holding it is gone: the attachments of a delivered
/// notification stay readable as long as the test holds the notification or an attachment, and no
/// `nse-harness-*` folder is left behind.
final class TemporaryFolder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nse-harness-\(UUID().uuidString)")

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// What the phone shows after the extension ran, with the findings on the way.
public struct DeliveredNotification: @unchecked Sendable {
    /// The full result, as `nse process --format json` prints it.
    public let result: ProcessResult
    /// The content the phone displays; its attachments are the files that passed the system's validation.
    /// (Immutable once built; shared freely.)
    public let content: UNNotificationContent

    /// Holds the temporary folder of the attachments, if the harness made one.
    private let folder: TemporaryFolder?

    init(result: ProcessResult, keeping folder: TemporaryFolder?) {
        self.result = result
        self.folder = folder
        let shown = result.content ?? NotificationContent()
        let content = UNNotificationContent(shown, environment: nil)
        content.fields.attachments = shown.attachments.compactMap { attachment in
            guard let file = attachment.file, let type = AttachmentType(identifier: attachment.type) else { return nil }
            let staged = StagedAttachment(attachment: attachment, localFile: URL(fileURLWithPath: file), attachmentType: type)
            let shown = UNNotificationAttachment(staged: staged)
            shown.keepsAlive = folder
            return shown
        }
        self.content = content
    }

    public var imageShown: Bool { result.imageShown }
    public var outcome: Outcome { result.outcome }
    public var extensionInvoked: Bool { result.extensionInvoked }
    public var diagnostics: [Diagnostic] { result.diagnostics }
    /// The memory judged against the limit (see `ExtensionMemory.judgedBytes`), if measured.
    public var memoryPeakBytes: Int? { result.extensionMemoryBytes }
    /// What the extension did: its requests, log, files, handler calls and memory.
    public var activity: ExtensionActivity { result.extensionActivity ?? ExtensionActivity() }
}

extension DeliveredNotification: CustomStringConvertible {
    /// What `nse process --format text` prints for this run: the headline of the verdict, what the phone shows,
    /// the diagnostics and what the extension did (its requests, log and content handler calls).
    public var description: String { TextResultRenderer().render(result) }
}

/// `ExtensionHarness.mediaFolder` names no folder: thrown before the extension runs, since every image would be
/// missing for a reason that is not the push's.
public struct MediaFolderError: Error, CustomStringConvertible {
    public let path: String

    public var description: String {
        "The media folder \(path) is not a folder: ExtensionHarness(media:) serves the images from a folder that exists."
    }
}

/// `mediaFolder` served for one run (NSEMediaServer's `LocalMediaFolder`, which names the paths it lacked), and the
/// host mapping that sends every request to it.
private struct LocalMedia: Sendable {
    let folder: LocalMediaFolder
    let mapping: MediaHostMapping

    init(folder url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.standardizedFileURL.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MediaFolderError(path: url.standardizedFileURL.path)
        }
        folder = try LocalMediaFolder(folder: url)
        // 127.0.0.1 and a port always make a URL; the fallback only keeps this free of a force unwrap.
        mapping = MediaHostMapping(origin: URL(string: folder.server.baseURL) ?? URL(fileURLWithPath: "/"))
    }
}
