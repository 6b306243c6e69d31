/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * NH, the universal hash of UMAC (J. Black, S. Halevi, H. Krawczyk,
 * T. Krovetz, P. Rogaway, "UMAC: Fast and Secure Message Authentication",
 * CRYPTO 1999; RFC 4418), which the kernel's Adiantum uses as well. A
 * message of 2t words of w bits m_0 .. m_2t-1 under a key of as many
 * words k_0 .. k_2t-1:
 *
 *	NH_K(M) = sum over i < t of ((m_2i + k_2i) mod 2^w) *
 *				     ((m_2i+1 + k_2i+1) mod 2^w), mod 2^2w
 *
 * The bound (UMAC's theorem on NH): for any two distinct messages M, M'
 * of the same number of words, Pr over K [NH_K(M) = NH_K(M')] <= 2^-w.
 * Its conditions: the lengths are equal (messages of other lengths are
 * told apart by whoever binds the length: here the digest adds it, and
 * the key's byte string states its own); the key words are uniform and
 * independent (here a PRF's output under the rule's secret key, so the
 * bound holds as long as SipHash is a PRF); and whoever chooses the
 * messages never sees the key or a digest. A digest is worth w bits
 * against collisions, not 2w, and only whole: its low bits alone are not
 * universal, so it is never cut.
 *
 * ddf's instance: w = 64, a 128-bit sum, chunks of DDF_NH_CHUNK bytes;
 * bytes are read as little-endian words (the same digest on any host),
 * the last word is zero-padded and a zero word completes its pair. The
 * digest of a chunk of len bytes is NH + len, mod 2^128 (RFC 4418 adds
 * the length likewise), so a chunk and the chunk with zero bytes behind
 * it differ. The same code at w = 8, 16 and 32, where 2^-w is large
 * enough for collisions to be counted, is what the tests measure.
 *
 * The 64x64 -> 128 product is the compiler's unsigned __int128 where the
 * environment has it (DDF_HAVE_INT128, ddf_u128) and four 32x32 products
 * elsewhere; both give the same digest (DDF_NH_PORTABLE makes the
 * portable one the default).
 */
#ifndef DDF_NH_H
#define DDF_NH_H

#include "ddf_env.h"
#include "ddf_siphash.h"

#define DDF_NH_CHUNK 1024u /* message bytes a digest stands for */
#define DDF_NH_KEY_WORDS (DDF_NH_CHUNK / 8)

struct ddf_nh_key {
	uint64_t k[DDF_NH_KEY_WORDS];
};

#if defined(DDF_HAVE_INT128) && !defined(DDF_NH_PORTABLE)
#define DDF_NH_DEFAULT_PORTABLE false
#else
#define DDF_NH_DEFAULT_PORTABLE true
#endif

/*
 * A sum of 2w bits: in v with the wide product, in lo and hi with the
 * portable one (for w <= 32 all of it in lo).
 */
struct ddf_nh_sum {
#ifdef DDF_HAVE_INT128
	ddf_u128 v;
#endif
	uint64_t lo, hi;
};

/* a * b, 128 bits, added to s: four 32x32 products, no wider type. */
static DDF_ALWAYS_INLINE void ddf_nh_madd_portable(struct ddf_nh_sum *s,
						   uint64_t a, uint64_t b)
{
	uint64_t al = (uint32_t)a, ah = a >> 32;
	uint64_t bl = (uint32_t)b, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	/* the middle column: at most 3 * (2^32 - 1), no overflow */
	uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
	uint64_t lo = mid << 32 | (uint32_t)ll;
	uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);

	s->lo += lo;
	s->hi += hi + (s->lo < lo);
}

static DDF_ALWAYS_INLINE void ddf_nh_madd(struct ddf_nh_sum *s, uint64_t a,
					  uint64_t b, bool portable)
{
#ifdef DDF_HAVE_INT128
	if (!portable) {
		s->v += (ddf_u128)a * b;
		return;
	}
#endif
	ddf_nh_madd_portable(s, a, b);
}

/* The n (0..8) bytes at p as a little-endian word, zero above them. */
static DDF_ALWAYS_INLINE uint64_t ddf_nh_load(const uint8_t *p,
					      unsigned int n)
{
	return n == 8 ? ddf_sip_load_le64(p) : ddf_sip_partial(p, n);
}

static DDF_ALWAYS_INLINE uint64_t ddf_nh_mask(unsigned int w)
{
	return w == 64 ? ~0ull : (1ull << w) - 1;
}

/* One pair: the words a and b (w bits) under k[0] and k[1]. */
static DDF_ALWAYS_INLINE void ddf_nh_pair(struct ddf_nh_sum *s,
					  const uint64_t *k, uint64_t a,
					  uint64_t b, unsigned int w,
					  bool portable)
{
	uint64_t mask = ddf_nh_mask(w);

	ddf_nh_madd(s, (a + k[0]) & mask, (b + k[1]) & mask, portable);
}

/* npairs whole pairs of w-bit words at m, under k[0 .. 2 npairs). */
static DDF_ALWAYS_INLINE void ddf_nh_pairs(struct ddf_nh_sum *s,
					   const uint64_t *k, const uint8_t *m,
					   uint32_t npairs, unsigned int w,
					   bool portable)
{
	unsigned int b = w / 8;

	/* one index for both: key and message advance together */
#pragma GCC unroll 8
	for (uint32_t i = 0; i < npairs; i++)
		ddf_nh_pair(s, k + 2 * i, ddf_nh_load(m + 2 * b * i, b),
			    ddf_nh_load(m + 2 * b * i + b, b), w, portable);
}

/*
 * The last n bytes (0 < n < two words) at m: the words they fill, zero-
 * padded, and a zero word to complete the pair when they fill one.
 */
static DDF_ALWAYS_INLINE void ddf_nh_tail(struct ddf_nh_sum *s,
					  const uint64_t *k, const uint8_t *m,
					  uint32_t n, unsigned int w,
					  bool portable)
{
	unsigned int b = w / 8;

	if (n <= b)
		ddf_nh_pair(s, k, ddf_nh_load(m, n), 0, w, portable);
	else
		ddf_nh_pair(s, k, ddf_nh_load(m, b),
			    ddf_nh_load(m + b, n - b), w, portable);
}

/* The digest of a chunk of len bytes whose pairs s holds: s + len. */
static DDF_ALWAYS_INLINE void ddf_nh_digest(const struct ddf_nh_sum *s,
					    uint32_t len, unsigned int w,
					    bool portable, uint64_t out[2])
{
	uint64_t lo = s->lo, hi = s->hi;

#ifdef DDF_HAVE_INT128
	if (!portable) {
		lo = (uint64_t)s->v;
		hi = (uint64_t)(s->v >> 64);
	}
#endif
	lo += len;
	hi += lo < len;

	if (w < 64) { /* mod 2^2w: it all fits in lo */
		hi = 0;
		if (w < 32)
			lo &= (1ull << (2 * w)) - 1;
	}
	out[0] = lo;
	out[1] = hi;
}

/*
 * The digest of the len bytes at m (1 .. the key's words times w / 8)
 * with w-bit words (8, 16, 32 or 64) under the key words k.
 */
static DDF_ALWAYS_INLINE void ddf_nh_w(const uint64_t *k, const uint8_t *m,
				       uint32_t len, unsigned int w,
				       bool portable, uint64_t out[2])
{
	struct ddf_nh_sum s = { 0 };
	uint32_t pb = w / 4, np = len / pb; /* bytes a pair, whole pairs */

	ddf_nh_pairs(&s, k, m, np, w, portable);
	if (len % pb)
		ddf_nh_tail(&s, k + 2 * np, m + pb * np, len % pb, w, portable);
	ddf_nh_digest(&s, len, w, portable, out);
}

/*
 * The digest of a chunk in two pieces: n1 bytes at m1 (whole pairs: a
 * multiple of 16) and n2 at m2, as if they were one, 64-bit words.
 */
static DDF_ALWAYS_INLINE void ddf_nh_split(const struct ddf_nh_key *key,
					   const uint8_t *m1, uint32_t n1,
					   const uint8_t *m2, uint32_t n2,
					   uint64_t out[2])
{
	struct ddf_nh_sum s = { 0 };
	bool pt = DDF_NH_DEFAULT_PORTABLE;

	ddf_nh_pairs(&s, key->k, m1, n1 / 16, 64, pt);
	ddf_nh_pairs(&s, key->k + n1 / 8, m2, n2 / 16, 64, pt);
	if (n2 % 16)
		ddf_nh_tail(&s, key->k + n1 / 8 + 2 * (n2 / 16),
			    m2 + 16 * (n2 / 16), n2 % 16, 64, pt);
	ddf_nh_digest(&s, n1 + n2, 64, pt, out);
}

/*
 * ddf's instance: a chunk of 1 .. DDF_NH_CHUNK bytes; a whole one with
 * its length a constant, so that its loop has no remainder to dispatch.
 */
static DDF_ALWAYS_INLINE void ddf_nh(const struct ddf_nh_key *key,
				     const uint8_t *m, uint32_t len,
				     uint64_t out[2])
{
	if (len == DDF_NH_CHUNK)
		ddf_nh_w(key->k, m, DDF_NH_CHUNK, 64, DDF_NH_DEFAULT_PORTABLE,
			 out);
	else
		ddf_nh_w(key->k, m, len, 64, DDF_NH_DEFAULT_PORTABLE, out);
}

/*
 * The NH key of a rule, from its SipHash key: word pairs 2i, 2i + 1 are
 * the 128-bit SipHash-2-4 of the 16 bytes "NH", six zero bytes and i
 * (8 bytes little-endian). No key string begins with 'N', so no packet
 * is hashed to a key word.
 */
static inline void ddf_nh_key_derive(struct ddf_nh_key *nk,
				     const struct ddf_sipkey *sk)
{
	uint8_t in[16] = { 'N', 'H' };
	struct ddf_sipstate st;
	uint64_t h[2];

	for (uint32_t i = 0; i < DDF_NH_KEY_WORDS / 2; i++) {
		for (unsigned int j = 0; j < 8; j++)
			in[8 + j] = (uint8_t)((uint64_t)i >> (8 * j));
		ddf_sip_init(&st, sk, 2, 4, true);
		ddf_sip_update(&st, in, sizeof(in));
		ddf_sip_final128(&st, h);
		nk->k[2 * i] = h[0];
		nk->k[2 * i + 1] = h[1];
	}
}

/* Out of line (ddf_nh.c), for the tests and the benchmarks. */
void ddf_nh64(const struct ddf_nh_key *key, const void *m, uint32_t len,
	      uint64_t out[2]);
void ddf_nh64_portable(const struct ddf_nh_key *key, const void *m,
		       uint32_t len, uint64_t out[2]);
/* w = 8, 16 or 32: k holds one word per key word, its low w bits used. */
void ddf_nh_narrow(unsigned int w, const uint64_t *k, const void *m,
		   uint32_t len, uint64_t out[2]);

#endif /* DDF_NH_H */
