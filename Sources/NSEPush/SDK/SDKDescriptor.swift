/// One push SDK whose Notification Service Extension helper nse emulates, as data: its names, the stand-in module
/// that holds its helper and its rules, the payload keys that identify it, its media keys and the prefix of its
/// diagnostic codes. Detection (`SDKDetection`), the stand-ins' own key reading, the docs table (docs/sdks.md)
/// and Package.swift's `sdkModules` list all follow `SDKDescriptor.all`; `Tests/UnitTests/SDKDescriptorTests`
/// names whatever disagrees. The command line's built-in extension per SDK is `BuiltInExtensions.make` in
/// NSEHarness, an exhaustive `switch` over `PushSDK`, so a new SDK without one does not compile.
///
/// The keys are those each SDK's servers send and its helper reads, from the SDK's source files named in
/// docs/sdks.md.
public struct SDKDescriptor: Sendable {
    public let sdk: PushSDK
    /// The SDK's name as its vendor writes it.
    public let name: String
    /// The module an extension file imports to call the SDK's helper (the SDK's documented extension file).
    public let module: String
    /// Every module of the SDK's stand-in, `module` first: each is a folder `Sources/<module>` and an entry of
    /// Package.swift's `sdkModules`.
    public let modules: [String]
    /// The top-level key that marks a payload as the SDK's: the one its helper looks for, or the SDK's most
    /// telling key where the helper looks for none.
    public let marker: String
    /// Every exact top-level key that identifies the SDK's payloads, `marker` first.
    public let keys: [String]
    /// Top-level key prefixes that identify the SDK's payloads (`gcm.`).
    public let prefixes: [String]
    /// Keys inside `aps` that identify the SDK's payloads, where the SDK's helper reads them (Pushwoosh's
    /// `aps.pw_badge`).
    public let apsKeys: [String]
    /// The top-level key the SDK's helper reads its media request from.
    public let mediaKey: String
    /// Every top-level key that holds the SDK's media request, `mediaKey` first: when several SDKs match a
    /// payload, the one whose media key is present is the one whose helper the sender meant.
    public let mediaKeys: [String]
    /// The start of every diagnostic code the SDK's helper reports (`sdk.braze.`).
    public let codePrefix: String
    /// Where the SDK's rules live, as paths from the repository's root.
    public let rules: [String]

    /// The descriptor of an SDK whose rules all live in its stand-in modules (`Sources/<module>`).
    init(
        _ sdk: PushSDK, name: String, module: String, otherModules: [String] = [],
        marker: String, otherKeys: [String] = [], prefixes: [String] = [], apsKeys: [String] = [],
        mediaKey: String, otherMediaKeys: [String] = [], rules: [String]? = nil
    ) {
        self.sdk = sdk
        self.name = name
        self.module = module
        modules = [module] + otherModules
        self.marker = marker
        keys = [marker] + otherKeys
        self.prefixes = prefixes
        self.apsKeys = apsKeys
        self.mediaKey = mediaKey
        mediaKeys = [mediaKey] + otherMediaKeys
        codePrefix = sdk == .firebase ? "firebase." : "sdk.\(sdk.rawValue)."
        self.rules = rules ?? modules.map { "Sources/\($0)" }
    }

    /// One descriptor per SDK, in `PushSDK`'s order.
    public static let all: [SDKDescriptor] = PushSDK.allCases.map(\.descriptor)

    /// The diagnostic codes of the SDK's helper.
    public var codes: [DiagnosticCode] { DiagnosticCode.allCases.filter { $0.rawValue.hasPrefix(codePrefix) } }

    /// How docs/sdks.md lists the identifying keys: exact keys no prefix covers, then each prefix with `*`, then
    /// the keys inside `aps`.
    public var documentedKeys: String {
        let exact = keys.filter { key in !prefixes.contains { key.hasPrefix($0) } }
        return (exact.map { "`\($0)`" } + prefixes.map { "`\($0)*`" } + apsKeys.map { "`aps.\($0)`" }).joined(separator: ", ")
    }
}

