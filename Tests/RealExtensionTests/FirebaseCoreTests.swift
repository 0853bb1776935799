import Foundation
import CImageFixtures
import NSEHarness
import NSEMedia
import NSEMediaServer
import NSEPush
import Testing
import UserNotifications

/// `FirebaseApp.configure()` beside Firebase's helper (FirebaseCoreExtensions.swift): the configuration file is read
/// from the folder standing for the extension's bundle, nothing is sent, and the SDK's exceptions are crashes.
struct FirebaseCoreTests {
    private static let payload = #"{"aps": {"alert": {"title": "Sale", "body": "Today only"}, "mutable-content": 1}, "fcm_options": {"image": "https://img.example.com/a.png"}}"#

    /// A folder with a PNG served for every URL, and a bundle folder holding `files`.
    private func run<Service: UNNotificationServiceExtension>(_ type: Service.Type, bundle files: [String: [String: String]]) async throws -> DeliveredNotification {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("nse-firebase-core-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let bundle = root.appendingPathComponent("bundle")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        for (name, plist) in files {
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            try data.write(to: bundle.appendingPathComponent(name))
        }
        let png = root.appendingPathComponent("a.png")
        try #require(cimagefixtures_write_png(png.path, 20, 10, 0, 1) == 0)
        let bytes = try [UInt8](Data(contentsOf: png))
        let server = try LoopbackHTTPServer { _ in .ok(bytes, contentType: "image/png") }
        defer { server.stop() }
        var harness = ExtensionHarness()
        harness.hostMapping = URL(string: server.baseURL).map(MediaHostMapping.init(origin:))
        harness.bundleDirectory = bundle
        harness.expiryGrace = .milliseconds(500)
        return try await harness.run(type, payload: Self.payload)
    }

    @Test func theDefaultAppIsConfiguredFromTheBundlesServiceInfo() async throws {
        let serviceInfo = ["GOOGLE_APP_ID": "1:1234567890:ios:abc123", "GCM_SENDER_ID": "1234567890", "PROJECT_ID": "shop-prod", "BUNDLE_ID": "com.example.shop.NotificationService"]
        let delivered = try await run(ConfiguringFirebaseService.self, bundle: ["GoogleService-Info.plist": serviceInfo])
        #expect(delivered.imageShown, "\(delivered.diagnostics)")
        #expect(delivered.content.subtitle == "shop-prod")
        let configured = try #require(delivered.diagnostics.first { $0.code == .firebaseConfigure })
        #expect(configured.severity == .info)
        #expect(configured.message.contains("project shop-prod") && configured.message.contains("sends nothing"))
    }

    /// Xcode copies the file into the bundle when it belongs to the extension target, which nse cannot see: a
    /// warning, and the run goes on as if it were there.
    @Test func aBundleWithoutTheServiceInfoIsAWarningNotACrash() async throws {
        let delivered = try await run(ConfiguringFirebaseService.self, bundle: [:])
        #expect(delivered.imageShown, "\(delivered.diagnostics)")
        let missing = try #require(delivered.diagnostics.first { $0.code == .firebaseConfigure && $0.severity == .warning })
        #expect(missing.message.contains("found no GoogleService-Info.plist"))
    }

    /// FIRApp.m raises "App named __FIRAPP_DEFAULT has already been configured." for other options, even in an
    /// extension: the extension crashes and the phone shows the original content.
    @Test func configuringTheDefaultAppTwiceWithOtherOptionsCrashesTheExtension() async throws {
        let delivered = try await run(ReconfiguringFirebaseService.self, bundle: [:])
        #expect(delivered.outcome == .original, "\(delivered.diagnostics)")
        #expect(delivered.content.title == "Sale")
        let crash = try #require(delivered.diagnostics.first { $0.code == .firebaseConfigure && $0.severity == .error })
        #expect(crash.message.contains("App named __FIRAPP_DEFAULT has already been configured."))
    }
}
