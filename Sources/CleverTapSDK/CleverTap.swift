// CleverTapSDK is an Objective-C framework whose umbrella header (CleverTap.h) imports Foundation, UIKit and
// CoreLocation, which Swift then sees re-exported: so does this stand-in, but for CoreLocation, which has none. A
// file that imports it beside Testing gets Swift Testing's UIKit overlay from this package's `_Testing_UIKit`.
@_exported import Foundation
@_exported import UIKit
import NSEPush
import Synchronization
import UserNotifications
import NSEPipeline
import NSEMedia

/// CleverTap's log levels (`CleverTapLogLevel` in CleverTap/clevertap-ios-sdk, `CleverTapSDK/CleverTap.h`).
public enum CleverTapLogLevel: Int32, Sendable {
    case off = -1
    case info = 0
    case debug = 1
}

/// The part of CleverTap's SDK (`CleverTapSDK`) that service extensions call: CleverTap's starter extensions
/// (clevertap-ios-sdk, `SwiftStarter/NotificationService/NotificationService.swift`) set the debug level, record an
/// event, push a profile and record the Notification Viewed event before handing over to
/// `CTNotificationServiceExtension`.
///
/// Nothing is sent: each call is recorded on the run (`sdk.clevertap.event`) with what the SDK would queue for
/// CleverTap's servers.
open class CleverTap: NSObject, @unchecked Sendable {
    // Immutable: every call records to the calling run.
    private static let shared = CleverTap(config: nil)
    private static let level = Mutex(CleverTapLogLevel.off)
    /// The account of an instance made with `instance(with:)`; nil for the shared instance (the Info.plist's).
    private let config: CleverTapInstanceConfig?

    private init(config: CleverTapInstanceConfig?) {
        self.config = config
        super.init()
    }

    /// The shared instance. The SDK returns nil when the extension's Info.plist has no `CleverTapAccountID` and
    /// `CleverTapToken`; the emulator cannot see those keys and assumes they are there.
    open class func sharedInstance() -> CleverTap? {
        shared
    }

    /// `sharedInstanceWithCleverTapID:`: the shared instance under an app-chosen CleverTap ID (the SDK honours it
    /// only with `CleverTapUseCustomId` in the Info.plist, which the emulator cannot see).
    open class func sharedInstance(withCleverTapID cleverTapID: String) -> CleverTap? {
        StandInRun.log(.debug, "sharedInstance(withCleverTapID: \(cleverTapID))", source: "CleverTap", subsystem: "com.clevertap", category: "sdk")
        return shared
    }

    /// `instanceWithConfig:`: an instance for another account (CleverTap.h: "Use this for multiple instances of the
    /// SDK"), made in code rather than from the Info.plist, so never nil. Its events are recorded under that account.
    open class func instance(with config: CleverTapInstanceConfig) -> CleverTap {
        StandInRun.log(.debug, "instance(with: \(config.accountId))", source: "CleverTap", subsystem: "com.clevertap", category: "sdk")
        return CleverTap(config: config)
    }

    /// `instanceWithConfig:andCleverTapID:`.
    open class func instance(with config: CleverTapInstanceConfig, andCleverTapID cleverTapID: String) -> CleverTap {
        StandInRun.log(.debug, "instance(with: \(config.accountId), andCleverTapID: \(cleverTapID))", source: "CleverTap", subsystem: "com.clevertap", category: "sdk")
        return CleverTap(config: config)
    }

    /// `setCredentialsWithAccountID:andToken:`: the account set in code instead of the Info.plist, for the shared
    /// instance made after it. Recorded: nothing is sent.
    open class func setCredentialsWithAccountID(_ accountID: String, andToken token: String) {
        recordCredentials(accountID, where: nil)
    }

    /// `setCredentialsWithAccountID:token:region:`.
    open class func setCredentialsWithAccountID(_ accountID: String, token: String, region: String) {
        recordCredentials(accountID, where: "region \(region)")
    }

