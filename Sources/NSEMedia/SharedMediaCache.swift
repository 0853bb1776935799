import Foundation
import NSEConcurrency
import NSEPush
import Synchronization

/// The media a batch has already downloaded and validated, so a URL used by many pushes is fetched once and
/// its file decoded once, while each push still gets its own attachment file and its own result.
///
/// Downloads are keyed by URL (with the device profile and host mapping, which decide how it is fetched);
/// validations by the files' SHA-256 and everything else the verdict depends on, so two URLs serving the same
/// bytes are decoded once too. A push asking for a URL whose download is in flight waits for that download
/// rather than starting its own. No HTTP revalidation (ETag, Last-Modified) is done: within one batch a URL
/// is fetched once.
///
/// A download's outcome is shared whatever it is, time-outs included: the first push's transfer had the
/// whole time budget (pushes of a batch share one profile, and a push fetches at once), so a later push would
/// have timed out too. Only cancelled transfers and local write failures are retried.
///
/// The cache assumes its one caller's size-limit rule, which depends only on the response and the profile
/// (Firebase's helper). Files live in `directory` until the batch removes it.
public final class SharedMediaCache: Sendable {
    /// How much the cache saved.
    public struct Statistics: Sendable, Hashable, Codable {
        /// Pushes that asked for a download.
        public var downloadsRequested = 0
        /// Transfers made.
        public var downloadsMade = 0
        /// Pushes whose attachments were validated.
        public var validationsRequested = 0
        /// Validations run (every row decoded).
        public var validationsMade = 0

        public init(downloadsRequested: Int = 0, downloadsMade: Int = 0, validationsRequested: Int = 0, validationsMade: Int = 0) {
            self.downloadsRequested = downloadsRequested
            self.downloadsMade = downloadsMade
            self.validationsRequested = validationsRequested
            self.validationsMade = validationsMade
        }
    }

    struct DownloadKey: Hashable, Sendable {
        var url: String
        var profile: DeviceProfile
        var hostMapping: MediaHostMapping?
    }

    /// Everything `SystemValidation` looks at, apart from the bytes themselves, which the SHA-256 stands for.
    struct ValidationKey: Hashable, Sendable {
        struct Item: Hashable, Sendable {
            var sha256: String
            var identifier: String
            var fileName: String
            var bytes: Int
            var typeIdentifier: String
            var format: MediaFormat
            var mimeType: String?
        }

        var items: [Item]
        var profile: DeviceProfile
    }

    struct Validation: Sendable {
        var kept: [Attachment]
        var diagnostics: [Diagnostic]
    }

    public let directory: URL
    private let downloads = SingleFlight<DownloadKey, Result<FetchedMedia, MediaFetchError>>()
    private let validations = SingleFlight<ValidationKey, Validation>()
    private let counters = Mutex(Statistics())
    /// How long each download started ahead of its push (`prefetch`) took, until a push takes it.
    private let ahead = Mutex<[DownloadKey: Duration]>([:])
    private let nextFile = Atomic(0)
    /// Decoding is CPU work: one at a time per core, on the process's executor.
    ///
    /// Why not Swift's cooperative pool: a decode holds its thread for up to a second of C code, and on Linux the
    /// pool (like `DispatchQueue.concurrentPerform`) was measured keeping fewer decodes running than there are
    /// cores (a 2-core machine decoded a corpus in 5.6 s through it, 3.7 s on two threads of its own).
    private let decoding = ExecutorLane(width: ProcessInfo.processInfo.activeProcessorCount)

    /// Whether `directory` exists (made by `init(directory:)`, or by the first download).
    private let directoryMade = Atomic(false)

