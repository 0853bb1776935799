@_exported import Foundation
import Synchronization
import UserNotifications
import NSEBatch
import NSEMedia
import NSEPipeline
import NSEPush
import NSEReports

/// Airship's notification service extension (urbanairship/ios-library, AirshipExtensions/
/// AirshipNotificationServiceExtension). Apps subclass it, optionally overriding `airshipConfig`:
/// `class NotificationService: UANotificationServiceExtension {}`.
///
/// Reads `com.urbanairship.media_attachment`: `url` (a string or strings) or `urls` ([{url, url_id}]),
/// `thumbnail_id`, `options` {crop, time, hidden}, `content` {title, subtitle, body}. Downloads every item at
/// once; types a file by its name, else by its MIME type, else by its first bytes. Any failure, and the expiry
/// call, deliver the original content: a best attempt is never shown. (Airship runs this in a Swift task; the
/// stand-in runs it on the downloads' callbacks, so its timing never depends on Swift's shared executor.)
open class UANotificationServiceExtension: UNNotificationServiceExtension {
    open var airshipConfig: AirshipExtensionConfig { .init() }

    private let onExpire = Mutex<ExpiryAction?>(nil)

    open override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let logger = AirshipExtensionLogger(config: airshipConfig)
        let environment = ExtensionEnvironment.current
        // The downloads and the expiry call race to finish; the handler is called once.
        let finish = OnceContentHandler(contentHandler)
        let original = request.content
        logger.log(.debug, "New request received: \(request.identifier)")
        guard let content = original.mutableCopy() as? UNMutableNotificationContent else {
            finish(original)
            return
        }
        if case .object? = original.payload[MediaAttachmentPayload.key] { environment?.noteImageRequested() }
        let payload: MediaAttachmentPayload
        do {
            guard let found = try MediaAttachmentPayload(userInfo: original.payload) else {
                logger.log(.debug, "Finishing request, no Airship args: \(request.identifier)")
                finish(original)
                return
            }
            payload = found
        } catch {
            environment?.record(AirshipFindings.invalidPayload(error.reason))
            logger.log(.error, "Failed to apply mutations to request \(request.identifier): \(error)")
            finish(content)
            return
        }
        logger.log(.info, "Found Airship arguments for request \(request.identifier)")
        let delivery = UncheckedContent(content)
        let downloads = AirshipNotificationMutationProvider(logger: logger).mutations(for: payload) { outcome in
            guard !finish.isDone else { return }
            do {
                try outcome.get().apply(to: delivery.content)
            } catch {
                environment?.record(AirshipFindings.failure(error, items: payload.media.count))
                logger.log(.error, "Failed to apply mutations to request \(request.identifier): \(error)")
            }
            logger.log(.info, "Finished processing request: \(request.identifier)")
            finish(delivery.content)
        }
        onExpire.withLock {
            $0 = ExpiryAction {
                logger.log(.error, "serviceExtensionTimeWillExpire expiring, canceling airshipTask")
                guard !finish.isDone else { return }
                downloads.cancel()
                environment?.record(AirshipFindings.expired)
                finish(original)
            }
        }
    }

    open override func serviceExtensionTimeWillExpire() {
        onExpire.withLock { $0 }?.run()
    }
}

/// The content being built, handed to the downloads' threads; only the one that finishes touches it.
private struct UncheckedContent: @unchecked Sendable {
    let content: UNMutableNotificationContent
    init(_ content: UNMutableNotificationContent) { self.content = content }
}

/// What the expiry call does for the request in progress.
private struct ExpiryAction: Sendable {
    let run: @Sendable () -> Void
}

/// The content handler, called at most once from whichever path finishes first.
private final class OnceContentHandler: Sendable {
    /// Unchecked: the handler is only taken out under `handler`'s lock, once.
    private struct Handler: @unchecked Sendable {
        var call: ((UNNotificationContent) -> Void)?
    }

    private let handler: Mutex<Handler>

    init(_ call: @escaping (UNNotificationContent) -> Void) {
        handler = Mutex(Handler(call: call))
    }

    /// True once the handler has been called.
    var isDone: Bool { handler.withLock { $0.call == nil } }

    func callAsFunction(_ content: UNNotificationContent) {
        let call = handler.withLock { held in
            defer { held.call = nil }
            return held.call
        }
        call?(content)
    }
}

extension UNNotificationRequest {
    /// A push from Airship: it has a media attachment, Airship's metadata, or the `_` send identifier.
    public var isAirship: Bool {
        containsAirshipMediaAttachments || content.userInfo["com.urbanairship.metadata"] != nil || content.userInfo["_"] != nil
    }

    /// A push from Airship with `com.urbanairship.media_attachment`.
    public var containsAirshipMediaAttachments: Bool {
        content.userInfo[MediaAttachmentPayload.key] != nil
    }
}
