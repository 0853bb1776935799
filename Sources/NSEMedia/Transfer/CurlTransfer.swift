import Foundation
import CCurl
import CNSE
import NSEPush

/// One download, hop by hop, driven by the network thread (`TransferEngine`): `start` opens the file and the
/// easy handle, `beginHop` sets up each hop, `finishHop` judges it (redirect, failure, done).
///
/// Handed to the network thread when submitted and used only there afterwards (callbacks included), until
/// `completion` is called once with the result. What each hop means is `HopRules`'; this type only drives libcurl.
final class CurlTransfer: @unchecked Sendable {
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

    private let cancellations: [TransferCancellation]
    let completion: @Sendable (Result<TransferResult, MediaFetchError>) -> Void
    private(set) var handle: UnsafeMutableRawPointer?
    private var descriptor: Int32 = -1
    private var errorBuffer: UnsafeMutablePointer<CChar>?
    /// The body, when there is no file to write it to.
    private var body: Data?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let hasher = SHA256()
    /// Gathers the body's writes (`TransferEngine`'s, set by `start`).
    private var writer: BodyWriter?
    private var received = 0
    private var prefix: [UInt8] = []
    private var status = 0
    private var headers: [String: String] = [:]
    private var limit: Int?
    private var failure: MediaFetchError?
    private var headerBytes = 0
    /// The device's view of the transfer: where it is, how many redirects, the method; and every hop's rules.
    private var rules: HopRules

    var isCancelled: Bool { cancellations.contains { $0.isCancelled } }

    init(_ request: TransferRequest, cancellations: [TransferCancellation], completion: @escaping @Sendable (Result<TransferResult, MediaFetchError>) -> Void) {
        self.cancellations = cancellations
        self.completion = completion
        rules = HopRules(request)
    }

    deinit {
        if let handle { curl_easy_cleanup(handle) }
        curl_slist_free_all(headerList)
        if descriptor >= 0 { close(descriptor) }
        errorBuffer?.deallocate()
    }

