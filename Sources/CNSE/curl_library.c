// libcurl, loaded when first used rather than when nse starts.
//
// Why: Debian's libcurl brings 27 more shared libraries (LDAP, Kerberos, GnuTLS, SSH, RTMP...), all bound at load
// time, and loading them was half of every nse start, paid by commands that never
// download (`lint`, `route`, `resolve`, `--version`) and twice by a batch (its supervisor, then its worker).
// These definitions stand in for every libcurl function nse and Foundation's FoundationNetworking call, and
// forward each call to the libcurl that `dlopen` finds. `make build` then drops libcurl from what the system
// loads at start (FoundationNetworking asks the linker for -lcurl, and its own calls land here too). A binary
// built otherwise (`swift build`, the debug build with its shared FoundationNetworking) still loads libcurl at
// start, and these forward to that same library.
//
// If libcurl cannot be loaded, every function here fails the way libcurl reports a failure (a NULL handle, an
// error code) and `cnse_curl_load_error` says why, so a download ends with a diagnostic, not a crash.

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// curl.h's type-checking macros (GCC's, not clang's) would expand the calls through the pointer table below.
#define CURL_DISABLE_TYPECHECK
// curl_url_get takes a `const CURLU *` from libcurl 8 on, a `CURLU *` before (the same ABI): its declaration is
// renamed out of the way, so the definition below compiles against either header.
#define curl_url_get cnse_curl_url_get_as_declared
#include "CNSE.h"
#undef curl_url_get

// Every libcurl function forwarded, with its prototype: one list for the pointer table and the loader.
#define CNSE_CURL_FUNCTIONS(X)                                                                                  \
    X(curl_global_init, CURLcode, (long))                                                                       \
    X(curl_version, char *, (void))                                                                             \
    X(curl_version_info, curl_version_info_data *, (CURLversion))                                               \
    X(curl_free, void, (void *))                                                                                \
    X(curl_easy_init, CURL *, (void))                                                                           \
    X(curl_easy_cleanup, void, (CURL *))                                                                        \
    X(curl_easy_setopt, CURLcode, (CURL *, CURLoption, ...))                                                    \
    X(curl_easy_getinfo, CURLcode, (CURL *, CURLINFO, ...))                                                     \
    X(curl_easy_perform, CURLcode, (CURL *))                                                                    \
    X(curl_easy_pause, CURLcode, (CURL *, int))                                                                 \
    X(curl_easy_strerror, const char *, (CURLcode))                                                             \
    X(curl_slist_append, struct curl_slist *, (struct curl_slist *, const char *))                              \
    X(curl_slist_free_all, void, (struct curl_slist *))                                                         \
    X(curl_url, CURLU *, (void))                                                                                \
    X(curl_url_get, CURLUcode, (const CURLU *, CURLUPart, char **, unsigned int))                               \
    X(curl_url_set, CURLUcode, (CURLU *, CURLUPart, const char *, unsigned int))                                \
    X(curl_multi_init, CURLM *, (void))                                                                         \
    X(curl_multi_cleanup, CURLMcode, (CURLM *))                                                                 \
    X(curl_multi_setopt, CURLMcode, (CURLM *, CURLMoption, ...))                                                \
    X(curl_multi_add_handle, CURLMcode, (CURLM *, CURL *))                                                      \
    X(curl_multi_remove_handle, CURLMcode, (CURLM *, CURL *))                                                   \
    X(curl_multi_perform, CURLMcode, (CURLM *, int *))                                                          \
    X(curl_multi_poll, CURLMcode, (CURLM *, struct curl_waitfd *, unsigned int, int, int *))                    \
    X(curl_multi_wakeup, CURLMcode, (CURLM *))                                                                  \
    X(curl_multi_info_read, CURLMsg *, (CURLM *, int *))                                                        \
    X(curl_multi_socket_action, CURLMcode, (CURLM *, curl_socket_t, int, int *))                                \
    X(curl_multi_assign, CURLMcode, (CURLM *, curl_socket_t, void *))                                           \
    X(curl_multi_strerror, const char *, (CURLMcode))

#define CNSE_CURL_POINTER(name, result, parameters) result(*name) parameters;
static struct {
    CNSE_CURL_FUNCTIONS(CNSE_CURL_POINTER)
} library;
#undef CNSE_CURL_POINTER

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_error = "libcurl has not been loaded";
static char load_error_text[512];

