import CioInternalCommon

/// The push module's configuration (customerio-ios, `Sources/MessagingPush/Config/MessagingPushConfigOptions.swift`).
public struct MessagingPushConfigOptions: Sendable {
    public let logLevel: CioLogLevel
    public let cdpApiKey: String
    public let region: Region
    public let autoFetchDeviceToken: Bool
    public let autoTrackPushEvents: Bool
    public let showPushAppInForeground: Bool
    public let appGroupId: String?
}

/// Builds `MessagingPushConfigOptions`; an extension passes its CDP API key, which the delivery metric needs.
public class MessagingPushConfigBuilder {
    private var logLevel: CioLogLevel = .error
    private let cdpApiKey: String
    private var region: Region = .US
    private var autoFetchDeviceToken = true
    private var autoTrackPushEvents = true
    private var showPushAppInForeground = true
    private var appGroupId: String?

    public init() {
        cdpApiKey = ""
    }

    public init(cdpApiKey: String) {
        self.cdpApiKey = cdpApiKey
    }

    @discardableResult
    public func region(_ region: Region) -> MessagingPushConfigBuilder {
        self.region = region
        return self
    }

    @discardableResult
    public func logLevel(_ logLevel: CioLogLevel) -> MessagingPushConfigBuilder {
        self.logLevel = logLevel
        return self
    }

    @discardableResult
    public func autoFetchDeviceToken(_ value: Bool) -> MessagingPushConfigBuilder {
        autoFetchDeviceToken = value
        return self
    }

    /// Whether the extension sends the "delivered" metric (true by default).
    @discardableResult
    public func autoTrackPushEvents(_ value: Bool) -> MessagingPushConfigBuilder {
        autoTrackPushEvents = value
        return self
    }

    @discardableResult
    public func showPushAppInForeground(_ value: Bool) -> MessagingPushConfigBuilder {
        showPushAppInForeground = value
        return self
    }

    @discardableResult
    public func appGroupId(_ value: String) -> MessagingPushConfigBuilder {
        appGroupId = value
        return self
    }

    public func build() -> MessagingPushConfigOptions {
        MessagingPushConfigOptions(
            logLevel: logLevel, cdpApiKey: cdpApiKey, region: region, autoFetchDeviceToken: autoFetchDeviceToken,
            autoTrackPushEvents: autoTrackPushEvents, showPushAppInForeground: showPushAppInForeground, appGroupId: appGroupId)
    }
}
