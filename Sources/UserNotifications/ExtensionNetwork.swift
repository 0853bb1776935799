import Foundation
import FoundationNetworking
import NSEMedia
import NSEPipeline
import NSEPush

/// One request the extension makes through `URLSession` or `Data(contentsOf:)`, in the terms the network needs.
struct ExtensionHTTPRequest: Sendable {
    var url: URL
    var parts = HTTPRequestParts()
    /// The shortest of `URLRequest.timeoutInterval` and the configuration's `timeoutIntervalForRequest` and
    /// `timeoutIntervalForResource`.
    var timeout: TimeInterval = 60
    /// The API the extension called, for the record: "URLSession.downloadTask", "Data(contentsOf:)"...
    var api: String

    init(url: URL, api: String) {
        self.url = url
        self.api = api
    }

    init(_ request: URLRequest, configuration: URLSessionConfiguration?, api: String) {
        self.url = request.url ?? URL(fileURLWithPath: "/")
        self.api = api
        var parts = HTTPRequestParts(method: request.httpMethod ?? "GET", body: request.httpBody)
        // The session's additional headers first; the request's own win (URLSession's order of precedence).
        var fields: [(String, String)] = []
        for (name, value) in configuration?.httpAdditionalHeaders ?? [:] {
            fields.append((String(describing: name), String(describing: value)))
        }
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            fields.removeAll { $0.0.caseInsensitiveCompare(name) == .orderedSame }
            fields.append((name, value))
        }
        parts.headers = fields.map { HTTPHeaderField(name: $0.0, value: $0.1) }
        self.parts = parts
        let configured = configuration?.timeoutIntervalForRequest ?? 60
        timeout = min(request.timeoutInterval > 0 ? request.timeoutInterval : 60, configured > 0 ? configured : 60)
        // The session's limit on the whole resource (7 days by default; Batch's helper sets 20 s) bounds it too.
        if let resource = configuration?.timeoutIntervalForResource, resource > 0 { timeout = min(timeout, resource) }
    }
}

/// How a request ended, as the extension's code sees it.
enum ExtensionHTTPResult: @unchecked Sendable {
    /// A response (any status), with the body in memory or in `file`.
    case response(HTTPURLResponse, body: Data?, file: URL?)
    case failure(URLError)
    /// Still running when iOS ended the extension: no callback ever runs.
    case unfinished
}

/// `URLResponse.suggestedFilename` and header names as iOS gives them, over Foundation's Linux response.
final class DeviceHTTPURLResponse: HTTPURLResponse, @unchecked Sendable {
    // Set once in `make`, before the response is shared.
    private var deviceSuggestedFilename: String?

    override var suggestedFilename: String? { deviceSuggestedFilename }

    static func make(_ head: ResponseHead, profile: DeviceProfile) -> HTTPURLResponse? {
        // iOS presents header names in their canonical capitalisation ("Content-Type").
        var fields: [String: String] = [:]
        for (name, value) in head.headers {
            let canonical = name.split(separator: "-", omittingEmptySubsequences: false).map { $0.prefix(1).uppercased() + $0.dropFirst() }
            fields[canonical.joined(separator: "-")] = value
        }
        guard let response = DeviceHTTPURLResponse(url: head.url, statusCode: head.status, httpVersion: "HTTP/1.1", headerFields: fields) else {
            return nil
        }
        response.deviceSuggestedFilename = head.suggestedFilename(profile: profile)
        return response
    }
}

extension ExtensionEnvironment {
    /// Makes `request` as the device would, on the calling thread (a task's own thread): App Transport Security,
    /// the extension's remaining life, host mapping, redirects; records it, and a diagnostic when the device
    /// fails it. The body goes to `file`, or stays in memory (charged to the run) when `file` is nil.
    func perform(_ request: ExtensionHTTPRequest, to file: URL?, cancellation: TransferCancellation) -> ExtensionHTTPResult {
        let started = now
        let profile = context.profile
        var record = ExtensionRequest(
            api: request.api, method: request.parts.method.uppercased(), url: request.url.absoluteString,
            startMilliseconds: milliseconds(at: started), milliseconds: 0, outcome: .failed)
        func finish(_ outcome: ExtensionRequest.Outcome, _ error: URLError?, _ diagnostic: Diagnostic?, code: DiagnosticCode? = nil) {
            record.milliseconds = started.duration(to: self.now).milliseconds
            record.outcome = outcome
            record.error = error.map { "NSURLErrorDomain \($0.errorCode)" }
            record.diagnostic = diagnostic?.code ?? code
            self.record(record)
            if let diagnostic { self.record(diagnostic) }
        }
        let where_ = "\(request.api) \(request.url.absoluteString)"

        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https", request.url.host != nil else {
            let error = URLError(.unsupportedURL)
            let scheme = request.url.scheme?.lowercased() ?? ""
            let finding: Diagnostic = scheme == "file" || scheme == "data"
                ? .warning(.mediaInvalidURL, "The extension's \(where_) is a \(scheme): URL, which iOS's URLSession loads but the harness does not emulate: the extension got NSURLErrorUnsupportedURL (-1002) here. Read local files with FileManager or Data(contentsOf:).")
                : .error(.mediaInvalidURL, "The extension's \(where_) is not an http(s) URL: iOS fails it with NSURLErrorUnsupportedURL (-1002).")
            finish(.failed, error, finding)
            return .failure(error)
        }
        guard profile.transportSecurityAllows(request.url) else {
            let error = URLError(.appTransportSecurityRequiresSecureConnection)
            finish(.failed, error, .error(.mediaInsecureURL, "The extension's \(where_) uses plain http: App Transport Security blocks it before any byte is sent (NSURLErrorDomain -1022), so whatever depends on it is missing on the phone. Serve it over https, or \(TransportSecurity.remedy(for: request.url.host ?? ""))."))
            return .failure(error)
        }
        guard track(cancellation, as: record, startedAt: started) else { return .unfinished }

