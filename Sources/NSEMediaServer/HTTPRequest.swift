/// One request as the server received it, handed to the handler and kept in `LoopbackHTTPServer.requests`.
public struct HTTPRequest: Sendable {
    /// The method as sent, e.g. `GET`.
    public let method: String
    /// The percent-decoded path without the query, e.g. `/images/cat photo.jpg`.
    public let path: String
    /// The query as sent (not decoded), without the `?`; nil when the target had none.
    public let query: String?
    /// Header fields with lowercased names; repeated fields are joined with ", ".
    public let headers: [String: String]

    public init(method: String, path: String, query: String? = nil, headers: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }
}
