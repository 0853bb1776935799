import Foundation
import NSEPush

/// Why `UNNotificationAttachment(identifier:url:options:)` throws, with the UNError code iOS uses.
public enum AttachmentCreationError: Error, Sendable, Equatable {
    /// UNError 100: the URL is not a file that exists.
    case invalidURL
    /// UNError 101: the file extension (or type hint) names no type iOS knows, or one it refuses.
    case unrecognizedType(fileExtension: String, known: AttachmentType?)
    /// UNError 102: the file is larger than its category allows.
    case invalidFileSize(bytes: Int, limit: Int, category: AttachmentType.Category)

    public var unErrorCode: Int {
        switch self {
        case .invalidURL: 100
        case .unrecognizedType: 101
        case .invalidFileSize: 102
        }
    }
}

/// A local file accepted as an attachment, with what the system needs to validate it later.
public struct StagedAttachment: Sendable {
    public var attachment: Attachment
    public var localFile: URL
    public var attachmentType: AttachmentType
    /// The format the file's bytes really have.
    public var format: MediaFormat
    public var mimeType: String?

    package init(attachment: Attachment, localFile: URL, attachmentType: AttachmentType, format: MediaFormat, mimeType: String?) {
        self.attachment = attachment
        self.localFile = localFile
        self.attachmentType = attachmentType
        self.format = format
        self.mimeType = mimeType
    }
}

extension StagedAttachment {
    /// Stages a file an extension attached, reading its first bytes to learn what it really holds.
    public init(attachment: Attachment, localFile: URL, attachmentType: AttachmentType, mimeType: String? = nil) {
        var head: [UInt8] = []
        if let handle = try? FileHandle(forReadingFrom: localFile) {
            head = Array((try? handle.read(upToCount: MediaFormat.sniffLength)) ?? Data())
            try? handle.close()
        }
        self.init(
            attachment: attachment, localFile: localFile, attachmentType: attachmentType,
            format: MediaFormat.sniff(head), mimeType: mimeType)
    }
}

/// Creates attachments as `UNNotificationAttachment(identifier:url:options:)` does: the type comes from the
/// file extension unless a type hint names one; the size must fit the type's category.
public enum AttachmentCreation {
    public static func create(
        identifier: String,
        file: URL,
        typeHint: String? = nil,
        profile: DeviceProfile
    ) throws(AttachmentCreationError) -> (Attachment, AttachmentType) {
        guard let size = FileSize.of(file) else {
            throw .invalidURL
        }
        let fileExtension = file.pathExtension
        let type = typeHint.flatMap { AttachmentType.reading(typeHint: $0, profile: profile).type } ?? AttachmentType(fileExtension: fileExtension)
        guard let type, let category = type.category else {
            throw .unrecognizedType(fileExtension: fileExtension, known: type)
        }
        let limit = profile.acceptedSizeLimit(for: category)
        guard size <= limit else {
            throw .invalidFileSize(bytes: size, limit: limit, category: category)
        }
        let attachment = Attachment(
            identifier: identifier, file: nil, type: type.identifier, bytes: size,
            width: nil, height: nil, frames: nil, sha256: "")
        return (attachment, type)
    }
}

extension AttachmentType {
    /// The type a TypeHintKey names, if iOS knows it.
    public init?(identifier: String) {
        let known = ["jpg", "png", "gif", "aiff", "wav", "mp3", "m4a", "mpg", "m2v", "mp4", "avi", "webp", "heic", "bmp", "svg", "tiff"]
            .compactMap(AttachmentType.init(fileExtension:))
        guard let match = known.first(where: { $0.identifier == identifier }) else { return nil }
        self = match
    }
}

/// What `UNNotificationAttachment` makes of a `UNNotificationAttachmentOptionsTypeHintKey` value.
public enum TypeHintReading: Sendable, Equatable {
    /// A type identifier iOS knows: it types the file.
    case typeIdentifier(AttachmentType)
    /// A MIME type, read as its UTI by assumption (`DeviceProfile.typeHintReadsMIMEType`).
    case mimeType(AttachmentType)
    /// Nothing iOS knows (or a MIME type under the other reading): the file goes by its extension.
    case ignored

    /// The type the hint gives the file, if any.
    public var type: AttachmentType? {
        switch self {
        case .typeIdentifier(let type), .mimeType(let type): type
        case .ignored: nil
        }
    }
}

extension AttachmentType {
    /// The one reading of a type hint, shared by attachment creation and the findings that explain it.
    public static func reading(typeHint: String, profile: DeviceProfile) -> TypeHintReading {
        if let type = AttachmentType(identifier: typeHint) { return .typeIdentifier(type) }
        guard profile.typeHintReadsMIMEType, let type = AttachmentType(mimeType: typeHint) else { return .ignored }
        return .mimeType(type)
    }

    /// The type a MIME type names (`image/jpeg` is public.jpeg), case and parameters ignored; nil when unknown.
    public init?(mimeType: String) {
        let essence = mimeType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard let fileExtension = ResponseHead.preferredExtension(forMIMEType: essence) else { return nil }
        self.init(fileExtension: fileExtension)
    }
}
