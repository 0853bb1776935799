// FirebaseCore's umbrella header (FirebaseCore.h) imports Foundation through each of its headers: Swift sees it
// re-exported. FirebaseMessaging does not re-export FirebaseCore, so an extension that calls
// `FirebaseApp.configure()` imports both, as here.
@_exported import Foundation
import NSEPipeline
import NSEPush
import Synchronization
import UserNotifications

/// `FIRApp` (`FirebaseApp` in Swift; firebase/firebase-ios-sdk, `FirebaseCore/Sources/Public/FirebaseCore/FIRApp.h`,
/// behaviour from `FirebaseCore/Sources/FIRApp.m`): the app an extension configures before calling Firebase's
/// helper. Configuring sends nothing; the apps are kept per run (on a device, per extension process).
///
/// What the SDK raises an exception for (a crash of the extension: iOS shows the original content) ends the run
/// the same way here (`firebase.configure`, error): options that name no `GOOGLE_APP_ID`, a second `configure`
/// of the same app with other options, an app name that is empty or has characters other than letters, digits,
/// `-` and `_`. A `configure()` that finds no `GoogleService-Info.plist` is a warning, not a crash: nse cannot see
/// the extension target's bundle resources, only the folder standing for the bundle.
open class FirebaseApp: NSObject, @unchecked Sendable {
    // `name` and `options` are set once in `init`; `isDataCollectionDefaultEnabled` is a plain flag as in the SDK.
    public let name: String
    public let options: FirebaseOptions
    public var isDataCollectionDefaultEnabled = true

    /// The default app's name (`kFIRDefaultAppName`).
    static let defaultName = "__FIRAPP_DEFAULT"
    private static let appsKey = "firebase.apps"

    private init(name: String, options: FirebaseOptions) {
        self.name = name
        self.options = options
        super.init()
    }

    /// `+configure`: the default app from the bundle's `GoogleService-Info.plist`.
    public class func configure() {
        let environment = ExtensionEnvironment.current
        guard let options = FirebaseOptions.defaultOptions() else {
            environment?.record(FirebaseCoreFindings.noServiceInfo(bundle: environment?.bundleDirectory))
            configure(name: defaultName, options: FirebaseOptions(assumedFor: environment?.bundleDirectory))
            return
        }
        configure(name: defaultName, options: options)
    }

    /// `+configureWithOptions:`: the default app from options made in code.
    public class func configure(options: FirebaseOptions) {
        configure(name: defaultName, options: options)
    }

    /// `+configureWithName:options:`: a named app besides the default one.
    public class func configure(name: String, options: FirebaseOptions) {
        let environment = ExtensionEnvironment.current
        if name.isEmpty {
            return crash(environment, "Name cannot be empty.")
        }
        if name != defaultName, !name.unicodeScalars.allSatisfy(Self.allowedNameCharacters.contains) {
            return crash(environment, "App name can only contain alphanumeric, hyphen (-), and underscore (_) characters")
        }
        if options.googleAppID.isEmpty {
            return crash(environment, "Configuration fails. It may be caused by an invalid GOOGLE_APP_ID in GoogleService-Info.plist or set in the customized options.")
        }
        guard let environment else { return }
        let existing: FirebaseApp? = environment.updateStandInValue(appsKey, default: [String: FirebaseApp]()) { apps in
            if let app = apps[name] { return app }
            apps[name] = FirebaseApp(name: name, options: options)
            return nil
        }
        guard let existing else {
            environment.record(FirebaseCoreFindings.configured(name: name, options: options))
            return
        }
        // An extension may be started again in the same process: the same options are ignored, others raise.
        guard existing.options.hasSameValues(as: options) else {
            return crash(environment, "App named \(name) has already been configured.")
        }
        environment.log(.debug, "I-COR000035: Ignoring second `configure` call in an extension.", source: "FirebaseCore", subsystem: "com.google.firebase", category: "core")
    }

    /// `+defaultApp`.
    public class func app() -> FirebaseApp? {
        app(name: defaultName)
    }

    /// `+appNamed:`.
    public class func app(name: String) -> FirebaseApp? {
        apps[name]
    }

    /// `allApps`: nil until an app is configured.
    public class var allApps: [String: FirebaseApp]? {
        let apps = apps
        return apps.isEmpty ? nil : apps
    }

    /// `-deleteApp:`: removes the app; the completion gets true.
    public func delete(_ completion: @escaping (Bool) -> Void) {
        let name = self.name
        ExtensionEnvironment.current?.updateStandInValue(Self.appsKey, default: [String: FirebaseApp]()) { $0[name] = nil }
        completion(true)
    }

    private static var apps: [String: FirebaseApp] {
        ExtensionEnvironment.current?.standInValue(appsKey, as: [String: FirebaseApp].self) ?? [:]
    }

    private static let allowedNameCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))

    /// The SDK raises an NSException: the extension's process dies there.
    private static func crash(_ environment: ExtensionEnvironment?, _ reason: String) {
        environment?.crash(FirebaseCoreFindings.exception(reason))
    }
}

/// `FIROptions` (`FirebaseOptions`): the project an app talks to, from `GoogleService-Info.plist` or set in code.
open class FirebaseOptions: NSObject, @unchecked Sendable {
    // Plain properties, as in the SDK (which locks them once an app is configured with them).
    public var apiKey: String?
    public var bundleID: String
    public var clientID: String?
    public var gcmSenderID: String
    public var projectID: String?
    public var googleAppID: String
    public var databaseURL: String?
    public var storageBucket: String?
    public var appGroupID: String?

    /// `GoogleService-Info.plist`'s name in the bundle (`kServiceInfoFileName`).
    static let serviceInfoFile = "GoogleService-Info.plist"

