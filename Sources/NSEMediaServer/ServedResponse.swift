/// What the handler tells the server to send: a status, headers, and a body that may be well-behaved or
/// hostile on purpose (slow, endless, stalled, cut short), so tests and samples can play any kind of CDN.
public struct ServedResponse: Sendable {
    /// The body and how it is delivered; the server derives `Content-Length` and `Connection` from it.
    public enum Body: Sendable {
        /// These bytes; Content-Length = count.
        case bytes([UInt8])
        /// The file at `path`, streamed from disk in 64 KiB chunks; Content-Length = file size.
        /// A file that cannot be opened gets a 404 (missing), 403 (not readable) or 500 page instead.
        case file(path: String)
        /// These bytes, `bytesPerChunk` at a time with `interval` between chunks; Content-Length = count.
        case trickle([UInt8], bytesPerChunk: Int, interval: Duration)
        /// `byte` repeated until the client hangs up or the server stops; no Content-Length, Connection: close.
        case endless(byte: UInt8)
        /// Headers with Content-Length: 1000, then nothing until the client hangs up or the server stops.
        case stall
        /// Declares `declaredLength`, sends the bytes (never more than declared), then closes the connection.
        case truncated([UInt8], declaredLength: Int)
        /// A file streamed from disk, optionally padded with zero bytes, sent slowly or cut short:
        /// the general form behind sample media that must never be held in memory whole.
        case fileStream(FileStream)
    }

    /// A body read from disk as it is sent: the file, then zero bytes up to `length`.
    public struct FileStream: Sendable {
        /// The file to send first; nil sends only zero bytes.
        public var path: String?
        /// The declared Content-Length; the file followed by zero bytes up to it, or only the file's first
        /// `length` bytes if the file is longer. nil: the file's size.
        public var length: Int?
        /// Send only this many bytes of `length`, then close the connection (a truncated download). nil: all.
        public var sendOnly: Int?
        /// Bytes per send; with `interval` > 0 this paces the body like `.trickle`.
        public var bytesPerChunk: Int
        /// The pause between chunks; zero sends as fast as the client reads.
        public var interval: Duration

        public init(path: String?, length: Int? = nil, sendOnly: Int? = nil, bytesPerChunk: Int = 65_536, interval: Duration = .zero) {
            self.path = path
            self.length = length
            self.sendOnly = sendOnly
            self.bytesPerChunk = bytesPerChunk
            self.interval = interval
        }
    }

    public var status: Int
    /// Extra header fields, sent in order. `Content-Length`, `Connection` and `Transfer-Encoding` are the
    /// server's to set from `body` and are dropped here; fields holding CR, LF or NUL are dropped too.
    public var headers: [(name: String, value: String)]
    public var body: Body
    /// A pause before anything is sent: a slow first byte.
    public var delayBeforeHeaders: Duration

    public init(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: Body = .bytes([]),
        delayBeforeHeaders: Duration = .zero
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delayBeforeHeaders = delayBeforeHeaders
    }

    /// A 200 with these bytes and Content-Type.
    public static func ok(_ bytes: [UInt8], contentType: String) -> ServedResponse {
        ServedResponse(status: 200, headers: [("Content-Type", contentType)], body: .bytes(bytes))
    }

    /// A redirect (302 unless told otherwise) to `location`, with an empty body.
    public static func redirect(to location: String, status: Int = 302) -> ServedResponse {
        ServedResponse(status: status, headers: [("Location", location)], body: .bytes([]))
    }

    /// A 404 with a small HTML page.
    public static let notFound = ServedResponse.page(status: 404, message: "Nothing is served at this path.")

    /// A small HTML page explaining `message`; used for every error the server or MediaDirectory answers.
    public static func page(status: Int, message: String) -> ServedResponse {
        let title = "\(status) \(reasonPhrase(for: status))"
        let html = """
            <!DOCTYPE html>
            <html><head><title>\(htmlEscaped(title))</title></head>
            <body><h1>\(htmlEscaped(title))</h1><p>\(htmlEscaped(message))</p></body></html>

            """
        return ServedResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: .bytes(Array(html.utf8)))
    }
}

private func htmlEscaped(_ text: String) -> String {
    var escaped = ""
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        default: escaped.append(character)
        }
    }
    return escaped
}

/// The reason phrase for the status line; "Status" for codes without a common one.
func reasonPhrase(for status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 204: "No Content"
    case 206: "Partial Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 303: "See Other"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 410: "Gone"
    case 413: "Content Too Large"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    case 505: "HTTP Version Not Supported"
    default: "Status"
    }
}
