// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sampling Bloom filters for de-duplication (Bera, Dutta, Narang,
 * Bhattacherjee, arXiv:1212.3964). k parts of s bits (layout: ddf_bsbf.h).
 * An element whose k bits are all set is reported DUPLICATE, otherwise
 * DISTINCT; the filters differ in what they insert and what they forget:
 *
 * RSBF (section 3, Algorithm 1), with i the element's stream position:
 *   i <= s            set the k bits (phase 1)
 *   s / i >= p*       if reported distinct, with probability s / i: reset
 *                     one uniformly random bit in every part, then set the
 *                     k bits (phase 2, reservoir sampling)
 *   s / i <  p*       if reported distinct: in every part whose bit is 0,
 *                     reset one bit that is set, then set the bit (phase 3)
 * BSBF (section 4, Algorithm 2): if reported distinct, reset one uniformly
 *   random bit in every part, then set the k bits.
 * BSBFSD (section 4.2, Algorithm 3): if reported distinct, reset one
 *   uniformly random bit of one uniformly random part, then set the k bits.
 * RLBSBF (section 5, Algorithm 4): if reported distinct, in every part i
 *   reset a uniformly random bit with probability L(i) / s, L(i) the set
 *   bits of part i, then set the k bits.
 *
 * Readings where the paper is loose:
 * - Algorithms 2 to 4 print DISTINCT and DUPLICATE the wrong way round;
 *   the text (and Algorithm 1) say all bits set means DUPLICATE.
 * - Phase 1 is i <= s: the text inserts "the initial s elements" and the
 *   analysis puts l in [1, s] (3.10); Algorithm 1's "iter < s" is off by
 *   one.
 * - Phase 2 inserts only elements reported distinct, as the text says and
 *   (3.11) counts; Algorithm 1 leaves that test out of its pseudo-code.
 * - p* is a threshold, not a floor: once s / i < p*, every element
 *   reported distinct is inserted (probability 1, not p*). The comparison
 *   is strict, as in Algorithm 1.
 * - Resets come before the sets everywhere, as Algorithms 2 and 3 and
 *   Algorithm 1's phase 3 order them (Algorithm 1's phase 2 sets first).
 *   So an element just inserted is always found, and the bit it set
 *   survives its own insertion, as in (3.11), (4.1) and (5.1).
 * - Phase 3's "a bit which is set to 1" is a uniformly random set bit.
 * - BSBFSD draws one position in the k * s bits: the same as a random
 *   part then a random bit in it. With k = 1 BSBF and BSBFSD are then the
 *   same filter draw for draw (Tables 1 and 2 agree in their k = 1 column).
 * - RLBSBF decides whether to reset before it picks the bit (the same
 *   distribution, one draw less when it does not reset). L(i) is exact: a
 *   counter per part follows every 0 -> 1 and 1 -> 0 transition.
 * - The stream position counts every element passed to test_and_insert or
 *   insert (the text: "i is the current length of the stream"); lookup
 *   does not count.
 *
 * Every random draw comes from the filter's PRNG, seeded by
 * params.rng_seed. Sets are atomic ORs (RLBSBF: a compare-and-swap that
 * tells the counter whether the bit changed), resets compare-and-swap
 * loops that do not write a word whose bit is already 0. Test and update
 * are not one atomic step: two CPUs inserting keys that share a 0 bit may
 * both reset a bit for it (one load bit lost), as a sequential order
 * would not.
 */
#include "ddf_bsbf.h"

/* Random probes for phase 3's set bit before scanning for one. */
#define RSBF_FIND_TRIES 64

static inline struct ddf_bsbf *to_bsbf(const struct ddf_filter *f)
{
	return (struct ddf_bsbf *)f;
}

static inline ddf_aword *bsbf_word(const struct ddf_bsbf *b, uint32_t i,
				   uint64_t j)
{
	return &ddf_bsbf_part(b, i)[j >> 6];
}

static inline uint64_t bsbf_bit(uint64_t j)
{
	return 1ull << (j & 63);
}

/* Clear bit j of part i; true if it was set. */
static bool bsbf_clear(const struct ddf_bsbf *b, uint32_t i, uint64_t j)
{
	ddf_aword *w = bsbf_word(b, i, j);
	uint64_t bit = bsbf_bit(j), old = ddf_aword_read(w);

	do {
		if (!(old & bit))
			return false;
	} while (!ddf_aword_try_cmpxchg(w, &old, old & ~bit));
	return true;
}

