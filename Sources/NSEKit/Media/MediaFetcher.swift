import CCurl
import CNSE
import Foundation
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
    /// When set (by a batch), `fetchBlocking` does not fetch a URL already fetched with the same profile and mapping:
    /// the cache hands out its own copy of the earlier download.
    public var cache: SharedMediaCache?

    public init(profile: DeviceProfile, hostMapping: MediaHostMapping? = nil) {
        self.profile = profile
        self.hostMapping = hostMapping
    }

    /// Cancels every transfer of this fetcher when set (a batch's Ctrl-C), including blocking ones that no
    /// task cancellation reaches.
    public var cancellation: TransferCancellation?

    /// Downloads `url` into `destination` before `deadline`, on a thread of its own; cancelling the task aborts it.
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
        let request = transferRequest(url, to: destination, deadline: deadline, sizeLimit: sizeLimit)
        let taskCancellation = TransferCancellation()
        let tokens = [taskCancellation] + (cancellation.map { [$0] } ?? [])
        // libcurl's easy interface blocks: it runs on a thread of its own, never on Swift's cooperative pool.
        let result = await withTaskCancellationHandler {
            await onOwnThread("nse.fetch") { CurlTransfer(request, cancellations: tokens).run().media(file: destination) }
        } onCancel: {
            taskCancellation.cancel()
        }
        return try result.get()
    }

    /// Downloads on the calling thread, which it blocks: for code that runs on a thread of its own, as
    /// URLSession's callbacks do on iOS, and must not wait for Swift's cooperative pool. With a `cache`, a URL
    /// already fetched (or being fetched) is not fetched again: the cache hands out its own copy.
    public func fetchBlocking(
        _ url: URL,
        to destination: URL,
        deadline: ContinuousClock.Instant,
        sizeLimit: @escaping @Sendable (ResponseHead) -> Int
    ) throws(MediaFetchError) -> FetchedMedia {
        if let cache {
            var uncached = self
            uncached.cache = nil
            return try cache.fetch(url, to: destination, using: uncached, deadline: deadline, sizeLimit: sizeLimit)
        }
        guard !(cancellation?.isCancelled ?? false) else { throw .cancelled }
        let request = transferRequest(url, to: destination, deadline: deadline, sizeLimit: sizeLimit)
        return try CurlTransfer(request, cancellations: cancellation.map { [$0] } ?? []).run().media(file: destination).get()
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
        let result = try CurlTransfer(request, cancellations: tokens).run().get()
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
struct TransferResult: Sendable {
    var head: ResponseHead
    var bytes: Int
    var sha256: String
    var prefix: [UInt8]
    var redirects: Int
    /// The body, when the transfer had no file to write to.
    var body: Data?
}

/// One download as the device makes it. The transfer itself may go elsewhere (`hostMapping`), hop by hop.
struct TransferRequest: Sendable {
    /// The URL the device loads first (the payload's).
    var deviceURL: URL
    /// The file the body goes to; nil keeps it in memory (bounded by `sizeLimit`).
    var destination: URL?
    var deadline: ContinuousClock.Instant
    var maxRedirects: Int
    /// App Transport Security's verdict on each URL the device would load: the first, and every redirect hop.
    var transportSecurityAllows: @Sendable (URL) -> Bool
    var sizeLimit: @Sendable (ResponseHead) -> Int
    var hostMapping: MediaHostMapping?
    /// The app's method, headers and body; a plain GET for media.
    var parts = HTTPRequestParts()

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
    }

    public var isCancelled: Bool {
        flag.load(ordering: .relaxed)
    }
}

/// One libcurl easy transfer. Used only by the thread that runs it, from `run()` to its return.
private final class CurlTransfer {
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

    private let request: TransferRequest
    private let cancellations: [TransferCancellation]
    private var handle: UnsafeMutableRawPointer?
    private var descriptor: Int32 = -1
    /// The body, when there is no file to write it to.
    private var body: Data?
    /// The method of the current hop: a 303 (and a 301/302 after POST) turns it into GET, as URLSession does.
    private var method: String
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let hasher = SHA256()
    private var received = 0
    private var prefix: [UInt8] = []
    private var status = 0
    private var headers: [String: String] = [:]
    private var limit: Int?
    private var failure: MediaFetchError?
    private var headerBytes = 0
    /// The URL the device has reached: the payload's, then each redirect's.
    private var deviceURL: URL

