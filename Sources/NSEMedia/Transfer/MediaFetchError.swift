import Foundation

/// Why a download did not produce a complete file.
public enum MediaFetchError: Error, Sendable, Equatable {
    /// The time budget ran out after `received` bytes.
    case timeout(received: Int)
    /// DNS, connection, TLS or protocol failure, in libcurl's words.
    case network(String)
    case tooManyRedirects(limit: Int)
    /// A redirect led to this URL, which App Transport Security refuses (plain http without an exception).
    case insecureRedirect(URL)
    /// A redirect led to this URL, whose scheme is neither http nor https (`file:`, `ftp:`...): never followed.
    case unsupportedRedirect(URL)
    /// A response's header section passed `limit` bytes.
    case headersTooLarge(limit: Int)
    /// The body passed `limit` bytes (or Content-Length announced `declared` bytes).
    case tooLarge(limit: Int, declared: Int?)
    /// The connection closed before the announced Content-Length arrived.
    case truncated(expected: Int?, received: Int)
    /// The local file could not be written.
    case cannotSave(String)
    /// The transfer was cancelled (Ctrl-C).
    case cancelled
    /// Nothing was downloaded: libcurl could not be loaded on this machine (why, and what to install).
    case downloaderUnavailable(String)
}
