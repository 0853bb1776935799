import Foundation
import NSEHarness
import NSEPipeline
import NSEPush
import Testing

/// How `nse extension` reads an Xcode extension folder, without building it.
struct ExtensionSourcesTests {
    private func folder(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("nse-sources-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    private let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>NSExtension</key><dict>
        <key>NSExtensionPrincipalClass</key><string>$(PRODUCT_MODULE_NAME).RichService</string>
        </dict></dict></plist>
        """

    /// A pod nse has no stand-in for stops the build at "no such module": the failure names each module once and
    /// the change that lets the file build in both places.
    @Test func aMissingPodIsNamedWithTheChange() {
        let output = """
            /tmp/x/Sources/AppExtension/0/NotificationService.swift:3:8: error: no such module 'SDWebImageWebPCoder'
            /tmp/x/Sources/AppExtension/0/ImageLoader.swift:2:8: error: no such module 'KeychainAccess'
            /tmp/x/Sources/AppExtension/0/Other.swift:2:8: error: no such module 'SDWebImageWebPCoder'
            """
        let message = ExtensionBuildError.buildFailed(command: "swift build", output: output).description
        #expect(message.components(separatedBy: "`import SDWebImageWebPCoder`:").count == 2)
        #expect(message.contains("SDWebImage's WebP decoder"))
        #expect(message.contains("`#if canImport(SDWebImageWebPCoder)` before `import SDWebImageWebPCoder`"))
        #expect(message.contains("`import KeychainAccess`: KeychainAccess (a Keychain wrapper)"))
        #expect(!ExtensionBuildError.buildFailed(command: "swift build", output: "error: cannot find 'x' in scope").description.contains("canImport"))
    }

    @Test func theInfoPlistNamesThePrincipalClass() throws {
        let root = try folder([
            "Info.plist": plist,
            "RichService.swift": "import UserNotifications\n@objc(RichService)\nfinal class RichService: UNNotificationServiceExtension {}\n",
            "Legacy/OldService.swift": "import UserNotifications\nclass OldService: UNNotificationServiceExtension {}\n",
            "Pods/SDWebImage/Image.swift": "class Ignored: UNNotificationServiceExtension {}\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let sources = try ExtensionSources.discover([root.path])
        #expect(sources.principalClass == "RichService")
        #expect(sources.files.map(\.relativePath) == ["0/Legacy/OldService.swift", "0/RichService.swift"])
        #expect(sources.infoPlist?.lastPathComponent == "Info.plist")
    }

    @Test func withoutAPlistTheOnlySubclassIsTaken() throws {
        let root = try folder(["NotificationService.swift": "import UserNotifications\n\nclass NotificationService: UNNotificationServiceExtension {\n}\n"])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try ExtensionSources.discover([root.path]).principalClass == "NotificationService")
    }

    @Test func aSubclassOfAnSDKsClassQualifiesAndItsSDKIsNamed() throws {
        // A stand-in module of nse's own, as SDK branches add them: its class subclasses UNNotificationServiceExtension.
        let nse = try folder([
            "Package.swift": "// NSEHarness\n",
            "Sources/BrazeNotificationService/NotificationService.swift": "import UserNotifications\nopen class NotificationService: UNNotificationServiceExtension {}\n",
            "Sources/UserNotifications/UNNotificationRequest.swift": "open class UNNotificationServiceExtension {}\n",
        ])
        defer { try? FileManager.default.removeItem(at: nse) }
        let root = try folder([
            "NotificationService.swift": "import BrazeNotificationService\nimport OneSignalExtension\n\nclass NotificationService: BrazeNotificationService.NotificationService {}\n",
            "Rich.swift": "class Rich: NotificationService {}\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }

        let standIns = ExtensionSources.standInServiceClasses(in: nse)
        #expect(standIns.contains("BrazeNotificationService.NotificationService"))
        #expect(throws: ExtensionBuildError.self) { try ExtensionSources.discover([root.path]) }
        let sources = try ExtensionSources.discover([root.path], className: "NotificationService", standInClasses: standIns)
        #expect(sources.sdks == [.onesignal, .braze])
        // Both the subclass of the SDK's class and a subclass of that qualify.
        #expect(ExtensionSources.serviceClasses(declaredIn: [
            "class NotificationService: BrazeNotificationService.NotificationService {}", "class Rich: NotificationService {}",
        ], standInClasses: standIns) == ["NotificationService", "Rich"])
    }

    @Test func thisCheckoutsStandInsIncludeEverySDKModuleInTheProduct() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        // Every SDK module in the NSEHarness product is importable from `nse extension`'s generated package.
        for sdk in PushSDK.allCases where manifest.contains("\"\(sdk.moduleName)\"") {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("Sources/\(sdk.moduleName)").path), "\(sdk.moduleName)")
        }
    }

    @Test func aNamedClassMustBeDeclared() throws {
        let root = try folder(["A.swift": "class A: UNNotificationServiceExtension {}\n"])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(throws: ExtensionBuildError.self) { try ExtensionSources.discover([root.path], className: "Missing") }
    }

    @Test func twoFilesWithOneNameAreRefused() throws {
        let root = try folder(["a/Util.swift": "enum A {}\n", "b/Util.swift": "enum B {}\n", "S.swift": "class S: UNNotificationServiceExtension {}\n"])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(throws: ExtensionBuildError.self) { try ExtensionSources.discover([root.path]) }
    }

    /// Stand-ins for the program `nse extension` builds, kept in the repository: a script written at test time
    /// could fail to start with ETXTBSY while another test's fork still holds it open for writing.
    static let programs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Programs")

    /// `root/push.json` run by one of `programs`, in `root`, as `nse extension` runs its built program.
    private func runProgram(_ program: String, on root: URL) async -> ProcessResult {
        let request = ExtensionRunRequest(
            payloadFile: root.appendingPathComponent("push.json").path, resultFile: root.appendingPathComponent("result.json").path,
            attachmentDirectory: root.appendingPathComponent("attachments").path, mediaOrigin: nil, containerSeed: nil, infoPlist: nil,
            device: .init(DeviceProfile()))
        let run = ExtensionProcess(program: Self.programs.appendingPathComponent(program), request: request, scratch: root, index: 0)
        return await run.run(fallback: Emulator(profile: DeviceProfile(), extensionRunner: ExtensionCrash(reason: "")))
    }

    @Test(arguments: [
        ("crashes.sh", "crashed (signal 11)"), ("fails.sh", "exited with status 3"), ("no-result.sh", "ended without writing its result"),
    ])
    func aProgramThatEndsWithoutAResultIsACrash(program: String, expected: String) async throws {
        let root = try folder(["push.json": #"{"aps": {"alert": {"title": "Hi"}, "mutable-content": 1}}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        let result = await runProgram(program, on: root)
        #expect(result.outcome == .original)
        #expect(result.content?.title == "Hi")
        let message = try #require(result.diagnostics.first { $0.code == .extensionCrashed }?.message)
        #expect(message.contains(expected), "\(message)")
    }

    /// The extension's `NSTemporaryDirectory()` is its own, as on a phone, and what it leaves there goes with it.
    @Test func theExtensionHasATemporaryFolderOfItsOwnRemovedAfterItsRun() async throws {
        let root = try folder(["push.json": #"{"aps": {"alert": {"title": "Hi"}, "mutable-content": 1}}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        _ = await runProgram("temporary-folder.sh", on: root)
        let temporary = try String(contentsOf: root.appendingPathComponent("tmpdir.txt"), encoding: .utf8)
        #expect(temporary.hasPrefix(root.path + "/"), "TMPDIR was \(temporary)")
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }

    @Test func aCrashedExtensionShowsTheOriginalContent() async throws {
        let root = try folder(["push.json": #"{"aps": {"alert": {"title": "Hi"}, "mutable-content": 1}}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        let emulator = Emulator(profile: DeviceProfile(), extensionRunner: ExtensionCrash(reason: "crashed (signal 4)"))
        let result = await emulator.process(file: root.appendingPathComponent("push.json"))
        #expect(result.outcome == .original)
        #expect(result.content?.title == "Hi")
        #expect(result.diagnostics.map(\.code) == [.extensionCrashed])
        #expect(result.exitStatus == 1)
    }
}
