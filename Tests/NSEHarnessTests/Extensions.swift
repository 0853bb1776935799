// Extensions written exactly as apps write them for iOS, each misbehaving in one way users hit.
import FirebaseMessaging
import Foundation
import Synchronization
import UserNotifications

/// Firebase's documented extension.
class FirebaseService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)
        if let bestAttemptContent = bestAttemptContent {
            bestAttemptContent.title = "\(bestAttemptContent.title) [modified]"
            bestAttemptContent.badge = 3
            bestAttemptContent.interruptionLevel = .timeSensitive
            bestAttemptContent.relevanceScore = 0.8
            Messaging.serviceExtension().populateNotificationContent(bestAttemptContent, withContentHandler: contentHandler)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}

/// Forgets to call the handler anywhere.
class SilentService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let content = request.content.mutableCopy() as? UNMutableNotificationContent
        content?.title = "never shown"
    }
}

/// Calls the handler twice.
class TwiceService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let first = request.content.mutableCopy() as! UNMutableNotificationContent
        first.title = "first"
        contentHandler(first)
        let second = request.content.mutableCopy() as! UNMutableNotificationContent
        second.title = "second"
        contentHandler(second)
    }
}

/// Does slow work synchronously and relies on serviceExtensionTimeWillExpire().
class SleepyService: UNNotificationServiceExtension {
    // The expiry call comes on another thread while didReceive still sleeps (as on iOS): the lock orders every
    // use of the two fields and of the content, which both calls hand over (ThreadSanitizer found the race).
    private let lock = Mutex(())
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        lock.withLock { _ in
            self.contentHandler = contentHandler
            bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
            bestAttemptContent?.title = "best attempt"
        }
        Thread.sleep(forTimeInterval: 3)
        lock.withLock { _ in
            bestAttemptContent?.title = "too late"
            contentHandler(bestAttemptContent!)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        lock.withLock { _ in
            if let contentHandler, let bestAttemptContent {
                contentHandler(bestAttemptContent)
            }
        }
    }
}

/// Cancels its download in the expiry call and, after a little more work there, delivers the best attempt; the
/// cancelled download's completion has delivered it first, on its own thread. Both calls come within the grace.
class CancellingExpiryService: UNNotificationServiceExtension {
    private let lock = Mutex(())
    private var task: URLSessionDownloadTask?
    private var contentHandler: ((UNNotificationContent) -> Void)?
    private var bestAttemptContent: UNMutableNotificationContent?
    private let completed = DispatchSemaphore(value: 0)

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let best = request.content.mutableCopy() as? UNMutableNotificationContent
        best?.title = "best attempt"
        let url = URL(string: request.content.userInfo["image_url"] as? String ?? "")!
        let task = URLSession.shared.downloadTask(with: url) { [self] _, _, _ in
            if let best { contentHandler(best) }
            completed.signal()
        }
        lock.withLock { _ in
            self.contentHandler = contentHandler
            bestAttemptContent = best
            self.task = task
        }
        task.resume()
    }

    override func serviceExtensionTimeWillExpire() {
        lock.withLock { _ in task?.cancel() }
        _ = completed.wait(timeout: .now() + 10)
        Thread.sleep(forTimeInterval: 0.2)
        lock.withLock { _ in
            if let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
        }
    }
}

/// Downloads nothing, attaches a local file it wrote itself: the file name comes from the payload's `file` key.
class LocalFileService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        let source = request.content.userInfo["file"] as? String ?? ""
        let hint = request.content.userInfo["hint"] as? String
        let deleteFirst = request.content.userInfo["delete"] as? Bool ?? false
        do {
            var options: [AnyHashable: Any] = [:]
            if let hint { options[UNNotificationAttachmentOptionsTypeHintKey] = hint }
            if let rect = request.content.userInfo["clip"] as? [Double] {
                options[UNNotificationAttachmentOptionsThumbnailClippingRectKey] = CGRect(x: rect[0], y: rect[1], width: rect[2], height: rect[3])
            }
            if let hidden = request.content.userInfo["hidden"] as? Bool { options[UNNotificationAttachmentOptionsThumbnailHiddenKey] = hidden }
            if let time = request.content.userInfo["time"] { options[UNNotificationAttachmentOptionsThumbnailTimeKey] = time }
            let attachment = try UNNotificationAttachment(identifier: "local", url: URL(fileURLWithPath: source), options: options)
            content.attachments = [attachment]
            if deleteFirst { try FileManager.default.removeItem(atPath: source) }
        } catch let error as UNError {
            content.body = "UNError \(error.errorCode)"
        } catch {
            content.body = "other error"
        }
        contentHandler(content)
    }
}

/// Attaches the one file named by the payload's `file` key twice, under two identifiers.
class TwiceAttachedFileService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        let file = URL(fileURLWithPath: request.content.userInfo["file"] as? String ?? "")
        content.attachments = ["first", "second"].compactMap { try? UNNotificationAttachment(identifier: $0, url: file) }
        contentHandler(content)
    }
}

/// Holds a large buffer while it works, as an extension decoding a big image itself would.
class GreedyService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        // A 40-megapixel RGBA bitmap: 160 MB, touched so it is really resident.
        let pixels = [UInt8](repeating: 0x7F, count: 40_000_000 * 4)
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        content.subtitle = "checksum \(pixels[pixels.count / 2])"
        contentHandler(content)
    }
}

/// Exports delivery metrics the way Firebase's documentation suggests.
class MetricsService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        Messaging.serviceExtension().exportDeliveryMetricsToBigQuery(withMessageInfo: request.content.userInfo)
        contentHandler(request.content)
    }
}

/// Holds 48 MB, twice the device's limit, while it works: the memory tests' cheaper stand-in for GreedyService.
class HungryService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let buffer = [UInt8](repeating: 0x5A, count: 48 * 1_048_576)
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        content.subtitle = "checksum \(buffer[buffer.count / 2])"
        contentHandler(content)
    }
}

/// Blocks in `didReceive` until the test releases it (the payload's `hold` names the latch), then delivers:
/// a run that is certainly in progress while the test starts another.
class HoldService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let hold = Latch.named(request.content.userInfo["hold"] as? String ?? "")
        hold?.arriveAndWaitForRelease()
        contentHandler(request.content)
    }
}

/// Sets its attachment (the payload's `file`) on the best attempt and delivers it only from the expiry call.
class ExpiryOnlyService: UNNotificationServiceExtension, @unchecked Sendable {
    // Set in didReceive, read in serviceExtensionTimeWillExpire, which the harness calls after didReceive returned.
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        content.title = "late"
        if let path = request.content.userInfo["file"] as? String,
           let attachment = try? UNNotificationAttachment(identifier: "late", url: URL(fileURLWithPath: path)) {
            content.attachments = [attachment]
        }
        bestAttemptContent = content
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
    }
}
