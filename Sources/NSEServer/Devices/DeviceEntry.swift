import Foundation
import NSEPush
import NSEReports

/// One emulated phone, as the devices file (`--devices`, docs/serve.md) describes it.
public struct DeviceEntry: Sendable, Codable, Equatable {
    public enum DevicePlatform: String, Sendable, Codable { case ios, android }

    public enum APNsEnvironment: String, Sendable, Codable {
        /// Apple's `api.sandbox.push.apple.com`: tokens of apps built for development.
        case development
        /// Apple's `api.push.apple.com`: tokens of apps from TestFlight and the App Store.
        case production
    }

    public struct APNs: Sendable, Codable, Equatable {
        /// The device token as the app reports it: hexadecimal, compared without regard to case.
        public var token: String
        public var environment: APNsEnvironment = .development

        public init(token: String, environment: APNsEnvironment = .development) {
            self.token = token
            self.environment = environment
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            token = try container.decode(String.self, forKey: .token)
            environment = try container.decodeIfPresent(APNsEnvironment.self, forKey: .environment) ?? .development
        }
    }

    public struct FCM: Sendable, Codable, Equatable {
        /// The FCM registration token the app's Firebase SDK reports.
        public var token: String
        /// The Firebase project the app belongs to: only `/v1/projects/<project>/messages:send` reaches it.
        public var project: String
        /// Topics the app subscribed to (`messaging.subscribe_to_topic`).
        public var topics: [String] = []
        /// The app instance's Firebase Installation ID: FCM HTTP v1 also takes it as a message's target
        /// (`message.fid`; Firebase's projects.messages.send reference, firebase-admin-python 7's `Message.fid`).
        /// A token rotation keeps it: the installation is the same.
        public var fid: String?

        public init(token: String, project: String, topics: [String] = [], fid: String? = nil) {
            self.token = token
            self.project = project
            self.topics = topics
            self.fid = fid
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            token = try container.decode(String.self, forKey: .token)
            project = try container.decode(String.self, forKey: .project)
            topics = try container.decodeIfPresent([String].self, forKey: .topics) ?? []
            fid = try container.decodeIfPresent(String.self, forKey: .fid)
        }
    }

    /// The service extension the app ships.
    public struct Extension: Sendable, Codable, Equatable {
        public enum Kind: String, Sendable, Codable {
            /// nse's built-in extension: an SDK's helper (Firebase's by default), as `nse process --sdk` runs it.
            case builtin
            /// The app's own extension: its source folder (`path`), built as `nse extension` builds it.
            case folder
        }

        public var kind: Kind = .builtin
        /// The extension target's folder (`folder`): its .swift files and Info.plist, as `nse extension` takes it.
        public var path: String?
        /// Which SDK's helper: `auto` (from the payload's keys), `firebase`, `onesignal`... as `--sdk` takes.
        public var sdk: String = "auto"

        public init(kind: Kind = .builtin, sdk: String = "auto") {
            self.kind = kind
            self.sdk = sdk
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try container.decodeIfPresent(Kind.self, forKey: .kind) ?? .builtin
            sdk = try container.decodeIfPresent(String.self, forKey: .sdk) ?? "auto"
            path = try container.decodeIfPresent(String.self, forKey: .path)
        }
    }

    /// The user's notification settings for the app (device-behaviour.md section 9; `UNNotificationSettings`).
    public struct Settings: Sendable, Codable, Equatable {
        public enum Authorization: String, Sendable, Codable {
            case notDetermined, denied, authorized, provisional, ephemeral
        }

        public enum Previews: String, Sendable, Codable { case always, whenUnlocked, never }

        public var authorization: Authorization = .authorized
        public var alert = true
        public var sound = true
        public var badge = true
        public var lockScreen = true
        public var notificationCenter = true
        public var previews: Previews = .always

