// Apple's UniformTypeIdentifiers is a Clang module over Foundation, which it re-exports: so does this stand-in.
@_exported import Foundation
import NSEPush

/// A uniform type identifier, as `UniformTypeIdentifiers` (iOS 14) describes it. Extensions use it for
/// the attachment type hint: `UNNotificationAttachmentOptionsTypeHintKey: UTType.png.identifier`.
/// File extensions map to identifiers through the same table `UNNotificationAttachment` uses.
public struct UTType: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let identifier: String

    public init?(_ identifier: String) {
        guard !identifier.isEmpty else { return nil }
        self.identifier = identifier
    }

    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.identifier = identifier
    }

    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.identifier = identifier
    }

    private init(known identifier: String) {
        self.identifier = identifier
    }

    /// The type iOS gives a file extension (case-insensitive, without the dot).
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        let fileExtension = filenameExtension.lowercased()
        guard let identifier = AttachmentType(fileExtension: fileExtension)?.identifier
                ?? Self.facts.first(where: { $0.value.extensions.contains(fileExtension) })?.key else { return nil }
        self.identifier = identifier
        guard conforms(to: supertype) else { return nil }
    }

    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        let mime = mimeType.lowercased()
        guard let identifier = Self.facts.first(where: { $0.value.mimeTypes.contains(mime) })?.key else { return nil }
        self.identifier = identifier
        guard conforms(to: supertype) else { return nil }
    }

    public var preferredFilenameExtension: String? { Self.facts[identifier]?.extensions.first }
    public var preferredMIMEType: String? { Self.facts[identifier]?.mimeTypes.first }
    public var tags: [String: [String]] {
        guard let facts = Self.facts[identifier] else { return [:] }
        return ["public.filename-extension": facts.extensions, "public.mime-type": facts.mimeTypes]
    }
    public var isDeclared: Bool { Self.facts[identifier] != nil }
    public var isDynamic: Bool { false }
    public var description: String { identifier }
    public var debugDescription: String { identifier }

    /// The types this one conforms to, nearest first, itself excluded.
    public var supertypes: Set<UTType> {
        var found: Set<UTType> = []
        var pending = Self.facts[identifier]?.parents ?? []
        while let next = pending.popLast() {
            guard found.insert(UTType(known: next)).inserted else { continue }
            pending += Self.facts[next]?.parents ?? []
        }
        return found
    }

    public func conforms(to type: UTType) -> Bool {
        self == type || supertypes.contains(type)
    }

    public func isSupertype(of type: UTType) -> Bool { type.conforms(to: self) }
    public func isSubtype(of type: UTType) -> Bool { self != type && conforms(to: type) }

    private struct Facts {
        var parents: [String]
        var extensions: [String] = []
        var mimeTypes: [String] = []
    }

    /// Apple's declared types that extensions meet: their parents, preferred extension and MIME type first.
    private static let facts: [String: Facts] = [
        "public.item": Facts(parents: []),
        "public.content": Facts(parents: []),
        "public.data": Facts(parents: ["public.item"]),
        "public.image": Facts(parents: ["public.data", "public.content"]),
        "public.jpeg": Facts(parents: ["public.image"], extensions: ["jpeg", "jpg", "jpe"], mimeTypes: ["image/jpeg", "image/jpg"]),
        "public.png": Facts(parents: ["public.image"], extensions: ["png"], mimeTypes: ["image/png"]),
        "com.compuserve.gif": Facts(parents: ["public.image"], extensions: ["gif"], mimeTypes: ["image/gif"]),
        "public.heic": Facts(parents: ["public.heif-standard"], extensions: ["heic"], mimeTypes: ["image/heic"]),
        "public.heif-standard": Facts(parents: ["public.image"]),
        "public.heif": Facts(parents: ["public.heif-standard"], extensions: ["heif"], mimeTypes: ["image/heif"]),
        "org.webmproject.webp": Facts(parents: ["public.image"], extensions: ["webp"], mimeTypes: ["image/webp"]),
        "com.microsoft.bmp": Facts(parents: ["public.image"], extensions: ["bmp"], mimeTypes: ["image/bmp"]),
        "public.tiff": Facts(parents: ["public.image"], extensions: ["tiff", "tif"], mimeTypes: ["image/tiff"]),
        "public.svg-image": Facts(parents: ["public.image"], extensions: ["svg"], mimeTypes: ["image/svg+xml"]),
        "public.audiovisual-content": Facts(parents: ["public.data", "public.content"]),
        "public.audio": Facts(parents: ["public.audiovisual-content"]),
        "public.movie": Facts(parents: ["public.audiovisual-content"]),
        "public.video": Facts(parents: ["public.movie"]),
        "public.mp3": Facts(parents: ["public.audio"], extensions: ["mp3"], mimeTypes: ["audio/mpeg", "audio/mp3"]),
        "public.mpeg-4-audio": Facts(parents: ["public.audio"], extensions: ["m4a"], mimeTypes: ["audio/mp4", "audio/m4a"]),
        "public.aiff-audio": Facts(parents: ["public.audio"], extensions: ["aiff", "aif"], mimeTypes: ["audio/aiff"]),
        "com.microsoft.waveform-audio": Facts(parents: ["public.audio"], extensions: ["wav"], mimeTypes: ["audio/wav", "audio/x-wav"]),
        "public.mpeg": Facts(parents: ["public.movie"], extensions: ["mpg", "mpeg"], mimeTypes: ["video/mpeg"]),
        "public.mpeg-2-video": Facts(parents: ["public.video"], extensions: ["m2v"], mimeTypes: ["video/mpeg2"]),
        "public.mpeg-4": Facts(parents: ["public.movie"], extensions: ["mp4"], mimeTypes: ["video/mp4"]),
        "public.avi": Facts(parents: ["public.movie"], extensions: ["avi"], mimeTypes: ["video/avi", "video/x-msvideo"]),
        "com.apple.quicktime-movie": Facts(parents: ["public.movie"], extensions: ["mov"], mimeTypes: ["video/quicktime"]),
        "public.text": Facts(parents: ["public.data", "public.content"]),
        "public.plain-text": Facts(parents: ["public.text"], extensions: ["txt"], mimeTypes: ["text/plain"]),
        "public.json": Facts(parents: ["public.text"], extensions: ["json"], mimeTypes: ["application/json"]),
        "public.html": Facts(parents: ["public.text"], extensions: ["html", "htm"], mimeTypes: ["text/html"]),
        "public.url": Facts(parents: ["public.data"]),
        "public.file-url": Facts(parents: ["public.url"]),
    ]

    public static let item = UTType(known: "public.item")
    public static let content = UTType(known: "public.content")
    public static let data = UTType(known: "public.data")
    public static let image = UTType(known: "public.image")
    public static let jpeg = UTType(known: "public.jpeg")
    public static let png = UTType(known: "public.png")
    public static let gif = UTType(known: "com.compuserve.gif")
    public static let heic = UTType(known: "public.heic")
    public static let heif = UTType(known: "public.heif")
    public static let webP = UTType(known: "org.webmproject.webp")
    public static let bmp = UTType(known: "com.microsoft.bmp")
    public static let tiff = UTType(known: "public.tiff")
    public static let svg = UTType(known: "public.svg-image")
    public static let audiovisualContent = UTType(known: "public.audiovisual-content")
    public static let audio = UTType(known: "public.audio")
    public static let movie = UTType(known: "public.movie")
    public static let video = UTType(known: "public.video")
    public static let mp3 = UTType(known: "public.mp3")
    public static let mpeg4Audio = UTType(known: "public.mpeg-4-audio")
    public static let aiff = UTType(known: "public.aiff-audio")
    public static let wav = UTType(known: "com.microsoft.waveform-audio")
    public static let mpeg = UTType(known: "public.mpeg")
    public static let mpeg2Video = UTType(known: "public.mpeg-2-video")
    public static let mpeg4Movie = UTType(known: "public.mpeg-4")
    public static let avi = UTType(known: "public.avi")
    public static let quickTimeMovie = UTType(known: "com.apple.quicktime-movie")
    public static let text = UTType(known: "public.text")
    public static let plainText = UTType(known: "public.plain-text")
    public static let json = UTType(known: "public.json")
    public static let html = UTType(known: "public.html")
    public static let url = UTType(known: "public.url")
    public static let fileURL = UTType(known: "public.file-url")
}

extension URL {
    /// `url.appendingPathExtension(for: .png)`: the type's preferred extension.
    public func appendingPathExtension(for contentType: UTType) -> URL {
        guard let fileExtension = contentType.preferredFilenameExtension else { return self }
        return appendingPathExtension(fileExtension)
    }
}
