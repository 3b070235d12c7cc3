// CRC-64/XZ by folding with PCLMULQDQ (Intel, "Fast CRC Computation for Generic Polynomials
// Using PCLMULQDQ Instruction", 2009), for the reflected ECMA-182 polynomial.
//
// In the reflected domain a 64-bit value holds a polynomial of degree < 64 with bit i the
// coefficient of x^(63 - i), and a 128-bit lane bit k the coefficient of x^(127 - k); a carry-less
// product of two 64-bit values is then their product times x. The 128-bit accumulator X is kept
// congruent (mod P) to the bytes so far (the register XORed into the first eight), so the
// register after them is X * x^64 mod P. Folding X over the next S bits multiplies its two
// halves by x^(S + 63) mod P and x^(S - 1) mod P (the extra x the product adds taken off).
// The constants below are those powers of x modulo P, reflected. Where the CPU has VPCLMULQDQ
// (AVX-512), the same folds run on four lanes per instruction.

#include "ccrc64.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

int kodo_crc64_fold_available(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

#define KODO_CRC64_TARGET __attribute__((target("pclmul,sse4.1")))

// `x` folded over the S bits that follow it: its low half (the higher powers) times `k`'s low
// half (x^(S + 63) mod P), its high half times `k`'s high half (x^(S - 1) mod P).
static inline KODO_CRC64_TARGET __m128i kodo_fold(__m128i x, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

static inline KODO_CRC64_TARGET __m128i kodo_load(const unsigned char *p) {
  return _mm_loadu_si128((const __m128i *)(const void *)p);
}

// x^k mod P, reflected, as (low, high) pairs for _mm_set_epi64x (which takes high first): the
// low half x^(S + 63), the high half x^(S - 1), for folding over S bits.
#define KODO_BY512 0x081f6054a7842df4, 0x6ae3efbb9dd441f3
#define KODO_BY384 0x69a35d91c3730254, (long long)0xb5ea1af9c013aca4
#define KODO_BY256 0x3be653a30fe1af51, 0x60095b008a9efa44
#define KODO_BY128 (long long)0xdabe95afc7875f40, (long long)0xe05dd497ca393ae4
#define KODO_BY1024 (long long)0xd7d86b2af73de740, (long long)0x8757d71d4fcc1000
#define KODO_BY1536 (long long)0xb0382771eb06c453, 0x47b00921f036ff71
#define KODO_BY2048 (long long)0xf31fd9271e228b79, (long long)0x8260adf2381ad81c

// The four 128-bit lanes of one 64-byte window folded into one accumulator, as the 16-byte path
// ends its four-lane loop: the first lane over the 384 bits that follow it, and so on.
static inline KODO_CRC64_TARGET __m128i kodo_join4(__m128i a, __m128i b, __m128i c, __m128i d) {
  return _mm_xor_si128(
      _mm_xor_si128(kodo_fold(a, _mm_set_epi64x(KODO_BY384)), kodo_fold(b, _mm_set_epi64x(KODO_BY256))),
      _mm_xor_si128(kodo_fold(c, _mm_set_epi64x(KODO_BY128)), d));
}

#define KODO_CRC64_WIDE_TARGET __attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.1")))

// The same folding 512 bits per instruction (VPCLMULQDQ): four 64-byte accumulators of four
// lanes each, 256 bytes a round, folded over 2,048 bits; then joined into one 64-byte window
// (over 1,536, 1,024 and 512 bits) and that into one lane as above. Takes at least 16 blocks,
// consumes a multiple of 16 and returns the accumulator of what it consumed in `*out`.
static KODO_CRC64_WIDE_TARGET void kodo_fold_wide(uint64_t reg, const unsigned char **bytes,
                                                  size_t *blocks, __m128i *out) {
  const unsigned char *p = *bytes;
  size_t left = *blocks - 16;
  const __m512i by2048 = _mm512_broadcast_i32x4(_mm_set_epi64x(KODO_BY2048));
  __m512i a = _mm512_xor_si512(_mm512_loadu_si512((const void *)p),
                               _mm512_zextsi128_si512(_mm_cvtsi64_si128((long long)reg)));
  __m512i b = _mm512_loadu_si512((const void *)(p + 64));
  __m512i c = _mm512_loadu_si512((const void *)(p + 128));
  __m512i d = _mm512_loadu_si512((const void *)(p + 192));
  p += 256;
#define KODO_FOLD512(z, k) \
  _mm512_xor_si512(_mm512_clmulepi64_epi128((z), (k), 0x00), _mm512_clmulepi64_epi128((z), (k), 0x11))
  while (left >= 16) {
    a = _mm512_xor_si512(KODO_FOLD512(a, by2048), _mm512_loadu_si512((const void *)p));
    b = _mm512_xor_si512(KODO_FOLD512(b, by2048), _mm512_loadu_si512((const void *)(p + 64)));
    c = _mm512_xor_si512(KODO_FOLD512(c, by2048), _mm512_loadu_si512((const void *)(p + 128)));
    d = _mm512_xor_si512(KODO_FOLD512(d, by2048), _mm512_loadu_si512((const void *)(p + 192)));
    p += 256;
    left -= 16;
  }
  __m512i z = _mm512_xor_si512(
      _mm512_xor_si512(KODO_FOLD512(a, _mm512_broadcast_i32x4(_mm_set_epi64x(KODO_BY1536))),
                       KODO_FOLD512(b, _mm512_broadcast_i32x4(_mm_set_epi64x(KODO_BY1024)))),
      _mm512_xor_si512(KODO_FOLD512(c, _mm512_broadcast_i32x4(_mm_set_epi64x(KODO_BY512))), d));
#undef KODO_FOLD512
  *out = kodo_join4(_mm512_extracti32x4_epi32(z, 0), _mm512_extracti32x4_epi32(z, 1),
                    _mm512_extracti32x4_epi32(z, 2), _mm512_extracti32x4_epi32(z, 3));
  *bytes = p;
  *blocks = left;
}

// Whether this CPU runs `kodo_fold_wide`: -1 until asked.
static int kodo_wide_state = -1;

int kodo_crc64_wide_available(void) {
  int state = __atomic_load_n(&kodo_wide_state, __ATOMIC_RELAXED);
  if (state < 0) {
    __builtin_cpu_init();
    state = __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx512f") &&
            __builtin_cpu_supports("avx512vl") && kodo_crc64_fold_available();
    __atomic_store_n(&kodo_wide_state, state, __ATOMIC_RELAXED);
  }
  return state;
}

KODO_CRC64_TARGET uint64_t kodo_crc64_fold(uint64_t reg, const void *bytes, size_t count) {
  return kodo_crc64_fold_with(reg, bytes, count, kodo_crc64_wide_available());
}

KODO_CRC64_TARGET uint64_t kodo_crc64_fold_with(uint64_t reg, const void *bytes, size_t count,
                                                int wide) {
  const unsigned char *p = (const unsigned char *)bytes;
  size_t blocks = count / 16;
  if (blocks == 0) return reg;
  const __m128i by512 = _mm_set_epi64x(KODO_BY512);
  const __m128i by128 = _mm_set_epi64x(KODO_BY128);
  __m128i x;
  if (wide && blocks >= 32 && kodo_crc64_wide_available()) {
    kodo_fold_wide(reg, &p, &blocks, &x);
  } else {
    x = _mm_xor_si128(kodo_load(p), _mm_cvtsi64_si128((long long)reg));
    p += 16;
    blocks -= 1;
  }
  if (blocks >= 3) {
    // Four lanes, 64 bytes a round, so that four chains of products run at once.
    __m128i a = x, b = kodo_load(p), c = kodo_load(p + 16), d = kodo_load(p + 32);
    p += 48;
    blocks -= 3;
    while (blocks >= 4) {
      a = _mm_xor_si128(kodo_fold(a, by512), kodo_load(p));
      b = _mm_xor_si128(kodo_fold(b, by512), kodo_load(p + 16));
      c = _mm_xor_si128(kodo_fold(c, by512), kodo_load(p + 32));
      d = _mm_xor_si128(kodo_fold(d, by512), kodo_load(p + 48));
      p += 64;
      blocks -= 4;
    }
    x = kodo_join4(a, b, c, d);
  }
  while (blocks > 0) {
    x = _mm_xor_si128(kodo_fold(x, by128), kodo_load(p));
    p += 16;
    blocks -= 1;
  }
  // X * x^64 mod P. First Y = X * x^64 folded to 128 bits: the low half times x^127 mod P, plus
  // the high half moved down. Then Barrett: with Y = A * x^64 + B, the quotient of A * x^64 by P
  // is q = A + floor(A * mu' / x^64) (mu = x^128 / P = x^64 + mu'), and the remainder is
  // B + (q * P' mod x^64) (P = x^64 + P').
  __m128i y = _mm_xor_si128(_mm_clmulepi64_si128(x, by128, 0x10), _mm_srli_si128(x, 8));
  uint64_t a = (uint64_t)_mm_cvtsi128_si64(y);
  uint64_t b = (uint64_t)_mm_extract_epi64(y, 1);
  const __m128i mu = _mm_cvtsi64_si128(0x4e1f23360b94b1ea);
  const __m128i poly = _mm_cvtsi64_si128((long long)0xc96c5795d7870f42);
  __m128i v = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)a), mu, 0x00);
  uint64_t q = a ^ ((uint64_t)_mm_cvtsi128_si64(v) << 1);
  __m128i w = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)q), poly, 0x00);
  uint64_t low = ((uint64_t)_mm_extract_epi64(w, 1) << 1) | ((uint64_t)_mm_cvtsi128_si64(w) >> 63);
  return b ^ low;
}

#else

int kodo_crc64_fold_available(void) { return 0; }

int kodo_crc64_wide_available(void) { return 0; }

uint64_t kodo_crc64_fold_with(uint64_t reg, const void *bytes, size_t count, int wide) {
  (void)wide;
  return kodo_crc64_fold(reg, bytes, count);
}

// Bit by bit: correct anywhere, but slower than the caller's tables, which it uses instead.
uint64_t kodo_crc64_fold(uint64_t reg, const void *bytes, size_t count) {
  const unsigned char *p = (const unsigned char *)bytes;
  for (size_t index = 0; index < (count & ~(size_t)15); index++) {
    reg ^= p[index];
    for (int bit = 0; bit < 8; bit++) reg = (reg >> 1) ^ (0xc96c5795d7870f42ULL & (0 - (reg & 1)));
  }
  return reg;
}

#endif
