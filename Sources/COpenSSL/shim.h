#ifndef KODO_COPENSSL_SHIM_H
#define KODO_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

// HMAC-SHA1 of `data` under `key` into `out` (at least 20 bytes). Returns 1 on success, 0 on failure.
// Takes `void *` so Swift can pass raw buffers without rebinding memory to `unsigned char`.
static inline int kodo_hmac_sha1(const void *key, int key_len, const void *data, size_t data_len,
                                 void *out, unsigned int *out_len) {
  return HMAC(EVP_sha1(), key, key_len, (const unsigned char *)data, data_len,
              (unsigned char *)out, out_len) != NULL;
}

// SHA-1 of `data` into `out` (20 bytes). Used for Kodo's qetag.
static inline void kodo_sha1(const void *data, size_t data_len, void *out) {
  SHA1((const unsigned char *)data, data_len, (unsigned char *)out);
}

#endif
