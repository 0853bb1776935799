import Foundation
import NSEPush

/// How the device judges each hop of a download, in one place for every transport (`CurlTransport` over libcurl,
/// `ScriptedTransport` in memory): the time left, the header and size limits, and each redirect (the redirect
/// limit, the schemes URLSession follows, App Transport Security, the host mapping, the method after it).
///
/// One value per transfer, kept by its transport. It does no I/O and reads no clock: the transport passes the time.
struct HopRules: Sendable {
    let request: TransferRequest
    /// The URL the device has reached: the payload's, then each redirect's.
    private(set) var deviceURL: URL
    /// The method of the current hop: a 303 (and a 301/302 after POST) turns it into GET, as URLSession does.
    private(set) var method: String
    private(set) var redirects = 0

    init(_ request: TransferRequest) {
        self.request = request
        deviceURL = request.deviceURL
        method = request.parts.method.uppercased()
    }

    /// The most header bytes one response may have: libcurl's own limit for a header line, applied to the
    /// whole section so the refusal is ours, with our words, whatever libcurl's version does.
    static let maxHeaderBytes = 100 * 1024

    /// Where the current hop goes: the loopback server under a host mapping, else the device's URL.
    var transferURL: URL { request.transferURL(for: deviceURL) }

    /// The body the current hop sends: the app's on its own method, none once a redirect turned it into GET.
    var body: Data { method == request.parts.method.uppercased() ? request.parts.body ?? Data() : Data() }

    /// What is left of the deadline at `now`, in whole milliseconds and at least one; nil once it has passed
    /// (the transfer then ends as timed out, before the hop starts).
    func millisecondsLeft(at now: ContinuousClock.Instant) -> Int? {
        let remaining = now.duration(to: request.deadline)
        guard remaining > .zero else { return nil }
        return max(1, Int(saturating: remaining / .milliseconds(1)))
    }

    /// The response as the device sees it: its head on the URL the device loaded.
    func head(status: Int, headers: [String: String]) -> ResponseHead {
        ResponseHead(status: status, headers: headers, url: deviceURL)
    }

    /// Where a response sends the device: URLSession follows 301, 302, 303, 307 and 308 with a Location.
    static func redirectLocation(status: Int, headers: [String: String]) -> String? {
        guard [301, 302, 303, 307, 308].contains(status) else { return nil }
        return headers["location"]
    }

    /// A body whose Content-Length already exceeds `limit` is refused before a byte of it arrives.
    static func announcedLengthRefusal(headers: [String: String], limit: Int) -> MediaFetchError? {
        if let declared = declaredLength(headers), declared > limit { return .tooLarge(limit: limit, declared: declared) }
        return nil
    }

    /// A body that would pass `limit` with `count` more bytes ends the transfer at once.
    @inline(__always)
    static func bodyRefusal(received: Int, adding count: Int, limit: Int, headers: [String: String]) -> MediaFetchError? {
        received + count <= limit ? nil : .tooLarge(limit: limit, declared: declaredLength(headers))
    }

    /// The connection closed before the body it announced had arrived.
    static func truncation(headers: [String: String], received: Int) -> MediaFetchError {
        .truncated(expected: declaredLength(headers), received: received)
    }

    static func declaredLength(_ headers: [String: String]) -> Int? {
        headers["content-length"].flatMap(Int.init)
    }

    /// Follows the redirect a `status` response with `location` asks for: the device resolves Location against
    /// the URL it loaded, and an absolute Location that names the mapped server stands for the payload's own
    /// origin. Returns why the device does not follow it, or nil with `deviceURL` now the next hop's.
    mutating func follow(_ location: String, status: Int) -> MediaFetchError? {
        guard let resolved = URL(string: location, relativeTo: deviceURL)?.absoluteURL else {
            return .network("the server redirected to \"\(location)\", which is not a URL")
        }
        let next = request.hostMapping?.deviceURL(for: resolved, original: deviceURL) ?? resolved
        redirects += 1
        guard redirects <= request.maxRedirects else { return .tooManyRedirects(limit: request.maxRedirects) }
        guard ["http", "https"].contains(next.scheme?.lowercased() ?? "") else { return .unsupportedRedirect(next) }
        guard request.transportSecurityAllows(next) else { return .insecureRedirect(next) }
        if status == 303 || (method == "POST" && (status == 301 || status == 302)) { method = "GET" }
        deviceURL = next
        return nil
    }
}
