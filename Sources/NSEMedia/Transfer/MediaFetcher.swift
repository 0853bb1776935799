import Foundation
import CCurl
import CNSE
import NSEConcurrency
import NSEPush
import Synchronization

/// A completed download: the response that produced it and what was written to disk.
public struct FetchedMedia: Sendable {
    public var head: ResponseHead
    public var file: URL
    public var bytes: Int
    public var sha256: String
    /// The first bytes of the body, for telling the real format from the name and MIME type.
    public var prefix: [UInt8]
    public var redirects: Int
    /// How long the transfer took, when a batch started it before the push that takes it (`BatchRunner.readAhead`):
    /// that push's own wait was shorter. nil: the transfer was the push's own, or one it joined.
    public var transferDuration: Duration?
}

/// What an app's `URLRequest` carries besides its URL.
public struct HTTPRequestParts: Sendable, Hashable {
    public var method = "GET"
    /// Header fields in the order set; the fetcher adds its own only where these have none.
    public var headers: [HTTPHeaderField] = []
    public var body: Data?

    public init(method: String = "GET", headers: [HTTPHeaderField] = [], body: Data? = nil) {
        self.method = method
        self.headers = headers
        self.body = body
    }
}

public struct HTTPHeaderField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A response as an app's `URLSession` task receives it: the final head, and the body in memory or in a file.
public struct FetchedResponse: Sendable {
    public var head: ResponseHead
    /// The body, for a transfer kept in memory; nil when it went to a file.
    public var body: Data?
    public var bytes: Int
    public var redirects: Int
}

/// Downloads media with libcurl the way an extension's URLSession download task does: follows redirects,
/// streams the body to a file, and stops at the time budget or the attachment size limit.
public struct MediaFetcher: Sendable {
    public var profile: DeviceProfile
    public var hostMapping: MediaHostMapping?
    /// What carries the transfers: libcurl's, unless a unit test scripts the responses (`ScriptedTransport`).
    package var transport: any MediaTransport = CurlTransport()
    /// When set (by a batch), `fetch` does not fetch a URL already fetched with the same profile and mapping:
    /// the cache hands out its own copy of the earlier download.
    public var cache: SharedMediaCache?

    public init(profile: DeviceProfile, hostMapping: MediaHostMapping? = nil) {
        self.profile = profile
        self.hostMapping = hostMapping
    }

    /// Cancels every transfer of this fetcher when set (a batch's Ctrl-C), including blocking ones that no
    /// task cancellation reaches.
    public var cancellation: TransferCancellation?