    /// `setCredentialsWithAccountID:token:proxyDomain:`: the events go through the app's own proxy server.
    open class func setCredentialsWithAccountID(_ accountID: String, token: String, proxyDomain: String) {
        recordCredentials(accountID, where: "proxy \(proxyDomain)")
    }

    /// `setCredentialsWithAccountID:token:proxyDomain:spikyProxyDomain:`.
    open class func setCredentialsWithAccountID(_ accountID: String, token: String, proxyDomain: String, spikyProxyDomain: String) {
        recordCredentials(accountID, where: "proxy \(proxyDomain), spiky proxy \(spikyProxyDomain)")
    }

    /// `setCredentialsWithAccountID:token:proxyDomain:spikyProxyDomain:handshakeDomain:`.
    open class func setCredentialsWithAccountID(_ accountID: String, token: String, proxyDomain: String, spikyProxyDomain: String, handshakeDomain: String) {
        recordCredentials(accountID, where: "proxy \(proxyDomain), spiky proxy \(spikyProxyDomain), handshake \(handshakeDomain)")
    }

    private static func recordCredentials(_ accountID: String, where place: String?) {
        let missing = accountID.isEmpty ? " The account ID is empty: the SDK makes no shared instance, so sharedInstance() is nil on a device." : ""
        StandInRun.log(.info, "setCredentials(accountID: \(accountID)\(place.map { ", \($0)" } ?? ""))", source: "CleverTap", subsystem: "com.clevertap", category: "sdk")
        StandInRun.record(.info(.sdkCleverTapEvent, "CleverTap's account is set in code (\(accountID.isEmpty ? "empty" : accountID)\(place.map { ", \($0)" } ?? "")); the extension's events go to it.\(missing)"))
    }

    open class func setDebugLevel(_ level: Int32) {
        Self.level.withLock { $0 = CleverTapLogLevel(rawValue: max(-1, min(1, level))) ?? .debug }
        StandInRun.log(.debug, "setDebugLevel(\(level))", source: "CleverTap", subsystem: "com.clevertap", category: "sdk")
    }

    open class func getDebugLevel() -> CleverTapLogLevel {
        level.withLock { $0 }
    }

    open func recordEvent(_ event: String) {
        record("the event \"\(event)\"")
    }

    open func recordEvent(_ event: String, withProps properties: [AnyHashable: Any]) {
        record("the event \"\(event)\" with \(properties.count) properties (\(Self.keys(properties)))")
    }

    open func profilePush(_ properties: [AnyHashable: Any]) {
        record("a profile update (\(Self.keys(properties)))")
    }

    open func onUserLogin(_ properties: [AnyHashable: Any]) {
        record("a user login (\(Self.keys(properties)))")
    }

    open func onUserLogin(_ properties: [AnyHashable: Any], withCleverTapID cleverTapID: String) {
        record("a user login as CleverTap ID \(cleverTapID) (\(Self.keys(properties)))")
    }

    /// Queues "Notification Viewed" with the payload's `wzrk_` (and `W$`) fields, as `CTEventBuilder`'s
    /// `buildPushNotificationEvent` does; a push without them is not one CleverTap sent.
    open func recordNotificationViewedEvent(withData notificationData: Any) {
        recordPushEvent("Notification Viewed", notificationData)
    }

    open func recordNotificationClickedEvent(withData notificationData: Any) {
        recordPushEvent("Notification Clicked", notificationData)
    }

    private func recordPushEvent(_ name: String, _ data: Any) {
        let info = (data as? [AnyHashable: Any]) ?? (data as? UNNotification)?.request.content.userInfo ?? [:]
        let fields = info.keys.compactMap { $0.base as? String }.filter { key in SDKDescriptor.clevertap.prefixes.contains { key.hasPrefix($0) } || key.hasPrefix("W$") }.sorted()
        guard !fields.isEmpty else {
            StandInRun.record(.warning(.sdkCleverTapEvent, "recordNotificationViewedEvent: the payload has no `wzrk_` fields, so it is not a push CleverTap sent: the \"\(name)\" event CleverTap queues carries no campaign (only its timestamp, wzrk_cts). Send the push through CleverTap, or do not record it."))
            return
        }
        record("\"\(name)\" with \(fields.joined(separator: ", ")) and wzrk_cts")
    }

