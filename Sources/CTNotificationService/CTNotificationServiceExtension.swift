// The Objective-C umbrella header imports UserNotifications, so an extension file that imports only
// CTNotificationService sees UNNotificationRequest: re-exported here for the same reason.
@_exported import UserNotifications
import Foundation
import NSEPush
import Synchronization

/// CleverTap's drop-in Notification Service Extension (CleverTap/CTNotificationService,
/// `CTNotificationService/CTNotificationServiceExtension.m`), subclassed by apps:
/// `class NotificationService: CTNotificationServiceExtension { ... super.didReceive(request, withContentHandler:) }`.
///
/// Read in source: the media is `ct_mediaUrl` with `ct_mediaType` (both required; the key names can be changed with
/// `mediaUrlKey` / `mediaTypeKey`); the file is named from the type (`image` .jpg, `video` .mp4, `audio` .mp3), for
/// any other type from the exact MIME type (image/jpeg .jpeg, image/png .png, image/gif .gif), else with no
/// extension at all; every failure, and the expiry call, deliver the best attempt without an attachment.
open class CTNotificationServiceExtension: UNNotificationServiceExtension {
    /// The payload key of the media URL; nil means `ct_mediaUrl`.
    open var mediaUrlKey: String?
    /// The payload key of the media type; nil means `ct_mediaType`.
    open var mediaTypeKey: String?

    /// The push in progress: set in `didReceive`, read by the download's callback and the expiry call.
    private let inProgress = Mutex<CleverTapRichPush?>(nil)

    open override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let push = CleverTapRichPush(request, contentHandler: contentHandler)
        inProgress.withLock { $0 = push }
        push.run(urlKey: mediaUrlKey ?? CleverTapRichPush.defaultURLKey, typeKey: mediaTypeKey ?? CleverTapRichPush.defaultTypeKey)
    }

    /// The SDK calls the handler with the best attempt, even if the download's callback calls it again later.
    open override func serviceExtensionTimeWillExpire() {
        inProgress.withLock { $0 }?.expire()
    }
}

/// One push handled by `CTNotificationServiceExtension`.
///
/// `@unchecked Sendable`: every stored property is set once in `init` and only read afterwards; the content is
/// shared between the download's callback and the expiry call as it is on iOS.
final class CleverTapRichPush: @unchecked Sendable {
    static let defaultURLKey = SDKDescriptor.clevertap.mediaKey
    static let defaultTypeKey = SDKDescriptor.cleverTapMediaTypeKey

    private let request: UNNotificationRequest
    private let bestAttempt: UNMutableNotificationContent
    private let contentHandler: (UNNotificationContent) -> Void
    private let environment: ExtensionEnvironment?

    init(_ request: UNNotificationRequest, contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.request = request
        bestAttempt = request.content.mutableCopy() as? UNMutableNotificationContent ?? UNMutableNotificationContent()
        self.contentHandler = contentHandler
        environment = ExtensionEnvironment.current ?? request.content.environment
    }