    /// Keeps the cached files in `directory`, which is created if needed.
    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        directoryMade.store(true, ordering: .relaxed)
    }

    /// The same, with `directory` made at the first download: a cache that may download nothing (`nse serve` makes
    /// one for each burst of pushes, most of them text) costs no file system call. A directory that cannot be made
    /// fails each download as a file that cannot be saved.
    package init(directoryMadeAtFirstDownload directory: URL) {
        self.directory = directory
    }

    public var statistics: Statistics {
        counters.withLock { $0 }
    }

    /// `fetcher.fetch(url, to: destination, ...)`, done once per URL: `destination` receives a hard link to (or,
    /// across file systems, a copy of) the cached file. `completion` runs on the thread that finished the download.
    func fetch(
        _ url: URL, to destination: URL, using fetcher: MediaFetcher, deadline: ContinuousClock.Instant,
        cancellations: [TransferCancellation], sizeLimit: @escaping @Sendable (ResponseHead) -> Int,
        completion: @escaping @Sendable (Result<FetchedMedia, MediaFetchError>) -> Void
    ) {
        let key = DownloadKey(url: url.absoluteString, profile: fetcher.profile, hostMapping: fetcher.hostMapping)
        let download = transfer(url, using: fetcher, deadline: deadline, cancellations: cancellations, sizeLimit: sizeLimit)
        downloads.value(for: key, keep: Self.isShareable, compute: download) { [self] result, shared in
            // The first push to ask for a download started ahead of it takes that download as its own.
            let aheadTook = shared ? ahead.withLock { $0.removeValue(forKey: key) } : nil
            counters.withLock { counters in
                counters.downloadsRequested += 1
                if !shared { counters.downloadsMade += 1 }
            }
            completion(result.flatMap { media in
                var media = media
                do {
                    try Self.link(media.file, to: destination)
                } catch {
                    return .failure(.cannotSave("cannot copy the downloaded file to \(destination.path): \(error.localizedDescription)"))
                }
                media.file = destination
                media.transferDuration = aheadTook
                return .success(media)
            })
        }
    }

    /// Starts the download `fetch` will be asked for by a push still queued, as that push would start it (the
    /// same key, size limit and a whole time budget from now: `deadline`), so the push finds it in flight or
    /// done. Nothing happens when the URL is already downloaded or in flight.
    package func prefetch(_ planned: PlannedDownload, using fetcher: MediaFetcher, deadline: ContinuousClock.Instant) {
        let key = DownloadKey(url: planned.url.absoluteString, profile: fetcher.profile, hostMapping: fetcher.hostMapping)
        let download = transfer(planned.url, using: fetcher, deadline: deadline, cancellations: [], sizeLimit: planned.sizeLimit)
        downloads.value(for: key, keep: Self.isShareable) { [self] finish in
            let started = ContinuousClock.now
            download { [self] result in
                // Recorded before any waiting push is handed the download; a result not kept is not taken.
                if Self.isShareable(result) { ahead.withLock { $0[key] = started.duration(to: .now) } }
                finish(result)
            }
        } deliver: { [self] _, shared in
            if !shared { counters.withLock { $0.downloadsMade += 1 } }
        }
    }

    /// The transfer behind a download key: into a new file of the cache's, removed again if the download failed,
    /// by `fetcher` without this cache (the one place the cache reaches the network).
    private func transfer(
        _ url: URL, using fetcher: MediaFetcher, deadline: ContinuousClock.Instant, cancellations: [TransferCancellation],
        sizeLimit: @escaping @Sendable (ResponseHead) -> Int
    ) -> SingleFlight<DownloadKey, Result<FetchedMedia, MediaFetchError>>.Compute {
        var uncached = fetcher
        uncached.cache = nil
        return { [self, uncached] finish in
            if !directoryMade.load(ordering: .relaxed) {
                try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                directoryMade.store(true, ordering: .relaxed)
            }
            let file = directory.appending(path: "media-\(nextFile.add(1, ordering: .relaxed).newValue)")
            uncached.fetch(url, to: file, deadline: deadline, cancellations: cancellations, sizeLimit: sizeLimit) { result in
                if case .failure = result { try? FileManager.default.removeItem(at: file) }
                finish(result)
            }
        }
    }

    /// `SystemValidation.validate(staged, profile:)`, run once per distinct set of files.
    package func validation(of staged: [StagedAttachment], profile: DeviceProfile) async -> (kept: [Attachment], diagnostics: [Diagnostic]) {
        guard !staged.isEmpty else { return ([], []) }
        counters.withLock { $0.validationsRequested += 1 }
        let items = staged.map { item in
            ValidationKey.Item(
                sha256: item.attachment.sha256, identifier: item.attachment.identifier,
                fileName: item.localFile.lastPathComponent, bytes: item.attachment.bytes,
                typeIdentifier: item.attachmentType.identifier, format: item.format, mimeType: item.mimeType)
        }
        let validate: SingleFlight<ValidationKey, Validation>.Compute = { [decoding] finish in
            decoding.execute("nse.decode") {
                let (kept, diagnostics) = SystemValidation.validate(staged, profile: profile)
                finish(Validation(kept: kept, diagnostics: diagnostics))
            }
        }
        // A file without a digest cannot be recognised again: validate it on its own.
        guard items.allSatisfy({ !$0.sha256.isEmpty }) else {
            counters.withLock { $0.validationsMade += 1 }
            let validation = await withCheckedContinuation { continuation in validate { continuation.resume(returning: $0) } }
            return (validation.kept, validation.diagnostics)
        }
        let answer = await validations.value(for: ValidationKey(items: items, profile: profile), keep: { _ in true }) { [self] finish in
            counters.withLock { $0.validationsMade += 1 }
            validate(finish)
        }
        return (answer.value.kept, answer.value.diagnostics)
    }

    private static func isShareable(_ result: Result<FetchedMedia, MediaFetchError>) -> Bool {
        switch result {
        case .failure(.cancelled), .failure(.cannotSave): false
        default: true
        }
    }

    /// A hard link costs no copy; a cache on another file system than the destination falls back to copying.
    private static func link(_ source: URL, to destination: URL) throws {
        // unlink(2) first: FileManager's removal builds an error object for the usual case, nothing there.
        if unlink(destination.path) != 0, errno != ENOENT { try? FileManager.default.removeItem(at: destination) }
        if Foundation.link(source.path, destination.path) == 0 { return }
        try FileManager.default.copyItem(at: source, to: destination)
    }
}

extension SharedMediaCache.Statistics {
    /// No shared downloads: runs that did not go through a batch's media cache.
    public static let none = SharedMediaCache.Statistics()
}
