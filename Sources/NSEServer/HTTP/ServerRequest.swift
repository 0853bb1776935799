import Foundation

/// One HTTP request as the endpoints see it, whichever protocol carried it.
public struct ServerRequest: Sendable {
    /// "HTTP/1.1" or "HTTP/2": recorded with each push, as the request that carried it.
    public var protocolName: String
    public var method: String
    /// The path without the query.
    public var path: String
    public var query: String?
    /// The headers in order; names lowercased (HTTP/2 sends them so; HTTP/1.1 names are case-insensitive).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The body was longer than the server reads (`HTTPServer.maxBodyBytes`): `body` is empty.
    public var bodyTooLarge = false
    /// The connection the request came on (its client certificate, the provider token it uses); nil for a
    /// request made in-process.
    var connection: ConnectionContext?

    public init(protocolName: String, method: String, target: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.init(protocolName: protocolName, method: method, target: target, lowercasedHeaders: headers.map { (name: $0.name.lowercased(), value: $0.value) }, body: body)
    }

    /// A request whose header names are lowercase already (HTTP/2's).
    init(protocolName: String, method: String, target: String, lowercasedHeaders headers: [(name: String, value: String)], body: [UInt8]) {
        self.protocolName = protocolName
        self.method = method
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = target
            query = nil
        }
        self.headers = headers
        self.body = body
    }

    /// Every value of the header `name` (lowercase).
    public func values(_ name: String) -> [String] {
        headers.filter { $0.name == name }.map(\.value)
    }

    /// The header's value when it appears once or more (the first).
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// The query's parameters, percent-decoded (`a=1&b=x%20y`).
    public var queryItems: [String: String] {
        guard let query else { return [:] }
        var items: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard let name = parts.first.flatMap({ String($0).removingPercentEncoding }) else { continue }
            items[name] = parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" : ""
        }
        return items
    }
}

/// The answer to one request.
public struct ServerResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// A body written over time instead of `body` (the events stream); the head goes out without a length.
    public var stream: (any ResponseStream)?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body; `object` holds only JSONSerialization's types, so encoding cannot fail.
    public static func json(_ status: Int, _ object: Any, headers: [(name: String, value: String)] = []) -> ServerResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return ServerResponse(
            status: status, headers: headers + [(name: "content-type", value: "application/json; charset=UTF-8")], body: Array(data))
    }
}

/// What answers the server's requests: the endpoints, routed by path.
public protocol RequestResponder: Sendable {
    func respond(to request: ServerRequest) async -> ServerResponse
}
