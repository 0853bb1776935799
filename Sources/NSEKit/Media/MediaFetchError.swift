/// Why a download did not produce a complete file.
public enum MediaFetchError: Error, Sendable, Equatable {
    /// The time budget ran out after `received` bytes.
    case timeout(received: Int)
    /// DNS, connection, TLS or protocol failure, in libcurl's words.
    case network(String)
    case tooManyRedirects(limit: Int)
    /// A redirect led to a URL App Transport Security refuses (plain http).
    case insecureRedirect
    /// The body passed `limit` bytes (or Content-Length announced `declared` bytes).
    case tooLarge(limit: Int, declared: Int?)
    /// The connection closed before the announced Content-Length arrived.
    case truncated(expected: Int?, received: Int)
    /// The local file could not be written.
    case cannotSave(String)
    /// The transfer was cancelled (Ctrl-C).
    case cancelled
}
