import Foundation
import NSEConcurrency
import NSEMedia
import NSEPush

/// Why an app's extension folder cannot be built and run.
public enum ExtensionBuildError: Error, Sendable, CustomStringConvertible {
    case notFound(String)
    case noSwiftFiles([String])
    case duplicateFileName(String)
    case noServiceClass
    case severalServiceClasses([String])
    case classNotFound(String)
    case unreadable(String, String)
    case packageRootMissing(String)
    case buildFailed(command: String, output: String)

    public var description: String {
        switch self {
        case .notFound(let path): "\(path) does not exist."
        case .noSwiftFiles(let paths): "No .swift files in \(paths.joined(separator: ", "))."
        case .duplicateFileName(let name): "Two source files are named \(name): Swift needs every file name in a module to be unique (Xcode does too)."
        case .noServiceClass: "No class inherits from UNNotificationServiceExtension (or from a push SDK's extension class nse has a stand-in for) in these files, and no Info.plist names one (NSExtension > NSExtensionPrincipalClass). Pass --class NAME."
        case .severalServiceClasses(let names): "Several classes inherit from UNNotificationServiceExtension (\(names.joined(separator: ", "))): pass --class NAME, or give the Info.plist that names the principal class."
        case .classNotFound(let name): "The principal class \(name) is not declared in these files (as `class \(name)`)."
        case .unreadable(let path, let reason): "\(path) cannot be read: \(reason)"
        case .packageRootMissing(let path): "nse's own package sources are not at \(path) (no Package.swift with NSEHarness): set NSE_PACKAGE_ROOT to the folder of nse's Package.swift."
        case .buildFailed(let command, let output): "The extension did not compile (\(command)):\n\(output)\(MissingModules.advice(for: output))"
        }
    }
}

/// An app's extension as Xcode would build it: the target's Swift files, its Info.plist, its principal class.
public struct ExtensionSources: Sendable {
    /// Each file with the path it gets in the generated package (unique per file).
    public var files: [(source: URL, relativePath: String)]
    public var infoPlist: URL?
    /// The `UNNotificationServiceExtension` subclass iOS instantiates.
    public var principalClass: String
    /// The push SDKs whose helper module the files import (`import OneSignalExtension`), in `PushSDK` order.
    public var sdks: [PushSDK] = []
    /// A source file larger than this is refused unread: an extension's files are a few kilobytes each.
    static let maxSourceBytes = 16 << 20

