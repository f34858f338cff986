#ifndef ADHOCBUILD_CLIBCURL_SHIM_H
#define ADHOCBUILD_CLIBCURL_SHIM_H

/* libcurl's easy interface: the HTTP client of ObjectStorage.
 *
 * The header gives the types and constants; the functions are looked up in libcurl.so.4 when the
 * first request is sent (ObjectStorage's LibCurl), so that a command that sends none does not load
 * libcurl and the 27 libraries it needs. */
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; these wrappers take
 * the function libcurl exports (as looked up) and give each argument type a function of its own. */
typedef CURLcode (*shim_curl_setopt_function)(CURL *handle, CURLoption option, ...);

static inline CURLcode shim_curl_easy_setopt_long(void *setopt, CURL *handle, CURLoption option, long value) {
    return ((shim_curl_setopt_function)setopt)(handle, option, value);
}
static inline CURLcode shim_curl_easy_setopt_offset(void *setopt, CURL *handle, CURLoption option, curl_off_t value) {
    return ((shim_curl_setopt_function)setopt)(handle, option, value);
}
static inline CURLcode shim_curl_easy_setopt_string(void *setopt, CURL *handle, CURLoption option, const char *value) {
    return ((shim_curl_setopt_function)setopt)(handle, option, value);
}
static inline CURLcode shim_curl_easy_setopt_pointer(void *setopt, CURL *handle, CURLoption option, void *value) {
    return ((shim_curl_setopt_function)setopt)(handle, option, value);
}
static inline CURLcode shim_curl_easy_setopt_slist(void *setopt, CURL *handle, CURLoption option, struct curl_slist *value) {
    return ((shim_curl_setopt_function)setopt)(handle, option, value);
}
/* The data callbacks: CURLOPT_WRITEFUNCTION, CURLOPT_READFUNCTION and CURLOPT_HEADERFUNCTION. */
typedef size_t (*shim_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);
static inline CURLcode shim_curl_easy_setopt_callback(void *setopt, CURL *handle, CURLoption option, shim_curl_data_callback callback) {
    return ((shim_curl_setopt_function)setopt)(handle, option, callback);
}

#endif
