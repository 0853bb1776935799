import Foundation
import CioInternalCommon
import NSEPush
import Synchronization
import NSEPipeline
import NSEMedia
import NSEReports

/// One Customer.io push in the extension (the SDK's `NSEPushCoordinator`): the "delivered" metric and the rich
/// push image side by side, then the content handler once.
///
/// Read in source (customerio-ios, `Sources/MessagingPush/`): the image is `CIO.push.image`, downloaded with an
/// ephemeral session and saved as a UUID + "_" + the response's suggested file name (no suggested name, no image);
/// the attachment (identifier `cio_sdk_...`) REPLACES the content's attachments; any failure leaves the content as it
/// came (the original); on expiry the SDK delivers the composed content if the image step has finished, else the
/// original; the metric is a POST to the CDP API's `/track`.
///
/// `@unchecked Sendable`: the `let`s are set once in `init`; `state` is guarded by its Mutex.
final class CustomerIOPush: @unchecked Sendable {
    private let request: UNNotificationRequest
    private let delivery: (id: String, token: String)
    private let config: MessagingPushConfigOptions
    private let contentHandler: (UNNotificationContent) -> Void
    private let environment: ExtensionEnvironment?
    private let state = Mutex(State())

    private struct State {
        var composed: UNNotificationContent?
        var finished = false
        var session: URLSession?
    }

    /// The delivery fields that make a push Customer.io's (`PushNotification.cioDelivery`).
    static func delivery(in userInfo: [AnyHashable: Any]) -> (id: String, token: String)? {
        guard let id = userInfo[SDKDescriptor.customerIODeliveryIDKey] as? String, let token = userInfo[SDKDescriptor.customerIODeliveryTokenKey] as? String else { return nil }
        return (id, token)
    }

    init(
        _ request: UNNotificationRequest, delivery: (id: String, token: String), config: MessagingPushConfigOptions,
        contentHandler: @escaping (UNNotificationContent) -> Void, environment: ExtensionEnvironment?
    ) {
        self.request = request
        self.delivery = delivery
        self.config = config
        self.contentHandler = contentHandler
        self.environment = environment
    }

    func start() {
        if config.autoTrackPushEvents {
            recordDeliveryMetric()
        } else {
            environment?.log(.info, "Push metrics auto-tracking is disabled: no delivered metric.", source: "CustomerIO", subsystem: "io.customer.sdk", category: "Push")
        }
        composeRichPush()
    }

    /// The delivered metric the SDK would POST (and keep in the app group until the server accepts it). Not sent:
    /// the harness treats it as answered at once, so the handler waits only for the image.
    private func recordDeliveryMetric() {
        let host = config.region == .EU ? "https://cdp-eu.customer.io/v1" : "https://cdp.customer.io/v1"
        let body = #"{"anonymousId": "\#(delivery.id)", "event": "Report Delivery Event", "properties": {"recipient": "\#(delivery.token.prefix(12))...", "metric": "delivered", "deliveryId": "\#(delivery.id)"}}"#
        let key = config.cdpApiKey.isEmpty
            ? " The configuration has no cdpApiKey, so the request carries no usable Authorization (assumed refused): build the config with MessagingPushConfigBuilder(cdpApiKey:)."
            : ""
        let severity: Diagnostic = .info(.sdkCustomerIODeliveryMetric, "Customer.io would POST \(host)/track \(body) with Basic authorization from the cdpApiKey (recorded, not sent; the harness takes it as answered at once).\(key)")
        environment?.record(key.isEmpty ? severity : .warning(.sdkCustomerIODeliveryMetric, severity.message))
    }

    private func composeRichPush() {
        let pushPayload = (request.content.userInfo[SDKDescriptor.customerio.mediaKey] as? [AnyHashable: Any])?["push"] as? [AnyHashable: Any]
        guard let image = pushPayload?["image"] else {
            environment?.record(.info(.mediaNone, "No `CIO.push.image`: Customer.io has no image to attach."))
            composed(unchanged)
            return
        }
        environment?.noteImageRequested()
        guard let text = image as? String, !text.isEmpty, let url = URL(string: text) else {
            environment?.record(.error(.mediaInvalidURL, "`CIO.push.image` is not a URL string: Customer.io attaches nothing and delivers the original content."))
            composed(unchanged)
            return
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForResource = 30
        configuration.timeoutIntervalForRequest = 60
        let session = URLSession(configuration: configuration, delegate: nil, delegateQueue: nil)
        state.withLock { $0.session = session }
        session.downloadTask(with: url) { location, response, _ in
            self.composed(self.attach(location, response))
        }.resume()
    }

    /// A mutable copy of the content as it came: what every failure delivers.
    private var unchanged: UNNotificationContent {
        request.content.mutableCopy() as? UNMutableNotificationContent ?? request.content
    }

    /// The content with the downloaded image as its only attachment, or unchanged when any step fails.
    private func attach(_ location: URL?, _ response: URLResponse?) -> UNNotificationContent {
        guard let location, let suggested = response?.suggestedFilename else {
            // The URLSession stand-in recorded why the download failed.
            return unchanged
        }
        // The SDK saves into FileManager's temporary directory, the extension's own on iOS: the run's tmp folder here.
        let destination = location.deletingLastPathComponent().appendingPathComponent(UUID().uuidString + "_" + suggested)
        guard (try? FileManager.default.moveItem(at: location, to: destination)) != nil,
              let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
            return unchanged
        }
        // The SDK drops an attachment that throws (try? in a compactMap): the push shows without it.
        content.attachments = [try? UNNotificationAttachment(identifier: "cio_sdk_\(UUID().uuidString.prefix(8))", url: destination, options: nil)].compactMap { $0 }
        return content
    }

    /// The image step is done: keep what it composed, then deliver it (the metric is already answered).
    private func composed(_ content: UNNotificationContent) {
        state.withLock { $0.composed = content }
        finish(with: content, because: content.attachments.isEmpty ? "the image could not be downloaded or attached" : nil)
    }

    /// The expiry call: cancels the download and delivers what was composed, else the original content.
    func cancel() {
        let (composed, session) = state.withLock { ($0.composed, $0.session) }
        session?.invalidateAndCancel()
        finish(with: composed ?? request.content, because: composed == nil ? "iOS called serviceExtensionTimeWillExpire() before the image was attached" : nil)
    }

    private func finish(with content: UNNotificationContent, because reason: String?) {
        let first = state.withLock { state in
            // The session's task holds this object through its completion: dropped once, so neither outlives the run.
            defer { state.finished = true; state.session = nil }
            return !state.finished
        }
        guard first else { return }
        let requestedImage = (request.content.userInfo[SDKDescriptor.customerio.mediaKey] as? [AnyHashable: Any]).flatMap { $0["push"] as? [AnyHashable: Any] }?["image"] != nil
        if let reason, requestedImage {
            environment?.record(.warning(.sdkCustomerIOOriginalContent, "Customer.io delivered the original content, without the image, because \(reason)."))
        }
        contentHandler(content)
    }
}
