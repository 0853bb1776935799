import Foundation
import NSEMedia
import NSEPush
import NSEPipeline

/// The type identifier to use instead of the one the file extension implies (a String UTI).
public let UNNotificationAttachmentOptionsTypeHintKey = "UNNotificationAttachmentOptionsTypeHintKey"
/// Hide the thumbnail (a Bool).
public let UNNotificationAttachmentOptionsThumbnailHiddenKey = "UNNotificationAttachmentOptionsThumbnailHiddenKey"
/// The part of the image used as thumbnail: a normalized rectangle (0...1) as a CGRect or its dictionary form.
public let UNNotificationAttachmentOptionsThumbnailClippingRectKey = "UNNotificationAttachmentOptionsThumbnailClippingRectKey"
/// The frame (animated images) or second (movies) used as thumbnail (a number).
public let UNNotificationAttachmentOptionsThumbnailTimeKey = "UNNotificationAttachmentOptionsThumbnailTimeKey"

/// A file attached to a notification. Creating one checks what iOS checks at that moment: the URL is a file
/// that exists (UNError 100), its extension or type hint names an accepted type (101), and it fits that type's
/// size limit (102). The content itself is validated later, when the extension delivers.
open class UNNotificationAttachment: NSObject, @unchecked Sendable {
    public let identifier: String
    public let url: URL
    /// The type identifier (UTI), such as "public.jpeg".
    public let type: String
    package let staged: StagedAttachment
    package let options: [String: Any]
    /// What must live as long as the attachment: the harness's temporary folder holding its file.
    package var keepsAlive: AnyObject?

    public init(identifier: String, url: URL, options: [AnyHashable: Any]? = nil) throws {
        let environment = ExtensionEnvironment.current
        let profile = environment?.context.profile ?? DeviceProfile()
        var named: [String: Any] = [:]
        for (key, value) in options ?? [:] { named[String(describing: key.base)] = value }
        environment?.noteAttachmentAttempt()
        guard url.isFileURL else {
            environment?.record(.error(.mediaInvalidURL, "UNNotificationAttachment(identifier: \"\(identifier)\", url: \(url.absoluteString)) threw UNError 100: an attachment must be a local file URL."))
            throw UNError(.attachmentInvalidURL)
        }
        let hint = named[UNNotificationAttachmentOptionsTypeHintKey] as? String
        do {
            let (record, attachmentType) = try AttachmentCreation.create(
                identifier: identifier.isEmpty ? UUID().uuidString : identifier, file: url, typeHint: hint, profile: profile)
            self.identifier = record.identifier
            self.url = url
            self.type = attachmentType.identifier
            var attachment = record
            let thumbnail = Self.thumbnailOptions(named)
            attachment.thumbnail = thumbnail.isEmpty ? nil : thumbnail
            self.staged = StagedAttachment(attachment: attachment, localFile: url, attachmentType: attachmentType)
            self.options = named
        } catch {
            environment?.record(Self.describe(error, url: url))
            throw UNError(UNError.Code(rawValue: error.unErrorCode) ?? .attachmentInvalidURL)
        }
        super.init()
        environment?.noteFile(url, .attached, by: "UNNotificationAttachment")
        if let category = staged.attachmentType.category, let warning = profile.sizeAssumption(bytes: staged.attachment.bytes, category: category) {
            environment?.record(warning)
        }
        if let hint, case .mimeType(let read) = AttachmentType.reading(typeHint: hint, profile: profile) {
            environment?.record(Self.mimeTypeHint(hint, read: read, url: url))
        }
        for warning in Self.checkOptions(named) { environment?.record(warning) }
    }

    /// An attachment a helper already created and checked (Firebase's, from its download).
    package init(staged: StagedAttachment) {
        self.identifier = staged.attachment.identifier
        self.url = staged.localFile
        self.type = staged.attachmentType.identifier
        self.staged = staged
        self.options = [:]
        super.init()
    }

    /// The assumption a MIME type as type hint rests on, said where it decides the attachment's type.
    private static func mimeTypeHint(_ hint: String, read: AttachmentType, url: URL) -> Diagnostic {
        .warning(.mediaMIMETypeHint, "UNNotificationAttachmentOptionsTypeHintKey is \"\(hint)\", a MIME type where Apple documents a type identifier (UTI). Assumed: iOS reads it as \(read.identifier) and shows \(url.lastPathComponent) (Batch sends MIME types, and its rich pushes show); `--no-mime-type-hint` judges the other reading, where iOS ignores it and goes by the file's extension. Pass \(read.identifier) to be sure.")
    }

