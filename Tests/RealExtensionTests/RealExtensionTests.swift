import Foundation
import CImageFixtures
import NSEHarness
import NSEMedia
import NSEMediaServer
import NSEPush
import NSEReports
import Testing

/// Apps' extensions (RealAppExtensions.swift) run by the harness: each test asserts what the phone shows, and
/// what the developer reads in the run's log.
struct RealExtensionTests {
    /// A container seed folder with the given files written by the real encoders.
    private func seed(_ files: [(path: String, write: (String) -> Int32)]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-real-\(UUID().uuidString)")
        for file in files {
            let url = folder.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try #require(file.write(url.path) == 0)
        }
        return folder
    }

    private func harness(seed: URL? = nil) -> ExtensionHarness {
        // Five minutes, not iOS's 30 s: the extensions' Tasks wait for a thread of Swift's cooperative pool, which
        // other suites keep busy on a loaded two-core machine (CI once ran out of 30 s on an async download); none
        // of these tests is about expiry.
        var harness = ExtensionHarness()
        harness.profile.timeBudget = .seconds(300)
        harness.expiryGrace = .milliseconds(500)
        harness.containerSeed = seed
        return harness
    }

    private func payload(_ extra: String, thread: String = "") -> String {
        #"{"aps": {"alert": {"title": "Ada", "body": "Lunch?"}, "mutable-content": 1, "thread-id": "\#(thread)"}, \#(extra)}"#
    }

