/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Randomness for the randomised filters (RSBF, BSBF, SBF, cuckoo kicks...):
 * a counter-based generator whose state the filter owns and the caller
 * seeds (the kernel from get_random_bytes, tools from --seed). One atomic
 * add per draw keeps it safe on several CPUs; on one CPU the sequence is
 * reproducible from the seed.
 */
#ifndef DDF_RNG_H
#define DDF_RNG_H

#include "ddf_hash.h"

struct ddf_rng {
	ddf_aword ctr;
	uint64_t seed;
};

static inline void ddf_rng_init(struct ddf_rng *r, uint64_t seed)
{
	ddf_aword_set(&r->ctr, 0);
	r->seed = seed;
}

/* 64 uniform bits (splitmix64 over a shared counter) */
static inline uint64_t ddf_rng_next(struct ddf_rng *r)
{
	uint64_t x = ddf_aword_fetch_add(&r->ctr, 0x9e3779b97f4a7c15ull);

	x += r->seed;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* uniform in [0, n) */
static inline uint64_t ddf_rng_below(struct ddf_rng *r, uint64_t n)
{
	return ddf_reduce(ddf_rng_next(r), n);
}

/* true with probability num / 2^32 (probabilities as Q32 integers) */
static inline bool ddf_rng_chance_q32(struct ddf_rng *r, uint64_t num)
{
	return (ddf_rng_next(r) >> 32) < num;
}

#endif /* DDF_RNG_H */
