// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * SipHash-c-d (J.-P. Aumasson, D. J. Bernstein, "SipHash: a fast short-input
 * PRF", 2012), with the 64-bit output of the paper and the 128-bit output of
 * the reference implementation. Every packet is hashed here, so the rounds
 * count is a compile-time constant in each exported function and the body is
 * forced inline to let the compiler unroll it.
 */
#include "ddf_siphash.h"

/* The kernel spells this as a pseudo-keyword; give userspace the same. */
#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif

#define DDF_SIP_INLINE inline __attribute__((__always_inline__))

struct ddf_sipstate {
	uint64_t v0, v1, v2, v3;
};

static DDF_SIP_INLINE uint64_t ddf_sip_rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

/*
 * Byte by byte, so that neither the host's byte order nor the buffer's
 * alignment matters; compilers merge this into one load where they can.
 */
static DDF_SIP_INLINE uint64_t ddf_sip_load_le64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
	       (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
	       (uint64_t)p[7] << 56;
}

/* One SipRound: the add-rotate-xor network of the paper. */
static DDF_SIP_INLINE void ddf_sipround(struct ddf_sipstate *s)
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

static DDF_SIP_INLINE void ddf_sip_rounds(struct ddf_sipstate *s, int n)
{
	for (int i = 0; i < n; i++)
		ddf_sipround(s);
}

static DDF_SIP_INLINE void ddf_sip_compress(struct ddf_sipstate *s, uint64_t m,
					    int c)
{
	s->v3 ^= m;
	ddf_sip_rounds(s, c);
	s->v0 ^= m;
}

static DDF_SIP_INLINE uint64_t ddf_sip_fold(const struct ddf_sipstate *s)
{
	return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

/*
 * SipHash-c-d of data[0..len) under key. With wide, out[0..1] receive the
 * 128-bit output; otherwise out[0] receives the 64-bit output.
 */
static DDF_SIP_INLINE void ddf_siphash(const struct ddf_sipkey *key,
				       const void *data, size_t len, int c,
				       int d, bool wide, uint64_t *out)
{
	const uint8_t *in = data;
	const uint8_t *end = in + (len & ~(size_t)7);
	struct ddf_sipstate s;
	uint64_t b;

	/* "somepseudorandomlygeneratedbytes", as in the paper */
	s.v0 = key->k0 ^ 0x736f6d6570736575ull;
	s.v1 = key->k1 ^ 0x646f72616e646f6dull;
	s.v2 = key->k0 ^ 0x6c7967656e657261ull;
	s.v3 = key->k1 ^ 0x7465646279746573ull;
	if (wide)
		s.v1 ^= 0xee;

	for (; in != end; in += 8)
		ddf_sip_compress(&s, ddf_sip_load_le64(in), c);

	/* last word: the 0..7 remaining bytes, with len mod 256 on top */
	b = (uint64_t)len << 56;
	switch (len & 7) {
	case 7:
		b |= (uint64_t)in[6] << 48;
		fallthrough;
	case 6:
		b |= (uint64_t)in[5] << 40;
		fallthrough;
	case 5:
		b |= (uint64_t)in[4] << 32;
		fallthrough;
	case 4:
		b |= (uint64_t)in[3] << 24;
		fallthrough;
	case 3:
		b |= (uint64_t)in[2] << 16;
		fallthrough;
	case 2:
		b |= (uint64_t)in[1] << 8;
		fallthrough;
	case 1:
		b |= (uint64_t)in[0];
		break;
	case 0:
		break;
	}
	ddf_sip_compress(&s, b, c);

	s.v2 ^= wide ? 0xee : 0xff;
	ddf_sip_rounds(&s, d);
	out[0] = ddf_sip_fold(&s);
	if (!wide)
		return;

	/* the second half comes from d more rounds on a perturbed state */
	s.v1 ^= 0xdd;
	ddf_sip_rounds(&s, d);
	out[1] = ddf_sip_fold(&s);
}

void ddf_sipkey_from_bytes(struct ddf_sipkey *key, const uint8_t bytes[16])
{
	key->k0 = ddf_sip_load_le64(bytes);
	key->k1 = ddf_sip_load_le64(bytes + 8);
}

uint64_t ddf_siphash24_64(const struct ddf_sipkey *key, const void *data,
			  size_t len)
{
	uint64_t h;

	ddf_siphash(key, data, len, 2, 4, false, &h);
	return h;
}

uint64_t ddf_siphash13_64(const struct ddf_sipkey *key, const void *data,
			  size_t len)
{
	uint64_t h;

	ddf_siphash(key, data, len, 1, 3, false, &h);
	return h;
}

void ddf_siphash24_128(const struct ddf_sipkey *key, const void *data,
		       size_t len, uint64_t out[2])
{
	ddf_siphash(key, data, len, 2, 4, true, out);
}

void ddf_siphash13_128(const struct ddf_sipkey *key, const void *data,
		       size_t len, uint64_t out[2])
{
	ddf_siphash(key, data, len, 1, 3, true, out);
}
