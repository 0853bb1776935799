import Foundation
import NSEKit
import UniformTypeIdentifiers
import UserNotifications

/// Downloads every media item at once and prepares its attachment; the first item that fails fails them all
/// (Airship runs them in a throwing task group), so the notification keeps none of the payload's changes.
struct AirshipNotificationMutationProvider: Sendable {
    /// The file name endings Airship trusts without a type hint (matched as suffixes, dot or not).
    static let supportedExtensions = ["jpg", "jpeg", "png", "gif", "aif", "aiff", "mp3", "mpg", "mpeg", "mp4", "m4a", "wav", "avi"]

    let logger: AirshipExtensionLogger

    /// A prepared attachment: created (and so checked) only when the changes are applied.
    struct Prepared: @unchecked Sendable {
        // Unchecked: the options hold only strings, numbers, booleans and dictionaries of them, never mutated.
        var identifier: String
        var url: URL
        var options: [String: Any]
    }

    struct Mutations: Sendable {
        var title: String?
        var subtitle: String?
        var body: String?
        var attachments: [Prepared]

        /// Attachments first, each created as iOS does; one that throws stops everything before the text changes.
        func apply(to content: UNMutableNotificationContent) throws {
            let made = try attachments.map { try UNNotificationAttachment(identifier: $0.identifier, url: $0.url, options: $0.options) }
            content.attachments.append(contentsOf: made)
            if let title { content.title = title }
            if let subtitle { content.subtitle = subtitle }
            if let body { content.body = body }
        }
    }

    func mutations(for payload: MediaAttachmentPayload) async throws -> Mutations {
        let prepared = try await withThrowingTaskGroup(of: Prepared.self) { group in
            for item in payload.media {
                group.addTask { try await load(item, options: payload.attachmentOptions(for: item)) }
            }
            var done: [Prepared] = []
            for try await item in group {
                try Task.checkCancellation()
                done.append(item)
            }
            return done
        }
        return Mutations(title: payload.title, subtitle: payload.subtitle, body: payload.body, attachments: prepared)
    }

    private func load(_ item: MediaAttachmentPayload.Media, options: [String: Any]) async throws -> Prepared {
        try Task.checkCancellation()
        let session = URLSession(configuration: .default, delegate: nil, delegateQueue: nil)
        let (location, response) = try await session.download(from: item.url)
        try Task.checkCancellation()
        // The download keeps its temporary name, with "-" and the URL's last path component appended.
        let file = URL(fileURLWithPath: location.path + "-" + item.url.lastPathComponent)
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        try FileManager.default.moveItem(at: location, to: file)
        var options = options
        let name = file.lastPathComponent.lowercased()
        if !Self.supportedExtensions.contains(where: { name.hasSuffix($0) }) {
            let hint = typeHint(for: file, mimeType: response.mimeType ?? (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"))
            ExtensionEnvironment.current?.record(AirshipFindings.typeHint(item.url, hint: hint, mimeType: response.mimeType))
            if let hint { options[UNNotificationAttachmentOptionsTypeHintKey] = hint.identifier }
        }
        return Prepared(identifier: item.urlID ?? "", url: file, options: options)
    }

    /// The MIME type's type when its usual extension is one Airship trusts, else the type of the first bytes.
    private func typeHint(for file: URL, mimeType: String?) -> AirshipFindings.Hint? {
        if let mimeType, let type = UTType(mimeType: mimeType), let fileExtension = type.preferredFilenameExtension,
           Self.supportedExtensions.contains(fileExtension) {
            return .init(identifier: type.identifier, source: .mimeType)
        }
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        let head = Array((try? handle.read(upToCount: 16)) ?? Data())
        return FileHeader.known.first { $0.matches(head) }.map { .init(identifier: $0.type, source: .bytes) }
    }
}

/// The magic numbers Airship recognises: JPEG only with a JFIF (E0) or ICC (E2) or E3 segment first, so an Exif
/// JPEG (FF D8 FF E1) is not one.
private struct FileHeader {
    let type: String
    let offset: Int
    let headers: [[UInt8]]

    func matches(_ bytes: [UInt8]) -> Bool {
        headers.contains { header in
            bytes.count >= offset + header.count && Array(bytes[offset..<(offset + header.count)]) == header
        }
    }

    static let known = [
        FileHeader(type: "public.jpeg", offset: 0, headers: [[0xFF, 0xD8, 0xFF, 0xE0], [0xFF, 0xD8, 0xFF, 0xE2], [0xFF, 0xD8, 0xFF, 0xE3]]),
        FileHeader(type: "public.png", offset: 0, headers: [[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]]),
        FileHeader(type: "com.compuserve.gif", offset: 0, headers: [[0x47, 0x49, 0x46, 0x38]]),
        FileHeader(type: "public.aiff-audio", offset: 0, headers: [[0x46, 0x4F, 0x52, 0x4D, 0x00]]),
        FileHeader(type: "com.microsoft.waveform-audio", offset: 8, headers: [[0x57, 0x41, 0x56, 0x45]]),
        FileHeader(type: "public.avi", offset: 8, headers: [[0x41, 0x56, 0x49, 0x20]]),
        FileHeader(type: "public.mp3", offset: 0, headers: [[0x49, 0x44, 0x33]]),
        FileHeader(type: "public.mpeg-4", offset: 4, headers: [
            [0x66, 0x74, 0x79, 0x70, 0x6D, 0x70, 0x34, 0x31], [0x66, 0x74, 0x79, 0x70, 0x6D, 0x70, 0x34, 0x32],
            [0x66, 0x74, 0x79, 0x70, 0x6D, 0x6D, 0x70, 0x34], [0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6F, 0x6D],
        ]),
        FileHeader(type: "public.mpeg-4-audio", offset: 4, headers: [[0x66, 0x74, 0x79, 0x70, 0x4D, 0x34, 0x41, 0x20]]),
        FileHeader(type: "public.mpeg", offset: 0, headers: [[0x00, 0x00, 0x01, 0xBA], [0x00, 0x00, 0x01, 0xB3]]),
    ]
}
