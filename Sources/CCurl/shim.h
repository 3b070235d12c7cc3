#ifndef KODO_CCURL_SHIM_H
#define KODO_CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, and Swift cannot call variadic C functions.
// One typed wrapper per argument type lets Swift pass exactly the type libcurl expects.

static inline CURLcode kodo_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kodo_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kodo_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kodo_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kodo_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
  return curl_easy_setopt(handle, option, value);
}

typedef size_t (*kodo_curl_data_callback)(char *buffer, size_t size, size_t nitems, void *userdata);

static inline CURLcode kodo_curl_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                                           kodo_curl_data_callback callback) {
  return curl_easy_setopt(handle, option, callback);
}

typedef int (*kodo_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                           curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode kodo_curl_easy_setopt_xferinfo_callback(CURL *handle,
                                                               kodo_curl_xferinfo_callback callback) {
  return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

typedef int (*kodo_curl_seek_callback)(void *userdata, curl_off_t offset, int origin);

static inline CURLcode kodo_curl_easy_setopt_seek_callback(CURL *handle,
                                                           kodo_curl_seek_callback callback) {
  return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}

static inline CURLcode kodo_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode kodo_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
  return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode kodo_curl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
  return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode kodo_curl_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
  return curl_share_setopt(share, option, value);
}

// CURLINFO_EFFECTIVE_URL and friends hand back a `char *` owned by the handle through a
// `char **`; a typed wrapper keeps the variadic call out of Swift.
static inline CURLcode kodo_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
  return curl_easy_getinfo(handle, info, value);
}

// CURL_GLOBAL_ALL is a macro built from shifts; one wrapper avoids depending on how Swift imports it.
static inline CURLcode kodo_curl_global_init_all(void) {
  return curl_global_init(CURL_GLOBAL_ALL);
}

#endif
