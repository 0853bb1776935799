// Typed wrappers over libcurl's variadic curl_easy_setopt / curl_easy_getinfo.
// Why: Swift does not import C variadic functions, and passing the wrong type through `...` is undefined
// behaviour, so each argument kind gets one function whose prototype fixes the type.

#include "CNSE.h"

CURLcode cnse_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode cnse_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode cnse_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    // libcurl copies string options (since 7.17), so the caller's buffer may go away after this call.
    return curl_easy_setopt(handle, option, value);
}

CURLcode cnse_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode cnse_curl_setopt_data_callback(CURL *handle, CURLoption option, cnse_curl_data_callback callback) {
    // Same prototype as curl_write_callback, which CURLOPT_HEADERFUNCTION also uses.
    curl_write_callback function = callback;
    return curl_easy_setopt(handle, option, function);
}

CURLcode cnse_curl_setopt_progress_callback(CURL *handle, cnse_curl_progress_callback callback) {
    curl_xferinfo_callback function = callback;
    CURLcode result = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, function);
    if (result != CURLE_OK) {
        return result;
    }
    // libcurl only calls the progress function when CURLOPT_NOPROGRESS is 0; a NULL callback turns it off again.
    return curl_easy_setopt(handle, CURLOPT_NOPROGRESS, callback != NULL ? 0L : 1L);
}

CURLcode cnse_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode cnse_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode cnse_curl_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    // libcurl writes a `char *` through the pointer; the string stays owned by the handle.
    char *string = NULL;
    CURLcode result = curl_easy_getinfo(handle, info, &string);
    *value = string;
    return result;
}

CURLMcode cnse_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

int cnse_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    int queued = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}