        public init() {}

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            authorization = try container.decodeIfPresent(Authorization.self, forKey: .authorization) ?? .authorized
            alert = try container.decodeIfPresent(Bool.self, forKey: .alert) ?? true
            sound = try container.decodeIfPresent(Bool.self, forKey: .sound) ?? true
            badge = try container.decodeIfPresent(Bool.self, forKey: .badge) ?? true
            lockScreen = try container.decodeIfPresent(Bool.self, forKey: .lockScreen) ?? true
            notificationCenter = try container.decodeIfPresent(Bool.self, forKey: .notificationCenter) ?? true
            previews = try container.decodeIfPresent(Previews.self, forKey: .previews) ?? .always
        }
    }

    public enum AppState: String, Sendable, Codable { case foreground, background, notRunning }

    /// What the app's `userNotificationCenter(_:willPresent:withCompletionHandler:)` answers for a notification that
    /// arrives while it is in the foreground (`UNNotificationPresentationOptions`). The emulator runs no app code, so
    /// the device entry says it; none (the default) is what iOS does when the app does not implement the method.
    public enum PresentationOption: String, Sendable, Codable { case banner, list, sound, badge }

    /// A name for people (the control API shows it).
    public var name: String
    public var platform: DevicePlatform = .ios
    public var apns: APNs?
    public var fcm: FCM?
    /// The app's bundle ID: the APNs topic its pushes carry (with a push type's suffix, such as `.voip`).
    public var bundleId: String?
    public var `extension` = Extension()
    public var settings = Settings()
    public var appState: AppState = .background
    public var foregroundPresentation: [PresentationOption] = []
    /// The key the device was registered under, when its tokens changed since (an FCM token rotated): its history
    /// and journal lines stay under it. Not part of the devices file.
    var pinnedKey: String?

    enum CodingKeys: String, CodingKey {
        case name, platform, apns, fcm, bundleId, `extension`, settings, appState, foregroundPresentation
    }

    public init(name: String, platform: DevicePlatform = .ios, apns: APNs? = nil, fcm: FCM? = nil, bundleId: String? = nil) {
        self.name = name
        self.platform = platform
        self.apns = apns
        self.fcm = fcm
        self.bundleId = bundleId
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? "iPhone"
        platform = try container.decodeIfPresent(DevicePlatform.self, forKey: .platform) ?? .ios
        apns = try container.decodeIfPresent(APNs.self, forKey: .apns)
        fcm = try container.decodeIfPresent(FCM.self, forKey: .fcm)
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        `extension` = try container.decodeIfPresent(Extension.self, forKey: .extension) ?? Extension()
        settings = try container.decodeIfPresent(Settings.self, forKey: .settings) ?? Settings()
        appState = try container.decodeIfPresent(AppState.self, forKey: .appState) ?? .background
        foregroundPresentation = try container.decodeIfPresent([PresentationOption].self, forKey: .foregroundPresentation) ?? []
    }

    /// The SDK selection the extension entry names, or nil when `sdk` is no value `--sdk` takes.
    var sdkSelection: SDKSelection? {
        SDKSelection(argument: `extension`.sdk).flatMap { $0 == .all ? nil : $0 }
    }

    /// Whether APNs takes `topic` (a request's `apns-topic`) as this device's app: its bundle ID, or the bundle ID with
    /// a push type's suffix (`.voip`, `.push-type.liveactivity`...). A device without a bundle ID has no topic.
    func isAppTopic(_ topic: String) -> Bool {
        guard let bundleId else { return false }
        return topic == bundleId || topic.hasPrefix(bundleId + ".")
    }
}

extension DeviceEntry {
    /// The rules one device must meet, in the devices file or added through the control API (`place` names it).
    /// Tokens unique among devices are checked by the caller, which knows the others.
    func check(place: String) throws(ServeSetupError) {
        if apns == nil, fcm == nil {
            throw ServeSetupError("\(place) has neither `apns` nor `fcm`: give it a token to be reached by.")
        }
        if let apns {
            guard platform == .ios else {
                throw ServeSetupError("\(place) is an Android device with an APNs token: only iPhones have one.")
            }
            guard APNsToken.isWellFormed(apns.token) else {
                throw ServeSetupError("\(place): the APNs token \"\(apns.token)\" is not hexadecimal (an even number of 0-9, a-f digits, such as 64).")
            }
            guard bundleId != nil else {
                throw ServeSetupError("\(place) has an APNs token but no `bundleId`: APNs delivers by the topic, which is the app's bundle ID.")
            }
        }
        if let fcm {
            guard !fcm.token.isEmpty, !fcm.project.isEmpty, fcm.token.utf8.count <= 4096 else {
                throw ServeSetupError("\(place): `fcm.token` and `fcm.project` must not be empty (nor the token over 4096 bytes).")
            }
            guard fcm.topics.count <= FCMTopic.maxPerDevice else {
                throw ServeSetupError("\(place) subscribes to \(fcm.topics.count) topics: FCM allows an app instance \(FCMTopic.maxPerDevice).")
            }
            if let topic = fcm.topics.first(where: { !FCMTopic.isValid($0) }) {
                throw ServeSetupError("\(place): the topic \"\(topic)\" is not an FCM topic name (\(FCMTopic.rule)).")
            }
            if let fid = fcm.fid, !FCMInstallationID.isWellFormed(fid) {
                throw ServeSetupError("\(place): `fcm.fid` \"\(fid)\" is not a Firebase Installation ID (\(FCMInstallationID.rule)).")
            }
        }
        if `extension`.kind == .folder {
            var isFolder: ObjCBool = false
            guard let path = `extension`.path, FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                throw ServeSetupError("\(place): `extension.kind` is folder, so `extension.path` must name the extension's source folder (as `nse extension` takes it)\(`extension`.path.map { "; \($0) is not a folder" } ?? "").")
            }
        }
        guard sdkSelection != nil else {
            throw ServeSetupError("\(place): `extension.sdk` is \"\(`extension`.sdk)\"; give one of \(PushSDK.allCases.map(\.rawValue).joined(separator: ", ")) or auto.")
        }
    }
}