static void load(void) {
    const char *path = getenv("NSE_LIBCURL");
    if (path == NULL || path[0] == '\0') {
        path = "libcurl.so.4";
    }
    // RTLD_LOCAL: libcurl's own symbols stay out of the global scope, so nothing else binds to them by accident.
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(load_error_text, sizeof(load_error_text),
                 "libcurl could not be loaded (%s); install libcurl 7.68 or later (Debian and Ubuntu: libcurl4) or "
                 "set NSE_LIBCURL to its path",
                 reason != NULL ? reason : path);
        load_error = load_error_text;
        return;
    }
    // Every function is found before any is used: a libcurl too old for one of them fails as a whole (and the
    // table is never read while `load_error` is set).
#define CNSE_CURL_RESOLVE(name, result, parameters)                                                             \
    library.name = (result(*) parameters)dlsym(handle, #name);                                                  \
    if (library.name == NULL) {                                                                                 \
        snprintf(load_error_text, sizeof(load_error_text),                                                      \
                 "libcurl could not be loaded (%s has no %s); install libcurl 7.68 or later", path, #name);     \
        load_error = load_error_text;                                                                           \
        dlclose(handle);                                                                                        \
        return;                                                                                                 \
    }
    CNSE_CURL_FUNCTIONS(CNSE_CURL_RESOLVE)
#undef CNSE_CURL_RESOLVE
    load_error = NULL;
}

/// Loads libcurl once (every caller waits for the first); 1 when it is usable.
static int loaded(void) {
    pthread_once(&load_once, load);
    return load_error == NULL;
}

const char *cnse_curl_load_error(void) {
    return loaded() ? NULL : load_error;
}

static void *preload(void *unused) {
    (void)unused;
    (void)loaded();
    return NULL;
}

void cnse_curl_preload(void) {
    pthread_attr_t attributes;
    pthread_t thread;
    if (pthread_attr_init(&attributes) != 0) {
        return;
    }
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    // Without a thread, nothing is lost: the first download loads libcurl instead.
    (void)pthread_create(&thread, &attributes, preload, NULL);
    pthread_attr_destroy(&attributes);
}

// MARK: The forwarders, each failing as libcurl would when it could not be loaded.

CURLcode(curl_global_init)(long flags) {
    return loaded() ? library.curl_global_init(flags) : CURLE_FAILED_INIT;
}

char *(curl_version)(void) {
    static char unavailable[] = "libcurl not loaded";
    return loaded() ? library.curl_version() : unavailable;
}

curl_version_info_data *(curl_version_info)(CURLversion version) {
    return loaded() ? library.curl_version_info(version) : NULL;
}

void(curl_free)(void *pointer) {
    // Only libcurl's own allocations come here, so it is loaded whenever `pointer` is not NULL.
    if (pointer != NULL && loaded()) {
        library.curl_free(pointer);
    }
}

CURL *(curl_easy_init)(void) {
    return loaded() ? library.curl_easy_init() : NULL;
}

void(curl_easy_cleanup)(CURL *handle) {
    if (handle != NULL && loaded()) {
        library.curl_easy_cleanup(handle);
    }
}

// curl_easy_setopt and curl_multi_setopt: libcurl reads the argument after `option` as the type the option's number
// range stands for (curl.h's CURLOPTTYPE_*, which multi.h's CURLMOPTTYPE_* repeat for the multi options, none of
// them a blob); it is read here as that type and passed on as that type.
#define CNSE_CURL_SETOPT(name, handle_type, option_type, result_type, unloaded)                                \
    result_type(name)(handle_type * handle, option_type option, ...) {                                           \
        if (!loaded()) {                                                                                        \
            return unloaded;                                                                                    \
        }                                                                                                       \
        va_list arguments;                                                                                      \
        va_start(arguments, option);                                                                            \
        result_type result =                                                                                    \
            option < CURLOPTTYPE_OBJECTPOINT     ? library.name(handle, option, va_arg(arguments, long))        \
            : option < CURLOPTTYPE_FUNCTIONPOINT ? library.name(handle, option, va_arg(arguments, void *))      \
            : option < CURLOPTTYPE_OFF_T ? library.name(handle, option, va_arg(arguments, void (*)(void)))      \
            : option < CURLOPTTYPE_BLOB  ? library.name(handle, option, va_arg(arguments, curl_off_t))          \
                                         : library.name(handle, option, va_arg(arguments, void *));             \
        va_end(arguments);                                                                                      \
        return result;                                                                                          \
    }

CNSE_CURL_SETOPT(curl_easy_setopt, CURL, CURLoption, CURLcode, CURLE_FAILED_INIT)
CNSE_CURL_SETOPT(curl_multi_setopt, CURLM, CURLMoption, CURLMcode, CURLM_BAD_HANDLE)

// Every curl_easy_getinfo takes a pointer to where the value goes.
CURLcode(curl_easy_getinfo)(CURL *handle, CURLINFO info, ...) {
    if (!loaded()) {
        return CURLE_FAILED_INIT;
    }
    va_list arguments;
    va_start(arguments, info);
    CURLcode result = library.curl_easy_getinfo(handle, info, va_arg(arguments, void *));
    va_end(arguments);
    return result;
}

CURLcode(curl_easy_perform)(CURL *handle) {
    return loaded() ? library.curl_easy_perform(handle) : CURLE_FAILED_INIT;
}

CURLcode(curl_easy_pause)(CURL *handle, int bitmask) {
    return loaded() ? library.curl_easy_pause(handle, bitmask) : CURLE_FAILED_INIT;
}

const char *(curl_easy_strerror)(CURLcode code) {
    return loaded() ? library.curl_easy_strerror(code) : load_error;
}

struct curl_slist *(curl_slist_append)(struct curl_slist *list, const char *string) {
    return loaded() ? library.curl_slist_append(list, string) : NULL;
}

void(curl_slist_free_all)(struct curl_slist *list) {
    if (list != NULL && loaded()) {
        library.curl_slist_free_all(list);
    }
}

CURLU *(curl_url)(void) {
    return loaded() ? library.curl_url() : NULL;
}

CURLUcode(curl_url_get)(const CURLU *url, CURLUPart part, char **value, unsigned int flags) {
    return loaded() ? library.curl_url_get(url, part, value, flags) : CURLUE_OUT_OF_MEMORY;
}

CURLUcode(curl_url_set)(CURLU *url, CURLUPart part, const char *value, unsigned int flags) {
    return loaded() ? library.curl_url_set(url, part, value, flags) : CURLUE_OUT_OF_MEMORY;
}

CURLM *(curl_multi_init)(void) {
    return loaded() ? library.curl_multi_init() : NULL;
}

CURLMcode(curl_multi_cleanup)(CURLM *multi) {
    return loaded() ? library.curl_multi_cleanup(multi) : CURLM_BAD_HANDLE;
}

CURLMcode(curl_multi_add_handle)(CURLM *multi, CURL *handle) {
    return loaded() ? library.curl_multi_add_handle(multi, handle) : CURLM_BAD_HANDLE;
}

CURLMcode(curl_multi_remove_handle)(CURLM *multi, CURL *handle) {
    return loaded() ? library.curl_multi_remove_handle(multi, handle) : CURLM_BAD_HANDLE;
}

CURLMcode(curl_multi_perform)(CURLM *multi, int *running) {
    return loaded() ? library.curl_multi_perform(multi, running) : CURLM_BAD_HANDLE;
}

CURLMcode(curl_multi_poll)(CURLM *multi, struct curl_waitfd descriptors[], unsigned int count, int timeout,
                           int *ready) {
    return loaded() ? library.curl_multi_poll(multi, descriptors, count, timeout, ready) : CURLM_BAD_HANDLE;
}

CURLMcode(curl_multi_wakeup)(CURLM *multi) {
    return loaded() ? library.curl_multi_wakeup(multi) : CURLM_BAD_HANDLE;
}

CURLMsg *(curl_multi_info_read)(CURLM *multi, int *queued) {
    if (!loaded()) {
        *queued = 0;
        return NULL;
    }
    return library.curl_multi_info_read(multi, queued);
}

CURLMcode(curl_multi_socket_action)(CURLM *multi, curl_socket_t socket, int mask, int *running) {
    return loaded() ? library.curl_multi_socket_action(multi, socket, mask, running) : CURLM_BAD_HANDLE;
}

CURLMcode(curl_multi_assign)(CURLM *multi, curl_socket_t socket, void *pointer) {
    return loaded() ? library.curl_multi_assign(multi, socket, pointer) : CURLM_BAD_HANDLE;
}

const char *(curl_multi_strerror)(CURLMcode code) {
    return loaded() ? library.curl_multi_strerror(code) : load_error;
}