/* Set bit j of part i; true if it was 0. */
static bool bsbf_set_counted(const struct ddf_bsbf *b, uint32_t i, uint64_t j)
{
	ddf_aword *w = bsbf_word(b, i, j);
	uint64_t bit = bsbf_bit(j), old = ddf_aword_read(w);

	do {
		if (old & bit)
			return false;
	} while (!ddf_aword_try_cmpxchg(w, &old, old | bit));
	return true;
}

/* Bit mask of the parts where the key's bit is 0. */
static uint64_t bsbf_zeros(const struct ddf_bsbf *b, const struct ddf_hash *h)
{
	uint64_t zeros = 0, j;
	uint32_t i;

	for (i = 0; i < b->k; i++) {
		j = ddf_bsbf_index(b, h, i);
		if (!(ddf_aword_read(bsbf_word(b, i, j)) & bsbf_bit(j)))
			zeros |= 1ull << i;
	}
	return zeros;
}

static void bsbf_set_all(const struct ddf_bsbf *b, const struct ddf_hash *h)
{
	uint64_t j;
	uint32_t i;

	for (i = 0; i < b->k; i++) {
		j = ddf_bsbf_index(b, h, i);
		ddf_aword_or(bsbf_word(b, i, j), bsbf_bit(j));
	}
}

/* One uniformly random bit of every part to 0 (RSBF phase 2, BSBF). */
static void bsbf_reset_each(struct ddf_bsbf *b)
{
	uint32_t i;

	for (i = 0; i < b->k; i++)
		bsbf_clear(b, i, ddf_rng_below(&b->rng, b->s));
}

/*
 * RSBF phase 3: one set bit of part i to 0, uniformly among the set bits
 * (rejection sampling). After RSBF_FIND_TRIES misses, which at the loads
 * phase 3 runs at (about 60% for k = 2) has odds below 1e-25, the first
 * set bit from a random word on; a part with no set bit is left alone.
 */
static void rsbf_reset_set_bit(struct ddf_bsbf *b, uint32_t i)
{
	ddf_aword *part = ddf_bsbf_part(b, i);
	uint64_t n, w, old;
	int t;

	for (t = 0; t < RSBF_FIND_TRIES; t++)
		if (bsbf_clear(b, i, ddf_rng_below(&b->rng, b->s)))
			return;
	w = ddf_rng_below(&b->rng, b->words);
	for (n = 0; n < b->words; n++, w = w + 1 < b->words ? w + 1 : 0) {
		old = ddf_aword_read(&part[w]);
		while (old)
			if (ddf_aword_try_cmpxchg(&part[w], &old,
						  old & (old - 1)))
				return;
	}
}

static void rsbf_update(struct ddf_bsbf *b, const struct ddf_hash *h,
			uint64_t zeros)
{
	uint64_t pos = ddf_aword_fetch_add(&b->pos, 1) + 1, j;
	uint32_t i;

	if (pos <= b->s) {
		bsbf_set_all(b, h);
		return;
	}
	if (!zeros)
		return;
	if (pos >= b->phase3) {
		for (i = 0; i < b->k; i++) {
			if (!(zeros & (1ull << i)))
				continue;
			rsbf_reset_set_bit(b, i);
			j = ddf_bsbf_index(b, h, i);
			ddf_aword_or(bsbf_word(b, i, j), bsbf_bit(j));
		}
		return;
	}
	/* with probability s / pos, no division */
	if (ddf_rng_below(&b->rng, pos) >= b->s)
		return;
	bsbf_reset_each(b);
	bsbf_set_all(b, h);
}

static void bsbfsd_update(struct ddf_bsbf *b, const struct ddf_hash *h)
{
	uint64_t r = ddf_rng_next(&b->rng);
	uint32_t part = (uint32_t)ddf_reduce(r, b->k);

	/* the part from the high bits of r * k, the bit from the low ones */
	bsbf_clear(b, part, ddf_reduce(r * b->k, b->s));
	bsbf_set_all(b, h);
}