/// An APNs signing key's public part (Apple's `.p8` key is its private part): provider tokens whose `kid` is
/// `keyID` must be signed by it and issued by `teamID`.
public struct ProviderKey: Sendable, Codable, Equatable {
    public var keyID: String
    public var teamID: String
    /// The P-256 public key, PEM (`openssl ec -in AuthKey_KEYID.p8 -pubout`).
    public var publicKey: String

    public init(keyID: String, teamID: String, publicKey: String) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
    }
}

/// The devices file: `{"devices": [...], "providerKeys": [...]}`.
public struct DevicesFile: Sendable, Codable {
    public var devices: [DeviceEntry]
    /// When given, every APNs provider token must be signed by one of these keys.
    public var providerKeys: [ProviderKey]

    public init(devices: [DeviceEntry], providerKeys: [ProviderKey] = []) {
        self.devices = devices
        self.providerKeys = providerKeys
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        devices = try container.decode([DeviceEntry].self, forKey: .devices)
        providerKeys = try container.decodeIfPresent([ProviderKey].self, forKey: .providerKeys) ?? []
    }

    /// The largest devices file read: a file of this size holds thousands of devices.
    static let maxBytes = 16 << 20

    /// Reads and checks `url`; the error says what is wrong in the user's words.
    public static func read(_ url: URL) throws(ServeSetupError) -> DevicesFile {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw ServeSetupError("Cannot read the devices file \(url.path): \(error.localizedDescription).")
        }
        guard data.count <= maxBytes else {
            throw ServeSetupError("The devices file \(url.path) is over \(maxBytes) bytes; nse reads no larger devices file.")
        }
        return try parse(data, name: url.path)
    }

    static func parse(_ data: Data, name: String) throws(ServeSetupError) -> DevicesFile {
        let file: DevicesFile
        do {
            file = try JSONDecoder().decode(DevicesFile.self, from: data)
        } catch let error as DecodingError {
            throw ServeSetupError("The devices file \(name) is not as docs/serve.md describes: \(describe(error)).")
        } catch {
            throw ServeSetupError("The devices file \(name) is not valid JSON: \(error.localizedDescription).")
        }
        try file.validate(name: name)
        return file
    }

    private func validate(name: String) throws(ServeSetupError) {
        for (index, key) in providerKeys.enumerated() where ProviderToken.publicKey(key.publicKey) == nil {
            throw ServeSetupError("\(name): providerKeys[\(index)] (\(key.keyID)): `publicKey` is not a P-256 public key in PEM.")
        }
        var apnsTokens: Set<String> = []
        var fcmTokens: Set<String> = []
        var fids: Set<String> = []
        for (index, device) in devices.enumerated() {
            let place = "\(name): devices[\(index)] (\(device.name))"
            try device.check(place: place)
            if let apns = device.apns, !apnsTokens.insert(APNsToken.normalized(apns.token)).inserted {
                throw ServeSetupError("\(place): the APNs token \(apns.token) is already another device's.")
            }
            if let fcm = device.fcm, !fcmTokens.insert(fcm.token).inserted {
                throw ServeSetupError("\(place): the FCM token \(fcm.token) is already another device's.")
            }
            if let fid = device.fcm?.fid, !fids.insert(fid).inserted {
                throw ServeSetupError("\(place): the Firebase Installation ID \(fid) is already another device's.")
            }
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "the top level" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context)) lacks `\(key.stringValue)`"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }
}

/// APNs device tokens: hexadecimal text, compared in lowercase.
enum APNsToken {
    static func isWellFormed(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count % 2 == 0 && token.utf8.count <= 200 && token.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
    }

    static func normalized(_ token: String) -> String {
        token.lowercased()
    }
}

/// Firebase Installation IDs (FIDs): the SDKs make them 22 characters of URL-safe base64 (firebase-android-sdk's
/// RandomFidGenerator); the emulator takes any text of that alphabet up to 256 characters, so a test may use a
/// readable one.
enum FCMInstallationID {
    static let rule = "1 to 256 characters of A-Z, a-z, 0-9, - and _"

    static func isWellFormed(_ fid: String) -> Bool {
        !fid.isEmpty && fid.utf8.count <= 256 && fid.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 45 || byte == 95
        }
    }
}

/// Why `nse serve` cannot start: a message for the user.
public struct ServeSetupError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