    /// Downloads `url` into `destination` before `deadline` on the network thread; cancelling the task aborts it.
    ///
    /// - Parameter sizeLimit: the most bytes to accept for a response, decided once its headers are in
    ///   (the limit depends on the type iOS will see). The transfer stops as soon as it is exceeded.
    public func fetch(
        _ url: URL,
        to destination: URL,
        deadline: ContinuousClock.Instant,
        sizeLimit: @escaping @Sendable (ResponseHead) -> Int
    ) async throws(MediaFetchError) -> FetchedMedia {
        guard !Task.isCancelled else { throw .cancelled }
        let taskCancellation = TransferCancellation()
        let fetcher = self
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                fetcher.fetch(url, to: destination, deadline: deadline, cancellations: [taskCancellation], sizeLimit: sizeLimit) {
                    continuation.resume(returning: $0)
                }
            }
        } onCancel: {
            taskCancellation.cancel()
        }
        return try result.get()
    }

    /// Downloads `url` into `destination` and calls `completion` once with the outcome, holding no thread while
    /// the transfer runs. The completion runs on the network thread: it must hand longer work to the executor.
    /// With a `cache`, a URL already fetched (or being fetched) is not fetched again: the cache hands out its
    /// own copy.
    public func fetch(
        _ url: URL,
        to destination: URL,
        deadline: ContinuousClock.Instant,
        cancellations: [TransferCancellation] = [],
        sizeLimit: @escaping @Sendable (ResponseHead) -> Int,
        completion: @escaping @Sendable (Result<FetchedMedia, MediaFetchError>) -> Void
    ) {
        if let cache {
            cache.fetch(url, to: destination, using: self, deadline: deadline, cancellations: cancellations, sizeLimit: sizeLimit, completion: completion)
            return
        }
        let tokens = cancellations + (cancellation.map { [$0] } ?? [])
        guard !tokens.contains(where: \.isCancelled) else { return completion(.failure(.cancelled)) }
        let request = transferRequest(url, to: destination, deadline: deadline, sizeLimit: sizeLimit)
        transport.start(request, cancellations: tokens) { completion($0.media(file: destination)) }
    }

    /// Makes an app's request on the calling thread, which it blocks (URLSession's tasks run on threads of their
    /// own): its method, headers and body, redirects judged hop by hop as for media, the body into `destination`
    /// or, when nil, into memory. Never served from a batch's cache: the app's requests are its own.
    public func requestBlocking(
        _ url: URL,
        parts: HTTPRequestParts,
        to destination: URL?,
        deadline: ContinuousClock.Instant,
        cancellations: [TransferCancellation],
        sizeLimit: @escaping @Sendable (ResponseHead) -> Int
    ) throws(MediaFetchError) -> FetchedResponse {
        var request = transferRequest(url, to: destination, deadline: deadline, sizeLimit: sizeLimit)
        request.parts = parts
        let tokens = cancellations + (cancellation.map { [$0] } ?? [])
        guard !tokens.contains(where: \.isCancelled) else { throw .cancelled }
        let latch = Latch<Result<TransferResult, MediaFetchError>>()
        transport.start(request, cancellations: tokens) { latch.open($0) }
        let result = try latch.wait().get()
        return FetchedResponse(head: result.head, body: result.body, bytes: result.bytes, redirects: result.redirects)
    }

    private func transferRequest(
        _ url: URL, to destination: URL?, deadline: ContinuousClock.Instant, sizeLimit: @escaping @Sendable (ResponseHead) -> Int
    ) -> TransferRequest {
        let profile = profile
        return TransferRequest(
            deviceURL: url,
            destination: destination,
            deadline: deadline,
            maxRedirects: profile.maxRedirects,
            transportSecurityAllows: { profile.transportSecurityAllows($0) },
            sizeLimit: sizeLimit,
            hostMapping: hostMapping)
    }
}

extension Result where Success == TransferResult {
    /// The media download's view of a transfer into a file.
    func media(file: URL) -> Result<FetchedMedia, Failure> {
        map { FetchedMedia(head: $0.head, file: file, bytes: $0.bytes, sha256: $0.sha256, prefix: $0.prefix, redirects: $0.redirects) }
    }
}

/// What one transfer produced.
package struct TransferResult: Sendable {
    package var head: ResponseHead
    package var bytes: Int
    package var sha256: String
    package var prefix: [UInt8]
    package var redirects: Int
    /// The body, when the transfer had no file to write to.
    package var body: Data?
}

/// One download as the device makes it. The transfer itself may go elsewhere (`hostMapping`), hop by hop.
package struct TransferRequest: Sendable {
    /// The URL the device loads first (the payload's).
    package var deviceURL: URL
    /// The file the body goes to; nil keeps it in memory (bounded by `sizeLimit`).
    package var destination: URL?
    package var deadline: ContinuousClock.Instant
    package var maxRedirects: Int
    /// App Transport Security's verdict on each URL the device would load: the first, and every redirect hop.
    package var transportSecurityAllows: @Sendable (URL) -> Bool
    package var sizeLimit: @Sendable (ResponseHead) -> Int
    package var hostMapping: MediaHostMapping?
    /// The app's method, headers and body; a plain GET for media.
    package var parts = HTTPRequestParts()

    /// Where the transfer for the device's `url` goes: the loopback server under a host mapping, else `url`.
    func transferURL(for url: URL) -> URL {
        hostMapping?.transferURL(for: url) ?? url
    }
}

/// Set when the task waiting for a transfer is cancelled (Ctrl-C); libcurl's progress callback then aborts it.
public final class TransferCancellation: Sendable {
    private let flag = Atomic(false)

    public init() {}

    public func cancel() {
        flag.store(true, ordering: .relaxed)
        // The network thread looks at cancellations when it wakes: now, not at its next turn.
        TransferEngine.shared.wake()
    }

    public var isCancelled: Bool {
        flag.load(ordering: .relaxed)
    }
}

