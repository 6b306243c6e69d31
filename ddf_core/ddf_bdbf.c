// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Block decaying Bloom filter, b_DBF (Shen, Zhang, "Improved approximate
 * detection of duplicates for data streams over sliding windows", JCST
 * 23(6), 2008), for a count window of the last W elements.
 *
 * The decaying Bloom filter (DBF) it improves on has m counters; an element
 * sets its k counters to W and every arrival decrements every non-zero
 * counter, so a counter stays non-zero exactly as long as an element that
 * set it is in the window: no false negatives, O(m) work per element and
 * log2(W) bits per counter. b_DBF groups the stream into blocks of d
 * consecutive elements and counts age in blocks: counters of c bits start
 * at C = 2^c - 1 and lose one per block, and the decrements of a block are
 * spread over its d arrivals (de-amortised): arrival j of a block
 * decrements the j-th of d equal slices of the counter array, so each
 * counter loses one exactly every d elements, at a phase of its own.
 *
 * With a counter set at element t and decremented at t + delta, t + delta
 * + d, ... (1 <= delta <= d), an element arriving at t' still finds it
 * while t' <= t + delta + (C - 1) d. The window needs t' <= t + W, so
 *   d = ceil((W - 1) / (C - 1))
 * guarantees no false negatives inside the window; an element is forgotten
 * at most C d >= W elements later (the slack, about d). A counter is thus
 * one bit more than the block age needs ("oversized") so that a block's
 * subtractions can be spread over the block. Per arrival: k counters, and
 * m / d counters decremented, with a single compare-and-swap per word
 * decrementing all its non-zero counters at once.
 *
 * For each arrival: the answer (all k counters non-zero), then the slice's
 * decrements, then the k counters set to C; a duplicate is set again, so
 * it is remembered from its latest arrival, as a sliding window wants.
 * lookup() neither answers for an arrival nor ages the filter.
 *
 * Parameters: window = W, m counters, k, cell_bits = c (2 .. 32). The
 * window counts elements: there is no time mode. Reading of the paper and
 * the APBF paper's summary of it; the paper's exact counter sizing may
 * differ.
 *
 * Concurrency: the arrival counter is one fetch-and-add; setting a counter
 * to C (all ones) is an atomic OR and a slice's decrements are one
 * compare-and-swap per word, so arrivals on several CPUs need no lock.
 */
#include "ddf_filter.h"
#include "ddf_hash.h"

#define BDBF_MAX_C 32u

struct ddf_bdbf {
	struct ddf_filter hdr;
	uint64_t m; /* counters */
	uint64_t nw; /* words of counters */
	uint64_t W; /* window */
	uint64_t d; /* elements per block */
	uint64_t q, r; /* nw = q d + r: slice j has q words, one more if j < r */
	uint64_t cpw_magic; /* ceil(2^64 / cpw), see bdbf_word() */
	uint64_t max; /* C, the low c bits */
	uint64_t low; /* the low c - 1 bits of every counter of a word */
	uint64_t high; /* the top bit of every counter of a word */
	uint32_t k, c, cpw;
	/* the hot word, on a cache line of its own */
	DDF_CACHE_ALIGNED ddf_aword arrivals;
};

#define BDBF_HDR_BYTES ddf_align_up(sizeof(struct ddf_bdbf), DDF_CACHELINE)
#define BDBF_MAX_WORDS ((DDF_MAX_BYTES - BDBF_HDR_BYTES) / sizeof(ddf_aword))

static inline struct ddf_bdbf *to_bdbf(const struct ddf_filter *f)
{
	return (struct ddf_bdbf *)f;
}

static inline ddf_aword *bdbf_words(const struct ddf_bdbf *b)
{
	return (ddf_aword *)((char *)b + BDBF_HDR_BYTES);
}

/* elements per block for a window and counters of c bits */
static inline uint64_t bdbf_block(uint64_t W, uint32_t c)
{
	uint64_t C1 = (c >= 64 ? ~0ull : (1ull << c) - 1) - 1;

	return W > 1 ? ddf_div64(W - 2 + C1, C1) : 1;
}

/* counter / cpw as a multiply, exact below 2^58 */
static inline uint64_t bdbf_word(const struct ddf_bdbf *b, uint64_t ctr)
{
	return b->cpw == 1 ? ctr : ddf_mulhi64(ctr, b->cpw_magic);
}

static inline ddf_aword *bdbf_locate(const struct ddf_bdbf *b,
				     const struct ddf_hash *h, uint32_t i,
				     uint32_t *shift)
{
	uint64_t ctr = ddf_reduce(ddf_hash_nth(h, i), b->m);
	uint64_t w = bdbf_word(b, ctr);

	*shift = (uint32_t)(ctr - w * b->cpw) * b->c;
	return &bdbf_words(b)[w];
}

static bool bdbf_lookup(struct ddf_filter *f, const struct ddf_hash *h,
			uint64_t now)
{
	const struct ddf_bdbf *b = to_bdbf(f);
	uint32_t i, shift;

	for (i = 0; i < b->k; i++) {
		ddf_aword *w = bdbf_locate(b, h, i, &shift);

		if (!((ddf_aword_read(w) >> shift) & b->max))
			return false;
	}
	return true;
}

/*
 * Every non-zero counter of x less one: adding the low bits to themselves
 * carries into a counter's top bit iff they are not all zero (no carry
 * leaves a counter), which with the top bit itself marks the non-zero
 * counters; subtracting one from those never borrows across counters.
 */
static inline uint64_t bdbf_decay(const struct ddf_bdbf *b, uint64_t x)
{
	uint64_t nz = (((x & b->low) + b->low) | x) & b->high;

	return x - (nz >> (b->c - 1));
}

