// Mixpanel.h (the framework's umbrella header) imports Foundation and UIKit, which Swift sees re-exported. UIKit is
// not re-exported here: with Testing in the same file it asks for `_Testing_UIKit`, which exists only on Apple's
// systems (docs/sdks.md, "What an extension can call").
@_exported import Foundation
import NSEPush
import UserNotifications
import NSEPipeline

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

    public override init() {
        token = ""
        super.init()
    }

    init(token: String) {
        self.token = token
        super.init()
    }

    /// `sharedInstanceWithToken:`: the instance the extension tracks with, for that project token.
    public class func sharedInstance(withToken apiToken: String) -> Mixpanel {
        Mixpanel(token: apiToken)
    }

    public func identify(_ distinctId: String) {
        ExtensionEnvironment.current?.log(.info, "identify(\(distinctId))", source: "Mixpanel", subsystem: "com.mixpanel", category: "sdk")
    }

    public func track(_ event: String) {
        track(event, properties: nil)
    }

    public func track(_ event: String, properties: [AnyHashable: Any]?) {
        ExtensionEnvironment.current?.record(MixpanelFindings.trackedCall(event, properties: properties?.count ?? 0, hasToken: !token.isEmpty))
    }

    public func flush() {
        ExtensionEnvironment.current?.log(.info, "flush()", source: "Mixpanel", subsystem: "com.mixpanel", category: "sdk")
    }
}
