extension MediaDirectory {
    /// The Content-Type a CDN would send for a file name, from its extension (case-insensitive).
    ///
    /// Files without an extension, or with one not listed, get `application/octet-stream`, as most CDNs do.
    public static func contentType(forFileName name: String) -> String {
        let base = name.split(separator: "/").last.map(String.init) ?? name
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return "application/octet-stream" }
        switch base[base.index(after: dot)...].lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "heic": return "image/heic"
        case "bmp": return "image/bmp"
        case "svg": return "image/svg+xml"
        case "mp4": return "video/mp4"
        case "mp3": return "audio/mpeg"
        case "json": return "application/json"
        case "html": return "text/html"
        case "txt": return "text/plain"
        default: return "application/octet-stream"
        }
    }
}
