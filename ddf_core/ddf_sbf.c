// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Stable Bloom Filter (Deng, Rafiei, SIGMOD 2006).
 *
 * m cells of d bits, Max = 2^d - 1, K hash functions. For each element of
 * the stream:
 *   1. it is a duplicate if its K cells are all non-zero;
 *   2. P cells chosen at random are decremented by one, those already at
 *      zero left alone;
 *   3. its K cells are set to Max.
 * Every element is inserted, duplicate or not. The fraction of zero cells
 * converges, so the false-positive rate stays bounded on an unbounded
 * stream (1 - (1 / (1 + 1 / (P (1/K - 1/m))))^Max)^K, the QHT paper's
 * footnote 12), at the price of false negatives.
 *
 * Parameters: m cells, cell_bits = d, k = K, decrements = P, rng_seed.
 *
 * Hash bits: the i-th cell of a key is ddf_reduce(ddf_hash_nth(h, i), m).
 * The P cells come from one draw of the filter's PRNG per insertion,
 * stretched with a splitmix sequence, so the shared PRNG counter is touched
 * once per insertion and not P times.
 *
 * A 64-bit word holds 64 / d cells; a decrement is a compare-and-swap on
 * one word and setting a cell to Max (all ones) an atomic OR, so several
 * CPUs insert without a lock. A key's answer and its update are not one
 * atomic step: two CPUs inserting the same new key may both be told UNSEEN.
 */
#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_rng.h"

/* P per insertion: each is one random memory access on the packet path */
#define SBF_MAX_P 65536u
#define SBF_MAX_D 32u

struct ddf_sbf {
	struct ddf_filter hdr;
	struct ddf_rng rng;
	uint64_t m;
	uint64_t words;
	uint64_t cpw_magic; /* ceil(2^64 / cpw), see sbf_word() */
	uint64_t max; /* Max = 2^d - 1, the low d bits */
	uint32_t d, K, P, cpw;
};

#define SBF_HDR_BYTES ddf_align_up(sizeof(struct ddf_sbf), DDF_CACHELINE)
#define SBF_MAX_WORDS ((DDF_MAX_BYTES - SBF_HDR_BYTES) / sizeof(ddf_aword))

static inline struct ddf_sbf *to_sbf(const struct ddf_filter *f)
{
	return (struct ddf_sbf *)f;
}

static inline ddf_aword *sbf_words(const struct ddf_sbf *s)
{
	return (ddf_aword *)((char *)s + SBF_HDR_BYTES);
}

/* cell / cpw as a multiply, exact for every cell below 2^58 */
static inline uint64_t sbf_word(const struct ddf_sbf *s, uint64_t cell)
{
	return s->cpw == 1 ? cell : ddf_mulhi64(cell, s->cpw_magic);
}

/* The word of a cell and the cell's shift inside it. */
static inline ddf_aword *sbf_locate(const struct ddf_sbf *s, uint64_t cell,
				    uint32_t *shift)
{
	uint64_t w = sbf_word(s, cell);

	*shift = (uint32_t)(cell - w * s->cpw) * s->d;
	return &sbf_words(s)[w];
}

static inline uint64_t sbf_key_cell(const struct ddf_sbf *s,
				    const struct ddf_hash *h, uint32_t i)
{
	return ddf_reduce(ddf_hash_nth(h, i), s->m);
}

static bool sbf_lookup(struct ddf_filter *f, const struct ddf_hash *h,
		       uint64_t now)
{
	const struct ddf_sbf *s = to_sbf(f);
	uint32_t i, shift;

	for (i = 0; i < s->K; i++) {
		ddf_aword *w = sbf_locate(s, sbf_key_cell(s, h, i), &shift);

		if (!((ddf_aword_read(w) >> shift) & s->max))
			return false;
	}
	return true;
}

/* Decrement one cell unless it is zero. */
static void sbf_decrement(const struct ddf_sbf *s, uint64_t cell)
{
	uint32_t shift;
	ddf_aword *w = sbf_locate(s, cell, &shift);
	uint64_t old = ddf_aword_read(w);

	do {
		if (!((old >> shift) & s->max))
			return;
	} while (!ddf_aword_try_cmpxchg(w, &old, old - (1ull << shift)));
}

