// SHA-1 of one message with the SHA extensions (sha1rnds4 does four rounds, sha1msg1, sha1msg2
// and an XOR extend the schedule four words at a time, sha1nexte adds the next E). One message at
// about 1.6 GB/s here: faster than a 16-lane kernel with fewer than about 6 of its lanes busy,
// so lanes.c runs the last few lanes of a laned SHA-1 through it when the CPU has it.
//
// The state is kept as ABCD in one register (A in the highest lane) and E in the highest lane of
// another; the message words are loaded big-endian with the four words reversed, which is the
// order sha1rnds4 takes. Each group of four rounds after the first alternates which register
// carries E, and the schedule for the group two ahead is begun while this one runs.

#include "kernels.h"

#ifdef KODO_LANES_X86

#include <immintrin.h>

int kodo_sha1_x1_sha_available(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1");
}

__attribute__((target("sha,sse4.1"))) void kodo_sha1_x1_sha(uint32_t *state,
                                                           const unsigned char *data,
                                                           size_t blocks) {
  // All 16 bytes reversed: each word big-endian, and word 0 in the highest lane.
  const __m128i reverse = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)state), 0x1B);
  __m128i e0 = _mm_insert_epi32(_mm_setzero_si128(), (int)state[4], 3);
  __m128i e1;
  for (size_t block = 0; block < blocks; block++, data += 64) {
    const __m128i abcd_before = abcd, e_before = e0;
    __m128i msg[4];
    for (int i = 0; i < 4; i++) {
      msg[i] = _mm_shuffle_epi8(
          _mm_loadu_si128((const __m128i *)(const void *)(data + 16 * i)), reverse);
    }
    e0 = _mm_add_epi32(e0, msg[0]);
    e1 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);
    e1 = _mm_sha1nexte_epu32(e1, msg[1]);
    e0 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 0);
    msg[0] = _mm_sha1msg1_epu32(msg[0], msg[1]);
    e0 = _mm_sha1nexte_epu32(e0, msg[2]);
    e1 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);
    msg[1] = _mm_sha1msg1_epu32(msg[1], msg[2]);
    msg[0] = _mm_xor_si128(msg[0], msg[2]);
    e1 = _mm_sha1nexte_epu32(e1, msg[3]);
    e0 = abcd;
    msg[0] = _mm_sha1msg2_epu32(msg[0], msg[3]);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 0);
    msg[2] = _mm_sha1msg1_epu32(msg[2], msg[3]);
    msg[1] = _mm_xor_si128(msg[1], msg[3]);
    e0 = _mm_sha1nexte_epu32(e0, msg[0]);
    e1 = abcd;
    msg[1] = _mm_sha1msg2_epu32(msg[1], msg[0]);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);
    msg[3] = _mm_sha1msg1_epu32(msg[3], msg[0]);
    msg[2] = _mm_xor_si128(msg[2], msg[0]);
    e1 = _mm_sha1nexte_epu32(e1, msg[1]);
    e0 = abcd;
    msg[2] = _mm_sha1msg2_epu32(msg[2], msg[1]);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 1);
    msg[0] = _mm_sha1msg1_epu32(msg[0], msg[1]);
    msg[3] = _mm_xor_si128(msg[3], msg[1]);
    e0 = _mm_sha1nexte_epu32(e0, msg[2]);
    e1 = abcd;
    msg[3] = _mm_sha1msg2_epu32(msg[3], msg[2]);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 1);
    msg[1] = _mm_sha1msg1_epu32(msg[1], msg[2]);
    msg[0] = _mm_xor_si128(msg[0], msg[2]);
    e1 = _mm_sha1nexte_epu32(e1, msg[3]);
    e0 = abcd;
    msg[0] = _mm_sha1msg2_epu32(msg[0], msg[3]);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 1);
    msg[2] = _mm_sha1msg1_epu32(msg[2], msg[3]);
    msg[1] = _mm_xor_si128(msg[1], msg[3]);
    e0 = _mm_sha1nexte_epu32(e0, msg[0]);
    e1 = abcd;
    msg[1] = _mm_sha1msg2_epu32(msg[1], msg[0]);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 1);
    msg[3] = _mm_sha1msg1_epu32(msg[3], msg[0]);
    msg[2] = _mm_xor_si128(msg[2], msg[0]);
    e1 = _mm_sha1nexte_epu32(e1, msg[1]);
    e0 = abcd;
    msg[2] = _mm_sha1msg2_epu32(msg[2], msg[1]);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 1);
    msg[0] = _mm_sha1msg1_epu32(msg[0], msg[1]);
    msg[3] = _mm_xor_si128(msg[3], msg[1]);
    e0 = _mm_sha1nexte_epu32(e0, msg[2]);
    e1 = abcd;
    msg[3] = _mm_sha1msg2_epu32(msg[3], msg[2]);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 2);
    msg[1] = _mm_sha1msg1_epu32(msg[1], msg[2]);
    msg[0] = _mm_xor_si128(msg[0], msg[2]);
    e1 = _mm_sha1nexte_epu32(e1, msg[3]);
    e0 = abcd;
    msg[0] = _mm_sha1msg2_epu32(msg[0], msg[3]);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 2);
    msg[2] = _mm_sha1msg1_epu32(msg[2], msg[3]);
    msg[1] = _mm_xor_si128(msg[1], msg[3]);
    e0 = _mm_sha1nexte_epu32(e0, msg[0]);
    e1 = abcd;
    msg[1] = _mm_sha1msg2_epu32(msg[1], msg[0]);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 2);
    msg[3] = _mm_sha1msg1_epu32(msg[3], msg[0]);
    msg[2] = _mm_xor_si128(msg[2], msg[0]);
    e1 = _mm_sha1nexte_epu32(e1, msg[1]);
    e0 = abcd;
    msg[2] = _mm_sha1msg2_epu32(msg[2], msg[1]);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 2);
    msg[0] = _mm_sha1msg1_epu32(msg[0], msg[1]);
    msg[3] = _mm_xor_si128(msg[3], msg[1]);
    e0 = _mm_sha1nexte_epu32(e0, msg[2]);
    e1 = abcd;
    msg[3] = _mm_sha1msg2_epu32(msg[3], msg[2]);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 2);
    msg[1] = _mm_sha1msg1_epu32(msg[1], msg[2]);
    msg[0] = _mm_xor_si128(msg[0], msg[2]);
    e1 = _mm_sha1nexte_epu32(e1, msg[3]);
    e0 = abcd;
    msg[0] = _mm_sha1msg2_epu32(msg[0], msg[3]);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 3);
    msg[2] = _mm_sha1msg1_epu32(msg[2], msg[3]);
    msg[1] = _mm_xor_si128(msg[1], msg[3]);
    e0 = _mm_sha1nexte_epu32(e0, msg[0]);
    e1 = abcd;
    msg[1] = _mm_sha1msg2_epu32(msg[1], msg[0]);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 3);
    msg[3] = _mm_sha1msg1_epu32(msg[3], msg[0]);
    msg[2] = _mm_xor_si128(msg[2], msg[0]);
    e1 = _mm_sha1nexte_epu32(e1, msg[1]);
    e0 = abcd;
    msg[2] = _mm_sha1msg2_epu32(msg[2], msg[1]);
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 3);
    msg[3] = _mm_xor_si128(msg[3], msg[1]);
    e0 = _mm_sha1nexte_epu32(e0, msg[2]);
    e1 = abcd;
    msg[3] = _mm_sha1msg2_epu32(msg[3], msg[2]);
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 3);
    e1 = _mm_sha1nexte_epu32(e1, msg[3]);
    e0 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 3);
    e0 = _mm_sha1nexte_epu32(e0, e_before);
    abcd = _mm_add_epi32(abcd, abcd_before);
  }
  _mm_storeu_si128((__m128i *)(void *)state, _mm_shuffle_epi32(abcd, 0x1B));
  state[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

#endif
