import Foundation
import ArgumentParser
import NSEBatch
import NSECommandLine
import NSEHarness
import NSEMedia
import NSEMediaServer
import NSEPipeline
import NSEPush
import NSEReports

struct ExtensionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extension",
        abstract: "Build an app's own Notification Service Extension from its Xcode folder and run payloads through it.",
        discussion: """
            PATH is the extension target's folder (its .swift files and Info.plist, searched recursively) or single \
            files. They are compiled with nse's stand-ins for UserNotifications, FirebaseMessaging, os, UIKit, \
            UniformTypeIdentifiers, Intents and the push SDKs' extension modules (docs/sdks.md) in a cached package (NSE_CACHE_DIR, else ~/.cache/nse), in Swift 5 \
            mode as Xcode compiles app code; the first extension built takes minutes (nse's modules, compiled once in a \
            build folder every extension shares), a new extension seconds, a rerun on unchanged sources none. \
            Each payload runs in a process of its own. Exit status as for `nse process`: 0, 1 when verification \
            finds an error (a crash included), 2 for usage errors, unreadable files, or sources that do not compile.
            """
    )

    @Argument(help: "The extension's source folder, or its .swift files (and Info.plist).", completion: .file())
    var paths: [String]

    @Option(name: .customLong("payload"), parsing: .upToNextOption, help: ArgumentHelp("Pushes to run: files or folders (as nse batch takes them).", valueName: "file"))
    var payloads: [String] = []

    @Option(name: .customLong("class"), help: ArgumentHelp("The UNNotificationServiceExtension subclass to run, directly or through an SDK's class (default: Info.plist's NSExtensionPrincipalClass, else the only one).", valueName: "name"))
    var className: String?

    @Option(help: ArgumentHelp("Copy this folder's contents into the app-group container before each run.", valueName: "dir"))
    var container: String?

    @Option(help: ArgumentHelp("Save each result as DIR/<name>/content.json with its attachment.", valueName: "dir"))
    var out: String?

    @Option(help: "Output format: text (default on a terminal) or json (default otherwise).")
    var format: ProcessCommand.Format?

    @OptionGroup
    var terminal: TerminalOptions

    @Option(help: ArgumentHelp("Also write JUnit XML, one test case per payload.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Write, instead of building and running, a SwiftPM package with the same files as a test target (the README's first way); `swift test` in it runs each payload. Nothing else is written.", valueName: "dir"))
    var emitPackage: String?

    @Flag(help: "Rebuild even if the sources have not changed.")
    var rebuild = false

    @Flag(help: "Show the compiler's output while building.")
    var verbose = false

    @OptionGroup
    var media: MediaOptions

    @OptionGroup
    var sdkOption: SDKOption

    @OptionGroup(title: "Device assumptions")
    var device: DeviceOptions

    func validate() throws {
        guard !payloads.isEmpty else { throw ValidationError("Give at least one --payload FILE.") }
        // The extension's own code decides which helper runs; --sdk only says which SDK's payloads to expect.
        guard sdkOption.sdk != .all else {
            throw ValidationError("--sdk all compares nse's built-in helpers (`nse process --sdk all`); an extension runs its own code: give --sdk NAME to say which SDK's payloads it expects, or leave --sdk at auto (the SDK module it imports).")
        }
        if let container {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: container, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--container \(container) is not a folder.")
            }
        }
    }

    func run() async throws {
        let inputs: [BatchInput]
        let program: URL
        let infoPlist: URL?
        let importedSDKs: [PushSDK]
        do {
            inputs = try BatchInputDiscovery.discover(payloads)
            if let emitPackage { return try emit(to: URL(fileURLWithPath: emitPackage), payloads: inputs.map(\.file)) }
            (program, infoPlist, importedSDKs) = try buildIfNeeded()
        } catch let error as ExtensionBuildError {
            throw usageFailure(error.description)
        } catch let error as BatchInputError {
            throw usageFailure(error.description)
        }

        let folder = try media.startFolder()
        defer { folder?.stop() }
        let server = folder?.server
        let outDirectory = out.map { URL(fileURLWithPath: $0) }
        let workspace: ResultWorkspace?
        do {
            workspace = try outDirectory.map { try ResultWorkspace(outDirectory: $0) }
        } catch {
            throw ValidationError("--out: \(error)")
        }
        defer { workspace?.remove() }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("nse-extension-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folderNames = ResultFolderNames.names(for: inputs.map(\.file.path))

        let bundleFolder = bundleFolder
        let started = ContinuousClock.now
        var results: [ProcessResult] = []
        for (index, input) in inputs.enumerated() {
            let staging = workspace?.stagingFolder(for: index) ?? scratch.appendingPathComponent("attachments-\(index)")
            var request = ExtensionRunRequest(
                payloadFile: input.file.path, resultFile: scratch.appendingPathComponent("result-\(index).json").path,
                attachmentDirectory: staging.path, mediaOrigin: server?.baseURL,
                containerSeed: container.map { URL(fileURLWithPath: $0).standardizedFileURL.path },
                infoPlist: infoPlist?.path, device: .init(device.profile))
            request.bundleDirectory = bundleFolder
            var result = await ExtensionProcess(program: program, request: request, scratch: scratch, index: index).run(
                fallback: Pipeline(device: device.profile, extensionRunner: ExtensionCrash(reason: ""), hostMapping: MediaOptions.mapping(to: server)))
            // As the user named it, like `nse process` reports it.
            result.input = input.displayPath
            // Pushes run one after another: every path the folder lacked during this run was this push's.
            result.diagnostics += folder?.takeMissingFiles() ?? []
            if let push = try? PushReader.read(input.file) {
                let (choice, warning) = SDKDetection.extensionHelper(payload: push.userInfo, importedSDKs: importedSDKs, selection: sdkOption.sdk)
                if result.extensionInvoked { result.helper = choice }
                if let warning, result.extensionInvoked { result.diagnostics.append(warning) }
            }
            if workspace == nil, var content = result.content {
                // The scratch folder goes when the command ends: without --out no attachment file is kept.
                content.attachments = content.attachments.map { attachment in
                    var attachment = attachment
                    attachment.file = nil
                    return attachment
                }
                result.content = content
            }
            if let workspace, let outDirectory {
                let destination = outDirectory.appendingPathComponent(folderNames[index])
                // A failure is noted in the result and in `workspace.unsavedResults`, which ends the run with status 2.
                _ = try? workspace.publish(&result, staged: staging, to: destination)
            }
            results.append(result)
        }
        if let junit {
            let entries = zip(results, inputs).map { BatchEntry($0, outputPath: $1.outputPath) }
            let summary = BatchSummary(entries: entries, media: .none, jobs: 1, elapsedMilliseconds: started.duration(to: .now).milliseconds, interrupted: false)
            var renderer = JUnitRenderer()
            renderer.suiteName = "nse extension"
            let xml = renderer.render(BatchReport(inputs: inputs, entries: entries, summary: summary))
            do {
                try AtomicFile.write(Data(xml.utf8), to: URL(fileURLWithPath: junit))
            } catch {
                throw usageFailure("--junit \(junit) cannot be written: \(error.localizedDescription)")
            }
        }
        let unsaved = workspace?.unsavedResults ?? []
        do {
            try ReportOutput.emit(results, format: format, style: terminal.style, text: TextResultRenderer().render, status: \.exitStatus)
        } catch {
            guard !unsaved.isEmpty else { throw error }
        }
        // As for `nse process`: a result that could not be saved is exit status 2, whatever the verdicts.
        for problem in unsaved { FileHandle.standardError.write(Data("Error: \(problem)\n".utf8)) }
        if !unsaved.isEmpty { throw ExitCode(2) }
    }

    /// `--emit-package`: the test package of the same sources, then how to run it.
    private func emit(to folder: URL, payloads: [URL]) throws {
        let root = ExtensionPackage.defaultNSERoot()
        let sources = try ExtensionSources.discover(paths, className: className, standInClasses: ExtensionSources.standInServiceClasses(in: root))
        var package = ExtensionTestPackage(sources: sources, nseRoot: root, payloads: payloads.map(\.standardizedFileURL))
        package.media = media.media.map { URL(fileURLWithPath: $0).standardizedFileURL }
        package.containerSeed = container.map { URL(fileURLWithPath: $0).standardizedFileURL }
        package.bundleDirectory = bundleFolder.map(URL.init(fileURLWithPath:))
        do {
            try package.write(to: folder)
        } catch {
            throw ExtensionBuildError.unreadable(folder.path, "the package cannot be written: \(error.localizedDescription)")
        }
        print("Wrote the test package of \(sources.principalClass) (\(sources.files.count) file(s), \(payloads.count) payload(s)) to \(folder.path): run `swift test --package-path \(folder.path)`.")
    }

    /// The extension's own folder stands for the app's bundle: its images (an asset catalog's too) by name.
    private var bundleFolder: String? {
        paths.first { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        }.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? paths.first.map { URL(fileURLWithPath: $0).deletingLastPathComponent().standardizedFileURL.path }
    }

    /// Builds the package unless the last build was of the same sources; returns the program to run and the
    /// extension's Info.plist (its App Transport Security applies to every download).
    private func buildIfNeeded() throws -> (URL, URL?, [PushSDK]) {
        // A class may subclass an SDK's (`BrazeNotificationService.NotificationService`): the stand-ins' classes count.
        let standIns = ExtensionSources.standInServiceClasses(in: ExtensionPackage.defaultNSERoot())
        let sources = try ExtensionSources.discover(paths, className: className, standInClasses: standIns)
        if let plist = sources.infoPlist {
            do throws(TransportSecurityError) {
                _ = try TransportSecurity(infoPlist: plist)
            } catch .unreadable(let reason) {
                throw ExtensionBuildError.unreadable(plist.path, reason)
            }
        }
        let package = try ExtensionPackage(sources: sources, nseRoot: ExtensionPackage.defaultNSERoot(), cacheRoot: ExtensionPackage.defaultCacheRoot())
        let lock = try package.lock()
        defer { try? lock.close() }
        guard rebuild || !package.isBuilt else { return (package.executable, sources.infoPlist, sources.sdks) }
        let note = "nse extension: building \(sources.principalClass) from \(sources.files.count) file(s) in \(package.directory.path)"
        let cost = package.sharedBuildIsThere ? "nse's modules are built already, in \(package.sharedBuild.path)" : "the first extension of this nse compiles nse's modules too: minutes"
        FileHandle.standardError.write(Data("\(note) (\(cost))\n".utf8))
        let started = ContinuousClock.now
        let verbose = verbose
        do {
            try package.build(sources: sources) { line in
                if verbose { FileHandle.standardError.write(Data("  \(line)\n".utf8)) }
            }
        } catch let error as ExtensionBuildError {
            throw error
        } catch {
            throw ExtensionBuildError.unreadable(package.directory.path, error.localizedDescription)
        }
        let seconds = String(format: "%.1f", started.duration(to: .now).milliseconds / 1000)
        FileHandle.standardError.write(Data("nse extension: built in \(seconds) s\n".utf8))
        return (package.executable, sources.infoPlist, sources.sdks)
    }

    private func usageFailure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("nse extension: \(message)\n".utf8))
        return ExitCode(2)
    }
}
