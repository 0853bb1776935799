import Foundation

/// The parts of the final HTTP response that decide the attachment's name and type.
public struct ResponseHead: Sendable, Hashable {
    public var status: Int
    /// Lowercased header names; a repeated header keeps its last value.
    public var headers: [String: String]
    /// The URL after redirects.
    public var url: URL

    /// Package-wide (not only the fetcher's) so the media fuzz target can name a response without a download.
    package init(status: Int, headers: [String: String], url: URL) {
        self.status = status
        self.headers = headers
        self.url = url
    }

    /// The media type without parameters, lowercased, as `URLResponse.mimeType` gives it.
    public var mimeType: String? {
        guard let value = headers["content-type"] else { return nil }
        let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The file name in Content-Disposition (`filename*=` preferred over `filename=`), without any path.
    public var dispositionFilename: String? {
        guard let value = headers["content-disposition"] else { return nil }
        var plain: String?
        var extended: String?
        for parameter in value.split(separator: ";") {
            let parts = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            let name = parts[0].lowercased()
            let raw = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            if name == "filename*" {
                // RFC 5987: charset'language'percent-encoded-value
                let encoded = raw.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false).last.map(String.init) ?? raw
                extended = encoded.removingPercentEncoding
            } else if name == "filename" {
                plain = raw
            }
        }
        guard let name = extended ?? plain else { return nil }
        // Split on the separators themselves, not on Characters: a prepended mark (U+0600 to U+0605, ...) makes
        // "\u{600}/" one Character that is not "/", so "a\u{600}/b" passed whole, separator and all.
        let components = name.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        return components.last.map { String(Substring($0)) }
    }

    /// What Foundation's `URLResponse.suggestedFilename` returns for this response.
    ///
    /// Content-Disposition's filename, else the URL's last path component, else its host, else "unknown";
    /// with `profile.suggestedFilenameAddsMIMEExtension`, an extension for the MIME type is appended to a
    /// name that has none.
    public func suggestedFilename(profile: DeviceProfile) -> String {
        var name: String
        if let disposition = dispositionFilename {
            name = disposition
        } else if !url.lastPathComponent.isEmpty, url.lastPathComponent != "/" {
            name = url.lastPathComponent
        } else if let host = url.host, !host.isEmpty {
            name = host
        } else {
            name = "unknown"
        }
        if profile.suggestedFilenameAddsMIMEExtension, Self.pathExtension(of: name).isEmpty,
           let mime = mimeType, let ext = Self.preferredExtension[mime] {
            name += "." + ext
        }
        return name
    }

    /// NSString's `pathExtension`: the text after the last dot of the last component, "" for none. Looked for
    /// among the Unicode scalars, as NSString does among its UTF-16 units: a dot followed by a combining mark is
    /// one Character, but still a dot.
    package static func pathExtension(of name: String) -> String {
        let scalars = name.unicodeScalars
        guard let dot = scalars.lastIndex(of: "."), dot != scalars.startIndex else { return "" }
        return String(Substring(scalars[scalars.index(after: dot)...]))
    }

    /// The extension Apple's type system prefers for a MIME type (lower case, without parameters).
    static func preferredExtension(forMIMEType mimeType: String) -> String? {
        preferredExtension[mimeType]
    }

    /// The extension Apple's type system prefers for a MIME type.
    private static let preferredExtension: [String: String] = [
        "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/pjpeg": "jpeg", "image/png": "png", "image/gif": "gif",
        "image/webp": "webp", "image/heic": "heic", "image/heif": "heif", "image/bmp": "bmp", "image/tiff": "tiff",
        "image/svg+xml": "svg", "video/mp4": "mp4", "video/mpeg": "mpeg", "video/x-msvideo": "avi",
        "audio/mpeg": "mp3", "audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/wav": "wav", "audio/x-wav": "wav",
        "audio/aiff": "aiff", "audio/x-aiff": "aiff", "text/html": "html", "text/plain": "txt",
        "application/json": "json",
    ]
}
