/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * SipHash (Aumasson, Bernstein): SipHash-2-4 and SipHash-1-3 with 64- and
 * 128-bit output, for keys of any byte length, in one shot or streamed.
 */
#ifndef DDF_SIPHASH_H
#define DDF_SIPHASH_H

#include "ddf_env.h"

struct ddf_sipkey {
	uint64_t k0, k1; /* little-endian halves of the 16-byte key */
};

/* Load a 16-byte key given as bytes (as the reference implementation). */
void ddf_sipkey_from_bytes(struct ddf_sipkey *key, const uint8_t bytes[16]);

uint64_t ddf_siphash24_64(const struct ddf_sipkey *key, const void *data,
			  size_t len);
uint64_t ddf_siphash13_64(const struct ddf_sipkey *key, const void *data,
			  size_t len);
/* out[0] is the first 8 output bytes read little-endian, out[1] the next. */
void ddf_siphash24_128(const struct ddf_sipkey *key, const void *data,
		       size_t len, uint64_t out[2]);
void ddf_siphash13_128(const struct ddf_sipkey *key, const void *data,
		       size_t len, uint64_t out[2]);

/*
 * Streaming SipHash-c-d, for messages that are never whole in memory (a
 * packet key read piece by piece): ddf_sip_init(), ddf_sip_update() any
 * number of times with the message cut anywhere, then the final that
 * matches out128 at init. The result equals the one-shot function's over
 * the concatenated pieces. c = 1, 2 and d = 3, 4 run unrolled; other round
 * counts (1..255) work, more slowly. The state holds no pointers: copy it
 * to fork a hash after a common prefix.
 */
struct ddf_sipstate {
	uint64_t v0, v1, v2, v3;
	uint64_t tail; /* the pending len % 8 bytes, little-endian */
	uint32_t len; /* bytes so far, mod 2^32 (SipHash uses mod 256) */
	uint8_t c, d; /* compression and finalisation rounds */
	uint8_t wide; /* 128-bit output */
	uint8_t reserved;
};

/*
 * The round code, shared by the one-shot functions (ddf_siphash.c) and the
 * stream; each piece is inlined with constant rounds where the caller
 * knows them.
 */
static DDF_ALWAYS_INLINE uint64_t ddf_sip_rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

/*
 * Byte by byte, so that neither the host's byte order nor the buffer's
 * alignment matters; compilers merge this into one load where they can.
 */
static DDF_ALWAYS_INLINE uint64_t ddf_sip_load_le64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
	       (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
	       (uint64_t)p[7] << 56;
}

/* One SipRound: the add-rotate-xor network of the paper. */
static DDF_ALWAYS_INLINE void ddf_sipround(struct ddf_sipstate *s)
{
	s->v0 += s->v1;
	s->v1 = ddf_sip_rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = ddf_sip_rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = ddf_sip_rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = ddf_sip_rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = ddf_sip_rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = ddf_sip_rotl(s->v2, 32);
}

static DDF_ALWAYS_INLINE void ddf_sip_rounds(struct ddf_sipstate *s, int n)
{
	for (int i = 0; i < n; i++)
		ddf_sipround(s);
}

/*
 * A test build of the key defines DDF_SIP_TAP(m) to see each word the
 * stream compresses, and so the key's byte string (tests/core/user/
 * key_string.c); nothing else does.
 */
#ifndef DDF_SIP_TAP
#define DDF_SIP_TAP(m) ((void)(m))
#endif

static DDF_ALWAYS_INLINE void ddf_sip_compress(struct ddf_sipstate *s,
					       uint64_t m, int c)
{
	DDF_SIP_TAP(m);
	s->v3 ^= m;
	ddf_sip_rounds(s, c);
	s->v0 ^= m;
}

