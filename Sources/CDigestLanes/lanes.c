// Many MD5s or SHA-1s at once (the multi-buffer method of Intel's isa-l, md5_mb and sha1_mb).
//
// One MD5 or SHA-1 is a chain: every step needs the one before, so a CPU that could start several
// operations a cycle waits on latencies instead (libcrypto's MD5 runs near 0.6 GB/s). The parts
// of a multipart upload are independent messages, and a SIMD register holds 8 (AVX2) or 16
// (AVX-512) 32-bit words: put the same word of 8 or 16 messages side by side and one vector
// instruction does a step of all of them. The chain is as long as before, but each link moves
// 8 or 16 times the bytes. The kernels (x16.c, x8.c, portable.c) compress whole blocks; this
// file chooses one at run time from what the CPU can do and splits any number of lanes over it.

#include "cdigestlanes.h"
#include "kernels.h"

typedef void (*kodo_lanes_kernel)(uint32_t *states, const unsigned char *const *data,
                                  size_t blocks);
typedef void (*kodo_lane_kernel)(uint32_t *state, const unsigned char *data, size_t blocks);

// The widest kernel this CPU runs: 16, 8 or 1.
static int kodo_lanes_best(void) {
#ifdef KODO_LANES_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) return 16;
  if (__builtin_cpu_supports("avx2")) return 8;
#endif
  return 1;
}

// The widest kernel allowed: 16, 8 or 1, at most `width`.
static int kodo_lanes_within(int width) {
  int best = kodo_lanes_best();
  if (width >= 16 && best >= 16) return 16;
  if (width >= 8 && best >= 8) return 8;
  return 1;
}

// `kodo_lanes_limit`'s value; only tests and benchmarks change it.
static int kodo_lanes_limit_value = 16;

int kodo_lanes_width(void) {
  return kodo_lanes_within(__atomic_load_n(&kodo_lanes_limit_value, __ATOMIC_RELAXED));
}

int kodo_lanes_limit(int width) {
  __atomic_store_n(&kodo_lanes_limit_value, width, __ATOMIC_RELAXED);
  return kodo_lanes_width();
}

// Runs `lanes` lanes with kernels of `width` (16, 8 or 1) or narrower. Full groups go to the
// kernel; a rest of at least `fill` lanes also runs there, with the idle lanes hashing the first
// lane's blocks into a scratch state (a SIMD kernel takes as long for 2 lanes as for 16); a
// smaller rest goes one lane at a time.
static void kodo_lanes_run(uint32_t *states, const unsigned char *const *data, size_t blocks,
                           int lanes, int width, int words, kodo_lanes_kernel wide,
                           kodo_lane_kernel one, int fill) {
  if (blocks == 0 || lanes < 1) return;
  int done = 0;
  if (width > 1) {
    for (; lanes - done >= width; done += width) {
      wide(states + (size_t)words * (size_t)done, data + done, blocks);
    }
    int rest = lanes - done;
    if (rest > 0 && rest >= fill) {
      uint32_t scratch[16 * 5];
      const unsigned char *pointers[16];
      for (int i = 0; i < width; i++) {
        int lane = done + (i < rest ? i : 0);
        pointers[i] = data[lane];
        for (int j = 0; j < words; j++) {
          scratch[words * i + j] = states[(size_t)words * (size_t)lane + (size_t)j];
        }
      }
      wide(scratch, pointers, blocks);
      for (int i = 0; i < rest; i++) {
        for (int j = 0; j < words; j++) {
          states[(size_t)words * (size_t)(done + i) + (size_t)j] = scratch[words * i + j];
        }
      }
      done = lanes;
    }
  }
  for (; done < lanes; done++) one(states + (size_t)words * (size_t)done, data[done], blocks);
}

int kodo_md5_lanes_upto(uint32_t *states, const unsigned char *const *data, size_t blocks,
                        int lanes, int width) {
  int used = kodo_lanes_within(width);
#ifdef KODO_LANES_X86
  if (used == 16) {
    kodo_lanes_run(states, data, blocks, lanes, 16, 4, kodo_md5_x16, kodo_md5_x1, 2);
    return used;
  }
  if (used == 8) {
    kodo_lanes_run(states, data, blocks, lanes, 8, 4, kodo_md5_x8, kodo_md5_x1, 2);
    return used;
  }
#endif
  kodo_lanes_run(states, data, blocks, lanes, 1, 4, 0, kodo_md5_x1, 0);
  return used;
}

int kodo_sha1_lanes_upto(uint32_t *states, const unsigned char *const *data, size_t blocks,
                         int lanes, int width) {
  int used = kodo_lanes_within(width);
#ifdef KODO_LANES_X86
  // With the SHA extensions one lane runs at about a third of what a 16-lane kernel does for
  // all its lanes (shani.c), so they take rests of up to 5 lanes (and lone lanes at any width
  // but 1, which means portable C only).
  int sha = width > 1 && kodo_sha1_x1_sha_available();
  kodo_lane_kernel one = sha ? kodo_sha1_x1_sha : kodo_sha1_x1;
  if (used == 16) {
    kodo_lanes_run(states, data, blocks, lanes, 16, 5, kodo_sha1_x16, one, sha ? 6 : 2);
    return used;
  }
  if (used == 8) {
    kodo_lanes_run(states, data, blocks, lanes, 8, 5, kodo_sha1_x8, one, sha ? 6 : 2);
    return used;
  }
  if (sha) {
    kodo_lanes_run(states, data, blocks, lanes, 1, 5, 0, one, 0);
    return used;
  }
#endif
  kodo_lanes_run(states, data, blocks, lanes, 1, 5, 0, kodo_sha1_x1, 0);
  return used;
}

void kodo_md5_lanes(uint32_t *states, const unsigned char *const *data, size_t blocks,
                    int lanes) {
  kodo_md5_lanes_upto(states, data, blocks, lanes, kodo_lanes_width());
}

void kodo_sha1_lanes(uint32_t *states, const unsigned char *const *data, size_t blocks,
                     int lanes) {
  kodo_sha1_lanes_upto(states, data, blocks, lanes, kodo_lanes_width());
}
