import Foundation
import NSEMedia
import NSEPipeline
import NSEPush
import NSEReports
import UserNotifications

/// What `nse extension` asks the program it builds from an app's extension to do: run one payload file and
/// write the result. Passed as a JSON file, so the two sides share one typed description.
public struct ExtensionRunRequest: Codable, Sendable {
    /// The push to run (any input kind `nse process` takes).
    public var payloadFile: String
    /// Where the result goes, as `nse process --format json` prints it.
    public var resultFile: String
    /// Where the delivered attachments are kept.
    public var attachmentDirectory: String
    /// The loopback server that stands for every media host (`--media`), if any.
    public var mediaOrigin: String?
    /// A folder whose contents seed the app-group container (`--container`).
    public var containerSeed: String?
    /// The extension's Info.plist: App Transport Security for its downloads.
    public var infoPlist: String?
    /// The folder standing for the app's bundle (the extension's own folder): images by name.
    public var bundleDirectory: String?
    public var device: Device

    public init(payloadFile: String, resultFile: String, attachmentDirectory: String, mediaOrigin: String?, containerSeed: String?, infoPlist: String?, device: Device) {
        self.payloadFile = payloadFile
        self.resultFile = resultFile
        self.attachmentDirectory = attachmentDirectory
        self.mediaOrigin = mediaOrigin
        self.containerSeed = containerSeed
        self.infoPlist = infoPlist
        self.device = device
    }

    /// The `DeviceProfile` fields the command line sets.
    public struct Device: Codable, Sendable {
        public var timeBudgetMilliseconds: Int64
        public var allowsHTTP: Bool
        public var maxPixels: UInt64
        public var megabyte: Int
        public var megabyteIsKnown: Bool
        public var typeHintReadsMIMEType: Bool
        public var suggestedFilenameAddsMIMEExtension: Bool
        public var simulatorRunsExtension: Bool
        public var memoryLimit: Int

        public init(_ profile: DeviceProfile) {
            timeBudgetMilliseconds = Int64(profile.timeBudget.milliseconds.rounded())
            allowsHTTP = profile.allowsHTTP
            maxPixels = profile.maxPixels
            megabyte = profile.megabyte
            megabyteIsKnown = profile.megabyteIsKnown
            typeHintReadsMIMEType = profile.typeHintReadsMIMEType
            suggestedFilenameAddsMIMEExtension = profile.suggestedFilenameAddsMIMEExtension
            simulatorRunsExtension = profile.simulatorRunsExtension
            memoryLimit = profile.memoryLimit
        }

        public var profile: DeviceProfile {
            var profile = DeviceProfile()
            profile.timeBudget = .milliseconds(timeBudgetMilliseconds)
            profile.allowsHTTP = allowsHTTP
            profile.maxPixels = maxPixels
            profile.megabyte = megabyte
            profile.megabyteIsKnown = megabyteIsKnown
            profile.typeHintReadsMIMEType = typeHintReadsMIMEType
            profile.suggestedFilenameAddsMIMEExtension = suggestedFilenameAddsMIMEExtension
            profile.simulatorRunsExtension = simulatorRunsExtension
            profile.memoryLimit = memoryLimit
            return profile
        }
    }
}

/// The entry point of the program `nse extension` builds: `ExtensionRunnerMain.run(NotificationService.self)`.
/// One payload per process, as iOS starts the extension afresh for a push more often than not; the process's
/// memory is then the extension's alone.
public enum ExtensionRunnerMain {
    public static func run<Extension: UNNotificationServiceExtension>(_ type: Extension.Type) async -> Int32 {
        let arguments = CommandLine.arguments
        guard arguments.count == 2,
              let data = FileManager.default.contents(atPath: arguments[1]),
              let request = try? JSONDecoder().decode(ExtensionRunRequest.self, from: data) else {
            FileHandle.standardError.write(Data("usage: \(arguments.first ?? "runner") REQUEST.json (written by nse extension)\n".utf8))
            return 2
        }
        var profile = request.device.profile
        if let infoPlist = request.infoPlist, var policy = try? TransportSecurity(infoPlist: URL(fileURLWithPath: infoPlist)) {
            // `--allow-http` still opens every host, as it does for `nse process`.
            if request.device.allowsHTTP { policy.allowsArbitraryLoads = true }
            profile.transportSecurity = policy
        }
        var runner = HarnessRunner(memoryMeasurement: .whenAlone) { Extension() }
        runner.containerSeed = request.containerSeed.map { URL(fileURLWithPath: $0) }
        runner.bundleDirectory = request.bundleDirectory.map { URL(fileURLWithPath: $0) }
        let mapping = request.mediaOrigin.flatMap(URL.init(string:)).map(MediaHostMapping.init(origin:))
        let pipeline = Pipeline(device: profile, extensionRunner: runner, hostMapping: mapping)
        let result = await pipeline.run(
            file: URL(fileURLWithPath: request.payloadFile), attachmentDirectory: URL(fileURLWithPath: request.attachmentDirectory))
        do {
            try JSONResultRenderer().encode(result).write(to: URL(fileURLWithPath: request.resultFile))
        } catch {
            FileHandle.standardError.write(Data("cannot write \(request.resultFile): \(error.localizedDescription)\n".utf8))
            return 2
        }
        return 0
    }
}
