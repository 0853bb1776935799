import Foundation

/// The type identifier (UTI) iOS gives an attachment file, derived from its file extension.
public struct AttachmentType: Sendable, Hashable {
    public enum Category: String, Sendable {
        case image, audio, movie
    }

    public var identifier: String
    /// nil for types iOS does not accept as attachments (WebP, HEIC, BMP, SVG).
    public var category: Category?

    /// What iOS makes of a file extension (case-insensitive, without the dot); nil when it does not know it
    /// at all, which `UNNotificationAttachment` reports as UNError 101 "Unrecognized attachment file type".
    public init?(fileExtension: String) {
        guard let known = Self.byExtension[fileExtension.lowercased()] else { return nil }
        self = known
    }

    init(_ identifier: String, _ category: Category?) {
        self.identifier = identifier
        self.category = category
    }

    public var isAccepted: Bool { category != nil }

    private static let byExtension: [String: AttachmentType] = {
        let jpeg = AttachmentType("public.jpeg", .image)
        let mpeg = AttachmentType("public.mpeg", .movie)
        let aiff = AttachmentType("public.aiff-audio", .audio)
        return [
            "jpg": jpeg, "jpeg": jpeg, "jpe": jpeg,
            "png": AttachmentType("public.png", .image),
            "gif": AttachmentType("com.compuserve.gif", .image),
            "aiff": aiff, "aif": aiff, "aifc": aiff,
            "wav": AttachmentType("com.microsoft.waveform-audio", .audio),
            "mp3": AttachmentType("public.mp3", .audio),
            "m4a": AttachmentType("public.mpeg-4-audio", .audio),
            "mpg": mpeg, "mpeg": mpeg,
            "m2v": AttachmentType("public.mpeg-2-video", .movie),
            "mp4": AttachmentType("public.mpeg-4", .movie),
            "avi": AttachmentType("public.avi", .movie),
            // Known to iOS, refused as attachments.
            "webp": AttachmentType("org.webmproject.webp", nil),
            "heic": AttachmentType("public.heic", nil),
            "heif": AttachmentType("public.heif", nil),
            "bmp": AttachmentType("com.microsoft.bmp", nil),
            "svg": AttachmentType("public.svg-image", nil),
            "tif": AttachmentType("public.tiff", nil),
            "tiff": AttachmentType("public.tiff", nil),
        ]
    }()
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