static void rlbsbf_update(struct ddf_bsbf *b, const struct ddf_hash *h)
{
	ddf_aword *load = ddf_bsbf_load(b);
	uint64_t l;
	uint32_t i;

	for (i = 0; i < b->k; i++) {
		l = ddf_aword_read(&load[i]);
		/* L(i) / s in Q32; L(i) <= s, so at most 2^32 */
		if (!l || !ddf_rng_chance_q32(&b->rng,
					      ddf_mul_shr32(l, b->inv_s)))
			continue;
		if (bsbf_clear(b, i, ddf_rng_below(&b->rng, b->s)))
			ddf_aword_fetch_add(&load[i], ~0ull);
	}
	for (i = 0; i < b->k; i++)
		if (bsbf_set_counted(b, i, ddf_bsbf_index(b, h, i)))
			ddf_aword_fetch_add(&load[i], 1);
}

static bool bsbf_test_and_insert(struct ddf_filter *f,
				 const struct ddf_hash *h, uint64_t now)
{
	struct ddf_bsbf *b = to_bsbf(f);
	uint64_t zeros = bsbf_zeros(b, h);

	if (b->kind == DDF_KIND_RSBF) {
		rsbf_update(b, h, zeros);
	} else if (zeros) {
		if (b->kind == DDF_KIND_BSBF) {
			bsbf_reset_each(b);
			bsbf_set_all(b, h);
		} else if (b->kind == DDF_KIND_BSBFSD) {
			bsbfsd_update(b, h);
		} else {
			rlbsbf_update(b, h);
		}
	}
	return !zeros;
}

/* What is inserted depends on the test, so both paths are the same. */
static void bsbf_insert(struct ddf_filter *f, const struct ddf_hash *h,
			uint64_t now)
{
	bsbf_test_and_insert(f, h, now);
}

static bool bsbf_lookup(struct ddf_filter *f, const struct ddf_hash *h,
			uint64_t now)
{
	const struct ddf_bsbf *b = to_bsbf(f);
	uint64_t j;
	uint32_t i;

	for (i = 0; i < b->k; i++) {
		j = ddf_bsbf_index(b, h, i);
		if (!(ddf_aword_read(bsbf_word(b, i, j)) & bsbf_bit(j)))
			return false;
	}
	return true;
}

static uint64_t bsbf_bytes(uint32_t k, uint64_t s)
{
	return DDF_BSBF_HDR_BYTES + ddf_bsbf_load_bytes(k) +
	       (uint64_t)k * ((s + 63) / 64) * sizeof(ddf_aword);
}

/* Parameters that belong to other kinds, each with its own reason. */
struct bsbf_foreign {
	uint64_t set;
	const char *why;
};

static int bsbf_resolve(struct ddf_params *p, const char **why)
{
	const struct bsbf_foreign foreign[] = {
		{ p->window, "these filters have no window: they forget by random resets; size them by memory (m)" },
		{ p->l, "l (generations) is an APBF/APBBF parameter" },
		{ p->block_bits, "block_bits is an APBBF parameter" },
		{ p->block_hashes, "block_hashes is an APBBF parameter" },
		{ p->fp_bits, "fp_bits is a QHT-family parameter" },
		{ p->cell_bits, "cell_bits is an SBF/b_DBF parameter" },
		{ p->decrements, "decrements is an SBF parameter" },
		{ p->inner_kind, "inner_kind belongs to the queuing construction" },
		{ p->subfilters, "subfilters belongs to the queuing construction" },
		{ p->kind != DDF_KIND_RSBF && p->p_star,
		  "p_star is RSBF's threshold: BSBF, BSBFSD and RLBSBF insert every element reported distinct" },
	};
	const char *dummy;
	unsigned int i;

	if (!why)
		why = &dummy;
	if (p->flags & DDF_PF_TIME) {
		*why = "RSBF and BSBF filters have no time window: use count mode";
		return DDF_EINVAL;
	}
	for (i = 0; i < DDF_ARRAY_SIZE(foreign); i++) {
		if (foreign[i].set) {
			*why = foreign[i].why;
			return DDF_EINVAL;
		}
	}
	if (!p->k)
		p->k = DDF_BSBF_K_DEFAULT;
	if (p->k > DDF_MAX_K) {
		*why = "k, the number of Bloom filters, must be 1..64";
		return DDF_ERANGE;
	}
	if (!p->m) {
		*why = "give m, the bits of each of the k Bloom filters (ddf_bsbf_size() derives it from a memory budget)";
		return DDF_EINVAL;
	}
	if (p->m > DDF_MAX_BYTES * 8 ||
	    bsbf_bytes(p->k, p->m) > DDF_MAX_BYTES) {
		*why = "k * m bits exceed the memory limit";
		return DDF_EFBIG;
	}
	if (p->kind == DDF_KIND_RSBF && !p->p_star)
		p->p_star = DDF_RSBF_P_STAR_DEFAULT;
	return 0;
}

