/// What a file really holds, told from its first bytes (magic numbers), whatever its name or MIME type says.
public enum MediaFormat: String, Sendable, Codable {
    case jpeg, png, gif, webp, heic, bmp, tiff, svg, html, json, mp4, m4a, mp3, wav, aiff, avi, mpeg
    case unknown

    /// The bytes to read before calling `sniff`.
    public static let sniffLength = 512

    /// The extensions under which iOS would accept these bytes; empty when iOS refuses them as attachments.
    public var matchingTypeIdentifiers: Set<String> {
        switch self {
        case .jpeg: ["public.jpeg"]
        case .png: ["public.png"]
        case .gif: ["com.compuserve.gif"]
        case .mp4: ["public.mpeg-4"]
        case .m4a: ["public.mpeg-4-audio"]
        case .mp3: ["public.mp3"]
        case .wav: ["com.microsoft.waveform-audio"]
        case .aiff: ["public.aiff-audio"]
        case .avi: ["public.avi"]
        case .mpeg: ["public.mpeg", "public.mpeg-2-video"]
        case .webp, .heic, .bmp, .tiff, .svg, .html, .json, .unknown: []
        }
    }

    /// The MIME types a server should send for an image of this format; empty for non-images.
    public var imageMIMETypes: Set<String> {
        switch self {
        case .jpeg: ["image/jpeg", "image/jpg", "image/pjpeg"]
        case .png: ["image/png", "image/x-png"]
        case .gif: ["image/gif"]
        case .webp: ["image/webp"]
        case .heic: ["image/heic", "image/heif", "image/avif"]
        case .bmp: ["image/bmp", "image/x-ms-bmp"]
        case .tiff: ["image/tiff"]
        case .svg: ["image/svg+xml"]
        default: []
        }
    }

    /// The extension a file of this format should carry, for fix-it messages.
    public var conventionalExtension: String? {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        case .heic: "heic"
        case .bmp: "bmp"
        case .tiff: "tiff"
        case .svg: "svg"
        case .html: "html"
        case .json: "json"
        case .mp4: "mp4"
        case .m4a: "m4a"
        case .mp3: "mp3"
        case .wav: "wav"
        case .aiff: "aiff"
        case .avi: "avi"
        case .mpeg: "mpg"
        case .unknown: nil
        }
    }

    /// A human name for messages.
    public var displayName: String {
        switch self {
        case .html: "an HTML page"
        case .json: "JSON text"
        case .unknown: "data of no recognised format"
        default: "a \(rawValue.uppercased()) file"
        }
    }

    public static func sniff<Bytes: Collection<UInt8>>(_ head: Bytes) -> MediaFormat {
        let bytes = Array(head.prefix(sniffLength))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) { return .gif }
        if starts(ascii("RIFF")) {
            if starts(ascii("WEBP"), at: 8) { return .webp }
            if starts(ascii("WAVE"), at: 8) { return .wav }
            if starts(ascii("AVI "), at: 8) { return .avi }
        }
        if starts(ascii("FORM")), starts(ascii("AIFF"), at: 8) || starts(ascii("AIFC"), at: 8) { return .aiff }
        if starts(ascii("ftyp"), at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "hevx", "mif1", "msf1", "avif"].contains(brand) { return .heic }
            if brand.hasPrefix("M4A") { return .m4a }
            return .mp4
        }
        if starts(ascii("BM")), bytes.count >= 14 { return .bmp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(ascii("ID3")) || starts([0xFF, 0xFB]) || starts([0xFF, 0xF3]) || starts([0xFF, 0xF2]) { return .mp3 }
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return .mpeg }
        return sniffText(bytes)
    }

    private static func sniffText(_ bytes: [UInt8]) -> MediaFormat {
        var text = String(decoding: bytes, as: UTF8.self).lowercased()
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        text = String(text.drop { $0.isWhitespace })
        if text.hasPrefix("<svg") || (text.hasPrefix("<?xml") && text.contains("<svg")) { return .svg }
        if text.hasPrefix("<!doctype html") || text.hasPrefix("<html") || text.hasPrefix("<head") || text.hasPrefix("<body") {
            return .html
        }
        if text.hasPrefix("{") || text.hasPrefix("[") { return .json }
        return .unknown
    }
}
