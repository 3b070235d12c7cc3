// One MD5 compression (RFC 1321, section 3.4) of the message words `w[0..15]` into the state
// `s[0..3]` (A, B, C, D), written once over an abstract word type `V` so that the same text makes
// the portable kernel (V is one uint32_t) and the SIMD ones (V holds one word of every lane). The
// includer defines V, ADD(x, y), ROL(x, n), CONST(k) (k in every lane), the round functions
// MD5_F, MD5_G, MD5_H, MD5_I (x, y, z) (or MD5_ADD_F and its kin in their place, see below),
// MD5_BODY_NAME and MD5_BODY_ATTR (a target attribute, or nothing).
//
// In a step the message word and the constant are added to A first, off the chain of steps, so
// the chain from the previous step's result is the round function, one add, the rotation and
// one add. The round function is added by MD5_ADD_F (t, x, y, z) and its kin, by default
// ADD(t, MD5_F(x, y, z)); an includer may define its own (G as two terms added one after the
// other, only one of which waits for the newest word, is one operation shorter on the chain).

#ifndef MD5_ADD_F
#define MD5_ADD_F(t, x, y, z) ADD((t), MD5_F((x), (y), (z)))
#endif
#ifndef MD5_ADD_G
#define MD5_ADD_G(t, x, y, z) ADD((t), MD5_G((x), (y), (z)))
#endif
#ifndef MD5_ADD_H
#define MD5_ADD_H(t, x, y, z) ADD((t), MD5_H((x), (y), (z)))
#endif
#ifndef MD5_ADD_I
#define MD5_ADD_I(t, x, y, z) ADD((t), MD5_I((x), (y), (z)))
#endif

#define MD5_STEP(add_f, a, b, c, d, k, x, s) \
  a = ADD(b, ROL(add_f(ADD(a, ADD(x, CONST(k))), b, c, d), s))

