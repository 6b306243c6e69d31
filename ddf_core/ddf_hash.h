/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * From key bytes to the 128-bit hash the filters consume, and from that hash
 * to per-segment indices.
 */
#ifndef DDF_HASH_H
#define DDF_HASH_H

#include "ddf_env.h"
#include "ddf_filter.h"
#include "ddf_siphash.h"

enum ddf_hash_fn {
	DDF_HASH_SIP13 = 0, /* default: SipHash-1-3, 128-bit output */
	DDF_HASH_SIP24, /* SipHash-2-4, 128-bit output */
	__DDF_HASH_MAX
};

/* The filters' one hash of the key: 128 bits of keyed SipHash. */
static inline void ddf_hash_key(struct ddf_hash *out, uint32_t fn,
				const struct ddf_sipkey *key, const void *data,
				size_t len)
{
	uint64_t h[2];

	if (fn == DDF_HASH_SIP24)
		ddf_siphash24_128(key, data, len, h);
	else
		ddf_siphash13_128(key, data, len, h);
	out->h1 = h[0];
	out->h2 = h[1];
}

/* Finaliser of MurmurHash3: a bijective 64-bit mixer. */
static inline uint64_t ddf_fmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/*
 * The i-th derived 64-bit hash (double hashing, Kirsch-Mitzenmacher), mixed
 * so that neighbouring i give unrelated values. h2 is forced odd so the
 * sequence has full period.
 */
static inline uint64_t ddf_hash_nth(const struct ddf_hash *h, uint64_t i)
{
	return ddf_fmix64(h->h1 + i * (h->h2 | 1));
}

/*
 * The i-th derived hash without the mix: h1 + i * h2, plain double hashing.
 * Each value alone is as uniform as h1; callers that take both the top bits
 * and a product with an odd constant from it (APBBF's block and bits) need
 * nothing more, and neighbouring i are different segments' arrays.
 */
static inline uint64_t ddf_hash_dh(const struct ddf_hash *h, uint64_t i)
{
	return h->h1 + i * (h->h2 | 1);
}

/* Map a uniform 64-bit value onto [0, n) without division. */
static inline uint64_t ddf_reduce(uint64_t x, uint64_t n)
{
	return ddf_mulhi64(x, n);
}

#endif /* DDF_HASH_H */
