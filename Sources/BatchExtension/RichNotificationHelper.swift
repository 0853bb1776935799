@_exported import Foundation
import NSEPush
import NSEReports
import UserNotifications
import NSEPipeline

/// Batch's rich notification helper (BatchLabs/Batch-iOS-SDK-Extension 4.x, `Sources/Swift/Rich Notifications/
/// RichNotificationHelper.swift`): downloads `com.batch.at.u` and attaches the downloaded file as it is, typed
/// only by the hint `com.batch.at.t`. Any failure hands back the content it was given.
public class RichNotificationHelper: NSObject, @unchecked Sendable {
    // Stateless per call; the static flag is Batch's public setting, read once per download.

    /// Batch's setting for iOS 13's low data mode (default false: no download on a constrained network). The
    /// emulated network is never constrained, so it changes nothing here.
    nonisolated(unsafe) public static var allowInLowDataMode = false

    /// Batch's own limit on the whole download, shorter than the extension's 30 seconds.
    static let timeoutIntervalSecs = 20
    static let attachmentIdentifier = "batch_rich_attachment"

    public override init() {
        super.init()
    }

    /// Adds the rich attachment to a copy of `content`; on any error, hands back `content` itself with the error.
    public func appendRichData(toContent content: UNNotificationContent, completionHandler: @escaping (UNNotificationContent?, (any Error)?) -> Void) {
        let environment = ExtensionEnvironment.current
        let attachment: (url: URL, type: String)
        do {
            attachment = try Self.attachment(forPayload: content.userInfo, environment: environment)
        } catch {
            completionHandler(content, error)
            return
        }
        if AttachmentType.reading(typeHint: attachment.type, profile: environment?.context.profile ?? DeviceProfile()) == .ignored {
            environment?.record(BatchFindings.unknownTypeHint(attachment.type))
        }
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForResource = TimeInterval(Self.timeoutIntervalSecs)
        let session = URLSession(configuration: configuration)
        session.downloadTask(with: attachment.url) { location, _, error in
            if let error {
                environment?.record(BatchFindings.failure("the download failed (\(BatchFindings.describe(error)))"))
                completionHandler(content, RichDataError.downloadError(underlyingError: error))
                return
            }
            guard let location else {
                completionHandler(content, RichDataError.unknownDownloadError)
                return
            }
            do {
                // The download's own .tmp file, attached before this handler returns and deletes it.
                let made = try UNNotificationAttachment(
                    identifier: Self.attachmentIdentifier, url: location, options: [UNNotificationAttachmentOptionsTypeHintKey: attachment.type])
                guard let mutable = content.mutableCopy() as? UNMutableNotificationContent else {
                    completionHandler(content, RichDataError.unknownError)
                    return
                }
                mutable.attachments.append(made)
                completionHandler(mutable, nil)
            } catch {
                environment?.record(BatchFindings.failure("UNNotificationAttachment threw for the downloaded file with type hint \"\(attachment.type)\""))
                completionHandler(content, error)
            }
        }.resume()
        session.finishTasksAndInvalidate()
    }

    /// A drop-in `didReceive`: the content with its attachment, or the request's own content on any error.
    public func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let environment = ExtensionEnvironment.current
        appendRichData(toContent: request.content) { content, error in
            // Batch prints this line; on a device it goes to the extension's log, here to the run's (stdout is
            // the report's).
            if let error { environment?.log(.error, "Batch - An error occurred while downloading the rich push content: \(error)", source: "BatchExtension") }
            contentHandler(content ?? request.content)
        }
    }

    /// Batch does nothing here (yet): the content handler is not called on expiry.
    public func serviceExtensionTimeWillExpire() {}

    private static func attachment(forPayload payload: [AnyHashable: Any], environment: ExtensionEnvironment?) throws -> (url: URL, type: String) {
        guard let batch = payload[SDKDescriptor.batch.mediaKey] as? [AnyHashable: Any], let at = batch["at"] as? [AnyHashable: Any] else {
            environment?.record(BatchFindings.noRichData(partial: nil))
            throw RichDataError.noRichDataFound
        }
        environment?.noteImageRequested()
        guard let urlString = at["u"] as? String, let type = at["t"] as? String else {
            environment?.record(BatchFindings.noRichData(partial: at["u"] is String ? "`t` (the type hint)" : "`u` (the URL)"))
            throw RichDataError.noRichDataFound
        }
        guard let url = URL(string: urlString) else {
            environment?.record(BatchFindings.failure("`com.batch.at.u` is not a URL"))
            throw RichDataError.invalidRichDataPayload
        }
        return (url, type)
    }
}

/// The helper under its Objective-C name.
public typealias BAERichNotificationHelper = RichNotificationHelper

/// Why Batch added no attachment.
public enum RichDataError: Error, CustomNSError {
    case noRichDataFound
    case invalidRichDataPayload
    case downloadError(underlyingError: any Error)
    case unknownDownloadError
    case unknownError

    public var localizedDescription: String {
        switch self {
        case .noRichDataFound: "No additional data to append found"
        case .invalidRichDataPayload: "The rich data payload was invalid"
        case .downloadError: "Download error. See the underlying error for more info."
        case .unknownError: "Unknown error"
        case .unknownDownloadError: "Unknown download error"
        }
    }

    public static var errorDomain: String { "com.batch.extension.richnotificationhelper" }
}
