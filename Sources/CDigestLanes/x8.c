// The AVX2 kernels: 8 messages a time, message i in the 32-bit lane i of every ymm register
// (md5_body.h and sha1_body.h over __m256i), for CPUs without AVX-512. AVX2 has no rotation
// (two shifts and an OR) and no three-input logic (a round function is two or three operations),
// so a step's chain is longer than x16.c's.
//
// Loading a block: each message's 64 bytes are two registers, words 0-7 and 8-15, and each half
// is an 8 by 8 transpose (24 shuffles).

#include "kernels.h"

#ifdef KODO_LANES_X86

#include <immintrin.h>

#define KODO_X8 __attribute__((target("avx2")))

#define V __m256i
#define ADD(x, y) _mm256_add_epi32((x), (y))
#define ROL(x, n) _mm256_or_si256(_mm256_slli_epi32((x), (n)), _mm256_srli_epi32((x), 32 - (n)))
#define CONST(k) _mm256_set1_epi32((int)(k))
#define XOR(x, y) _mm256_xor_si256((x), (y))
#define AND(x, y) _mm256_and_si256((x), (y))
#define OR(x, y) _mm256_or_si256((x), (y))
#define XOR4(w, x, y, z) XOR(XOR((w), (x)), XOR((y), (z)))

// As portable.c (the first argument as late as it goes), I's complement an XOR with all ones.
#define MD5_F(x, y, z) XOR((z), AND((x), XOR((y), (z))))
#define MD5_ADD_G(t, x, y, z) ADD(ADD((t), _mm256_andnot_si256((z), (y))), AND((x), (z)))
#define MD5_H(x, y, z) XOR((x), XOR((y), (z)))
#define MD5_I(x, y, z) XOR((y), OR((x), XOR((z), _mm256_set1_epi32(-1))))
#define MD5_BODY_NAME kodo_md5_block_x8
#define MD5_BODY_ATTR KODO_X8
#include "md5_body.h"

#define SHA1_CH(x, y, z) XOR((z), AND((x), XOR((y), (z))))
#define SHA1_PARITY(x, y, z) XOR(XOR((x), (y)), (z))
#define SHA1_MAJ(x, y, z) OR(AND((x), (y)), AND((z), OR((x), (y))))
#define SHA1_BODY_NAME kodo_sha1_block_x8
#define SHA1_BODY_ATTR KODO_X8
#include "sha1_body.h"

// w[j] = word j of the 64 bytes at data[i] + offset, in lane i.
static inline KODO_X8 void kodo_load_x8(__m256i *w, const unsigned char *const *data,
                                        size_t offset) {
  for (int half = 0; half < 2; half++) {
    __m256i r[8], t[8];
    for (int i = 0; i < 8; i++) {
      r[i] = _mm256_loadu_si256((const __m256i *)(const void *)(data[i] + offset + 32 * half));
    }
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
      t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
    }
    // r[4g + k] holds, in 128-bit lane m, word 4m + k of rows 4g to 4g + 3.
    for (int g = 0; g < 8; g += 4) {
      r[g] = _mm256_unpacklo_epi64(t[g], t[g + 2]);
      r[g + 1] = _mm256_unpackhi_epi64(t[g], t[g + 2]);
      r[g + 2] = _mm256_unpacklo_epi64(t[g + 1], t[g + 3]);
      r[g + 3] = _mm256_unpackhi_epi64(t[g + 1], t[g + 3]);
    }
    for (int k = 0; k < 4; k++) {
      w[8 * half + k] = _mm256_permute2x128_si256(r[k], r[4 + k], 0x20);
      w[8 * half + k + 4] = _mm256_permute2x128_si256(r[k], r[4 + k], 0x31);
    }
  }
}

// The lanes' states in and out: word j of lane i is states[words * i + j].
static inline KODO_X8 void kodo_gather_x8(__m256i *s, const uint32_t *states, int words) {
  const __m256i index = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                           _mm256_set1_epi32(words));
  for (int j = 0; j < words; j++) {
    s[j] = _mm256_i32gather_epi32((const int *)(const void *)(states + j), index, 4);
  }
}

static inline KODO_X8 void kodo_scatter_x8(uint32_t *states, const __m256i *s, int words) {
  for (int j = 0; j < words; j++) {
    uint32_t lanes[8];
    _mm256_storeu_si256((__m256i *)(void *)lanes, s[j]);
    for (int i = 0; i < 8; i++) states[words * i + j] = lanes[i];
  }
}

KODO_X8 void kodo_md5_x8(uint32_t *states, const unsigned char *const *data, size_t blocks) {
  __m256i s[4], w[16];
  kodo_gather_x8(s, states, 4);
  for (size_t block = 0; block < blocks; block++) {
    kodo_load_x8(w, data, 64 * block);
    kodo_md5_block_x8(s, w);
  }
  kodo_scatter_x8(states, s, 4);
}

KODO_X8 void kodo_sha1_x8(uint32_t *states, const unsigned char *const *data, size_t blocks) {
  // Each word's bytes reversed: SHA-1 reads its words big-endian.
  const __m256i swap = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2,
                                        1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
  __m256i s[5], w[16];
  kodo_gather_x8(s, states, 5);
  for (size_t block = 0; block < blocks; block++) {
    kodo_load_x8(w, data, 64 * block);
    for (int j = 0; j < 16; j++) w[j] = _mm256_shuffle_epi8(w[j], swap);
    kodo_sha1_block_x8(s, w);
  }
  kodo_scatter_x8(states, s, 5);
}

#endif