    /// Makes the handle and opens the destination, whose writes go through `writer`; a failure here ends the
    /// transfer before any hop.
    func start(writer: BodyWriter) -> MediaFetchError? {
        guard Self.globalInit == CURLE_OK, let handle = curl_easy_init() else {
            return CurlLibrary.failure("libcurl could not be initialised")
        }
        self.handle = handle
        if let destination = rules.request.destination {
            descriptor = open(destination.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                return .cannotSave("cannot create \(destination.path): \(String(cString: strerror(errno)))")
            }
            self.writer = writer
        } else {
            body = Data()
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        self.errorBuffer = errorBuffer
        configure(handle, errorBuffer: errorBuffer)
        return beginHop()
    }

    /// Sets up the next hop (URL, what is left of the deadline, method); the engine then adds the handle.
    func beginHop() -> MediaFetchError? {
        guard let handle else { return CurlLibrary.failure("libcurl could not be initialised") }
        guard let milliseconds = rules.millisecondsLeft(at: .now) else { return .timeout(received: received) }
        let transferURL = rules.transferURL
        _ = cnse_curl_setopt_string(handle, CURLOPT_URL, transferURL.absoluteString)
        _ = cnse_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
        _ = cnse_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
        // Over https, wait for the connection to tell whether it multiplexes (HTTP/2) rather than open another.
        _ = cnse_curl_setopt_long(handle, CURLOPT_PIPEWAIT, transferURL.scheme?.lowercased() == "https" ? 1 : 0)
        setMethod(handle)
        errorBuffer?[0] = 0
        status = 0
        headers = [:]
        headerBytes = 0
        limit = nil
        return nil
    }

    /// What a finished hop means.
    enum HopEnd {
        case redirected
        case done(Result<TransferResult, MediaFetchError>)
    }

    /// Judges the hop libcurl finished with `code`. Follows redirects itself rather than letting libcurl do it,
    /// so every hop is judged as the device would judge it (`HopRules.follow`) on the URL the device would load,
    /// and every hop of a host-mapped transfer stays on the mapped (loopback) server.
    func finishHop(_ code: CURLcode) -> HopEnd {
        writer?.flush(for: self)
        if let failure { return .done(.failure(failure)) }
        if code != CURLE_OK { return .done(.failure(error(for: code, errorText: errorBuffer.map { String(cString: $0) } ?? ""))) }
        guard let location = redirectLocation else {
            return .done(.success(TransferResult(
                head: responseHead(), bytes: received, sha256: hasher.finalizeHex(), prefix: prefix, redirects: rules.redirects,
                body: body)))
        }
        if let refusal = rules.follow(location, status: status) { return .done(.failure(refusal)) }
        return .redirected
    }

    /// The file closed, for a transfer that has ended: its bytes are complete before anyone reads them.
    func closeFile() {
        writer?.flush(for: self)
        writer = nil
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    /// The hop's method and body: the app's for the first hop, GET without a body after a redirect that says so.
    private func setMethod(_ handle: UnsafeMutableRawPointer) {
        // Back to a plain GET first: a handle keeps what an earlier hop set.
        _ = cnse_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        _ = cnse_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, nil)
        let method = rules.method
        switch method {
        case "GET":
            break
        case "HEAD":
            _ = cnse_curl_setopt_long(handle, CURLOPT_NOBODY, 1)
        default:
            let body = rules.body
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
        // libcurl's default read size. Every transfer in flight has a buffer of this size and a batch keeps
        // hundreds in flight, so a larger buffer costs megabytes for the little the fewer write callbacks save.
        _ = cnse_curl_setopt_long(handle, CURLOPT_BUFFERSIZE, Self.bufferSize)
        for field in rules.request.parts.headers {
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

    static let maxHeaderBytes = HopRules.maxHeaderBytes

    static let bufferSize = 16 * 1024

    /// Where the current response sends the device.
    private var redirectLocation: String? {
        HopRules.redirectLocation(status: status, headers: headers)
    }

    /// Refuses a body whose Content-Length already exceeds the limit, before a byte of it arrives.
    private func checkAnnouncedLength() -> Bool {
        if let refusal = HopRules.announcedLengthRefusal(headers: headers, limit: currentLimit()) {
            failure = refusal
            return false
        }
        return true
    }

    private func currentLimit() -> Int {
        if let limit { return limit }
        let decided = rules.request.sizeLimit(responseHead())
        limit = decided
        return decided
    }

    private func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        // A write of bytes gathered earlier failed (`writeOut`): end the transfer.
        if failure != nil { return false }
        // A redirect's own body is read and dropped, as URLSession does; an endless one still ends with the budget.
        if redirectLocation != nil { return true }
        if let refusal = HopRules.bodyRefusal(received: received, adding: chunk.count, limit: currentLimit(), headers: headers) {
            failure = refusal
            return false
        }
        if body != nil {
            body?.append(contentsOf: chunk)
            received += chunk.count
            return true
        }
        writer?.append(chunk, for: self)
        if failure != nil { return false }
        if prefix.count < MediaFormat.sniffLength {
            prefix.append(contentsOf: chunk.prefix(MediaFormat.sniffLength - prefix.count))
        }
        hasher.update(chunk)
        received += chunk.count
        return true
    }

    /// Writes `bytes` of the body to the file (for `BodyWriter`); a failure is the transfer's, reported when it is
    /// judged, and ends it at its next bytes.
    func writeOut(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = .cannotSave("cannot write \(rules.request.destination?.path ?? "the body"): \(String(cString: strerror(errno)))")
                return
            }
            offset += written
        }
    }

    private func responseHead() -> ResponseHead {
        rules.head(status: status, headers: headers)
    }

    private func error(for code: CURLcode, errorText: String) -> MediaFetchError {
        let detail = errorText.isEmpty ? String(cString: curl_easy_strerror(code)) : errorText
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout(received: received)
        case CURLE_PARTIAL_FILE:
            return HopRules.truncation(headers: headers, received: received)
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
