import Foundation
import Synchronization
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

    /// Downloads every item at once; `completion` gets the mutations once all are prepared, or the first error
    /// (the other downloads are cancelled, as the task group's are). Returns what the expiry call cancels.
    /// The work runs on the downloads' own threads (callbacks, as URLSession delivers them), so it never waits
    /// for Swift's shared executor.
    func mutations(for payload: MediaAttachmentPayload, completion: @escaping @Sendable (Result<Mutations, any Error>) -> Void) -> Cancellation {
        let progress = Progress(count: payload.media.count, completion: completion)
        guard !payload.media.isEmpty else {
            completion(.success(Mutations(title: payload.title, subtitle: payload.subtitle, body: payload.body, attachments: [])))
            return progress
        }
        let session = URLSession(configuration: .default, delegate: nil, delegateQueue: nil)
        for item in payload.media {
            let options = UncheckedOptions(payload.attachmentOptions(for: item))
            let task = session.downloadTask(with: item.url) { location, response, error in
                progress.finish(Result {
                    if let error { throw error }
                    guard let location, let response else { throw URLError(.unknown) }
                    return try prepare(item, location: location, response: response, options: options.value)
                }, text: payload)
            }
            progress.track(task)
            task.resume()
        }
        return progress
    }

    /// The download keeps its temporary name, with "-" and the URL's last path component appended; moved before
    /// the download's handler returns (and deletes it).
    private func prepare(_ item: MediaAttachmentPayload.Media, location: URL, response: URLResponse, options: [String: Any]) throws -> Prepared {
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

    /// What the expiry call cancels: the downloads still running.
    protocol Cancellation: Sendable {
        func cancel()
    }

    /// The items done so far: the first error, or the last success, ends it once.
    private final class Progress: Cancellation {
        /// Unchecked: only touched under `state`'s lock.
        private struct State: @unchecked Sendable {
            var remaining: Int
            var done: [Prepared] = []
            var tasks: [URLSessionDownloadTask] = []
            var ended = false
        }

        private let state: Mutex<State>
        private let completion: @Sendable (Result<Mutations, any Error>) -> Void

        init(count: Int, completion: @escaping @Sendable (Result<Mutations, any Error>) -> Void) {
            state = Mutex(State(remaining: count))
            self.completion = completion
        }

        func track(_ task: URLSessionDownloadTask) {
            state.withLock { $0.tasks.append(task) }
        }

        func finish(_ item: Result<Prepared, any Error>, text payload: MediaAttachmentPayload) {
            let (outcome, others): (Result<Mutations, any Error>?, [URLSessionDownloadTask]) = state.withLock { state in
                guard !state.ended else { return (nil, []) }
                switch item {
                case .failure(let error):
                    state.ended = true
                    return (.failure(error), state.tasks)
                case .success(let prepared):
                    state.done.append(prepared)
                    state.remaining -= 1
                    guard state.remaining == 0 else { return (nil, []) }
                    state.ended = true
                    return (.success(Mutations(title: payload.title, subtitle: payload.subtitle, body: payload.body, attachments: state.done)), [])
                }
            }
            others.forEach { $0.cancel() }
            if let outcome { completion(outcome) }
        }

        func cancel() {
            let tasks = state.withLock { state in
                state.ended = true
                return state.tasks
            }
            tasks.forEach { $0.cancel() }
        }
    }

    /// Unchecked: attachment options hold only strings, numbers, booleans and dictionaries of them, never mutated.
    private struct UncheckedOptions: @unchecked Sendable {
        let value: [String: Any]
        init(_ value: [String: Any]) { self.value = value }
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
