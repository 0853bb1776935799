// Mixpanel.h (the framework's umbrella header) imports Foundation, UIKit and UserNotifications, which Swift sees
// re-exported; so does this stand-in. A file that imports it beside Testing gets Swift Testing's UIKit overlay from
// this package's `_Testing_UIKit`.
@_exported import Foundation
@_exported import UIKit
@_exported import UserNotifications
import NSEPush
import NSEPipeline
import Synchronization

/// The part of Mixpanel's `Mixpanel` class that its notification service extension uses (mixpanel-iphone 3.x,
/// `Mixpanel/Mixpanel.m`): recognising a Mixpanel push, and tracking its delivery. The tracking is recorded on
/// the run, never sent.
open class Mixpanel: NSObject, @unchecked Sendable {
    /// A push is Mixpanel's when its `userInfo` has an `mp` key, whatever its value.
    public class func isMixpanelPushNotification(_ content: UNNotificationContent) -> Bool {
        content.userInfo[SDKDescriptor.mixpanel.marker] != nil
    }

    /// `trackPushNotificationEventFromRequest:event:properties:` as the extension calls it: a `track` of `event`
    /// with the payload's `mp` dictionary, then a `flush` to api.mixpanel.com. Recorded, not sent; the SDK's own
    /// early returns (no `distinct_id`, no `token`, no `m` and `c`) are reproduced.
    public class func trackPushNotificationEvent(from request: UNNotificationRequest, event: String, properties: [String: Any] = [:]) {
        let environment = ExtensionEnvironment.current
        guard let mp = request.content.userInfo[SDKDescriptor.mixpanel.marker] else { return }
        let fields = mp as? [String: Any] ?? [:]
        let missing = ["distinct_id", "token"].filter { (fields[$0] as? String) == nil }
        if let first = missing.first {
            environment?.record(MixpanelFindings.notTracked(event, missing: first))
            return
        }
        guard fields["m"] != nil, fields["c"] != nil else {
            environment?.record(MixpanelFindings.notTracked(event, missing: "m` and `c"))
            return
        }
        environment?.record(MixpanelFindings.tracked(event, campaign: "\(fields["c"] ?? "")", message: "\(fields["m"] ?? "")"))
    }

    // Mixpanel.h's set-up and tracking calls, as an extension may make them. An app extension's Mixpanel flushes
    // each event at once (MIXPANEL_FLUSH_IMMEDIATELY in Mixpanel.h): recorded on the run, never sent.
    private let token: String
    private let superProperties = Mutex(SuperProperties())
    /// `people`: the user profile updates (MixpanelPeople.h), recorded, never sent.
    public let people: MixpanelPeople

    public override init() {
        token = ""
        people = MixpanelPeople(token: "")
        super.init()
    }

    init(token: String) {
        self.token = token
        people = MixpanelPeople(token: token)
        super.init()
    }

    /// The run's instances by token: `sharedInstanceWithToken:` makes one per token and returns it again after.
    private static let instancesKey = "mixpanel.instances"
    private static let lastKey = "mixpanel.last"

    /// `sharedInstanceWithToken:`: the instance the extension tracks with, for that project token (the same one on
    /// every call of the run).
    public class func sharedInstance(withToken apiToken: String) -> Mixpanel {
        guard let environment = ExtensionEnvironment.current else { return Mixpanel(token: apiToken) }
        let instance = environment.updateStandInValue(instancesKey, default: [String: Mixpanel]()) { instances in
            if let made = instances[apiToken] { return made }
            let made = Mixpanel(token: apiToken)
            instances[apiToken] = made
            return made
        }
        environment.updateStandInValue(lastKey, default: Optional<Mixpanel>.none) { $0 = instance }
        return instance
    }

    /// `sharedInstance`: the instance `sharedInstance(withToken:)` last made or returned in this run, else nil (the
    /// SDK logs "sharedInstance called before creating a Mixpanel instance").
    public class func sharedInstance() -> Mixpanel? {
        ExtensionEnvironment.current?.standInValue(lastKey, as: Optional<Mixpanel>.self) ?? nil
    }

    public func identify(_ distinctId: String) {
        ExtensionEnvironment.current?.log(.info, "identify(\(distinctId))", source: "Mixpanel", subsystem: "com.mixpanel", category: "sdk")
    }

    public func track(_ event: String) {
        track(event, properties: nil)
    }

    /// Sends the event with the super properties registered so far.
    public func track(_ event: String, properties: [AnyHashable: Any]?) {
        let supers = superProperties.withLock { $0.values.count }
        ExtensionEnvironment.current?.record(MixpanelFindings.trackedCall(event, properties: properties?.count ?? 0, superProperties: supers, hasToken: !token.isEmpty))
    }

    public func flush() {
        ExtensionEnvironment.current?.log(.info, "flush()", source: "Mixpanel", subsystem: "com.mixpanel", category: "sdk")
    }

