/// A request line and header block parsed from the bytes before the blank line, plus what the
/// connection needs to frame it: the HTTP version and the length of any request body to skip.
struct RequestHead: Sendable {
    let request: HTTPRequest
    /// The minor version of HTTP/1.x: 0 or 1 (HTTP/1.2 and later are treated as 1.1).
    let minorVersion: Int
    /// The request body's declared length; the server reads and discards it.
    let bodyLength: Int

    /// Whether the client lets the connection stay open after the response.
    var keepsAlive: Bool {
        guard minorVersion >= 1 else { return false }
        let tokens = (request.headers["connection"] ?? "").lowercased().split(separator: ",")
        return !tokens.contains { $0.trimmingSpaces() == "close" }
    }
}

/// Why a request could not be parsed: the status to answer with, then the connection closes.
struct RequestRejection: Error, Sendable {
    let status: Int
    let reason: String
}

/// The largest request head (request line and headers) the server reads; more gets 431.
let maximumRequestHeadSize = 16 * 1024
/// The largest request body the server reads and discards; more gets 413.
let maximumRequestBodySize = 1024 * 1024

extension RequestHead {
    /// Parses the head: `bytes` runs from the request line up to, not including, the blank line.
    init(parsing bytes: ArraySlice<UInt8>) throws(RequestRejection) {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        guard !lines.isEmpty else { throw RequestRejection(status: 400, reason: "empty request") }
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw RequestRejection(status: 400, reason: "the request line is not METHOD SP TARGET SP VERSION")
        }
        let method = parts[0]
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else {
            throw RequestRejection(status: 400, reason: "the method is not a token")
        }
        let minorVersion = try Self.parseVersion(parts[2])
        let (path, query) = try Self.parseTarget(parts[1])

        var headers: [String: String] = [:]
        for line in lines {
            guard let first = line.first else { continue }
            if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                throw RequestRejection(status: 400, reason: "obsolete line folding in the headers")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw RequestRejection(status: 400, reason: "a header line has no colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                throw RequestRejection(status: 400, reason: "a header name is not a token")
            }
            let rawValue = line[line.index(after: colon)...]
            guard !rawValue.contains(where: { $0 == 0 || $0 == UInt8(ascii: "\r") }) else {
                throw RequestRejection(status: 400, reason: "a header value holds NUL or CR")
            }
            let key = String(decoding: name, as: UTF8.self).lowercased()
            let value = String(decoding: rawValue, as: UTF8.self).trimmingSpaces()
            if let earlier = headers[key] {
                headers[key] = earlier + ", " + value
            } else {
                headers[key] = value
            }
        }

        if minorVersion >= 1 && headers["host"] == nil {
            throw RequestRejection(status: 400, reason: "an HTTP/1.1 request must have a Host header")
        }
        if headers["transfer-encoding"] != nil {
            throw RequestRejection(status: 501, reason: "request bodies with Transfer-Encoding are not supported")
        }
        var bodyLength = 0
        if let declared = headers["content-length"] {
            let values = Set(declared.split(separator: ",").map { $0.trimmingSpaces() })
            guard values.count == 1, let value = values.first, !value.isEmpty,
                  value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let length = Int(value)
            else {
                throw RequestRejection(status: 400, reason: "Content-Length is not one decimal number")
            }
            guard length <= maximumRequestBodySize else {
                throw RequestRejection(status: 413, reason: "the request body is larger than \(maximumRequestBodySize) bytes")
            }
            bodyLength = length
        }

        self.init(
            request: HTTPRequest(method: String(decoding: method, as: UTF8.self), path: path, query: query, headers: headers),
            minorVersion: minorVersion,
            bodyLength: bodyLength
        )
    }

    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(RequestRejection) -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("HTTP/"), text.utf8.count == 8 else {
            throw RequestRejection(status: 400, reason: "the version is not HTTP/d.d")
        }
        let digits = Array(text.utf8.dropFirst(5))
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard isDigit(digits[0]), digits[1] == UInt8(ascii: "."), isDigit(digits[2]) else {
            throw RequestRejection(status: 400, reason: "the version is not HTTP/d.d")
        }
        guard digits[0] == UInt8(ascii: "1") else {
            throw RequestRejection(status: 505, reason: "only HTTP/1.x is served")
        }
        return Int(digits[2] - UInt8(ascii: "0"))
    }

    /// Splits the request target into a percent-decoded path and the raw query.
    private static func parseTarget(_ bytes: ArraySlice<UInt8>) throws(RequestRejection) -> (String, String?) {
        guard !bytes.isEmpty, !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "#") }) else {
            throw RequestRejection(status: 400, reason: "the request target is empty or holds forbidden characters")
        }
        var target = bytes
        if target == [UInt8(ascii: "*")][...] { return ("*", nil) }
        // absolute-form (what clients send to proxies): drop scheme and authority, keep the rest.
        let lowered = String(decoding: target.prefix(8), as: UTF8.self).lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            let afterScheme = target.dropFirst(lowered.hasPrefix("http://") ? 7 : 8)
            if let slash = afterScheme.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) {
                target = afterScheme[slash...]
                if target.first == UInt8(ascii: "?") { target = ArraySlice([UInt8(ascii: "/")] + target) }
            } else {
                target = [UInt8(ascii: "/")][...]
            }
        }
        guard target.first == UInt8(ascii: "/") else {
            throw RequestRejection(status: 400, reason: "the request target is not an absolute path")
        }
        var query: String?
        var rawPath = target
        if let mark = target.firstIndex(of: UInt8(ascii: "?")) {
            rawPath = target[target.startIndex..<mark]
            query = String(decoding: target[target.index(after: mark)...], as: UTF8.self)
        }
        guard let path = percentDecoded(rawPath) else {
            throw RequestRejection(status: 400, reason: "the path has a bad percent escape or is not UTF-8")
        }
        return (path, query)
    }
}

/// Decodes %XX escapes; nil for a malformed escape or bytes that are not UTF-8.
func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String? {
    var decoded: [UInt8] = []
    decoded.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    while index < bytes.endIndex {
        let byte = bytes[index]
        if byte == UInt8(ascii: "%") {
            guard bytes.distance(from: index, to: bytes.endIndex) >= 3,
                  let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            else { return nil }
            decoded.append(high << 4 | low)
            index += 3
        } else {
            decoded.append(byte)
            index += 1
        }
    }
    return String(validating: decoded, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// RFC 9110 `tchar`: the bytes allowed in methods and header names.
func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        true
    default:
        "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

extension StringProtocol {
    /// Drops leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingSpaces() -> String {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