    /// `initWithGoogleAppID:GCMSenderID:`.
    public init(googleAppID: String, gcmSenderID: String) {
        self.googleAppID = googleAppID
        self.gcmSenderID = gcmSenderID
        bundleID = Bundle.main.bundleIdentifier ?? ""
        super.init()
    }

    /// `initWithContentsOfFile:`: nil when the file does not exist or is not a well-formed property list.
    public init?(contentsOfFile plistPath: String) {
        guard let data = FileManager.default.contents(atPath: plistPath),
              let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else {
            ExtensionEnvironment.current?.log(.error, "I-COR000014: The configuration file at \(plistPath) does not exist or is not a well-formed plist file.", source: "FirebaseCore", subsystem: "com.google.firebase", category: "core")
            return nil
        }
        apiKey = plist["API_KEY"] as? String
        bundleID = plist["BUNDLE_ID"] as? String ?? ""
        clientID = plist["CLIENT_ID"] as? String
        gcmSenderID = plist["GCM_SENDER_ID"] as? String ?? ""
        projectID = plist["PROJECT_ID"] as? String
        googleAppID = plist["GOOGLE_APP_ID"] as? String ?? ""
        databaseURL = plist["DATABASE_URL"] as? String
        storageBucket = plist["STORAGE_BUCKET"] as? String
        super.init()
    }

    /// Options standing for a `GoogleService-Info.plist` nse cannot see (`configure()` goes on as if it were there).
    init(assumedFor bundle: URL?) {
        googleAppID = "1:0:ios:assumed"
        gcmSenderID = ""
        bundleID = ""
        super.init()
    }

    /// `+defaultOptions`: the bundle's `GoogleService-Info.plist`, read from the folder that stands for the
    /// extension's bundle (`nse extension`'s folder, the harness's `bundleDirectory`); nil when there is none.
    public class func defaultOptions() -> FirebaseOptions? {
        guard let folder = ExtensionEnvironment.current?.bundleDirectory, let file = serviceInfo(under: folder) else { return nil }
        return FirebaseOptions(contentsOfFile: file.path)
    }

    /// The first `GoogleService-Info.plist` in `folder` or its subfolders (hidden ones skipped), as the bundle's
    /// resources are copied flat into it.
    private static func serviceInfo(under folder: URL) -> URL? {
        let direct = folder.appendingPathComponent(serviceInfoFile)
        if FileManager.default.fileExists(atPath: direct.path) { return direct }
        let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        while let url = walk?.nextObject() as? URL {
            if url.lastPathComponent == serviceInfoFile { return url }
        }
        return nil
    }

    /// `isEqualToOptions:`, over the values an app is configured with.
    func hasSameValues(as other: FirebaseOptions) -> Bool {
        [apiKey, bundleID, clientID, gcmSenderID, projectID, googleAppID, databaseURL, storageBucket, appGroupID]
            == [other.apiKey, other.bundleID, other.clientID, other.gcmSenderID, other.projectID, other.googleAppID, other.databaseURL, other.storageBucket, other.appGroupID]
    }
}

/// `FIRLoggerLevel` (`FirebaseLoggerLevel`).
public enum FirebaseLoggerLevel: Int, Sendable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    public static let min = FirebaseLoggerLevel.error
    public static let max = FirebaseLoggerLevel.debug
}

/// `FIRConfiguration` (`FirebaseConfiguration`): the SDK's log level.
open class FirebaseConfiguration: NSObject, @unchecked Sendable {
    public static let shared = FirebaseConfiguration()
    // Guarded by its Mutex.
    private let level = Mutex(FirebaseLoggerLevel.notice)

    public func setLoggerLevel(_ loggerLevel: FirebaseLoggerLevel) {
        level.withLock { $0 = loggerLevel }
    }

    public func loggerLevel() -> FirebaseLoggerLevel {
        level.withLock { $0 }
    }
}

/// `FIRFirebaseVersion()` (`FirebaseVersion()`): the Firebase release whose headers this stand-in follows.
public func FirebaseVersion() -> String {
    "12.19.0"
}

/// What the run reports about FirebaseCore: every message in one table.
enum FirebaseCoreFindings {
    static func configured(name: String, options: FirebaseOptions) -> Diagnostic {
        let which = name == FirebaseApp.defaultName ? "the default app" : "the app \"\(name)\""
        let project = options.projectID.map { "project \($0), " } ?? ""
        return .info(.firebaseConfigure, "FirebaseApp.configure: \(which) is configured (\(project)GOOGLE_APP_ID \(options.googleAppID)). Configuring sends nothing from the extension.")
    }

    static func noServiceInfo(bundle: URL?) -> Diagnostic {
        guard let bundle else {
            return .info(.firebaseConfigure, "FirebaseApp.configure() reads GoogleService-Info.plist from the extension's bundle; this run has no folder standing for the bundle, so nse assumes the file is there and goes on. Without it, the call raises an exception on a device and the extension crashes (iOS shows the original content).")
        }
        return .warning(.firebaseConfigure, "FirebaseApp.configure() found no GoogleService-Info.plist in \(bundle.path), the folder standing for the extension's bundle. On a device, an extension whose bundle lacks it crashes at this call (\"`FirebaseApp.configure()` could not find a valid GoogleService-Info.plist in your project\"), and iOS shows the original content. Check that the file belongs to the extension target (Target Membership), and put a copy in this folder; nse goes on as if it were there.")
    }

    static func exception(_ reason: String) -> Diagnostic {
        .error(.firebaseConfigure, "FirebaseApp.configure raises an exception (\"\(reason)\"): the extension crashes and iOS shows the original content.")
    }
}
