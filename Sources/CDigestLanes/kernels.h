#ifndef KODO_CDIGESTLANES_KERNELS_H
#define KODO_CDIGESTLANES_KERNELS_H

// The kernels behind lanes.c's dispatch. Each takes its width's lanes exactly: `states` holds
// their 4 (MD5) or 5 (SHA-1) words lane after lane, `data` their block pointers, and every lane
// advances `blocks` 64-byte blocks.

#include <stddef.h>
#include <stdint.h>

// Portable C, one lane (any CPU; also what finishes a message's last blocks).
void kodo_md5_x1(uint32_t *state, const unsigned char *data, size_t blocks);
void kodo_sha1_x1(uint32_t *state, const unsigned char *data, size_t blocks);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KODO_LANES_X86 1
// AVX2, 8 lanes.
void kodo_md5_x8(uint32_t *states, const unsigned char *const *data, size_t blocks);
void kodo_sha1_x8(uint32_t *states, const unsigned char *const *data, size_t blocks);
// SHA extensions, one lane (`kodo_sha1_x1_sha_available` says whether the CPU has them).
int kodo_sha1_x1_sha_available(void);
void kodo_sha1_x1_sha(uint32_t *state, const unsigned char *data, size_t blocks);
// AVX-512 (F and BW), 16 lanes.
void kodo_md5_x16(uint32_t *states, const unsigned char *const *data, size_t blocks);
void kodo_sha1_x16(uint32_t *states, const unsigned char *const *data, size_t blocks);
#endif

#endif