static inline MD5_BODY_ATTR void MD5_BODY_NAME(V *s, const V *w) {
  V a = s[0], b = s[1], c = s[2], d = s[3];
  MD5_STEP(MD5_ADD_F, a, b, c, d, 0xd76aa478u, w[0], 7);
  MD5_STEP(MD5_ADD_F, d, a, b, c, 0xe8c7b756u, w[1], 12);
  MD5_STEP(MD5_ADD_F, c, d, a, b, 0x242070dbu, w[2], 17);
  MD5_STEP(MD5_ADD_F, b, c, d, a, 0xc1bdceeeu, w[3], 22);
  MD5_STEP(MD5_ADD_F, a, b, c, d, 0xf57c0fafu, w[4], 7);
  MD5_STEP(MD5_ADD_F, d, a, b, c, 0x4787c62au, w[5], 12);
  MD5_STEP(MD5_ADD_F, c, d, a, b, 0xa8304613u, w[6], 17);
  MD5_STEP(MD5_ADD_F, b, c, d, a, 0xfd469501u, w[7], 22);
  MD5_STEP(MD5_ADD_F, a, b, c, d, 0x698098d8u, w[8], 7);
  MD5_STEP(MD5_ADD_F, d, a, b, c, 0x8b44f7afu, w[9], 12);
  MD5_STEP(MD5_ADD_F, c, d, a, b, 0xffff5bb1u, w[10], 17);
  MD5_STEP(MD5_ADD_F, b, c, d, a, 0x895cd7beu, w[11], 22);
  MD5_STEP(MD5_ADD_F, a, b, c, d, 0x6b901122u, w[12], 7);
  MD5_STEP(MD5_ADD_F, d, a, b, c, 0xfd987193u, w[13], 12);
  MD5_STEP(MD5_ADD_F, c, d, a, b, 0xa679438eu, w[14], 17);
  MD5_STEP(MD5_ADD_F, b, c, d, a, 0x49b40821u, w[15], 22);
  MD5_STEP(MD5_ADD_G, a, b, c, d, 0xf61e2562u, w[1], 5);
  MD5_STEP(MD5_ADD_G, d, a, b, c, 0xc040b340u, w[6], 9);
  MD5_STEP(MD5_ADD_G, c, d, a, b, 0x265e5a51u, w[11], 14);
  MD5_STEP(MD5_ADD_G, b, c, d, a, 0xe9b6c7aau, w[0], 20);
  MD5_STEP(MD5_ADD_G, a, b, c, d, 0xd62f105du, w[5], 5);
  MD5_STEP(MD5_ADD_G, d, a, b, c, 0x02441453u, w[10], 9);
  MD5_STEP(MD5_ADD_G, c, d, a, b, 0xd8a1e681u, w[15], 14);
  MD5_STEP(MD5_ADD_G, b, c, d, a, 0xe7d3fbc8u, w[4], 20);
  MD5_STEP(MD5_ADD_G, a, b, c, d, 0x21e1cde6u, w[9], 5);
  MD5_STEP(MD5_ADD_G, d, a, b, c, 0xc33707d6u, w[14], 9);
  MD5_STEP(MD5_ADD_G, c, d, a, b, 0xf4d50d87u, w[3], 14);
  MD5_STEP(MD5_ADD_G, b, c, d, a, 0x455a14edu, w[8], 20);
  MD5_STEP(MD5_ADD_G, a, b, c, d, 0xa9e3e905u, w[13], 5);
  MD5_STEP(MD5_ADD_G, d, a, b, c, 0xfcefa3f8u, w[2], 9);
  MD5_STEP(MD5_ADD_G, c, d, a, b, 0x676f02d9u, w[7], 14);
  MD5_STEP(MD5_ADD_G, b, c, d, a, 0x8d2a4c8au, w[12], 20);
  MD5_STEP(MD5_ADD_H, a, b, c, d, 0xfffa3942u, w[5], 4);
  MD5_STEP(MD5_ADD_H, d, a, b, c, 0x8771f681u, w[8], 11);
  MD5_STEP(MD5_ADD_H, c, d, a, b, 0x6d9d6122u, w[11], 16);
  MD5_STEP(MD5_ADD_H, b, c, d, a, 0xfde5380cu, w[14], 23);
  MD5_STEP(MD5_ADD_H, a, b, c, d, 0xa4beea44u, w[1], 4);
  MD5_STEP(MD5_ADD_H, d, a, b, c, 0x4bdecfa9u, w[4], 11);
  MD5_STEP(MD5_ADD_H, c, d, a, b, 0xf6bb4b60u, w[7], 16);
  MD5_STEP(MD5_ADD_H, b, c, d, a, 0xbebfbc70u, w[10], 23);
  MD5_STEP(MD5_ADD_H, a, b, c, d, 0x289b7ec6u, w[13], 4);
  MD5_STEP(MD5_ADD_H, d, a, b, c, 0xeaa127fau, w[0], 11);
  MD5_STEP(MD5_ADD_H, c, d, a, b, 0xd4ef3085u, w[3], 16);
  MD5_STEP(MD5_ADD_H, b, c, d, a, 0x04881d05u, w[6], 23);
  MD5_STEP(MD5_ADD_H, a, b, c, d, 0xd9d4d039u, w[9], 4);
  MD5_STEP(MD5_ADD_H, d, a, b, c, 0xe6db99e5u, w[12], 11);
  MD5_STEP(MD5_ADD_H, c, d, a, b, 0x1fa27cf8u, w[15], 16);
  MD5_STEP(MD5_ADD_H, b, c, d, a, 0xc4ac5665u, w[2], 23);
  MD5_STEP(MD5_ADD_I, a, b, c, d, 0xf4292244u, w[0], 6);
  MD5_STEP(MD5_ADD_I, d, a, b, c, 0x432aff97u, w[7], 10);
  MD5_STEP(MD5_ADD_I, c, d, a, b, 0xab9423a7u, w[14], 15);
  MD5_STEP(MD5_ADD_I, b, c, d, a, 0xfc93a039u, w[5], 21);
  MD5_STEP(MD5_ADD_I, a, b, c, d, 0x655b59c3u, w[12], 6);
  MD5_STEP(MD5_ADD_I, d, a, b, c, 0x8f0ccc92u, w[3], 10);
  MD5_STEP(MD5_ADD_I, c, d, a, b, 0xffeff47du, w[10], 15);
  MD5_STEP(MD5_ADD_I, b, c, d, a, 0x85845dd1u, w[1], 21);
  MD5_STEP(MD5_ADD_I, a, b, c, d, 0x6fa87e4fu, w[8], 6);
  MD5_STEP(MD5_ADD_I, d, a, b, c, 0xfe2ce6e0u, w[15], 10);
  MD5_STEP(MD5_ADD_I, c, d, a, b, 0xa3014314u, w[6], 15);
  MD5_STEP(MD5_ADD_I, b, c, d, a, 0x4e0811a1u, w[13], 21);
  MD5_STEP(MD5_ADD_I, a, b, c, d, 0xf7537e82u, w[4], 6);
  MD5_STEP(MD5_ADD_I, d, a, b, c, 0xbd3af235u, w[11], 10);
  MD5_STEP(MD5_ADD_I, c, d, a, b, 0x2ad7d2bbu, w[2], 15);
  MD5_STEP(MD5_ADD_I, b, c, d, a, 0xeb86d391u, w[9], 21);
  s[0] = ADD(s[0], a);
  s[1] = ADD(s[1], b);
  s[2] = ADD(s[2], c);
  s[3] = ADD(s[3], d);
}

#undef MD5_STEP
#undef MD5_ADD_F
#undef MD5_ADD_G
#undef MD5_ADD_H
#undef MD5_ADD_I
