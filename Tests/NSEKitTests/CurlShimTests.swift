// The typed libcurl wrappers (CNSE) on a real transfer: options go in, the result and info come back out.

import CCurl
import CNSE
import Testing

struct CurlShimTests {
    /// Port 1 on loopback has no listener, so the transfer fails fast with "couldn't connect" and no response.
    @Test func setoptAndGetinfoWrappersReachLibcurl() throws {
        let handle = try #require(curl_easy_init())
        defer { curl_easy_cleanup(handle) }

        #expect(cnse_curl_setopt_string(handle, CURLOPT_URL, "http://127.0.0.1:1/") == CURLE_OK)
        #expect(cnse_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 500) == CURLE_OK)
        #expect(curl_easy_perform(handle) == CURLE_COULDNT_CONNECT)

        var code = -1
        #expect(cnse_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK)
        #expect(code == 0)

        var url: UnsafePointer<CChar>?
        #expect(cnse_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &url) == CURLE_OK)
        #expect(url.map { String(cString: $0) } == "http://127.0.0.1:1/")
    }
}
