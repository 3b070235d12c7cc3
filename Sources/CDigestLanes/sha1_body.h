// One SHA-1 compression (FIPS 180-4, section 6.1.2) of the message words `w[0..15]` (already in
// the host's order; overwritten by the schedule, which keeps the last 16 words in place) into
// the state `s[0..4]` (H0 to H4), written once over an abstract word type `V` like md5_body.h.
// The includer defines V, ADD(x, y), ROL(x, n), CONST(k), XOR4(w, x, y, z), the round functions
// SHA1_CH, SHA1_PARITY, SHA1_MAJ (x, y, z), SHA1_BODY_NAME and SHA1_BODY_ATTR.
//
// The five working variables are renamed from round to round instead of moved: a round adds into
// the oldest (E, which becomes the next A) and rotates B in place. Its newest input, A, is added
// last.

#define SHA1_ROUND(f, k, a, b, c, d, e, x) \
  e = ADD(ADD(ADD(e, ADD(x, CONST(k))), f(b, c, d)), ROL(a, 5)); \
  b = ROL(b, 30)
#define SHA1_SCHEDULE(t, t3, t8, t14) w[t] = ROL(XOR4(w[t3], w[t8], w[t14], w[t]), 1)

static inline SHA1_BODY_ATTR void SHA1_BODY_NAME(V *s, V *w) {
  V a = s[0], b = s[1], c = s[2], d = s[3], e = s[4];
  SHA1_ROUND(SHA1_CH, 0x5a827999u, a, b, c, d, e, w[0]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, e, a, b, c, d, w[1]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, d, e, a, b, c, w[2]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, c, d, e, a, b, w[3]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, b, c, d, e, a, w[4]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, a, b, c, d, e, w[5]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, e, a, b, c, d, w[6]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, d, e, a, b, c, w[7]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, c, d, e, a, b, w[8]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, b, c, d, e, a, w[9]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, a, b, c, d, e, w[10]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, e, a, b, c, d, w[11]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, d, e, a, b, c, w[12]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, c, d, e, a, b, w[13]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, b, c, d, e, a, w[14]);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, a, b, c, d, e, w[15]);
  SHA1_SCHEDULE(0, 13, 8, 2);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, e, a, b, c, d, w[0]);
  SHA1_SCHEDULE(1, 14, 9, 3);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, d, e, a, b, c, w[1]);
  SHA1_SCHEDULE(2, 15, 10, 4);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, c, d, e, a, b, w[2]);
  SHA1_SCHEDULE(3, 0, 11, 5);
  SHA1_ROUND(SHA1_CH, 0x5a827999u, b, c, d, e, a, w[3]);
  SHA1_SCHEDULE(4, 1, 12, 6);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, a, b, c, d, e, w[4]);
  SHA1_SCHEDULE(5, 2, 13, 7);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, e, a, b, c, d, w[5]);
  SHA1_SCHEDULE(6, 3, 14, 8);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, d, e, a, b, c, w[6]);
  SHA1_SCHEDULE(7, 4, 15, 9);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, c, d, e, a, b, w[7]);
  SHA1_SCHEDULE(8, 5, 0, 10);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, b, c, d, e, a, w[8]);
  SHA1_SCHEDULE(9, 6, 1, 11);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, a, b, c, d, e, w[9]);
  SHA1_SCHEDULE(10, 7, 2, 12);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, e, a, b, c, d, w[10]);
  SHA1_SCHEDULE(11, 8, 3, 13);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, d, e, a, b, c, w[11]);
  SHA1_SCHEDULE(12, 9, 4, 14);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, c, d, e, a, b, w[12]);
  SHA1_SCHEDULE(13, 10, 5, 15);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, b, c, d, e, a, w[13]);
  SHA1_SCHEDULE(14, 11, 6, 0);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, a, b, c, d, e, w[14]);
  SHA1_SCHEDULE(15, 12, 7, 1);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, e, a, b, c, d, w[15]);
  SHA1_SCHEDULE(0, 13, 8, 2);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, d, e, a, b, c, w[0]);
  SHA1_SCHEDULE(1, 14, 9, 3);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, c, d, e, a, b, w[1]);
  SHA1_SCHEDULE(2, 15, 10, 4);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, b, c, d, e, a, w[2]);
  SHA1_SCHEDULE(3, 0, 11, 5);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, a, b, c, d, e, w[3]);
  SHA1_SCHEDULE(4, 1, 12, 6);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, e, a, b, c, d, w[4]);
  SHA1_SCHEDULE(5, 2, 13, 7);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, d, e, a, b, c, w[5]);
  SHA1_SCHEDULE(6, 3, 14, 8);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, c, d, e, a, b, w[6]);
  SHA1_SCHEDULE(7, 4, 15, 9);
  SHA1_ROUND(SHA1_PARITY, 0x6ed9eba1u, b, c, d, e, a, w[7]);
  SHA1_SCHEDULE(8, 5, 0, 10);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, a, b, c, d, e, w[8]);
  SHA1_SCHEDULE(9, 6, 1, 11);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, e, a, b, c, d, w[9]);
  SHA1_SCHEDULE(10, 7, 2, 12);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, d, e, a, b, c, w[10]);
  SHA1_SCHEDULE(11, 8, 3, 13);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, c, d, e, a, b, w[11]);
  SHA1_SCHEDULE(12, 9, 4, 14);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, b, c, d, e, a, w[12]);
  SHA1_SCHEDULE(13, 10, 5, 15);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, a, b, c, d, e, w[13]);
  SHA1_SCHEDULE(14, 11, 6, 0);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, e, a, b, c, d, w[14]);
  SHA1_SCHEDULE(15, 12, 7, 1);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, d, e, a, b, c, w[15]);
  SHA1_SCHEDULE(0, 13, 8, 2);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, c, d, e, a, b, w[0]);
  SHA1_SCHEDULE(1, 14, 9, 3);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, b, c, d, e, a, w[1]);
  SHA1_SCHEDULE(2, 15, 10, 4);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, a, b, c, d, e, w[2]);
  SHA1_SCHEDULE(3, 0, 11, 5);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, e, a, b, c, d, w[3]);
  SHA1_SCHEDULE(4, 1, 12, 6);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, d, e, a, b, c, w[4]);
  SHA1_SCHEDULE(5, 2, 13, 7);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, c, d, e, a, b, w[5]);
  SHA1_SCHEDULE(6, 3, 14, 8);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, b, c, d, e, a, w[6]);
  SHA1_SCHEDULE(7, 4, 15, 9);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, a, b, c, d, e, w[7]);
  SHA1_SCHEDULE(8, 5, 0, 10);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, e, a, b, c, d, w[8]);
  SHA1_SCHEDULE(9, 6, 1, 11);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, d, e, a, b, c, w[9]);
  SHA1_SCHEDULE(10, 7, 2, 12);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, c, d, e, a, b, w[10]);
  SHA1_SCHEDULE(11, 8, 3, 13);
  SHA1_ROUND(SHA1_MAJ, 0x8f1bbcdcu, b, c, d, e, a, w[11]);
  SHA1_SCHEDULE(12, 9, 4, 14);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, a, b, c, d, e, w[12]);
  SHA1_SCHEDULE(13, 10, 5, 15);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, e, a, b, c, d, w[13]);
  SHA1_SCHEDULE(14, 11, 6, 0);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, d, e, a, b, c, w[14]);
  SHA1_SCHEDULE(15, 12, 7, 1);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, c, d, e, a, b, w[15]);
  SHA1_SCHEDULE(0, 13, 8, 2);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, b, c, d, e, a, w[0]);
  SHA1_SCHEDULE(1, 14, 9, 3);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, a, b, c, d, e, w[1]);
  SHA1_SCHEDULE(2, 15, 10, 4);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, e, a, b, c, d, w[2]);
  SHA1_SCHEDULE(3, 0, 11, 5);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, d, e, a, b, c, w[3]);
  SHA1_SCHEDULE(4, 1, 12, 6);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, c, d, e, a, b, w[4]);
  SHA1_SCHEDULE(5, 2, 13, 7);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, b, c, d, e, a, w[5]);
  SHA1_SCHEDULE(6, 3, 14, 8);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, a, b, c, d, e, w[6]);
  SHA1_SCHEDULE(7, 4, 15, 9);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, e, a, b, c, d, w[7]);
  SHA1_SCHEDULE(8, 5, 0, 10);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, d, e, a, b, c, w[8]);
  SHA1_SCHEDULE(9, 6, 1, 11);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, c, d, e, a, b, w[9]);
  SHA1_SCHEDULE(10, 7, 2, 12);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, b, c, d, e, a, w[10]);
  SHA1_SCHEDULE(11, 8, 3, 13);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, a, b, c, d, e, w[11]);
  SHA1_SCHEDULE(12, 9, 4, 14);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, e, a, b, c, d, w[12]);
  SHA1_SCHEDULE(13, 10, 5, 15);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, d, e, a, b, c, w[13]);
  SHA1_SCHEDULE(14, 11, 6, 0);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, c, d, e, a, b, w[14]);
  SHA1_SCHEDULE(15, 12, 7, 1);
  SHA1_ROUND(SHA1_PARITY, 0xca62c1d6u, b, c, d, e, a, w[15]);
  s[0] = ADD(s[0], a);
  s[1] = ADD(s[1], b);
  s[2] = ADD(s[2], c);
  s[3] = ADD(s[3], d);
  s[4] = ADD(s[4], e);
}

#undef SHA1_ROUND
#undef SHA1_SCHEDULE