    private static func describe(_ error: AttachmentCreationError, url: URL) -> Diagnostic {
        let name = url.lastPathComponent
        switch error {
        case .invalidURL:
            return .error(.mediaInvalidURL, "UNNotificationAttachment threw UNError 100 for \(name): the file does not exist.")
        case .unrecognizedType(let fileExtension, let known?) where !known.isAccepted:
            return .error(.mediaUnsupportedFormat, "UNNotificationAttachment threw UNError 101 for \(name): .\(fileExtension) (\(known.identifier)) is not an accepted attachment type. Convert it to JPEG, PNG or GIF.")
        case .unrecognizedType:
            return .error(.mediaUnrecognizedType, "UNNotificationAttachment threw UNError 101 for \(name): iOS cannot tell its type from the extension. Give the file .jpg, .png or .gif, or pass UNNotificationAttachmentOptionsTypeHintKey.")
        case .invalidFileSize(let bytes, let limit, let category):
            return .error(.mediaTooLarge, "UNNotificationAttachment threw UNError 102 for \(name): \(bytes) bytes is over the \(limit)-byte limit for \(category.rawValue) attachments.")
        }
    }

    /// The thumbnail options iOS uses, typed for the result; those it ignores are left out (`checkOptions` names them).
    private static func thumbnailOptions(_ options: [String: Any]) -> ThumbnailOptions {
        var thumbnail = ThumbnailOptions()
        if let hidden = options[UNNotificationAttachmentOptionsThumbnailHiddenKey] {
            thumbnail.hidden = (hidden as? Bool) ?? (hidden as? NSNumber)?.boolValue
        }
        if let values = options[UNNotificationAttachmentOptionsThumbnailClippingRectKey].flatMap(rectValues), values.count == 4 {
            let rect = ClippingRect(x: values[0], y: values[1], width: values[2], height: values[3])
            if rect.isNormalized { thumbnail.clippingRect = rect }
        }
        if let time = options[UNNotificationAttachmentOptionsThumbnailTimeKey] {
            thumbnail.time = (time as? Double) ?? (time as? Int).map(Double.init) ?? (time as? NSNumber)?.doubleValue
        }
        return thumbnail
    }

    /// x, y, width, height of a CGRect or its dictionary form; nil for anything else.
    private static func rectValues(_ rect: Any) -> [Double]? {
        if let rect = rect as? CGRect {
            return [rect.origin.x, rect.origin.y, rect.size.width, rect.size.height].map { Double($0) }
        }
        if let dictionary = rect as? [String: Any] {
            return ["X", "Y", "Width", "Height"].compactMap { (dictionary[$0] as? NSNumber)?.doubleValue ?? dictionary[$0] as? Double }
        }
        return nil
    }

    /// Thumbnail options iOS would ignore or misread.
    private static func checkOptions(_ options: [String: Any]) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        if let hidden = options[UNNotificationAttachmentOptionsThumbnailHiddenKey], !(hidden is Bool || hidden is NSNumber) {
            findings.append(.warning(.extensionAttachmentOption, "UNNotificationAttachmentOptionsThumbnailHiddenKey must be a Bool; iOS ignores \(hidden)."))
        }
        if let rect = options[UNNotificationAttachmentOptionsThumbnailClippingRectKey] {
            let values = rectValues(rect)
            if let values, values.count == 4 {
                let (x, y, width, height) = (values[0], values[1], values[2], values[3])
                if !ClippingRect(x: x, y: y, width: width, height: height).isNormalized {
                    findings.append(.warning(.extensionAttachmentOption, "The thumbnail clipping rectangle (\(x), \(y), \(width), \(height)) is not inside the unit square: it is normalized (0...1), not in pixels."))
                }
            } else {
                findings.append(.warning(.extensionAttachmentOption, "UNNotificationAttachmentOptionsThumbnailClippingRectKey must be a CGRect (or its dictionary form); iOS ignores \(rect)."))
            }
        }
        if let time = options[UNNotificationAttachmentOptionsThumbnailTimeKey], !(time is NSNumber || time is Double || time is Int) {
            findings.append(.warning(.extensionAttachmentOption, "UNNotificationAttachmentOptionsThumbnailTimeKey must be a number; iOS ignores \(time)."))
        }
        return findings
    }
}