    private var isCancelled: Bool { cancellations.contains { $0.isCancelled } }

    init(_ request: TransferRequest, cancellations: [TransferCancellation]) {
        self.request = request
        self.cancellations = cancellations
        deviceURL = request.deviceURL
        method = request.parts.method.uppercased()
    }

    deinit {
        curl_slist_free_all(headerList)
    }

    /// Follows redirects itself rather than letting libcurl do it, so every hop is judged as the device would
    /// judge it (App Transport Security, the schemes URLSession follows, the redirect limit) on the URL the
    /// device would load, and every hop of a host-mapped transfer stays on the mapped (loopback) server.
    func run() -> Result<TransferResult, MediaFetchError> {
        guard Self.globalInit == CURLE_OK, let handle = curl_easy_init() else {
            return .failure(.network("libcurl could not be initialised"))
        }
        self.handle = handle
        defer { curl_easy_cleanup(handle) }

        if let destination = request.destination {
            descriptor = open(destination.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                return .failure(.cannotSave("cannot create \(destination.path): \(String(cString: strerror(errno)))"))
            }
        } else {
            body = Data()
        }
        defer { if descriptor >= 0 { close(descriptor) } }

        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }
        configure(handle, errorBuffer: errorBuffer)

        var redirects = 0
        while true {
            let remaining = ContinuousClock.now.duration(to: request.deadline)
            guard remaining > .zero else { return .failure(.timeout(received: received)) }
            let milliseconds = max(1, Int(saturating: remaining / .milliseconds(1)))
            _ = cnse_curl_setopt_string(handle, CURLOPT_URL, request.transferURL(for: deviceURL).absoluteString)
            _ = cnse_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
            _ = cnse_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
            setMethod(handle)
            errorBuffer[0] = 0
            status = 0
            headers = [:]
            headerBytes = 0
            limit = nil
            let code = curl_easy_perform(handle)
            if let failure { return .failure(failure) }
            if code != CURLE_OK { return .failure(error(for: code, errorText: String(cString: errorBuffer))) }
            guard let location = redirectLocation else { break }

            // The device resolves Location against the URL it loaded; an absolute Location that names the
            // mapped server stands for the payload's own origin.
            guard let resolved = URL(string: location, relativeTo: deviceURL)?.absoluteURL else {
                return .failure(.network("the server redirected to \"\(location)\", which is not a URL"))
            }
            let next = request.hostMapping?.deviceURL(for: resolved, original: deviceURL) ?? resolved
            redirects += 1
            guard redirects <= request.maxRedirects else { return .failure(.tooManyRedirects(limit: request.maxRedirects)) }
            guard ["http", "https"].contains(next.scheme?.lowercased() ?? "") else { return .failure(.unsupportedRedirect(next)) }
            guard request.transportSecurityAllows(next) else { return .failure(.insecureRedirect(next)) }
            if status == 303 || (method == "POST" && (status == 301 || status == 302)) { method = "GET" }
            deviceURL = next
        }
        return .success(TransferResult(
            head: responseHead(), bytes: received, sha256: hasher.finalizeHex(), prefix: prefix, redirects: redirects,
            body: body))
    }

    /// The hop's method and body: the app's for the first hop, GET without a body after a redirect that says so.
    private func setMethod(_ handle: UnsafeMutableRawPointer) {
        // Back to a plain GET first: a handle keeps what an earlier hop set.
        _ = cnse_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        _ = cnse_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, nil)
        switch method {
        case "GET":
            break
        case "HEAD":
            _ = cnse_curl_setopt_long(handle, CURLOPT_NOBODY, 1)
        default:
            let body = method == request.parts.method.uppercased() ? request.parts.body ?? Data() : Data()
            _ = cnse_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            if body.isEmpty {
                _ = cnse_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
            } else {
                // libcurl copies the bytes: the Data need not outlive this call.
                _ = body.withUnsafeBytes { bytes in
                    cnse_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
            }
            if method != "POST" { _ = cnse_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method) }
        }
    }

    /// The options every hop shares; the URL and time-outs are set per hop.
    private func configure(_ handle: UnsafeMutableRawPointer, errorBuffer: UnsafeMutablePointer<CChar>) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = cnse_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = cnse_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = cnse_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = cnse_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        // URLSession asks for compressed bodies and saves them decoded; so does this.
        _ = cnse_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        _ = cnse_curl_setopt_string(handle, CURLOPT_USERAGENT, "nse (Notification Service Extension emulator)")
        // 256 KiB instead of 16 KiB per read: a 10 MB image takes 40 write callbacks (and write(2) calls), not 640.
        _ = cnse_curl_setopt_long(handle, CURLOPT_BUFFERSIZE, 256 * 1024)
        for field in request.parts.headers {
            headerList = curl_slist_append(headerList, "\(field.name): \(field.value)")
        }
        if let headerList { _ = cnse_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList) }
        _ = cnse_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        _ = cnse_curl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        }
        _ = cnse_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = cnse_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        }
        // libcurl calls this at least once a second, even on a stalled connection: non-zero aborts the transfer.
        _ = cnse_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
        _ = cnse_curl_setopt_progress_callback(handle) { context, _, _, _, _ in
            guard let context else { return 0 }
            return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
        }
    }

    /// One header line. A status line starts a new response (an interim 1xx response has its own).
    private func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        headerBytes += line.count
        guard headerBytes <= Self.maxHeaderBytes else {
            failure = .headersTooLarge(limit: Self.maxHeaderBytes)
            return false
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            let fields = text.split(separator: " ")
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            headers = [:]
            limit = nil
        } else if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon].lowercased()
            headers[name] = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        } else if text.isEmpty, redirectLocation == nil {
            return checkAnnouncedLength()
        }
        return true
    }

    /// The most header bytes one response may have: libcurl's own limit for a header line, applied to the
    /// whole section so the refusal is ours, with our words, whatever libcurl's version does.
    static let maxHeaderBytes = 100 * 1024

    /// Where the current response sends the device: URLSession follows 301, 302, 303, 307 and 308 with a Location.
    private var redirectLocation: String? {
        guard [301, 302, 303, 307, 308].contains(status) else { return nil }
        return headers["location"]
    }

    /// Refuses a body whose Content-Length already exceeds the limit, before a byte of it arrives.
    private func checkAnnouncedLength() -> Bool {
        let limit = currentLimit()
        if let declared = headers["content-length"].flatMap(Int.init), declared > limit {
            failure = .tooLarge(limit: limit, declared: declared)
            return false
        }
        return true
    }

    private func currentLimit() -> Int {
        if let limit { return limit }
        let decided = request.sizeLimit(responseHead())
        limit = decided
        return decided
    }

    private func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        // A redirect's own body is read and dropped, as URLSession does; an endless one still ends with the budget.
        if redirectLocation != nil { return true }
        let limit = currentLimit()
        guard received + chunk.count <= limit else {
            failure = .tooLarge(limit: limit, declared: headers["content-length"].flatMap(Int.init))
            return false
        }
        if body != nil {
            body?.append(contentsOf: chunk)
            received += chunk.count
            return true
        }
        var offset = 0
        while offset < chunk.count {
            let written = write(descriptor, chunk.baseAddress! + offset, chunk.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = .cannotSave("cannot write \(request.destination?.path ?? "the body"): \(String(cString: strerror(errno)))")
                return false
            }
            offset += written
        }
        if prefix.count < MediaFormat.sniffLength {
            prefix.append(contentsOf: chunk.prefix(MediaFormat.sniffLength - prefix.count))
        }
        hasher.update(chunk)
        received += chunk.count
        return true
    }

    private func responseHead() -> ResponseHead {
        ResponseHead(status: status, headers: headers, url: deviceURL)
    }

    private func error(for code: CURLcode, errorText: String) -> MediaFetchError {
        let detail = errorText.isEmpty ? String(cString: curl_easy_strerror(code)) : errorText
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout(received: received)
        case CURLE_PARTIAL_FILE:
            return .truncated(expected: headers["content-length"].flatMap(Int.init), received: received)
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled
        case CURLE_OUT_OF_MEMORY:
            // What libcurl answers for a single header line over its limit, before our header callback sees it.
            return .headersTooLarge(limit: Self.maxHeaderBytes)
        default:
            return .network(detail)
        }
    }
}