    /// `UIImage(named:)!` for an asset of the app's: nse has no asset catalog, so a placeholder stands in (with a
    /// warning) instead of the nil that crashed the run, and the communication notification shows its avatar.
    @Test(.timeLimit(.minutes(1)))
    func aForceUnwrappedBundleAvatarIsAPlaceholderNotACrash() async throws {
        let delivered = try await harness().run(
            BundleAvatarMessageService.self, payload: payload(#""sender-id": "u1", "sender-name": "Ada", "conversation-id": "c1", "avatar": "AdaAvatar""#))
        #expect(delivered.outcome == .modified)
        let communication = try #require(delivered.result.content?.communication)
        #expect(communication.senderName == "Ada")
        #expect(communication.avatar?.width == 120)
        #expect(communication.donated)
        let warning = try #require(delivered.diagnostics.first { $0.code == .extensionBundleImage })
        #expect(warning.severity == .warning)
        #expect(warning.message.contains("\"AdaAvatar\""))
        #expect(delivered.result.verdict == .pass)
    }

    /// With a folder standing for the app's bundle, the app's own image is found: loose, or in an asset catalog.
    @Test(arguments: ["AdaAvatar@2x.png", "Assets.xcassets/AdaAvatar.imageset/ada-avatar.png"])
    func aBundleAvatarIsTheAppsOwnImageWhenTheBundleFolderHasIt(path: String) async throws {
        let folder = try seed([(path, { cimagefixtures_write_png($0, 64, 48, 0, 2) })])
        defer { try? FileManager.default.removeItem(at: folder) }
        var harness = harness()
        harness.bundleDirectory = folder
        let delivered = try await harness.run(
            BundleAvatarMessageService.self, payload: payload(#""sender-id": "u1", "sender-name": "Ada", "conversation-id": "c1", "avatar": "AdaAvatar""#))
        #expect(delivered.result.content?.communication?.avatar?.width == 64)
        #expect(delivered.diagnostics.isEmpty, "\(delivered.diagnostics)")
    }

    @Test func anINImageNamedAfterAnAssetIsAPlaceholderAvatar() async throws {
        let delivered = try await harness().run(NamedAvatarMessageService.self, payload: payload(#""x": 1"#))
        #expect(delivered.result.content?.communication?.avatar != nil)
        #expect(delivered.result.content?.communication?.groupName == "Team")
        #expect(delivered.diagnostics.map(\.code) == [.extensionBundleImage])
    }

    @Test func aMissedCallIsACommunicationNotificationWithTheCallersAvatar() async throws {
        let folder = try seed([("avatars/caller.png", { cimagefixtures_write_png($0, 96, 96, 0, 2) })])
        defer { try? FileManager.default.removeItem(at: folder) }
        let delivered = try await harness(seed: folder).run(
            MissedCallService.self, payload: payload(#""caller-name": "Grace", "caller-number": "+15550100""#))
        let communication = try #require(delivered.result.content?.communication)
        #expect(communication.intent == "INStartCallIntent")
        #expect(communication.senderName == "Grace")
        #expect(communication.avatar?.width == 96)
        #expect(communication.donated)
        #expect(delivered.diagnostics.isEmpty, "\(delivered.diagnostics)")
    }

    @Test func anAsyncDownloadWithATypeHintIsShownAndLogged() async throws {
        let folder = try seed([("pic.gif", { cimagefixtures_write_gif($0, 48, 32, 2, 4) })])
        defer { try? FileManager.default.removeItem(at: folder) }
        let gif = try [UInt8](Data(contentsOf: folder.appendingPathComponent("pic.gif")))
        let server = try LoopbackHTTPServer { request in
            request.path == "/media/7" ? .ok(gif, contentType: "image/gif") : .notFound
        }
        defer { server.stop() }
        var harness = harness()
        harness.hostMapping = URL(string: server.baseURL).map(MediaHostMapping.init(origin:))

        let delivered = try await harness.run(AsyncDownloadService.self, payload: payload(#""media-url": "https://news.example.com/media/7""#))

        #expect(delivered.imageShown)
        let attachment = try #require(delivered.result.content?.attachments.first)
        #expect(attachment.type == "com.compuserve.gif")
        #expect(attachment.frames == 2)
        #expect(delivered.activity.log.map(\.message) == ["Attached com.compuserve.gif from news.example.com"])
        #expect(delivered.activity.requests.map(\.url) == ["https://news.example.com/media/7"])
    }

    @Test func aCachedImageReencodedToPNGIsShownResized() async throws {
        let folder = try seed([("images/hero.jpg", { cimagefixtures_write_jpeg($0, 1200, 800, 85, 0, 7) })])
        defer { try? FileManager.default.removeItem(at: folder) }

        let delivered = try await harness(seed: folder).run(ReencodingService.self, payload: payload(#""cached-image": "hero.jpg""#))

        #expect(delivered.outcome == .modified)
        #expect(delivered.imageShown)
        let attachment = try #require(delivered.result.content?.attachments.first)
        #expect(attachment.type == "public.png")
        #expect(attachment.width == 600 && attachment.height == 400)
        let messages = delivered.activity.log.map(\.message)
        #expect(messages.first == "Decoded hero.jpg: 1200x800 points")
        #expect(delivered.activity.log.first?.subsystem == "com.example.app.NotificationService")
        #expect(delivered.activity.log.first?.level == .info)
        #expect(messages.contains { $0.hasPrefix("Attached ") && $0.hasSuffix(" bytes") })
        // The 1200x800 photo, the 600x400 canvas and the image made from it: 3.84 MB + 2 x 0.96 MB.
        #expect(delivered.activity.memory?.accountedPeakBytes == 1200 * 800 * 4 + 2 * 600 * 400 * 4)
        #expect(!delivered.diagnostics.contains { $0.code == .extensionMemoryLimit })
    }

    @Test func aMissingCachedImageIsLoggedAndTheTextStillShows() async throws {
        let delivered = try await harness().run(ReencodingService.self, payload: payload(#""cached-image": "gone.jpg""#))
        #expect(delivered.outcome == .modified)
        #expect(!delivered.imageShown)
        #expect(delivered.activity.log.map(\.message) == ["No cached image gone.jpg"])
        #expect(delivered.activity.log.first?.level == .error)
    }

    @Test func theBadgeCountsTheConversationsDeliveredNotifications() async throws {
        var harness = harness()
        for thread in ["chat-1", "chat-2", "chat-1"] {
            var earlier = NotificationContent()
            earlier.body = "earlier"
            earlier.threadIdentifier = thread
            harness.profile.deliveredNotifications.append(earlier)
        }

        let delivered = try await harness.run(BadgeService.self, payload: payload(#""x": 1"#, thread: "chat-1"))

        #expect(delivered.content.badge == 3)
        #expect(delivered.activity.log.map(\.message) == ["badge 3 from 3 delivered"])
        #expect(delivered.activity.log.first?.source == "os_log")
        #expect(delivered.activity.log.first?.category == "badge")
    }

    @Test func aMessageBecomesACommunicationNotificationWithTheSendersAvatar() async throws {
        let folder = try seed([("avatars/u42.png", { cimagefixtures_write_png($0, 96, 96, 0, 3) })])
        defer { try? FileManager.default.removeItem(at: folder) }

        let delivered = try await harness(seed: folder).run(MessageService.self, payload: payload(
            #""sender-id": "u42", "sender-name": "Ada", "group-name": "Lunch crew", "conversation-id": "c-9""#))

        let communication = try #require(delivered.result.content?.communication)
        #expect(communication.senderName == "Ada")
        #expect(communication.avatar?.width == 96 && communication.avatar?.height == 96)
        #expect(communication.groupName == "Lunch crew")
        #expect(communication.conversationIdentifier == "c-9")
        #expect(communication.donated)
        #expect(delivered.content.body == "Lunch?")
        #expect(!delivered.diagnostics.contains { $0.code == .extensionCommunication })
        let text = TextResultRenderer().render(delivered.result)
        #expect(text.contains(#"sender   "Ada", avatar 96x96 in place of the app icon, in group "Lunch crew""#))
    }

    @Test func aSenderWithoutACachedAvatarShowsInitials() async throws {
        let delivered = try await harness().run(MessageService.self, payload: payload(#""sender-id": "u7", "sender-name": "Bo""#))
        let communication = try #require(delivered.result.content?.communication)
        #expect(communication.avatar == nil)
        #expect(communication.groupName == nil)
    }

    @Test func anUndonatedMessageWithABrokenAvatarIsReported() async throws {
        let delivered = try await harness().run(HastyMessageService.self, payload: payload(#""x": 1"#))
        let communication = try #require(delivered.result.content?.communication)
        #expect(communication.senderName == "Cy")
        #expect(communication.avatar == nil)
        #expect(!communication.donated)
        let warnings = delivered.diagnostics.filter { $0.code == .extensionCommunication }.map(\.message)
        #expect(warnings.count == 2)
        #expect(warnings.contains { $0.contains("initials") })
        #expect(warnings.contains { $0.contains("never donated") })
    }

    @Test func appGroupDefaultsAreSeededThroughTheContainer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nse-real-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let preferences = folder.appendingPathComponent("Library/Preferences")
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        let seeded = try PropertyListSerialization.data(fromPropertyList: ["unread": 4], format: .xml, options: 0)
        try seeded.write(to: preferences.appendingPathComponent("group.com.example.app.plist"))

        let delivered = try await harness(seed: folder).run(SharedCounterService.self, payload: payload(#""x": 1"#))
        #expect(delivered.content.badge == 5)
        #expect(delivered.content.subtitle == "stored 5")

        // Each run has its own container: a run without the seed starts from nothing.
        let fresh = try await harness().run(SharedCounterService.self, payload: payload(#""x": 1"#))
        #expect(fresh.content.badge == 1)
    }

    @Test func firebasesHelperUnderItsObjectiveCNameShowsTheImage() async throws {
        let folder = try seed([("a.png", { cimagefixtures_write_png($0, 20, 10, 0, 1) })])
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = try [UInt8](Data(contentsOf: folder.appendingPathComponent("a.png")))
        let server = try LoopbackHTTPServer { _ in .ok(png, contentType: "image/png") }
        defer { server.stop() }
        var harness = harness()
        harness.hostMapping = URL(string: server.baseURL).map(MediaHostMapping.init(origin:))

        let delivered = try await harness.run(ObjCStyleFirebaseService.self, payload: payload(#""fcm_options": {"image": "https://img.example.com/a.png"}"#))
        #expect(delivered.imageShown)
        #expect(delivered.result.content?.attachments.first?.width == 20)
    }

    /// With the process-wide figure off (`.off`, as the CLI runs extensions), the bitmaps the stand-ins hold are
    /// still this run's and still judged.
    @Test(arguments: [MemoryMeasurement.whenAlone, .off])
    func decodingATwelveMegapixelPhotoIsTheMemoryKill(measurement: MemoryMeasurement) async throws {
        let folder = try seed([("latest.jpg", { cimagefixtures_write_jpeg($0, 4000, 3000, 80, 0, 11) })])
        defer { try? FileManager.default.removeItem(at: folder) }
        var harness = harness(seed: folder)
        harness.memoryMeasurement = measurement

        let delivered = try await harness.run(PhotoThumbnailService.self, payload: payload(#""x": 1"#))

        // 4000 x 3000 x 4 bytes = 48 MB of pixels, twice the 24 MB iOS allows: killed, the original shows.
        #expect(delivered.diagnostics.contains { $0.code == .extensionMemoryLimit })
        #expect(delivered.outcome == .original)
        #expect(!delivered.imageShown)
        #expect(delivered.content.title == "Ada")
        #expect((delivered.activity.memory?.accountedPeakBytes ?? 0) >= 4000 * 3000 * 4)
        // The log written inside the extension's Task reaches the run too.
        #expect(delivered.activity.log.contains { $0.message.hasPrefix("Thumbnail of 4000x3000: ") })
    }

    /// A 2 KB progressive JPEG whose header claims 10000 x 10000: charged as the 400 MB iOS would try to allocate
    /// (the memory kill), but not decoded, so the emulator itself never holds a bitmap or coefficient buffer that size.
    @Test func aHostileHeaderIsChargedNotDecoded() async throws {
        let folder = try seed([("latest.jpg", { path in
            guard cimagefixtures_write_jpeg_scans(path, 64, 64, 3, CIMAGEFIXTURES_SCANS_PROGRESSIVE, 0, 3) == 0 else { return 1 }
            return cimagefixtures_patch_jpeg_size(path, 10_000, 10_000)
        })])
        defer { try? FileManager.default.removeItem(at: folder) }
        var harness = harness(seed: folder)
        harness.memoryMeasurement = .off

        let delivered = try await harness.run(PhotoThumbnailService.self, payload: payload(#""x": 1"#))

        #expect(delivered.diagnostics.contains { $0.code == .extensionMemoryLimit })
        #expect(delivered.outcome == .original)
        #expect((delivered.activity.memory?.accountedPeakBytes ?? 0) >= 10_000 * 10_000 * 4)
        #expect(delivered.activity.log.map(\.message) == ["No photo"], "UIImage(data:) gave nil: not decoded")
    }
}
