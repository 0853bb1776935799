/// The push SDKs whose Notification Service Extension helper nse emulates: each is a stand-in module with the
/// SDK's own module and type names (docs/sdks.md), run by the same harness as an app's own extension. What nse
/// knows of each is its `descriptor` (SDKDescriptor.swift).
public enum PushSDK: String, CaseIterable, Sendable, Codable {
    case firebase, onesignal, braze, clevertap, iterable, customerio, pushwoosh, batch, airship, mixpanel, notificare

    /// The SDK's name as its vendor writes it.
    public var displayName: String { descriptor.name }

    /// The module an extension file imports to call the SDK's helper (each SDK's documented extension file, named
    /// in docs/sdks.md).
    public var moduleName: String { descriptor.module }

    /// The SDK whose helper an extension importing `module` calls, if any.
    public init?(moduleName module: String) {
        guard let sdk = Self.allCases.first(where: { $0.moduleName == module }) else { return nil }
        self = sdk
    }
}

/// Which helper `--sdk` asks for: one SDK, detection from the payload's keys, or every helper side by side.
public enum SDKSelection: Sendable, Hashable, CustomStringConvertible {
    case auto
    case all
    case only(PushSDK)

    /// Parses `--sdk`'s value: an SDK's name (`firebase`, `onesignal`...), `auto` or `all`.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "auto": self = .auto
        case "all": self = .all
        default:
            guard let sdk = PushSDK(rawValue: argument.lowercased()) else { return nil }
            self = .only(sdk)
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .all: "all"
        case .only(let sdk): sdk.rawValue
        }
    }

    /// Every value `--sdk` accepts, for help texts and errors.
    public static var argumentValues: [String] { PushSDK.allCases.map(\.rawValue) + ["auto", "all"] }
}

/// Which SDK's helper ran on a push, and why: in the result (`helper`), the text report and the batch reports.
public struct HelperChoice: Sendable, Hashable, Codable {
    public enum Selection: String, Sendable, Codable {
        /// `--sdk NAME`.
        case explicit
        /// `--sdk auto` found the SDK's keys in the payload.
        case detected
        /// `--sdk auto` found no SDK's key: Firebase's helper, nse's behaviour before `--sdk`.
        case `default`
        /// `nse extension`: the app's own extension imports the SDK's module.
        case `extension`
    }

    public var sdk: PushSDK
    public var selection: Selection
    /// Why this helper, in a sentence.
    public var reason: String
    /// Every SDK whose keys the payload has (more than one is `sdk.detect.ambiguous`).
    public var matched: [PushSDK]

    public init(sdk: PushSDK, selection: Selection, reason: String, matched: [PushSDK] = []) {
        self.sdk = sdk
        self.selection = selection
        self.reason = reason
        self.matched = matched
    }

    /// True for the choice nse made before `--sdk` existed (Firebase, by detection or by default): the text
    /// report leaves its line out, the JSON result always has it.
    public var isFirebaseByDefault: Bool {
        sdk == .firebase && (selection == .default || (selection == .detected && matched == [.firebase]))
    }
}
