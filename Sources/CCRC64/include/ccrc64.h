#ifndef KODO_CCRC64_H
#define KODO_CCRC64_H

#include <stddef.h>
#include <stdint.h>

// CRC-64/XZ (ECMA-182, reflected) by carry-less multiplication: OSSCore's `CRC64` calls it for
// every feed of at least 64 bytes when this CPU can run it, and keeps its table path otherwise.

// 1 when this CPU runs `kodo_crc64_fold` (x86-64 with PCLMULQDQ and SSE4.1), else 0.
int kodo_crc64_fold_available(void);

// The CRC register after the first `count & ~15` bytes of `bytes` (whole 16-byte blocks; the
// caller feeds the rest), from `reg`. The register is the raw one of the table algorithm
// (`crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]`): the initial value and the final XOR are
// the caller's. Call only when `kodo_crc64_fold_available()` said 1.
// Folds 512 bits per instruction (VPCLMULQDQ with AVX-512) where the CPU can, 128 otherwise.
uint64_t kodo_crc64_fold(uint64_t reg, const void *bytes, size_t count);

// 1 when `kodo_crc64_fold` folds 512 bits per instruction on this CPU, else 0.
int kodo_crc64_wide_available(void);

// `kodo_crc64_fold`, with the 512-bit folding only when `wide` is non-zero (and the CPU has it):
// tests compare both paths on one machine.
uint64_t kodo_crc64_fold_with(uint64_t reg, const void *bytes, size_t count, int wide);

#endif
