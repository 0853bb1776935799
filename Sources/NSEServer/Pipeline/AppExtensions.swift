import Foundation
import NSEConcurrency
import NSEHarness
import NSEMedia
import NSEPipeline
import NSEPush
import NSEReports

/// Devices whose extension is the app's own (`"extension": {"kind": "folder", "path": ...}`): the folder is built
/// once, as `nse extension` builds it (NSEHarness's `ExtensionPackage`, cached in `NSE_CACHE_DIR`), and each push runs
/// the built program in a process of its own, as `nse extension --payload` runs one.
actor AppExtensions {
    struct Built: Sendable {
        var program: URL
        var infoPlist: URL?
        var bundleDirectory: String
    }

    /// Builds by folder: started once, awaited by every push to a device with that folder.
    private var builds: [String: Task<Result<Built, ExtensionBuildError>, Never>] = [:]
    let cacheRoot: URL

    init(cacheRoot: URL) {
        self.cacheRoot = cacheRoot
    }

    /// The built program for the folder, building it the first time (on a blocking worker: a first build takes
    /// minutes, a rebuild of unchanged sources none).
    func built(_ path: String) async -> Result<Built, ExtensionBuildError> {
        let folder = URL(fileURLWithPath: path).standardizedFileURL
        if let running = builds[folder.path] { return await running.value }
        let cacheRoot = cacheRoot
        let task = Task {
            await BlockingExecutor.shared.run("nse.serve.extension-build") { Self.build(folder, cacheRoot: cacheRoot) }
        }
        builds[folder.path] = task
        return await task.value
    }

    private static func build(_ folder: URL, cacheRoot: URL) -> Result<Built, ExtensionBuildError> {
        do throws(ExtensionBuildError) {
            // The package root is three folders above this one (Sources/NSEServer/Pipeline).
            let root = ExtensionPackage.defaultNSERoot(builtFrom: URL(fileURLWithPath: #filePath).deletingLastPathComponent().path)
            let sources = try ExtensionSources.discover([folder.path], standInClasses: ExtensionSources.standInServiceClasses(in: root))
            let package = try ExtensionPackage(sources: sources, nseRoot: root, cacheRoot: cacheRoot)
            do {
                let lock = try package.lock()
                defer { try? lock.close() }
                if !package.isBuilt { try package.build(sources: sources) { _ in } }
            } catch let error as ExtensionBuildError {
                throw error
            } catch {
                throw ExtensionBuildError.unreadable(package.directory.path, error.localizedDescription)
            }
            return .success(Built(program: package.executable, infoPlist: sources.infoPlist, bundleDirectory: folder.path))
        } catch {
            return .failure(error)
        }
    }

    /// Runs `push` through the app's extension built from `path`; a build that failed is reported as the extension
    /// failing to run (`ExtensionCrash`), so the phone shows what iOS shows when an extension cannot run.
    func deliver(
        _ push: ReceivedPush, path: String, defaults: PhonePipeline.Defaults, platform: DeviceEntry.DevicePlatform, attachments: URL?, input: String
    ) async -> ProcessResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("nse-serve-extension-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let payload = scratch.appendingPathComponent("push.json")
        var fallback = Pipeline(device: defaults.profile, extensionRunner: ExtensionCrash(reason: ""), hostMapping: defaults.hostMapping)
        fallback.platform = platform == .ios ? .ios : .android
        var result: ProcessResult
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try Self.file(for: push).write(to: payload)
        } catch {
            fallback.extensionRunner = ExtensionCrash(reason: "could not start: its push could not be written (\(error.localizedDescription))")
            return await fallback.run(push, input: input, attachmentDirectory: attachments)
        }
        switch await built(path) {
        case .failure(let error):
            fallback.extensionRunner = ExtensionCrash(reason: "could not be built from \(path) (\(error.description))")
            result = await fallback.run(push, input: input, attachmentDirectory: attachments)
        case .success(let built):
            var request = ExtensionRunRequest(
                payloadFile: payload.path, resultFile: scratch.appendingPathComponent("result.json").path,
                attachmentDirectory: (attachments ?? scratch.appendingPathComponent("attachments")).path,
                mediaOrigin: defaults.hostMapping?.origin.absoluteString, containerSeed: nil, infoPlist: built.infoPlist?.path,
                device: .init(defaults.profile))
            request.bundleDirectory = built.bundleDirectory
            result = await ExtensionProcess(program: built.program, request: request, scratch: scratch, index: 0).run(fallback: fallback)
        }
        result.input = input
        return result
    }

    /// The push as a file `nse process` reads: the FCM send request, or the APNs envelope of headers and payload.
    static func file(for push: ReceivedPush) -> Data {
        let object: JSONValue
        if let message = push.fcmMessage {
            var request = message.requestFields
            request["message"] = .object(message.fields)
            object = .object(request)
        } else {
            object = .object(["headers": .object(push.headers ?? [:]), "payload": .object(push.userInfo)])
        }
        return object.compactData()
    }
}
