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