static DDF_ALWAYS_INLINE uint64_t ddf_sip_fold(const struct ddf_sipstate *s)
{
	return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

static DDF_ALWAYS_INLINE void
ddf_sip_start(struct ddf_sipstate *s, const struct ddf_sipkey *key, bool wide)
{
	/* "somepseudorandomlygeneratedbytes", as in the paper */
	s->v0 = key->k0 ^ 0x736f6d6570736575ull;
	s->v1 = key->k1 ^ 0x646f72616e646f6dull;
	s->v2 = key->k0 ^ 0x6c7967656e657261ull;
	s->v3 = key->k1 ^ 0x7465646279746573ull;
	if (wide)
		s->v1 ^= 0xee;
}

/* Compress n whole 8-byte words from in. */
static DDF_ALWAYS_INLINE void ddf_sip_words(struct ddf_sipstate *s,
					    const uint8_t *in, size_t n, int c)
{
#pragma GCC unroll 4
	for (; n; n--, in += 8)
		ddf_sip_compress(s, ddf_sip_load_le64(in), c);
}

static DDF_ALWAYS_INLINE uint32_t ddf_sip_load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * The 0..7 bytes of a partial word, little-endian, in at most three
 * loads: 4..7 bytes as two 4-byte loads that overlap (the bytes they
 * share land in the same place), 1..3 as the first, middle and last.
 * The shifts are masked to the word: callers pass n < 8, but a checker
 * that folds an inlined constant length does not know that.
 */
static DDF_ALWAYS_INLINE uint64_t ddf_sip_partial(const uint8_t *in, size_t n)
{
	if (n >= 4)
		return ddf_sip_load_le32(in) |
		       (uint64_t)ddf_sip_load_le32(in + n - 4) <<
		       (8 * ((n - 4) & 7));
	if (n)
		return in[0] | (uint64_t)in[n / 2] << (8 * ((n / 2) & 7)) |
		       (uint64_t)in[n - 1] << (8 * ((n - 1) & 7));
	return 0;
}

/*
 * The last word (the partial bytes with len mod 256 on top), then the
 * finalisation. With wide, out[0..1] receive the 128-bit output;
 * otherwise out[0] receives the 64-bit output.
 */
static DDF_ALWAYS_INLINE void ddf_sip_finish(struct ddf_sipstate *s,
					     uint64_t partial, uint64_t len,
					     int c, int d, bool wide,
					     uint64_t *out)
{
	ddf_sip_compress(s, partial | len << 56, c);
	s->v2 ^= wide ? 0xee : 0xff;
	ddf_sip_rounds(s, d);
	out[0] = ddf_sip_fold(s);
	if (!wide)
		return;

	/* the second half comes from d more rounds on a perturbed state */
	s->v1 ^= 0xdd;
	ddf_sip_rounds(s, d);
	out[1] = ddf_sip_fold(s);
}

/* ---- streaming ---- */

static inline void ddf_sip_init(struct ddf_sipstate *s,
				const struct ddf_sipkey *key, unsigned int c,
				unsigned int d, bool out128)
{
	DDF_BUG_ON(c < 1 || c > 255 || d < 1 || d > 255);
	ddf_sip_start(s, key, out128);
	s->tail = 0;
	s->len = 0;
	s->c = (uint8_t)c;
	s->d = (uint8_t)d;
	s->wide = out128;
	s->reserved = 0;
}

/*
 * Append len bytes from in, compressing with c rounds: the bytes that
 * complete the pending word first (one partial load), then whole words
 * loaded straight from in, then the last 0..7 bytes pending. A stream
 * whose first piece is not a multiple of 8 bytes (the key's one-byte form
 * tag) thus pays no shift per word and no loop per byte.
 */
static DDF_ALWAYS_INLINE void ddf_sip_stream(struct ddf_sipstate *s,
					     const uint8_t *in, size_t len,
					     int c)
{
	unsigned int have = s->len & 7; /* bytes pending in tail */

	s->len += (uint32_t)len;
	if (have) {
		unsigned int a = 8 - have, sh = 8 * have;

		if (len < a) {
			s->tail |= ddf_sip_partial(in, len) << sh;
			return;
		}
		ddf_sip_compress(s, s->tail | ddf_sip_partial(in, a) << sh, c);
		in += a;
		len -= a;
	}
	ddf_sip_words(s, in, len / 8, c);
	s->tail = ddf_sip_partial(in + (len & ~(size_t)7), len & 7);
}

/* The round counts of the two hashes in use run unrolled. */
static inline void ddf_sip_update(struct ddf_sipstate *s, const void *data,
				  size_t len)
{
	if (s->c == 1)
		ddf_sip_stream(s, data, len, 1);
	else if (s->c == 2)
		ddf_sip_stream(s, data, len, 2);
	else
		ddf_sip_stream(s, data, len, s->c);
}

/*
 * Append n (1..8) bytes given as a little-endian value w (its bytes above
 * n zero), compressing with c rounds: for callers that build the message
 * a word at a time in registers (a masked packet key), never in memory.
 */
static DDF_ALWAYS_INLINE void ddf_sip_push(struct ddf_sipstate *s, uint64_t w,
					   unsigned int n, int c)
{
	unsigned int have = s->len & 7, sh = 8 * have;

	s->len += n;
	if (!have) {
		if (n == 8)
			ddf_sip_compress(s, w, c);
		else
			s->tail = w;
		return;
	}
	if (have + n < 8) {
		s->tail |= w << sh;
		return;
	}
	ddf_sip_compress(s, s->tail | w << sh, c);
	s->tail = w >> (64 - sh);
}

static inline void ddf_sip_final_rt(struct ddf_sipstate *s, uint64_t *out)
{
	uint64_t len = s->len & 0xff;

	if (s->c == 1 && s->d == 3)
		ddf_sip_finish(s, s->tail, len, 1, 3, s->wide, out);
	else if (s->c == 2 && s->d == 4)
		ddf_sip_finish(s, s->tail, len, 2, 4, s->wide, out);
	else
		ddf_sip_finish(s, s->tail, len, s->c, s->d, s->wide, out);
}

/* For a state begun with out128 false. */
static inline uint64_t ddf_sip_final64(struct ddf_sipstate *s)
{
	uint64_t h[2];

	DDF_BUG_ON(s->wide);
	ddf_sip_final_rt(s, h);
	return h[0];
}

/* For a state begun with out128 true; out as in ddf_siphash*_128. */
static inline void ddf_sip_final128(struct ddf_sipstate *s, uint64_t out[2])
{
	DDF_BUG_ON(!s->wide);
	ddf_sip_final_rt(s, out);
}

#endif /* DDF_SIPHASH_H */
