#ifndef KODO_CDIGESTLANES_H
#define KODO_CDIGESTLANES_H

#include <stddef.h>
#include <stdint.h>

// MD5 (RFC 1321) and SHA-1 (FIPS 180-4) compression of many independent messages at once, one
// message a SIMD lane: 16 with AVX-512, 8 with AVX2, else one at a time in portable C.
// StorageCore's `LaneHash` keeps the partial blocks, the lengths and the padding; these see only
// whole 64-byte blocks.

// How many lanes the widest kernel this CPU can run (within `kodo_lanes_limit`) advances at
// once: 16, 8 or 1.
int kodo_lanes_width(void);

// For tests and benchmarks: use kernels no wider than `width` from now on (a width of 16 or more
// lifts the limit). Returns `kodo_lanes_width()` after the change.
int kodo_lanes_limit(int width);

// Compresses `blocks` whole 64-byte blocks of each of `lanes` messages: lane i's state is the 4
// (MD5) or 5 (SHA-1) words at `states + 4 * i` (`+ 5 * i`), in the algorithm's own order (A, B, C,
// D; H0 to H4), and its blocks start at `data[i]` (any alignment). Any `lanes` >= 1: they are
// taken a kernel's width at a time, and the rest by a kernel with idle lanes or one by one.
void kodo_md5_lanes(uint32_t *states, const unsigned char *const *data, size_t blocks, int lanes);
void kodo_sha1_lanes(uint32_t *states, const unsigned char *const *data, size_t blocks, int lanes);

// As above with kernels no wider than `width` whatever `kodo_lanes_limit` says (so that tests of
// every kernel need no global). Returns the widest kernel width it used: `width` or less when
// this CPU cannot run the wider ones.
int kodo_md5_lanes_upto(uint32_t *states, const unsigned char *const *data, size_t blocks,
                        int lanes, int width);
int kodo_sha1_lanes_upto(uint32_t *states, const unsigned char *const *data, size_t blocks,
                         int lanes, int width);

#endif
