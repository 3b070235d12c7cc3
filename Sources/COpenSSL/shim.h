#ifndef KODO_COPENSSL_SHIM_H
#define KODO_COPENSSL_SHIM_H

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <openssl/sha.h>

// Which digest an HMAC or a hash uses. An enum rather than an `EVP_MD *` so Swift never handles
// libcrypto's algorithm objects.
typedef enum { KODO_DIGEST_SHA1 = 1, KODO_DIGEST_SHA256 = 2, KODO_DIGEST_MD5 = 3 } kodo_digest;

static inline const EVP_MD *kodo_digest_md(kodo_digest digest) {
  switch (digest) {
  case KODO_DIGEST_SHA1: return EVP_sha1();
  case KODO_DIGEST_SHA256: return EVP_sha256();
  case KODO_DIGEST_MD5: return EVP_md5();
  }
  return NULL;
}

static inline const char *kodo_digest_name(kodo_digest digest) {
  switch (digest) {
  case KODO_DIGEST_SHA1: return "SHA1";
  case KODO_DIGEST_SHA256: return "SHA256";
  case KODO_DIGEST_MD5: return "MD5";
  }
  return "SHA1";
}

// One-shot HMAC of `data` under `key` into `out` (at least EVP_MAX_MD_SIZE bytes). Returns 1 on
// success, 0 on failure. Takes `void *` so Swift can pass raw buffers without rebinding memory.
static inline int kodo_hmac(kodo_digest digest, const void *key, int key_len, const void *data,
                            size_t data_len, void *out, unsigned int *out_len) {
  return HMAC(kodo_digest_md(digest), key, key_len, (const unsigned char *)data, data_len,
              (unsigned char *)out, out_len) != NULL;
}

// A reusable HMAC context keyed with `key` (OpenSSL 3's EVP_MAC), or NULL when libcrypto cannot
// make one. The one-shot HMAC() looks the algorithm up and schedules the key on every call; a
// keyed context does that once. Not thread-safe: callers serialise its use.
static inline EVP_MAC_CTX *kodo_hmac_context(kodo_digest digest, const void *key, size_t key_len) {
  EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
  if (mac == NULL) return NULL;
  EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
  EVP_MAC_free(mac); // the context keeps its own reference
  if (context == NULL) return NULL;
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)kodo_digest_name(digest), 0),
      OSSL_PARAM_construct_end()};
  // An empty key is valid HMAC input; EVP_MAC_init needs a non-NULL pointer for it.
  static const unsigned char empty = 0;
  if (EVP_MAC_init(context, key_len > 0 ? (const unsigned char *)key : &empty, key_len, params) != 1) {
    EVP_MAC_CTX_free(context);
    return NULL;
  }
  return context;
}

// HMAC of `data` with the key `context` was made with, into `out` (`out_len` bytes: the digest's
// size). Returns 1 on success. Re-initialising with a NULL key restarts from the stored schedule.
static inline int kodo_hmac_keyed(EVP_MAC_CTX *context, const void *data, size_t data_len,
                                  void *out, size_t out_len) {
  size_t length = 0;
  return EVP_MAC_init(context, NULL, 0, NULL) == 1 &&
         EVP_MAC_update(context, (const unsigned char *)data, data_len) == 1 &&
         EVP_MAC_final(context, (unsigned char *)out, &length, out_len) == 1 && length == out_len;
}

static inline void kodo_hmac_free(EVP_MAC_CTX *context) { EVP_MAC_CTX_free(context); }

// The digest of `data` into `out` (the digest's size). Returns 1 on success.
static inline int kodo_digest_once(kodo_digest digest, const void *data, size_t data_len, void *out) {
  return EVP_Digest(data, data_len, (unsigned char *)out, NULL, kodo_digest_md(digest), NULL);
}

// A running digest: begin (NULL when libcrypto cannot allocate), update, copy, final into `out`
// (the digest's size), free. Returns 1 on success where an int is returned.
static inline EVP_MD_CTX *kodo_digest_begin(kodo_digest digest) {
  EVP_MD_CTX *context = EVP_MD_CTX_new();
  if (context != NULL && EVP_DigestInit_ex(context, kodo_digest_md(digest), NULL) != 1) {
    EVP_MD_CTX_free(context);
    return NULL;
  }
  return context;
}

static inline int kodo_digest_update(EVP_MD_CTX *context, const void *data, size_t data_len) {
  return EVP_DigestUpdate(context, data, data_len);
}

static inline EVP_MD_CTX *kodo_digest_copy(const EVP_MD_CTX *context) {
  EVP_MD_CTX *copy = EVP_MD_CTX_new();
  if (copy != NULL && EVP_MD_CTX_copy_ex(copy, context) != 1) {
    EVP_MD_CTX_free(copy);
    return NULL;
  }
  return copy;
}

static inline int kodo_digest_final(EVP_MD_CTX *context, void *out) {
  unsigned int length = 0;
  return EVP_DigestFinal_ex(context, (unsigned char *)out, &length);
}

static inline void kodo_digest_free(EVP_MD_CTX *context) { EVP_MD_CTX_free(context); }

// SHA-1 of `data` into `out` (20 bytes), without EVP's per-call algorithm lookup: Kodo's qetag
// hashes every 4 MiB block of a download with it.
static inline void kodo_sha1(const void *data, size_t data_len, void *out) {
  SHA1((const unsigned char *)data, data_len, (unsigned char *)out);
}

#endif