    /// Reads folders (recursively: `.swift` files and the first `Info.plist`) and single files (`.swift`,
    /// `.plist`). The principal class is `className`, else the Info.plist's `NSExtensionPrincipalClass`,
    /// else the one class in the files that inherits from `UNNotificationServiceExtension`.
    ///
    /// `standInClasses` are the service-extension classes of nse's stand-in modules (`standInServiceClasses(in:)`):
    /// a file whose class subclasses one of them (`class NotificationService: BrazeNotificationService.NotificationService {}`)
    /// has no `UNNotificationServiceExtension` of its own and still qualifies.
    public static func discover(_ paths: [String], className: String? = nil, standInClasses: Set<String> = []) throws(ExtensionBuildError) -> ExtensionSources {
        let manager = FileManager.default
        var files: [(URL, String)] = []
        var plist: URL?
        for (index, path) in paths.enumerated() {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .notFound(path) }
            let root = URL(fileURLWithPath: path).standardizedFileURL
            guard isDirectory.boolValue else {
                if root.pathExtension == "swift" { files.append((root, "\(index)/\(root.lastPathComponent)")) }
                if root.pathExtension == "plist", plist == nil { plist = root }
                continue
            }
            // Build products, dependency checkouts and hidden folders are not the target's sources.
            let skipped: Set<String> = ["Pods", "Carthage", "DerivedData", "build", ".build", "node_modules"]
            guard let walker = manager.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles]) else {
                throw .unreadable(path, "the folder cannot be listed")
            }
            var found: [(URL, String)] = []
            for case let url as URL in walker {
                if skipped.contains(url.lastPathComponent) {
                    walker.skipDescendants()
                    continue
                }
                let relative = url.standardizedFileURL.path.dropFirst(root.path.count).drop { $0 == "/" }
                if url.pathExtension == "swift" { found.append((url.standardizedFileURL, "\(index)/\(relative)")) }
                if url.lastPathComponent == "Info.plist", plist == nil { plist = url }
            }
            files += found.sorted { $0.1 < $1.1 }
        }
        guard !files.isEmpty else { throw .noSwiftFiles(paths) }
        var names: Set<String> = []
        for (source, _) in files where !names.insert(source.lastPathComponent).inserted {
            throw .duplicateFileName(source.lastPathComponent)
        }

        let texts = try files.map { file throws(ExtensionBuildError) -> String in
            let data: Data
            do throws(RegularFileError) {
                data = try RegularFile.read(file.0.path, limit: Self.maxSourceBytes)
            } catch {
                throw .unreadable(file.0.path, error.reason(path: file.0.path))
            }
            guard let text = String(validating: data, as: UTF8.self) else { throw .unreadable(file.0.path, "it is not UTF-8 text") }
            return text
        }
        let declared = serviceClasses(declaredIn: texts, standInClasses: standInClasses)
        let chosen: String
        if let className {
            chosen = className
        } else if let plist, let named = principalClass(in: plist) {
            chosen = named
        } else if declared.count == 1, let only = declared.first {
            chosen = only
        } else {
            throw declared.isEmpty ? .noServiceClass : .severalServiceClasses(declared)
        }
        guard texts.contains(where: { declares(chosen, in: $0) }) else { throw .classNotFound(chosen) }
        var sources = ExtensionSources(files: files, infoPlist: plist, principalClass: chosen)
        let imported = Set(texts.flatMap(importedModules(in:)))
        // Any of an SDK's modules counts: a Customer.io app on FCM imports CioMessagingPushFCM, not ...APN.
        sources.sdks = PushSDK.allCases.filter { $0.descriptor.modules.contains(where: imported.contains) }
        return sources
    }

    /// The service-extension classes nse's stand-in modules declare, bare and qualified by their module
    /// (`NotificationService`, `BrazeNotificationService.NotificationService`): read from nse's own `Sources/`, so
    /// every module of the NSEHarness product counts, whichever SDK stand-ins this checkout has.
    public static func standInServiceClasses(in nseRoot: URL) -> Set<String> {
        let sources = nseRoot.appendingPathComponent("Sources")
        let modules = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        var found: Set<String> = []
        for module in modules.sorted() where module != "NSEHarness" && module != "nse" {
            let folder = sources.appendingPathComponent(module)
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            let texts = walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
                .compactMap { try? String(contentsOf: $0, encoding: .utf8) }
            for name in serviceClasses(declaredIn: texts, standInClasses: []) {
                found.insert(name)
                found.insert("\(module).\(name)")
            }
        }
        return found
    }

    /// Classes that inherit from `UNNotificationServiceExtension`, directly, through a stand-in's class, or
    /// through another class of the same files, in the order declared.
    public static func serviceClasses(declaredIn texts: [String], standInClasses: Set<String>) -> [String] {
        let declarations = texts.flatMap(classDeclarations(in:))
        var qualifying: Set<String> = standInClasses.union(["UNNotificationServiceExtension", "UserNotifications.UNNotificationServiceExtension"])
        var found: [String] = []
        // Each pass adds the classes whose superclass qualified in the pass before; bounded by the declarations.
        for _ in 0...declarations.count {
            let next = declarations.filter { qualifying.contains($0.superclass) && !found.contains($0.name) }
            guard !next.isEmpty else { break }
            for declaration in next {
                found.append(declaration.name)
                qualifying.insert(declaration.name)
            }
        }
        return declarations.map(\.name).filter { found.contains($0) }
    }

    /// `NSExtension > NSExtensionPrincipalClass`, without Xcode's `$(PRODUCT_MODULE_NAME).` prefix.
    static func principalClass(in plist: URL) -> String? {
        guard let data = try? RegularFile.read(plist.path, limit: TransportSecurity.maxInfoPlistBytes),
              let root = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let info = root["NSExtension"] as? [String: Any],
              let value = info["NSExtensionPrincipalClass"] as? String,
              let name = value.split(separator: ".").last.map(String.init), isIdentifier(name) else { return nil }
        return name
    }

    /// Classes declared as `class Name: Superclass` (with any modifiers or attributes), with their superclass
    /// as written (`UNNotificationServiceExtension`, `BrazeNotificationService.NotificationService`).
    static func classDeclarations(in text: String) -> [(name: String, superclass: String)] {
        let pattern = #"(?m)^[ \t]*(?:(?:@\w+(?:\([^)]*\))?|public|open|internal|final|private|fileprivate)\s+)*class\s+(\w+)\s*:\s*([\w.]+)"#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            guard let name = Range(match.range(at: 1), in: text), let superclass = Range(match.range(at: 2), in: text) else { return nil }
            return (String(text[name]), String(text[superclass]))
        }
    }

    /// The modules a file imports (`import OneSignalExtension`, `@preconcurrency import X`).
    static func importedModules(in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: #"(?m)^[ \t]*(?:@\w+[ \t]+)*import[ \t]+(?:class[ \t]+|struct[ \t]+|enum[ \t]+)?(\w+)"#) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    private static func declares(_ name: String, in text: String) -> Bool {
        guard isIdentifier(name), let expression = try? NSRegularExpression(pattern: #"\bclass\s+"# + name + #"\b"#) else { return false }
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !CharacterSet.decimalDigits.contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "_" }
    }
}

