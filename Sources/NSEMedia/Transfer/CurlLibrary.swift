import CNSE
import NSEPush

/// libcurl, loaded when first used rather than when nse starts (Sources/CNSE/curl_library.c says why).
package enum CurlLibrary {
    /// Starts loading libcurl on a thread of its own: for a command that is about to download, so the loading
    /// overlaps the rest of its start.
    package static func preload() {
        cnse_curl_preload()
    }

    /// Why a libcurl call that cannot fail on a working library did: libcurl could not be loaded, when that is
    /// why, else `otherwise`.
    static func failure(_ otherwise: String) -> MediaFetchError {
        cnse_curl_load_error().map { .downloaderUnavailable(String(cString: $0)) } ?? .network(otherwise)
    }
}

extension Diagnostic {
    /// A download that never started, for want of libcurl: a fault of this machine, not of the push.
    package static func downloaderUnavailable(_ reason: String) -> Diagnostic {
        .error(.internalNoLibcurl, "nse could not download anything: \(reason). The push was not checked.")
    }
}
