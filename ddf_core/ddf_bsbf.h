/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The sampling Bloom filters of Bera, Dutta, Narang and Bhattacherjee
 * (arXiv:1212.3964): RSBF, BSBF, BSBFSD and RLBSBF (ddf_bsbf.c).
 *
 * All four are k Bloom filters ("parts") of s bits each, one hash function
 * per part; the memory M is split into k parts of M / k bits (Algorithms
 * 1 to 4, "Construct k Bloom filters each having M/k bits"). params.m is
 * s, the bits of one part.
 *
 * The layout is here, not in the .c file, so that tests can set up exact
 * bit patterns and read the load counters:
 *
 *   struct ddf_bsbf        header, cache-line aligned
 *   load[k]                set bits per part (kept by RLBSBF only)
 *   part 0 .. part k-1     words 64-bit words each, bit j of a part in word
 *                          j / 64 at bit j % 64
 *
 * Which hash bits go where: the position in part i is
 * ddf_reduce(ddf_hash_nth(h, i), s).
 */
#ifndef DDF_BSBF_H
#define DDF_BSBF_H

#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_rng.h"

/* p* of every experiment in the paper (section 6): 0.03 in Q32, rounded */
#define DDF_RSBF_P_STAR_DEFAULT 128849019u
/* k of the paper's comparisons (section 6.3), for all four filters */
#define DDF_BSBF_K_DEFAULT 2u

struct ddf_bsbf {
	struct ddf_filter hdr;
	uint64_t s; /* bits per part */
	uint64_t words; /* 64-bit words per part */
	uint64_t inv_s; /* floor((2^64 - 1) / s): L / s in Q32 without a div */
	uint64_t phase3; /* RSBF: the first position i with s / i < p* */
	uint32_t k;
	uint32_t kind;
	/* hot words, each on its own cache line */
	DDF_CACHE_ALIGNED ddf_aword pos; /* RSBF: elements seen so far */
	DDF_CACHE_ALIGNED struct ddf_rng rng;
};

#define DDF_BSBF_HDR_BYTES ddf_align_up(sizeof(struct ddf_bsbf), DDF_CACHELINE)

static inline uint64_t ddf_bsbf_load_bytes(uint32_t k)
{
	return ddf_align_up((uint64_t)k * sizeof(ddf_aword), DDF_CACHELINE);
}

static inline ddf_aword *ddf_bsbf_load(const struct ddf_bsbf *b)
{
	return (ddf_aword *)((char *)b + DDF_BSBF_HDR_BYTES);
}

static inline ddf_aword *ddf_bsbf_part(const struct ddf_bsbf *b, uint32_t i)
{
	return (ddf_aword *)((char *)b + DDF_BSBF_HDR_BYTES +
			     ddf_bsbf_load_bytes(b->k)) +
	       i * b->words;
}

/* The key's bit in part i. */
static inline uint64_t ddf_bsbf_index(const struct ddf_bsbf *b,
				      const struct ddf_hash *h, uint32_t i)
{
	return ddf_reduce(ddf_hash_nth(h, i), b->s);
}

static inline uint32_t ddf_bsbf_popcount(uint64_t x)
{
	/* no __builtin_popcountll: it may call libgcc */
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

#endif /* DDF_BSBF_H */
