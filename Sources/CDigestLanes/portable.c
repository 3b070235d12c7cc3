// The one-lane kernels in portable C: md5_body.h and sha1_body.h over plain 32-bit words. Any
// CPU runs them; the dispatch in lanes.c uses them where no SIMD kernel is available, and for
// lanes too few to fill one.

#include "kernels.h"

#define V uint32_t
#define ADD(x, y) ((uint32_t)((x) + (y)))
#define ROL(x, n) ((uint32_t)(((x) << (n)) | ((x) >> (32 - (n)))))
#define CONST(k) ((uint32_t)(k))
#define XOR4(w, x, y, z) ((w) ^ (x) ^ (y) ^ (z))

// RFC 1321's F, G, H, I, each with the first argument (the newest word, on the chain from step
// to step) as late as it goes: F a select by it in two operations after it, G as two terms added
// one after the other (they have no bit in common), H one XOR after it.
#define MD5_F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MD5_ADD_G(t, x, y, z) ADD(ADD((t), (y) & ~(z)), (x) & (z))
#define MD5_H(x, y, z) ((x) ^ ((y) ^ (z)))
#define MD5_I(x, y, z) ((y) ^ ((x) | ~(z)))
#define MD5_BODY_NAME kodo_md5_block_x1
#define MD5_BODY_ATTR
#include "md5_body.h"

#define SHA1_CH(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define SHA1_PARITY(x, y, z) ((x) ^ (y) ^ (z))
#define SHA1_MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))
#define SHA1_BODY_NAME kodo_sha1_block_x1
#define SHA1_BODY_ATTR
#include "sha1_body.h"

static inline uint32_t kodo_load_le(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t kodo_load_be(const unsigned char *p) {
  return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

void kodo_md5_x1(uint32_t *state, const unsigned char *data, size_t blocks) {
  uint32_t s[4] = {state[0], state[1], state[2], state[3]};
  for (size_t block = 0; block < blocks; block++, data += 64) {
    uint32_t w[16];
    for (int i = 0; i < 16; i++) w[i] = kodo_load_le(data + 4 * i);
    kodo_md5_block_x1(s, w);
  }
  for (int i = 0; i < 4; i++) state[i] = s[i];
}

void kodo_sha1_x1(uint32_t *state, const unsigned char *data, size_t blocks) {
  uint32_t s[5] = {state[0], state[1], state[2], state[3], state[4]};
  for (size_t block = 0; block < blocks; block++, data += 64) {
    uint32_t w[16];
    for (int i = 0; i < 16; i++) w[i] = kodo_load_be(data + 4 * i);
    kodo_sha1_block_x1(s, w);
  }
  for (int i = 0; i < 5; i++) state[i] = s[i];
}