    // Super properties (Mixpanel.h): kept by the instance and sent with each later event. The SDK also archives
    // them to the extension's own container; a later run of the extension starts without them here.

    public func registerSuperProperties(_ properties: [String: Any]) {
        let incoming = SuperProperties(values: properties)
        superProperties.withLock { $0.register(incoming) }
        logSuper("registerSuperProperties(\(MixpanelFindings.names(properties.keys)))")
    }

    public func registerSuperPropertiesOnce(_ properties: [String: Any]) {
        registerSuperPropertiesOnce(properties, defaultValue: nil)
    }

    /// Sets each property that is not yet set, or whose value equals `defaultValue`.
    public func registerSuperPropertiesOnce(_ properties: [String: Any], defaultValue: Any?) {
        let incoming = SuperProperties(values: properties)
        let replaceable = defaultValue.map { String(describing: $0) }
        superProperties.withLock { $0.registerOnce(incoming, replacing: replaceable) }
        logSuper("registerSuperPropertiesOnce(\(MixpanelFindings.names(properties.keys)))")
    }

    public func unregisterSuperProperty(_ propertyName: String) {
        superProperties.withLock { $0.values[propertyName] = nil }
        logSuper("unregisterSuperProperty(\(propertyName))")
    }

    public func clearSuperProperties() {
        superProperties.withLock { $0.values = [:] }
        logSuper("clearSuperProperties()")
    }

    public func currentSuperProperties() -> [String: Any] {
        superProperties.withLock { $0 }.values
    }

    private func logSuper(_ call: String) {
        ExtensionEnvironment.current?.log(.info, call, source: "Mixpanel", subsystem: "com.mixpanel", category: "sdk")
    }
}

/// An instance's super properties. Unchecked: the values are the app's, of any type (`NSDictionary` in Mixpanel.h),
/// and are only read or written inside the instance's lock.
private struct SuperProperties: @unchecked Sendable {
    var values: [String: Any] = [:]

    mutating func register(_ other: SuperProperties) {
        values.merge(other.values) { _, new in new }
    }

    /// Sets each property not yet set, or whose value reads as `replacing` (`registerSuperPropertiesOnce:defaultValue:`).
    mutating func registerOnce(_ other: SuperProperties, replacing: String?) {
        for (key, value) in other.values {
            let replaceable = replacing != nil && values[key].map(String.init(describing:)) == replacing
            if values[key] == nil || replaceable { values[key] = value }
        }
    }
}

/// `MixpanelPeople` (mixpanel-iphone 3.x, `Mixpanel/MixpanelPeople.h`): updates to the user's profile, which the SDK
/// sends to api.mixpanel.com's `/engage` endpoint. Each is recorded on the run (`sdk.mixpanel.tracking`), never sent.
open class MixpanelPeople: NSObject, @unchecked Sendable {
    // Immutable but for `ignoreTime`, a flag the SDK does not lock either.
    private let token: String
    public var ignoreTime = false

    init(token: String) {
        self.token = token
        super.init()
    }

    public func set(_ properties: [String: Any]) { update("$set", MixpanelFindings.names(properties.keys)) }
    public func set(_ property: String, to object: Any) { update("$set", property) }
    public func setOnce(_ properties: [String: Any]) { update("$set_once", MixpanelFindings.names(properties.keys)) }
    public func unset(_ properties: [String]) { update("$unset", properties.joined(separator: ", ")) }
    public func increment(_ properties: [String: Any]) { update("$add", MixpanelFindings.names(properties.keys)) }
    public func increment(_ property: String, by amount: NSNumber) { update("$add", property) }
    public func append(_ properties: [String: Any]) { update("$append", MixpanelFindings.names(properties.keys)) }
    public func union(_ properties: [String: Any]) { update("$union", MixpanelFindings.names(properties.keys)) }
    public func remove(_ properties: [String: Any]) { update("$remove", MixpanelFindings.names(properties.keys)) }
    public func trackCharge(_ amount: NSNumber) { trackCharge(amount, withProperties: nil) }
    public func trackCharge(_ amount: NSNumber, withProperties properties: [String: Any]?) { update("$append", "$transactions (\(amount))") }
    public func clearCharges() { update("$set", "$transactions (cleared)") }
    public func deleteUser() { update("$delete", "the whole profile") }
    public func addPushDeviceToken(_ deviceToken: Data) { update("$union", "$ios_devices") }
    public func removeAllPushDeviceTokens() { update("$unset", "$ios_devices") }
    public func removePushDeviceToken(_ deviceToken: Data) { update("$remove", "$ios_devices") }

    private func update(_ operation: String, _ what: String) {
        ExtensionEnvironment.current?.record(MixpanelFindings.peopleUpdate(operation, what, hasToken: !token.isEmpty))
    }
}