extension SDKDescriptor {
    // Firebase: firebase-ios-sdk's FirebaseMessaging/Sources/FIRMessagingExtensionHelper.m. Its rules are the only
    // ones in the library's layers: lint foretells its download, and `nse process` runs it by default.
    public static let firebase = SDKDescriptor(
        .firebase, name: "Firebase", module: "FirebaseMessaging", otherModules: ["FirebaseCore"],
        marker: "fcm_options", prefixes: ["gcm.", "google.c."], mediaKey: "fcm_options",
        rules: ["Sources/NSEPush/SDK/FirebaseImageRules.swift", "Sources/NSEPipeline/Extension/FirebaseImageHelper.swift", "Sources/FirebaseMessaging", "Sources/FirebaseCore"])
    public static let onesignal = SDKDescriptor(
        .onesignal, name: "OneSignal", module: "OneSignalExtension",
        marker: "os_data", otherKeys: [oneSignalCommonKey, "att"], mediaKey: "att", otherMediaKeys: ["os_data"])
    public static let braze = SDKDescriptor(
        .braze, name: "Braze", module: "BrazeNotificationService",
        marker: "ab", otherKeys: ["ab_uri", "ab_cat"], mediaKey: "ab")
    public static let clevertap = SDKDescriptor(
        .clevertap, name: "CleverTap", module: "CTNotificationService", otherModules: ["CleverTapSDK"],
        marker: "ct_mediaUrl", otherKeys: [cleverTapMediaTypeKey, "wzrk_id", "wzrk_pn"], prefixes: ["wzrk_"],
        mediaKey: "ct_mediaUrl")
    public static let iterable = SDKDescriptor(
        .iterable, name: "Iterable", module: "IterableAppExtensions", marker: "itbl", mediaKey: "itbl")
    public static let customerio = SDKDescriptor(
        .customerio, name: "Customer.io", module: "CioMessagingPushAPN", otherModules: ["CioMessagingPush", "CioInternalCommon", "CioMessagingPushFCM"],
        marker: "CIO", otherKeys: [customerIODeliveryIDKey, customerIODeliveryTokenKey], mediaKey: "CIO")
    // Pushwoosh: pushwoosh-ios-sdk's `PWNotificationServiceProcessor.m` reads `pw_msg` at the top level and the
    // badge from `aps.pw_badge`.
    public static let pushwoosh = SDKDescriptor(
        .pushwoosh, name: "Pushwoosh", module: "PushwooshFramework", otherModules: ["PushwooshNotificationUI"],
        marker: "pw_msg", apsKeys: [pushwooshBadgeKey], mediaKey: "attachment")
    public static let batch = SDKDescriptor(
        .batch, name: "Batch", module: "BatchExtension", marker: "com.batch", mediaKey: "com.batch")
    public static let airship = SDKDescriptor(
        .airship, name: "Airship", module: "AirshipNotificationServiceExtension",
        marker: "com.urbanairship.media_attachment", prefixes: ["com.urbanairship."],
        mediaKey: "com.urbanairship.media_attachment")
    // mixpanel-iphone 3.x, the last with MPNotificationServiceExtension: its pod module is `Mixpanel`.
    public static let mixpanel = SDKDescriptor(
        .mixpanel, name: "Mixpanel", module: "Mixpanel", marker: "mp", otherKeys: ["mp_media_url"], mediaKey: "mp_media_url")
    // Notificare's helper reads only `attachment`: its marker keys are assumed (docs/sdks.md).
    public static let notificare = SDKDescriptor(
        .notificare, name: "Notificare", module: "NotificareNotificationServiceExtensionKit",
        marker: "x-sender", otherKeys: ["notificationId"], mediaKey: "attachment")

    /// Identifying keys a stand-in reads besides its marker and media key, named here so detection and the
    /// helper read the same string.
    public static let cleverTapMediaTypeKey = "ct_mediaType"
    public static let customerIODeliveryIDKey = "CIO-Delivery-ID"
    public static let customerIODeliveryTokenKey = "CIO-Delivery-Token"
    /// Pushwoosh's badge, inside `aps`.
    public static let pushwooshBadgeKey = "pw_badge"
    /// OneSignal's `custom`: where `i` and `badge_inc` live when the payload has no `os_data`.
    public static let oneSignalCommonKey = "custom"
}

extension PushSDK {
    /// The SDK's entry in `SDKDescriptor.all`.
    public var descriptor: SDKDescriptor {
        switch self {
        case .firebase: .firebase
        case .onesignal: .onesignal
        case .braze: .braze
        case .clevertap: .clevertap
        case .iterable: .iterable
        case .customerio: .customerio
        case .pushwoosh: .pushwoosh
        case .batch: .batch
        case .airship: .airship
        case .mixpanel: .mixpanel
        case .notificare: .notificare
        }
    }
}
