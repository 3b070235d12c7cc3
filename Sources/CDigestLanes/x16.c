// The AVX-512 kernels: 16 messages a time, message i in the 32-bit lane i of every zmm register
// (md5_body.h and sha1_body.h over __m512i). AVX-512 has what these hashes are made of as single
// instructions: a rotation (vprold) and any function of three words (vpternlogd, the truth table
// of the round function as its immediate), so a step of either hash is a short chain.
//
// Loading a block: the 64 bytes of each of the 16 messages are 16 registers, one a lane, and the
// kernels need the transpose (register j holds word j of every message): three rounds of
// shuffles, 64 in all, where gathering would take 256 loads.

#include "kernels.h"

#ifdef KODO_LANES_X86

#include <immintrin.h>

#define KODO_X16 __attribute__((target("avx512f,avx512bw")))

#define V __m512i
#define ADD(x, y) _mm512_add_epi32((x), (y))
#define ROL(x, n) _mm512_rol_epi32((x), (n))
#define CONST(k) _mm512_set1_epi32((int)(k))
// A vpternlogd immediate is the truth table of its function at x = 0xF0, y = 0xCC, z = 0xAA.
#define TERNARY(x, y, z, table) _mm512_ternarylogic_epi32((x), (y), (z), (table) & 0xFF)
#define XOR4(w, x, y, z) _mm512_xor_si512(TERNARY((w), (x), (y), 0xF0 ^ 0xCC ^ 0xAA), (z))

#define MD5_F(x, y, z) TERNARY((x), (y), (z), (0xF0 & 0xCC) | (~0xF0 & 0xAA))
#define MD5_G(x, y, z) TERNARY((x), (y), (z), (0xF0 & 0xAA) | (0xCC & ~0xAA))
#define MD5_H(x, y, z) TERNARY((x), (y), (z), 0xF0 ^ 0xCC ^ 0xAA)
#define MD5_I(x, y, z) TERNARY((x), (y), (z), 0xCC ^ (0xF0 | ~0xAA))
#define MD5_BODY_NAME kodo_md5_block_x16
#define MD5_BODY_ATTR KODO_X16
#include "md5_body.h"

#define SHA1_CH(x, y, z) TERNARY((x), (y), (z), (0xF0 & 0xCC) | (~0xF0 & 0xAA))
#define SHA1_PARITY(x, y, z) TERNARY((x), (y), (z), 0xF0 ^ 0xCC ^ 0xAA)
#define SHA1_MAJ(x, y, z) TERNARY((x), (y), (z), (0xF0 & 0xCC) | (0xF0 & 0xAA) | (0xCC & 0xAA))
#define SHA1_BODY_NAME kodo_sha1_block_x16
#define SHA1_BODY_ATTR KODO_X16
#include "sha1_body.h"

// w[j] = word j of the 64 bytes at data[i] + offset, in lane i.
static inline KODO_X16 void kodo_load_x16(__m512i *w, const unsigned char *const *data,
                                          size_t offset) {
  __m512i r[16], t[16];
  for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_si512((const void *)(data[i] + offset));
  // Pairs of rows interleaved by words, then by pairs of words: t[4g + k] holds, in 128-bit
  // lane m, word 4m + k of rows 4g to 4g + 3.
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  for (int g = 0; g < 16; g += 4) {
    r[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
    r[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
    r[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
    r[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
  }
  // Then the 128-bit lanes: word 4m + k of the four groups of rows, from lane m of r[k],
  // r[4 + k], r[8 + k], r[12 + k].
  for (int k = 0; k < 4; k++) {
    __m512i low01 = _mm512_shuffle_i32x4(r[k], r[4 + k], 0x44);
    __m512i high01 = _mm512_shuffle_i32x4(r[k], r[4 + k], 0xEE);
    __m512i low23 = _mm512_shuffle_i32x4(r[8 + k], r[12 + k], 0x44);
    __m512i high23 = _mm512_shuffle_i32x4(r[8 + k], r[12 + k], 0xEE);
    w[k] = _mm512_shuffle_i32x4(low01, low23, 0x88);
    w[k + 4] = _mm512_shuffle_i32x4(low01, low23, 0xDD);
    w[k + 8] = _mm512_shuffle_i32x4(high01, high23, 0x88);
    w[k + 12] = _mm512_shuffle_i32x4(high01, high23, 0xDD);
  }
}

KODO_X16 void kodo_md5_x16(uint32_t *states, const unsigned char *const *data, size_t blocks) {
  const __m512i index = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(4));
  __m512i s[4], w[16];
  for (int j = 0; j < 4; j++) s[j] = _mm512_i32gather_epi32(index, (const void *)(states + j), 4);
  for (size_t block = 0; block < blocks; block++) {
    kodo_load_x16(w, data, 64 * block);
    kodo_md5_block_x16(s, w);
  }
  for (int j = 0; j < 4; j++) _mm512_i32scatter_epi32((void *)(states + j), index, s[j], 4);
}

KODO_X16 void kodo_sha1_x16(uint32_t *states, const unsigned char *const *data, size_t blocks) {
  const __m512i index = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(5));
  // Each word's bytes reversed: SHA-1 reads its words big-endian.
  const __m512i swap = _mm512_broadcast_i32x4(
      _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12));
  __m512i s[5], w[16];
  for (int j = 0; j < 5; j++) s[j] = _mm512_i32gather_epi32(index, (const void *)(states + j), 4);
  for (size_t block = 0; block < blocks; block++) {
    kodo_load_x16(w, data, 64 * block);
    for (int j = 0; j < 16; j++) w[j] = _mm512_shuffle_epi8(w[j], swap);
    kodo_sha1_block_x16(s, w);
  }
  for (int j = 0; j < 5; j++) _mm512_i32scatter_epi32((void *)(states + j), index, s[j], 4);
}

#endif
