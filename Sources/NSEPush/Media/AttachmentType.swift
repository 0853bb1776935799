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