/// The Swift package `nse extension` generates around an app's extension sources, cached between runs: it
/// depends on nse's own package by path (for the stand-in modules and the harness) and builds one program
/// that runs the extension on a payload (`ExtensionRunnerMain`).
public struct ExtensionPackage: Sendable {
    /// The generated package's folder.
    public let directory: URL
    /// nse's own package (Package.swift with NSEHarness).
    public let nseRoot: URL
    /// The content key of sources + nse's own sources: when it matches the last build's, nothing is rebuilt.
    public let key: String
    /// The build folder every extension package of this version of nse's sources shares (`swift build
    /// --scratch-path`): nse's modules are compiled there once, and a new extension folder compiles only its own
    /// files. Keyed by the sources' content, not only the checkout: an incremental build of nse's modules after a
    /// change to one of them could link code compiled against the old shape of a type.
    public let sharedBuild: URL

    static let productName = "AppExtension"

    /// The built program, copied out of the shared build folder (the next extension's build replaces it there).
    public var executable: URL {
        directory.appendingPathComponent(Self.productName)
    }

    /// Where nse's package sources are: `NSE_PACKAGE_ROOT`, else the checkout this binary was built from.
    public static func defaultNSERoot(environment: [String: String] = ProcessInfo.processInfo.environment, builtFrom: String = #filePath) -> URL {
        if let root = environment["NSE_PACKAGE_ROOT"], !root.isEmpty { return URL(fileURLWithPath: root) }
        // This file is Sources/NSEHarness/ExtensionPackage.swift in that checkout.
        return URL(fileURLWithPath: builtFrom).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `NSE_CACHE_DIR`, else `$XDG_CACHE_HOME/nse`, else `~/.cache/nse`.
    public static func defaultCacheRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let folder = environment["NSE_CACHE_DIR"], !folder.isEmpty { return URL(fileURLWithPath: folder) }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg).appendingPathComponent("nse") }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/nse")
    }

    /// The package for `sources`: one folder per set of source paths (so edits rebuild incrementally).
    public init(sources: ExtensionSources, nseRoot: URL, cacheRoot: URL) throws(ExtensionBuildError) {
        let manifest = nseRoot.appendingPathComponent("Package.swift")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8), text.contains("NSEHarness") else {
            throw .packageRootMissing(nseRoot.path)
        }
        self.nseRoot = nseRoot.standardizedFileURL
        let place = SHA256()
        place.update(Array((sources.files.map(\.source.path) + [self.nseRoot.path]).joined(separator: "\n").utf8))
        directory = cacheRoot.appendingPathComponent("extension-" + place.finalizeHex().prefix(16))
        sharedBuild = cacheRoot.appendingPathComponent(Self.sharedBuildName(nseRoot: self.nseRoot))

        let content = SHA256()
        content.update(Array("nse-extension-package 2\n\(self.nseRoot.path)\n\(sources.principalClass)\n".utf8))
        for (source, relative) in sources.files {
            content.update(Array("\(relative)\n".utf8))
            content.update(Self.readBytes(source))
        }
        // nse's own sources: a changed stand-in rebuilds the extension too.
        for file in Self.swiftAndCFiles(under: self.nseRoot.appendingPathComponent("Sources")) + [manifest] {
            content.update(Array("\(file.path)\n".utf8))
            content.update(Self.readBytes(file))
        }
        key = content.finalizeHex()
    }

    /// True when an extension of this nse checkout was built before: nse's modules are compiled in `sharedBuild`.
    public var sharedBuildIsThere: Bool {
        FileManager.default.fileExists(atPath: sharedBuild.appendingPathComponent("debug").path)
    }

    /// True when the last build was of exactly these sources and its program is still there.
    public var isBuilt: Bool {
        let stamp = try? String(contentsOf: directory.appendingPathComponent(".nse-built"), encoding: .utf8)
        return stamp == key && FileManager.default.isExecutableFile(atPath: executable.path)
    }

    /// Holds the package's folder for this process while it is written, built or run, so two `nse extension`
    /// runs on the same sources do not build over each other. Released when the returned handle is closed.
    public func lock() throws -> FileHandle {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try Self.lock(directory.appendingPathComponent(".nse-lock").path)
    }

    /// Writes the package (sources copied, `import os.log` and its kin rewritten to `import os`) and builds it.
    /// `output` receives the compiler's lines as they come.
    public func build(sources: ExtensionSources, swift: String = "swift", output: @escaping @Sendable (String) -> Void) throws {
        let manager = FileManager.default
        let target = directory.appendingPathComponent("Sources/\(Self.productName)")
        try? manager.removeItem(at: target)
        try manager.createDirectory(at: target, withIntermediateDirectories: true)
        for (source, relative) in sources.files {
            let copy = target.appendingPathComponent(relative)
            try manager.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            let text = try String(contentsOf: source, encoding: .utf8)
            try Data(Self.portImports(text).utf8).write(to: copy)
        }
        try Data(mainFile(sources.principalClass).utf8).write(to: target.appendingPathComponent("NSEExtensionMain.swift"))
        try Data(manifest().utf8).write(to: directory.appendingPathComponent("Package.swift"))
        try? manager.removeItem(at: directory.appendingPathComponent(".nse-built"))

        let arguments = ["build", "--package-path", directory.path, "--scratch-path", sharedBuild.path, "--product", Self.productName]
        let errors = ErrorLines()
        // One build at a time in the shared folder: every extension's program has the same name there.
        let shared = try Self.lock(sharedBuild.path + ".lock")
        defer { try? shared.close() }
        // A new version of nse's sources: the same checkout's builds of earlier versions are no longer used.
        if !manager.fileExists(atPath: sharedBuild.path) {
            let checkoutPrefix = String(sharedBuild.lastPathComponent.prefix("build-".count + 16)) + "-"
            let cache = sharedBuild.deletingLastPathComponent()
            for name in (try? manager.contentsOfDirectory(atPath: cache.path)) ?? []
            where name.hasPrefix(checkoutPrefix) && name != sharedBuild.lastPathComponent && !name.hasSuffix(".lock") {
                try? manager.removeItem(at: cache.appendingPathComponent(name))
                try? manager.removeItem(at: cache.appendingPathComponent(name + ".lock"))
            }
        }
        // SwiftPM reuses its build plan when the manifest reads the same, even for another package's folder: the
        // plan of the last extension built here would build that extension again. Planning anew takes a second.
        for triple in (try? manager.contentsOfDirectory(atPath: sharedBuild.path)) ?? [] {
            try? manager.removeItem(at: sharedBuild.appendingPathComponent("\(triple)/debug/description.json"))
        }
        let status = try Self.run(swift, arguments) { line in
            errors.note(line)
            output(line)
        }
        guard status == 0 else {
            throw ExtensionBuildError.buildFailed(command: ([swift] + arguments).joined(separator: " "), output: errors.text)
        }
        let built = sharedBuild.appendingPathComponent("debug/\(Self.productName)")
        let staged = directory.appendingPathComponent(".\(Self.productName).new")
        try? manager.removeItem(at: staged)
        try manager.copyItem(at: built, to: staged)
        // rename(2): a run of this folder that starts meanwhile finds the old program or the new one, whole.
        guard rename(staged.path, executable.path) == 0 else {
            throw ExtensionBuildError.unreadable(executable.path, String(cString: strerror(errno)))
        }
        try Data(key.utf8).write(to: directory.appendingPathComponent(".nse-built"))
    }

    private static func lock(_ path: String) throws -> FileHandle {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw ExtensionBuildError.unreadable(path, "cannot open the build lock") }
        while flock(handle.fileDescriptor, LOCK_EX) != 0, errno == EINTR {}
        return handle
    }

    /// `import os.log`, `import os.signpost`, `import os.activity`: submodules of Apple's C module `os`, which
    /// a Swift stand-in cannot have; `import os` brings the same Swift API.
    static func portImports(_ text: String) -> String {
        text.replacingOccurrences(
            of: #"(?m)^([ \t]*(?:@\w+[ \t]+)*import[ \t]+)os\.(?:log|signpost|activity)\b"#, with: "$1os",
            options: .regularExpression)
    }

    private func mainFile(_ principalClass: String) -> String {
        """
        // Generated by `nse extension`: runs the app's principal class on the payload nse hands over.
        import Foundation
        import NSEHarness

        @main
        enum NSEExtensionMain {
            static func main() async {
                exit(await ExtensionRunnerMain.run(\(principalClass).self))
            }
        }

        """
    }

    private func manifest() -> String {
        // The dependency's identity is its folder's name, lowercased, as SwiftPM derives it for path packages.
        let identity = nseRoot.lastPathComponent.lowercased()
        let rootLiteral = nseRoot.path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return """
            // swift-tools-version: 6.0
            // Generated by `nse extension`; rewritten on every build.
            import PackageDescription

            let package = Package(
                name: "NSEExtensionBuild",
                dependencies: [.package(path: "\(rootLiteral)")],
                targets: [
                    .executableTarget(
                        name: "\(Self.productName)",
                        dependencies: [.product(name: "NSEHarness", package: "\(identity)")],
                        swiftSettings: [
                            // App code compiles in Swift 5 mode in Xcode; files that import only Foundation still
                            // see URLSession's and the container's stand-ins, as they see Apple's on a device.
                            .swiftLanguageMode(.v5),
                            .unsafeFlags(["-Xfrontend", "-import-module", "-Xfrontend", "UserNotifications"]),
                        ]
                    ),
                ]
            )

            """
    }

    /// The compiler's error lines, each once, for the failure message (the full output went to `output`).
    private final class ErrorLines: @unchecked Sendable {
        // Written and read by the building thread only.
        private var lines: [String] = []

        func note(_ line: String) {
            guard line.contains("error:"), !lines.contains(line), lines.count < 50 else { return }
            lines.append(line)
        }

        var text: String { lines.joined(separator: "\n") }
    }

    /// `build-<checkout>-<sources>`: one per checkout and version of nse's sources (Sources/ and Package.swift).
    public static func sharedBuildName(nseRoot: URL) -> String {
        let checkout = SHA256()
        checkout.update(Array(nseRoot.standardizedFileURL.path.utf8))
        return "build-\(checkout.finalizeHex().prefix(16))-\(sourcesFingerprint(nseRoot: nseRoot).prefix(16))"
    }

    /// A digest of nse's own sources and manifest: what a build of its modules depends on.
    public static func sourcesFingerprint(nseRoot: URL) -> String {
        let digest = SHA256()
        let files = swiftAndCFiles(under: nseRoot.appendingPathComponent("Sources")) + [nseRoot.appendingPathComponent("Package.swift")]
        for file in files {
            digest.update(Array("\(file.path)\n".utf8))
            digest.update(readBytes(file))
        }
        return digest.finalizeHex()
    }

    private static func readBytes(_ url: URL) -> [UInt8] {
        (FileManager.default.contents(atPath: url.path)).map { [UInt8]($0) } ?? []
    }

    private static func swiftAndCFiles(under folder: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }
            .filter { ["swift", "c", "h", "modulemap"].contains($0.pathExtension) }
            .sorted { $0.path < $1.path }
    }

    /// Runs a command, handing each line of its merged output to `output`; returns its exit status.
    private static func run(_ command: String, _ arguments: [String], output: @escaping @Sendable (String) -> Void) throws -> Int32 {
        let child = try ChildProcess(command, arguments, standardOutput: .pipe, standardError: .standardOutput)
        guard let pipe = child.standardOutput else { return child.wait().status }
        var pending = Data()
        while true {
            let chunk = pipe.readRetryingInterruptions()
            if chunk.isEmpty { break }
            pending += chunk
            while let newline = pending.firstIndex(of: 0x0A) {
                output(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending = Data(pending[pending.index(after: newline)...])
            }
        }
        if !pending.isEmpty { output(String(decoding: pending, as: UTF8.self)) }
        return child.wait().status
    }
}
