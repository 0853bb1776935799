@_exported import UserNotifications
import CioInternalCommon
import Foundation
import NSEPush
import NSEMedia

/// What `initializeForExtension` returns: the calls an extension makes (`Sources/MessagingPush/MessagingPushInstance.swift`).
public protocol MessagingPushInstance: AnyObject {
    func registerDeviceToken(_ deviceToken: String)
    func deleteDeviceToken()
    func trackMetric(deliveryID: String, event: Metric, deviceToken: String)
    @discardableResult
    func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) -> Bool
    func serviceExtensionTimeWillExpire()
}

/// Customer.io's push module as a Notification Service Extension uses it (customerio-ios,
/// `Sources/MessagingPush/MessagingPush.swift`, `MessagingPushImplementation.swift`, `PushHandling/`).
///
/// The SDK keeps its configuration in a process-wide singleton; here it is kept per harness run (the run's
/// environment), so parallel tests with different configurations do not see each other's.
public final class MessagingPush: MessagingPushInstance, Sendable {
    public static let shared = MessagingPush()

    static let configKey = "customerio.config"
    static let pushesKey = "customerio.pushes"

    /// Initializes the module for the extension; as in the SDK, only the first call (of the run) counts.
    @discardableResult
    public static func initializeForExtension(withConfig config: MessagingPushConfigOptions) -> MessagingPushInstance {
        guard let environment = ExtensionEnvironment.current else { return shared }
        environment.updateStandInValue(configKey, default: Optional<MessagingPushConfigOptions>.none) { current in
            if current == nil { current = config }
        }
        return shared
    }

    /// Handles a Customer.io push: true when it is one (`CIO-Delivery-ID` and `CIO-Delivery-Token`), and the SDK
    /// then calls `contentHandler` once; false otherwise, and then the SDK does NOT call it (unless the module was
    /// never initialized, when it passes the content through).
    @discardableResult
    public func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) -> Bool {
        let environment = ExtensionEnvironment.current ?? request.content.environment
        guard let config = environment?.standInValue(Self.configKey, as: Optional<MessagingPushConfigOptions>.self) ?? nil else {
            environment?.record(.warning(.sdkCustomerIONotInitialized, "MessagingPush.shared.didReceive was called before MessagingPushAPN.initializeForExtension(withConfig:): the SDK has no implementation, passes the content through unchanged and returns false. Initialize first, in didReceive."))
            contentHandler(request.content)
            return false
        }
        guard let delivery = CustomerIOPush.delivery(in: request.content.userInfo) else {
            environment?.record(.error(.sdkCustomerIONotCIO, "The payload has no string `CIO-Delivery-ID` and `CIO-Delivery-Token`, so it is not a Customer.io push: MessagingPush.didReceive returns false WITHOUT calling the content handler. The documented extension ignores that result, so nothing calls the handler and iOS shows the original content only when the time budget runs out. Call contentHandler(request.content) yourself when didReceive returns false."))
            return false
        }
        let push = CustomerIOPush(request, delivery: delivery, config: config, contentHandler: contentHandler, environment: environment)
        environment?.updateStandInValue(Self.pushesKey, default: [CustomerIOPush]()) { $0.append(push) }
        push.start()
        return true
    }

    // The device token and metric calls post an event to the SDK's event bus (`MessagingPushImplementation.swift`),
    // which the app's CioDataPipelines module handles: the extension itself sends nothing. Before
    // `initializeForExtension` the SDK has no implementation and does nothing.

    public func registerDeviceToken(_ deviceToken: String) {
        postEvent("RegisterDeviceTokenEvent (a device token of \(deviceToken.count) characters)")
    }

    public func deleteDeviceToken() {
        postEvent("DeleteDeviceTokenEvent")
    }

    public func trackMetric(deliveryID: String, event: Metric, deviceToken: String) {
        postEvent("TrackMetricEvent (\(event.rawValue), delivery \(deliveryID))")
    }

    private func postEvent(_ event: String) {
        let environment = ExtensionEnvironment.current
        guard (environment?.standInValue(Self.configKey, as: Optional<MessagingPushConfigOptions>.self) ?? nil) != nil else {
            environment?.record(.warning(.sdkCustomerIONotInitialized, "MessagingPush.shared was called before MessagingPushAPN.initializeForExtension(withConfig:): the SDK has no implementation and drops the \(event). Initialize first, in didReceive."))
            return
        }
        environment?.record(.info(.sdkCustomerIODeliveryMetric, "MessagingPush posts a \(event) to the SDK's event bus, which the app's CioDataPipelines module handles: nothing is sent from the extension (recorded). The delivery metric of a Customer.io push is sent by didReceive itself."))
    }

    /// Stops every push in progress and delivers what each has composed so far (its image, if attached), else
    /// its original content.
    public func serviceExtensionTimeWillExpire() {
        let pushes = ExtensionEnvironment.current?.standInValue(Self.pushesKey, as: [CustomerIOPush].self) ?? []
        pushes.forEach { $0.cancel() }
    }
}