static void bdbf_decay_slice(struct ddf_bdbf *b, uint64_t t)
{
	uint64_t j = ddf_mod64(t, b->d);
	uint64_t from = j * b->q + (j < b->r ? j : b->r);
	uint64_t to = from + b->q + (j < b->r);
	ddf_aword *words = bdbf_words(b);

	for (; from < to; from++) {
		uint64_t old = ddf_aword_read(&words[from]), new;

		do {
			new = bdbf_decay(b, old);
			if (new == old)
				break;
		} while (!ddf_aword_try_cmpxchg(&words[from], &old, new));
	}
}

static void bdbf_arrive(struct ddf_bdbf *b, const struct ddf_hash *h,
			uint64_t t)
{
	uint32_t i, shift;

	bdbf_decay_slice(b, t);
	for (i = 0; i < b->k; i++) {
		ddf_aword *w = bdbf_locate(b, h, i, &shift);

		ddf_aword_or(w, b->max << shift);
	}
}

static bool bdbf_test_and_insert(struct ddf_filter *f,
				 const struct ddf_hash *h, uint64_t now)
{
	struct ddf_bdbf *b = to_bdbf(f);
	uint64_t t = ddf_aword_fetch_add(&b->arrivals, 1);
	bool dup = bdbf_lookup(f, h, now);

	bdbf_arrive(b, h, t);
	return dup;
}

static void bdbf_insert(struct ddf_filter *f, const struct ddf_hash *h,
			uint64_t now)
{
	struct ddf_bdbf *b = to_bdbf(f);

	bdbf_arrive(b, h, ddf_aword_fetch_add(&b->arrivals, 1));
}

static int bdbf_resolve(struct ddf_params *p, const char **why)
{
	uint64_t cpw;

	if (p->flags & DDF_PF_TIME) {
		*why = "b_DBF ages by counted elements: time windows are not implemented";
		return DDF_EINVAL;
	}
	if (p->l || p->block_bits || p->block_hashes || p->fp_bits ||
	    p->decrements || p->inner_kind || p->subfilters || p->rng_seed) {
		*why = "b_DBF takes window, m, k and cell_bits only";
		return DDF_EINVAL;
	}
	if (!p->window) {
		*why = "b_DBF needs a window (elements)";
		return DDF_EINVAL;
	}
	if (!p->m || !p->k || !p->cell_bits) {
		*why = "b_DBF needs m counters, k and cell_bits: ddf_bdbf_size() picks them";
		return DDF_EINVAL;
	}
	if (p->k > DDF_MAX_K) {
		*why = "b_DBF: at most 64 hash functions (k)";
		return DDF_ERANGE;
	}
	if (p->cell_bits < 2 || p->cell_bits > BDBF_MAX_C) {
		*why = "b_DBF counters (cell_bits) are 2 to 32 bits";
		return DDF_ERANGE;
	}
	cpw = 64 / p->cell_bits;
	if (p->m > BDBF_MAX_WORDS * cpw) {
		*why = "too many counters: the filter would exceed the memory limit";
		return DDF_EFBIG;
	}
	return 0;
}

static uint64_t bdbf_memsize(const struct ddf_params *p)
{
	uint64_t cpw;

	if (!p->m || p->cell_bits < 2 || p->cell_bits > BDBF_MAX_C)
		return 0;
	cpw = 64 / p->cell_bits;
	if (p->m > BDBF_MAX_WORDS * cpw)
		return 0;
	return BDBF_HDR_BYTES + ddf_div64(p->m + cpw - 1, cpw) *
					sizeof(ddf_aword);
}

static struct ddf_filter *bdbf_init(void *mem, const struct ddf_params *p,
				    uint64_t now)
{
	struct ddf_bdbf *b = mem;
	uint32_t i;

	memset(mem, 0, bdbf_memsize(p));
	b->m = p->m;
	b->W = p->window;
	b->k = p->k;
	b->c = p->cell_bits;
	b->cpw = 64 / b->c;
	b->cpw_magic = b->cpw == 1 ? 0 : ddf_div64(~0ull, b->cpw) + 1;
	b->nw = ddf_div64(b->m + b->cpw - 1, b->cpw);
	b->d = bdbf_block(b->W, b->c);
	b->q = ddf_div64(b->nw, b->d);
	b->r = b->nw - b->q * b->d;
	b->max = (1ull << b->c) - 1;
	for (i = 0; i < b->cpw; i++) {
		b->low |= (b->max >> 1) << (i * b->c);
		b->high |= (1ull << (b->c - 1)) << (i * b->c);
	}
	return &b->hdr;
}

/* A scan of the whole filter: for reporting, not for the packet path. */
static void bdbf_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	const struct ddf_bdbf *b = to_bdbf(f);
	const ddf_aword *words = bdbf_words(b);
	uint64_t i, used = 0;
	uint32_t j;

	for (i = 0; i < b->nw; i++) {
		uint64_t x = ddf_aword_read(&words[i]);

		for (j = 0; x && j < b->cpw; j++)
			used += ((x >> (j * b->c)) & b->max) != 0;
	}
	st->window = b->W;
	st->gen_size = b->d;
	st->inserts = ddf_aword_read(&b->arrivals);
	st->generation = ddf_div64(st->inserts, b->d);
	st->slots = b->m;
	st->used = used;
	st->fill_ppm = (uint32_t)ddf_div64(used * 1000000, b->m);
}

const struct ddf_filter_type ddf_bdbf_type = {
	.name = "bdbf",
	.kind = DDF_KIND_BDBF,
	.resolve = bdbf_resolve,
	.memsize = bdbf_memsize,
	.init = bdbf_init,
	.lookup = bdbf_lookup,
	.insert = bdbf_insert,
	.test_and_insert = bdbf_test_and_insert,
	.advance = NULL,
	.stats = bdbf_stats,
};