    private func record(_ what: String) {
        StandInRun.log(.info, "would queue \(what)", source: "CleverTap", subsystem: "com.clevertap", category: "events")
        guard let config else {
            StandInRun.record(.info(.sdkCleverTapEvent, "CleverTap would queue \(what) and send it to CleverTap's servers from the extension (recorded, not sent; assumes the extension's Info.plist has CleverTapAccountID and CleverTapToken, without which sharedInstance() is nil and nothing is recorded)."))
            return
        }
        let route = config.proxyDomain.map { " through the proxy \($0)" } ?? config.accountRegion.map { " in region \($0)" } ?? ""
        StandInRun.record(.info(.sdkCleverTapEvent, "CleverTap would queue \(what) for account \(config.accountId) (instance(with:)) and send it to CleverTap's servers\(route) from the extension (recorded, not sent)\(config.analyticsOnly ? "; the instance is analytics-only" : "")."))
    }

    private static func keys(_ properties: [AnyHashable: Any]) -> String {
        properties.keys.map { String(describing: $0.base) }.sorted().joined(separator: ", ")
    }
}

/// CleverTap's encryption levels for stored data (`CleverTapEncryptionLevel`, CleverTap.h).
public enum CleverTapEncryptionLevel: Int32, Sendable {
    case none = 0
    case medium = 1
    case high = 2
}

/// `CleverTapInstanceConfig` (CleverTap/clevertap-ios-sdk, `CleverTapSDK/CleverTapInstanceConfig.h`): the account
/// of an instance made in code with `CleverTap.instance(with:)`. Its settings are kept, never acted on: the
/// stand-in sends nothing.
open class CleverTapInstanceConfig: NSObject, @unchecked Sendable {
    // The account fields are set once in `init`; the settings are plain properties, as in the SDK.
    public let accountId: String
    public let accountToken: String
    public let accountRegion: String?
    public let proxyDomain: String?
    public let spikyProxyDomain: String?
    public var analyticsOnly = false
    public var disableAppLaunchedEvent = false
    public var enablePersonalization = true
    public var useCustomCleverTapId = false
    public var disableIDFV = false
    public var enableFileProtection = false
    public var handshakeDomain: String?
    public var encryptionInTransitEnabled = false
    public var logLevel = CleverTapLogLevel.info
    public var identityKeys: [Any]?
    public var encryptionLevel = CleverTapEncryptionLevel.none

    private init(accountId: String, accountToken: String, accountRegion: String?, proxyDomain: String?, spikyProxyDomain: String?) {
        self.accountId = accountId
        self.accountToken = accountToken
        self.accountRegion = accountRegion
        self.proxyDomain = proxyDomain
        self.spikyProxyDomain = spikyProxyDomain
        super.init()
    }

    public convenience init(accountId: String, accountToken: String) {
        self.init(accountId: accountId, accountToken: accountToken, accountRegion: nil, proxyDomain: nil, spikyProxyDomain: nil)
    }

    public convenience init(accountId: String, accountToken: String, accountRegion: String) {
        self.init(accountId: accountId, accountToken: accountToken, accountRegion: accountRegion, proxyDomain: nil, spikyProxyDomain: nil)
    }

    public convenience init(accountId: String, accountToken: String, proxyDomain: String) {
        self.init(accountId: accountId, accountToken: accountToken, accountRegion: nil, proxyDomain: proxyDomain, spikyProxyDomain: nil)
    }

    public convenience init(accountId: String, accountToken: String, proxyDomain: String, spikyProxyDomain: String) {
        self.init(accountId: accountId, accountToken: accountToken, accountRegion: nil, proxyDomain: proxyDomain, spikyProxyDomain: spikyProxyDomain)
    }
}
