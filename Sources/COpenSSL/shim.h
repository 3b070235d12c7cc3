#ifndef KODO_COPENSSL_SHIM_H
#define KODO_COPENSSL_SHIM_H

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <openssl/sha.h>

// HMAC-SHA1 of `data` under `key` into `out` (at least 20 bytes). Returns 1 on success, 0 on failure.
// Takes `void *` so Swift can pass raw buffers without rebinding memory to `unsigned char`.
static inline int kodo_hmac_sha1(const void *key, int key_len, const void *data, size_t data_len,
                                 void *out, unsigned int *out_len) {
  return HMAC(EVP_sha1(), key, key_len, (const unsigned char *)data, data_len,
              (unsigned char *)out, out_len) != NULL;
}

// A reusable HMAC-SHA1 context keyed with `key` (OpenSSL 3's EVP_MAC), or NULL when libcrypto
// cannot make one. The one-shot HMAC() looks the algorithm up and schedules the key on every
// call; a keyed context does that once. Not thread-safe: callers serialise its use.
static inline EVP_MAC_CTX *kodo_hmac_sha1_context(const void *key, size_t key_len) {
  EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
  if (mac == NULL) return NULL;
  EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
  EVP_MAC_free(mac); // the context keeps its own reference
  if (context == NULL) return NULL;
  char digest[] = "SHA1";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                         OSSL_PARAM_construct_end()};
  // An empty key is valid HMAC input; EVP_MAC_init needs a non-NULL pointer for it.
  static const unsigned char empty = 0;
  if (EVP_MAC_init(context, key_len > 0 ? (const unsigned char *)key : &empty, key_len, params) != 1) {
    EVP_MAC_CTX_free(context);
    return NULL;
  }
  return context;
}

// HMAC-SHA1 of `data` with the key `context` was made with, into `out` (20 bytes). Returns 1 on
// success. Re-initialising with a NULL key restarts from the stored key schedule.
static inline int kodo_hmac_sha1_keyed(EVP_MAC_CTX *context, const void *data, size_t data_len,
                                       void *out) {
  size_t length = 0;
  return EVP_MAC_init(context, NULL, 0, NULL) == 1 &&
         EVP_MAC_update(context, (const unsigned char *)data, data_len) == 1 &&
         EVP_MAC_final(context, (unsigned char *)out, &length, 20) == 1 && length == 20;
}

static inline void kodo_hmac_sha1_free(EVP_MAC_CTX *context) { EVP_MAC_CTX_free(context); }

// SHA-1 of `data` into `out` (20 bytes). Used for Kodo's qetag.
static inline void kodo_sha1(const void *data, size_t data_len, void *out) {
  SHA1((const unsigned char *)data, data_len, (unsigned char *)out);
}

// MD5 of `data` into `out` (16 bytes); the `md5` field of objects, not security.
static inline int kodo_md5(const void *data, size_t data_len, void *out) {
  return EVP_Digest(data, data_len, (unsigned char *)out, NULL, EVP_md5(), NULL);
}

#endif