        let lifeEnd = lifetimeEnd
        let ownDeadline = started + .milliseconds(Int64(clamping: Int(saturating: request.timeout * 1000)))
        let deadline = min(lifeEnd, ownDeadline)
        // Downloads stream to disk; the cap only stops a runaway body (nothing larger can be attached). Bodies
        // kept in memory count against the extension's memory, and past its limit iOS kills the extension.
        let limit = file == nil ? profile.memoryLimit + 1 : profile.acceptedSizeLimit(for: .movie)
        do {
            let fetched = try context.fetcher.requestBlocking(
                request.url, parts: request.parts, to: file, deadline: deadline, cancellations: [cancellation]
            ) { _ in limit }
            guard untrack(cancellation) else { return .unfinished }
            record.status = fetched.head.status
            record.bytes = fetched.bytes
            record.redirects = fetched.redirects
            if fetched.head.url != request.url { record.finalURL = fetched.head.url.absoluteString }
            if let body = fetched.body { chargeMemory(bytes: body.count) }
            guard let response = DeviceHTTPURLResponse.make(fetched.head, profile: profile) else {
                let error = URLError(.cannotParseResponse)
                finish(.failed, error, .error(.mediaNetwork, "The extension's \(where_) got a response Foundation cannot represent (status \(fetched.head.status)): NSURLErrorCannotParseResponse (-1017)."))
                return .failure(error)
            }
            var diagnostic: Diagnostic?
            if fetched.head.status >= 400 {
                diagnostic = .warning(.mediaHTTPStatus, "The extension's \(where_) got HTTP \(fetched.head.status): URLSession reports no error, so unless the extension checks the status it uses the error body (\(fetched.bytes) bytes) as if it were the content.")
            }
            finish(.completed, nil, diagnostic)
            return .response(response, body: fetched.body, file: file)
        } catch {
            guard untrack(cancellation) else { return .unfinished }
            record.bytes = error.receivedBytes
            if case .timeout = error, deadline == lifeEnd {
                finish(.unfinished, nil, .error(.mediaTimeout, "The extension's \(where_) was still running when iOS ended the extension (\(profile.timeBudget.secondsText) budget plus the grace after serviceExtensionTimeWillExpire()): its completion never ran. Serve it faster, or make it smaller."))
                return .unfinished
            }
            if case .tooLarge = error, file == nil {
                // The body got past the extension's whole memory limit: on a device the extension is killed here,
                // which the harness reports (extension.memory-limit) from the charge.
                chargeMemory(bytes: limit)
                let urlError = URLError(.dataLengthExceedsMaximum)
                finish(.failed, urlError, nil, code: .extensionMemoryLimit)
                return .failure(urlError)
            }
            let (code, diagnostic) = Self.describe(error, where: where_, limit: limit, profile: profile)
            let urlError = URLError(code)
            finish(code == .cancelled ? .cancelled : .failed, urlError, diagnostic)
            return .failure(urlError)
        }
    }

    private static func describe(_ error: MediaFetchError, where request: String, limit: Int, profile: DeviceProfile) -> (URLError.Code, Diagnostic?) {
        switch error {
        case .cancelled:
            return (.cancelled, nil)
        case .timeout:
            return (.timedOut, .error(.mediaTimeout, "The extension's \(request) timed out (its URLRequest or session timeout): NSURLErrorTimedOut (-1001)."))
        case .network(let detail):
            return (.cannotConnectToHost, .error(.mediaNetwork, "The extension's \(request) failed: \(detail). The extension gets NSURLErrorCannotConnectToHost (-1004)."))
        case .tooManyRedirects(let max):
            return (.httpTooManyRedirects, .error(.mediaTooManyRedirects, "The extension's \(request) redirected more than \(max) times: NSURLErrorHTTPTooManyRedirects (-1007)."))
        case .insecureRedirect(let next):
            return (.appTransportSecurityRequiresSecureConnection, .error(.mediaInsecureURL, "The extension's \(request) redirects to \(next.absoluteString), plain http that App Transport Security blocks (-1022). Keep every redirect on https, or \(TransportSecurity.remedy(for: next.host ?? ""))."))
        case .unsupportedRedirect(let next):
            return (.unsupportedURL, .error(.mediaInvalidURL, "The extension's \(request) redirects to \(next.absoluteString), a scheme URLSession does not follow (-1002)."))
        case .headersTooLarge(let max):
            return (.cannotParseResponse, .error(.mediaNetwork, "The extension's \(request) got response headers over \(max) bytes: the response is refused (-1017)."))
        case .tooLarge:
            return (.dataLengthExceedsMaximum, .error(.mediaTooLarge, "The extension's \(request) passed \(limit) bytes, more than any attachment may be (the harness stops there): no image can come of it."))
        case .truncated(let expected, let received):
            return (.networkConnectionLost, .error(.mediaTruncated, "The extension's \(request) lost its connection after \(received) bytes\(expected.map { " of \($0)" } ?? ""): NSURLErrorNetworkConnectionLost (-1005)."))
        case .cannotSave(let detail):
            return (.cannotCreateFile, .error(.mediaNotSaved, "The extension's \(request) could not save its body: \(detail) (-3000)."))
        case .downloaderUnavailable(let reason):
            return (.cannotLoadFromNetwork, .downloaderUnavailable(reason))
        }
    }
}

extension MediaFetchError {
    /// Bytes that had arrived when the transfer stopped, where known.
    var receivedBytes: Int {
        switch self {
        case .timeout(let received), .truncated(_, let received): received
        default: 0
        }
    }
}