    func run(urlKey: String, typeKey: String) {
        let info = request.content.userInfo
        let urlValue = info[urlKey], typeValue = info[typeKey]
        if urlValue == nil, typeValue == nil {
            environment?.record(.info(.mediaNone, "No `\(urlKey)` and no `\(typeKey)`: CleverTap's extension has nothing to attach."))
            contentHandler(bestAttempt)
            return
        }
        environment?.noteImageRequested()
        guard urlValue != nil, typeValue != nil else {
            let missing = urlValue == nil ? urlKey : typeKey
            environment?.record(.error(.sdkCleverTapMediaKeys, "`\(missing)` is missing: CleverTap's extension needs both `\(urlKey)` and `\(typeKey)` and attaches nothing without either. Add `\"\(missing)\": \(missing == typeKey ? "\"image\"" : "\"https://...\"")` beside `aps`."))
            contentHandler(bestAttempt)
            return
        }
        guard let urlText = urlValue as? String, let mediaType = typeValue as? String else {
            // The Objective-C code sends string messages (URLWithString:, isEqualToString:) to both values.
            environment?.record(.error(.sdkCleverTapMediaKeys, "`\(urlKey)` and `\(typeKey)` must both be strings (found \(Self.describe(urlValue)) and \(Self.describe(typeValue))): CleverTap's Objective-C extension treats them as strings, and is assumed to crash on anything else, so iOS shows the original content."))
            contentHandler(request.content)
            return
        }
        guard let url = URL(string: urlText) else {
            environment?.record(.error(.mediaInvalidURL, "`\(urlKey)` \"\(urlText)\" is not a URL: CleverTap's extension starts a download with no URL, assumed to fail without an attachment."))
            contentHandler(bestAttempt)
            return
        }
        let session = URLSession(configuration: .default)
        session.downloadTask(with: url) { location, response, error in
            self.finish(location: error == nil ? location : nil, response: response, mediaType: mediaType, typeKey: typeKey)
        }.resume()
    }

    private func finish(location: URL?, response: URLResponse?, mediaType: String, typeKey: String) {
        guard let location else {
            // The URLSession stand-in recorded why the download failed.
            contentHandler(bestAttempt)
            return
        }
        let mime = response?.mimeType
        let fileExtension = Self.fileExtension(mediaType: mediaType, mimeType: mime)
        if let note = Self.typeNote(mediaType: mediaType, mimeType: mime, fileExtension: fileExtension, typeKey: typeKey) {
            environment?.record(note)
        }
        let local = URL(fileURLWithPath: location.path + "." + fileExtension)
        // The SDK ignores a failed move; the attachment then fails on the missing file.
        try? FileManager.default.moveItem(at: location, to: local)
        // UNNotificationAttachment records why it throws (UNError 100/101/102).
        if let attachment = try? UNNotificationAttachment(identifier: "", url: local, options: nil) {
            bestAttempt.attachments = [attachment]
        }
        contentHandler(bestAttempt)
    }

    func expire() {
        contentHandler(bestAttempt)
    }

    /// The extension without the dot: from the declared type, else from the exact MIME type, else none.
    static func fileExtension(mediaType: String, mimeType: String?) -> String {
        switch mediaType {
        case "image": return "jpg"
        case "video": return "mp4"
        case "audio": return "mp3"
        default: break
        }
        switch mimeType {
        case "image/jpeg": return "jpeg"
        case "image/png": return "png"
        case "image/gif": return "gif"
        default: return ""
        }
    }

    /// What a team migrating to or from CleverTap should know about how this file was named.
    private static func typeNote(mediaType: String, mimeType: String?, fileExtension: String, typeKey: String) -> Diagnostic? {
        let served = mimeType.map { "served as \($0)" } ?? "served without a MIME type"
        switch mediaType {
        case "image" where mimeType != "image/jpeg":
            return .info(.sdkCleverTapMediaType, "`\(typeKey)` is \"image\", so CleverTap saves the file as .jpg whatever it is (\(served)); iOS reads the bytes, so a PNG or GIF still shows.")
        case "image", "video", "audio":
            return nil
        default:
            if fileExtension.isEmpty {
                return .warning(.sdkCleverTapMediaType, "`\(typeKey)` is \"\(mediaType)\", not image, video or audio, so CleverTap takes the type from the MIME type, which is not exactly image/jpeg, image/png or image/gif (\(served)): the file gets no extension and iOS refuses it (UNError 101). Send \"image\".")
            }
            return .info(.sdkCleverTapMediaType, "`\(typeKey)` is \"\(mediaType)\", not image, video or audio, so CleverTap takes the type from the MIME type (\(served)): .\(fileExtension).")
        }
    }

    private static func describe(_ value: Any?) -> String {
        guard let value else { return "nothing" }
        if let text = value as? String { return "the string \"\(text.prefix(60))\"" }
        return "a value of type \(type(of: value))"
    }
}