static void sbf_update(struct ddf_sbf *s, const struct ddf_hash *h)
{
	uint64_t base = ddf_rng_next(&s->rng);
	uint32_t i, shift;

	for (i = 0; i < s->P; i++)
		sbf_decrement(s, ddf_reduce(ddf_fmix64(base +
					(i + 1) * 0x9e3779b97f4a7c15ull), s->m));
	for (i = 0; i < s->K; i++) {
		ddf_aword *w = sbf_locate(s, sbf_key_cell(s, h, i), &shift);

		ddf_aword_or(w, s->max << shift);
	}
}

static bool sbf_test_and_insert(struct ddf_filter *f, const struct ddf_hash *h,
				uint64_t now)
{
	bool dup = sbf_lookup(f, h, now);

	sbf_update(to_sbf(f), h);
	return dup;
}

static void sbf_insert(struct ddf_filter *f, const struct ddf_hash *h,
		       uint64_t now)
{
	sbf_update(to_sbf(f), h);
}

static int sbf_resolve(struct ddf_params *p, const char **why)
{
	uint64_t cpw;

	if (p->flags & DDF_PF_TIME) {
		*why = "SBF has no time aging: use count mode";
		return DDF_EINVAL;
	}
	if (p->window) {
		*why = "SBF has no window: it forgets at random; give m cells";
		return DDF_EINVAL;
	}
	if (p->l || p->block_bits || p->block_hashes || p->fp_bits ||
	    p->inner_kind || p->subfilters) {
		*why = "SBF takes m, k, cell_bits, decrements and rng_seed";
		return DDF_EINVAL;
	}
	if (!p->m || !p->k || !p->cell_bits || !p->decrements) {
		*why = "SBF needs m, k (K), cell_bits (d) and decrements (P): ddf_sbf_size() picks them";
		return DDF_EINVAL;
	}
	if (p->k > DDF_MAX_K) {
		*why = "SBF: at most 64 hash functions (k)";
		return DDF_ERANGE;
	}
	if (p->cell_bits > SBF_MAX_D) {
		*why = "SBF cells (cell_bits) are 1 to 32 bits";
		return DDF_ERANGE;
	}
	if (p->decrements > SBF_MAX_P) {
		*why = "SBF: at most 65536 decrements per insertion";
		return DDF_ERANGE;
	}
	cpw = 64 / p->cell_bits;
	if (p->m > SBF_MAX_WORDS * cpw) {
		*why = "too many cells: the filter would exceed the memory limit";
		return DDF_EFBIG;
	}
	return 0;
}

static uint64_t sbf_memsize(const struct ddf_params *p)
{
	uint64_t cpw;

	if (!p->m || !p->cell_bits || p->cell_bits > SBF_MAX_D)
		return 0;
	cpw = 64 / p->cell_bits;
	if (p->m > SBF_MAX_WORDS * cpw)
		return 0;
	return SBF_HDR_BYTES + ddf_div64(p->m + cpw - 1, cpw) *
				       sizeof(ddf_aword);
}

static struct ddf_filter *sbf_init(void *mem, const struct ddf_params *p,
				   uint64_t now)
{
	struct ddf_sbf *s = mem;

	memset(mem, 0, sbf_memsize(p));
	ddf_rng_init(&s->rng, p->rng_seed);
	s->m = p->m;
	s->d = p->cell_bits;
	s->K = p->k;
	s->P = p->decrements;
	s->cpw = 64 / s->d;
	s->cpw_magic = s->cpw == 1 ? 0 : ddf_div64(~0ull, s->cpw) + 1;
	s->words = ddf_div64(s->m + s->cpw - 1, s->cpw);
	s->max = (1ull << s->d) - 1;
	return &s->hdr;
}

/* A scan of the whole filter: for reporting, not for the packet path. */
static void sbf_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	const struct ddf_sbf *s = to_sbf(f);
	uint64_t c, used = 0;
	uint32_t shift;

	for (c = 0; c < s->m; c++) {
		ddf_aword *w = sbf_locate(s, c, &shift);

		used += ((ddf_aword_read(w) >> shift) & s->max) != 0;
	}
	st->slots = s->m;
	st->used = used;
	st->fill_ppm = (uint32_t)ddf_div64(used * 1000000, s->m);
}

const struct ddf_filter_type ddf_sbf_type = {
	.name = "sbf",
	.kind = DDF_KIND_SBF,
	.flags = DDF_TF_RANDOM,
	.resolve = sbf_resolve,
	.memsize = sbf_memsize,
	.init = sbf_init,
	.lookup = sbf_lookup,
	.insert = sbf_insert,
	.test_and_insert = sbf_test_and_insert,
	.advance = NULL,
	.stats = sbf_stats,
};
