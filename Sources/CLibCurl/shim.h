#ifndef ADHOCBUILD_CLIBCURL_SHIM_H
#define ADHOCBUILD_CLIBCURL_SHIM_H

/* libcurl's easy interface: the HTTP client of ObjectStorage. */
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; these wrappers
   give each argument type a function of its own and add nothing else. */
static inline CURLcode shim_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode shim_curl_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode shim_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode shim_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode shim_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
/* The data callbacks: CURLOPT_WRITEFUNCTION, CURLOPT_READFUNCTION and CURLOPT_HEADERFUNCTION. */
typedef size_t (*shim_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);
static inline CURLcode shim_curl_easy_setopt_callback(CURL *handle, CURLoption option, shim_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode shim_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