static uint64_t bsbf_memsize(const struct ddf_params *p)
{
	if (!p->k || p->k > DDF_MAX_K || !p->m || p->m > DDF_MAX_BYTES * 8)
		return 0;
	return bsbf_bytes(p->k, p->m);
}

/*
 * s / i < p*, p* = P / 2^32, holds from i = floor(s 2^32 / P) + 1 on,
 * computed without overflowing 64 bits (P < 2^32).
 */
static uint64_t rsbf_phase3(uint64_t s, uint64_t P)
{
	uint64_t q = ddf_div64(s, P), r = s - q * P;

	if (q >= 0xffffffffull)
		return ~0ull; /* beyond any stream */
	return (q << 32) + ddf_div64(r << 32, P) + 1;
}

static struct ddf_filter *bsbf_init(void *mem, const struct ddf_params *p,
				    uint64_t now)
{
	struct ddf_bsbf *b = mem;

	memset(mem, 0, bsbf_memsize(p));
	b->s = p->m;
	b->words = (p->m + 63) / 64;
	b->inv_s = ddf_div64(~0ull, p->m);
	b->k = p->k;
	b->kind = p->kind;
	b->phase3 = ~0ull;
	if (p->kind == DDF_KIND_RSBF)
		b->phase3 = rsbf_phase3(p->m, p->p_star ? p->p_star :
					DDF_RSBF_P_STAR_DEFAULT);
	ddf_rng_init(&b->rng, p->rng_seed);
	return &b->hdr;
}

static uint64_t bsbf_segment_bits(const struct ddf_filter *f, uint32_t i)
{
	const struct ddf_bsbf *b = to_bsbf(f);
	const ddf_aword *part;
	uint64_t w, set = 0;

	if (i >= b->k)
		return 0;
	part = ddf_bsbf_part(b, i);
	for (w = 0; w < b->words; w++)
		set += ddf_bsbf_popcount(ddf_aword_read(&part[w]));
	return set;
}

/* A scan of every part: for reporting, not for the packet path. */
static void bsbf_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	const struct ddf_bsbf *b = to_bsbf(f);
	uint64_t set = 0;
	uint32_t i;

	for (i = 0; i < b->k; i++)
		set += bsbf_segment_bits(f, i);
	st->fill_ppm = (uint32_t)ddf_div64(set * 1000000, b->k * b->s);
	if (b->kind == DDF_KIND_RSBF)
		st->inserts = ddf_aword_read(&b->pos);
}

#define BSBF_TYPE(ident, tname, tkind)                   \
	const struct ddf_filter_type ident = {           \
		.name = tname,                           \
		.kind = tkind,                           \
		.flags = DDF_TF_RANDOM,                  \
		.resolve = bsbf_resolve,                 \
		.memsize = bsbf_memsize,                 \
		.init = bsbf_init,                       \
		.lookup = bsbf_lookup,                   \
		.insert = bsbf_insert,                   \
		.test_and_insert = bsbf_test_and_insert, \
		.advance = NULL,                         \
		.stats = bsbf_stats,                     \
		.segment_bits = bsbf_segment_bits,       \
	}

BSBF_TYPE(ddf_rsbf_type, "rsbf", DDF_KIND_RSBF);
BSBF_TYPE(ddf_bsbf_type, "bsbf", DDF_KIND_BSBF);
BSBF_TYPE(ddf_bsbfsd_type, "bsbfsd", DDF_KIND_BSBFSD);
BSBF_TYPE(ddf_rlbsbf_type, "rlbsbf", DDF_KIND_RLBSBF);
