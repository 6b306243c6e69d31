// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014),
 * adapted to unbounded streams as the QHT paper's footnote 4 says: when
 * an insertion still has a fingerprint in hand after the maximum number
 * of relocations, that fingerprint is dropped instead of reporting the
 * table full.
 *
 * 2^q buckets of b fingerprints of f bits. For a key:
 *   fingerprint  the low f bits of h2, re-derived while zero (0 marks an
 *                empty entry; the QHT paper's section 3.2, option 3)
 *   buckets      i1 = ddf_reduce(h1, 2^q), i2 = i1 xor ddf_reduce(
 *                ddf_fmix64(fp + c), 2^q): partial-key cuckoo hashing, so a
 *                fingerprint's other bucket follows from the fingerprint
 *                and the bucket it is in
 * A key is a duplicate when its fingerprint is in i1 or i2; otherwise it
 * goes into an empty entry of i1 or i2, or, both full, into an entry of
 * one of them (chosen at random) whose fingerprint moves to its other
 * bucket, and so on for at most DDF_CUCKOO_MAX_KICKS relocations (500, as
 * in the paper). A duplicate is not stored again.
 *
 * Parameters: m = 2^q buckets, k = b, fp_bits = f (b * f <= 64), rng_seed.
 * Random choices (first bucket to kick from, entry to evict) come from one
 * draw of the filter's PRNG per insertion that relocates, stretched with a
 * splitmix sequence.
 *
 * A saturated table answers a foreign key DUPLICATE with probability
 * 2b / (2^f - 1): a fingerprint occurs at most once in a bucket pair, as in
 * a QHT row (see ddf_size_cuckoo.c).
 *
 * Several buckets share a 64-bit word (64 / (b f) of them). Concurrency:
 * an insertion may relocate fingerprints across many words, so insertions
 * serialise on a busy bit, held for one insertion: at most 500 relocations.
 * Lookups take no lock; one that races with a relocation may miss the
 * fingerprint in flight (a false negative).
 */
#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_rng.h"

#define DDF_CUCKOO_MAX_KICKS 500
#define CUCKOO_BUSY 1ull
/* attempts at a non-zero fingerprint, as ddf_qht.c */
#define CUCKOO_FP_TRIES 64

struct ddf_cuckoo {
	struct ddf_filter hdr;
	struct ddf_rng rng;
	uint64_t buckets;
	uint64_t words;
	uint64_t bpw_magic; /* ceil(2^64 / bpw), see cuckoo_word() */
	uint64_t fp_mask; /* the low f bits */
	uint32_t b, f, bpw;
	/* the lock word, on a cache line of its own */
	DDF_CACHE_ALIGNED ddf_aword busy;
};

#define CUCKOO_HDR_BYTES ddf_align_up(sizeof(struct ddf_cuckoo), DDF_CACHELINE)
#define CUCKOO_MAX_WORDS \
	((DDF_MAX_BYTES - CUCKOO_HDR_BYTES) / sizeof(ddf_aword))

static inline struct ddf_cuckoo *to_cuckoo(const struct ddf_filter *f)
{
	return (struct ddf_cuckoo *)f;
}

static inline uint64_t cuckoo_mask(uint64_t bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/* bucket / bpw as a multiply, exact below 2^58 */
static inline uint64_t cuckoo_word(const struct ddf_cuckoo *c, uint64_t i)
{
	return c->bpw == 1 ? i : ddf_mulhi64(i, c->bpw_magic);
}

static inline ddf_aword *cuckoo_locate(const struct ddf_cuckoo *c,
				       uint64_t i, uint32_t *shift)
{
	ddf_aword *words = (ddf_aword *)((char *)c + CUCKOO_HDR_BYTES);
	uint64_t w = cuckoo_word(c, i);

	*shift = (uint32_t)(i - w * c->bpw) * c->b * c->f;
	return &words[w];
}

static inline uint64_t cuckoo_fingerprint(const struct ddf_cuckoo *c,
					  uint64_t h2)
{
	uint64_t fp = h2 & c->fp_mask;
	uint64_t i;

	for (i = 1; DDF_UNLIKELY(!fp) && i <= CUCKOO_FP_TRIES; i++)
		fp = ddf_fmix64(h2 + i) & c->fp_mask;
	return fp ? fp : 1;
}

static inline uint64_t cuckoo_alt(const struct ddf_cuckoo *c, uint64_t i,
				  uint64_t fp)
{
	return i ^ ddf_reduce(ddf_fmix64(fp + 0x9e3779b97f4a7c15ull),
			      c->buckets);
}

static inline uint64_t cuckoo_entry(const struct ddf_cuckoo *c, uint64_t w,
				    uint32_t shift, uint32_t e)
{
	return (w >> (shift + e * c->f)) & c->fp_mask;
}

static bool cuckoo_bucket_has(const struct ddf_cuckoo *c, uint64_t i,
			      uint64_t fp)
{
	uint32_t shift, e;
	uint64_t w = ddf_aword_read(cuckoo_locate(c, i, &shift));

	for (e = 0; e < c->b; e++)
		if (cuckoo_entry(c, w, shift, e) == fp)
			return true;
	return false;
}

static bool cuckoo_lookup(struct ddf_filter *f, const struct ddf_hash *h,
			  uint64_t now)
{
	const struct ddf_cuckoo *c = to_cuckoo(f);
	uint64_t fp = cuckoo_fingerprint(c, h->h2);
	uint64_t i1 = ddf_reduce(h->h1, c->buckets);

	return cuckoo_bucket_has(c, i1, fp) ||
	       cuckoo_bucket_has(c, cuckoo_alt(c, i1, fp), fp);
}

/* Under the lock: store fp in an empty entry of bucket i, if any. */
static bool cuckoo_put(struct ddf_cuckoo *c, uint64_t i, uint64_t fp)
{
	uint32_t shift, e;
	ddf_aword *word = cuckoo_locate(c, i, &shift);
	uint64_t w = ddf_aword_read(word);

	for (e = 0; e < c->b; e++)
		if (!cuckoo_entry(c, w, shift, e)) {
			ddf_aword_set(word, w | fp << (shift + e * c->f));
			return true;
		}
	return false;
}

/* Under the lock: fp into entry e of the full bucket i; returns the old. */
static uint64_t cuckoo_swap(struct ddf_cuckoo *c, uint64_t i, uint32_t e,
			    uint64_t fp)
{
	uint32_t shift;
	ddf_aword *word = cuckoo_locate(c, i, &shift);
	uint64_t w = ddf_aword_read(word);
	uint64_t old = cuckoo_entry(c, w, shift, e);

	shift += e * c->f;
	ddf_aword_set(word, (w & ~(c->fp_mask << shift)) | fp << shift);
	return old;
}

static void cuckoo_lock(struct ddf_cuckoo *c)
{
	uint64_t v = ddf_aword_read(&c->busy);

	for (;;) {
		if (!(v & CUCKOO_BUSY) &&
		    ddf_aword_try_cmpxchg(&c->busy, &v, v | CUCKOO_BUSY))
			return;
		ddf_cpu_relax();
		v = ddf_aword_read(&c->busy);
	}
}

static void cuckoo_unlock(struct ddf_cuckoo *c)
{
	ddf_aword_set_release(&c->busy, 0);
}

static bool cuckoo_test_and_insert(struct ddf_filter *f,
				   const struct ddf_hash *h, uint64_t now)
{
	struct ddf_cuckoo *c = to_cuckoo(f);
	uint64_t fp = cuckoo_fingerprint(c, h->h2);
	uint64_t i1 = ddf_reduce(h->h1, c->buckets);
	uint64_t i2 = cuckoo_alt(c, i1, fp), i, r;
	uint32_t n;
	bool dup = false;

	cuckoo_lock(c);
	if (cuckoo_bucket_has(c, i1, fp) || cuckoo_bucket_has(c, i2, fp)) {
		dup = true;
		goto out;
	}
	if (cuckoo_put(c, i1, fp) || cuckoo_put(c, i2, fp))
		goto out;
	r = ddf_rng_next(&c->rng);
	i = r >> 63 ? i2 : i1;
	for (n = 1; n <= DDF_CUCKOO_MAX_KICKS; n++) {
		uint64_t x = ddf_fmix64(r + n * 0x9e3779b97f4a7c15ull);

		fp = cuckoo_swap(c, i, (uint32_t)ddf_reduce(x, c->b), fp);
		i = cuckoo_alt(c, i, fp);
		if (cuckoo_put(c, i, fp))
			goto out;
	}
	/* footnote 4: the fingerprint still in hand is dropped */
out:
	cuckoo_unlock(c);
	return dup;
}

/* The update depends on the detection: one path for both. */
static void cuckoo_insert(struct ddf_filter *f, const struct ddf_hash *h,
			  uint64_t now)
{
	cuckoo_test_and_insert(f, h, now);
}

static uint64_t cuckoo_max_buckets(uint64_t b, uint64_t f)
{
	return CUCKOO_MAX_WORDS * (64 / (b * f));
}

static int cuckoo_resolve(struct ddf_params *p, const char **why)
{
	uint64_t need;

	if (p->flags & DDF_PF_TIME) {
		*why = "the cuckoo filter has no time aging: use count mode";
		return DDF_EINVAL;
	}
	if (p->l || p->block_bits || p->block_hashes || p->cell_bits ||
	    p->decrements || p->inner_kind || p->subfilters) {
		*why = "the cuckoo filter takes m, k (b), fp_bits and rng_seed";
		return DDF_EINVAL;
	}
	if (!p->k || !p->fp_bits) {
		*why = "the cuckoo filter needs k (entries per bucket) and fp_bits: ddf_cuckoo_size() picks them";
		return DDF_EINVAL;
	}
	if ((uint64_t)p->k * p->fp_bits > 64) {
		*why = "k * fp_bits must be at most 64: a bucket is in one word";
		return DDF_ERANGE;
	}
	if (!p->m) {
		if (!p->window) {
			*why = "the cuckoo filter needs buckets (m, a power of two) or a window";
			return DDF_EINVAL;
		}
		need = ddf_div64(p->window + p->k - 1, p->k);
		p->m = 1;
		while (p->m < need)
			p->m <<= 1;
	}
	if (p->m & (p->m - 1)) {
		*why = "cuckoo buckets (m) must be a power of two: i2 = i1 xor h(fp)";
		return DDF_EINVAL;
	}
	if (p->m > cuckoo_max_buckets(p->k, p->fp_bits)) {
		*why = "too many buckets: the table would exceed the memory limit";
		return DDF_EFBIG;
	}
	/* for reports: the entries, about what the filter remembers */
	if (!p->window)
		p->window = p->m * p->k;
	return 0;
}

static uint64_t cuckoo_memsize(const struct ddf_params *p)
{
	uint64_t bpw;

	if (!p->m || !p->k || !p->fp_bits ||
	    (uint64_t)p->k * p->fp_bits > 64 ||
	    p->m > cuckoo_max_buckets(p->k, p->fp_bits))
		return 0;
	bpw = 64 / ((uint64_t)p->k * p->fp_bits);
	return CUCKOO_HDR_BYTES + ddf_div64(p->m + bpw - 1, bpw) *
					  sizeof(ddf_aword);
}

static struct ddf_filter *cuckoo_init(void *mem, const struct ddf_params *p,
				      uint64_t now)
{
	struct ddf_cuckoo *c = mem;

	memset(mem, 0, cuckoo_memsize(p));
	ddf_rng_init(&c->rng, p->rng_seed);
	c->buckets = p->m;
	c->b = p->k;
	c->f = p->fp_bits;
	c->bpw = 64 / (c->b * c->f);
	c->bpw_magic = c->bpw == 1 ? 0 : ddf_div64(~0ull, c->bpw) + 1;
	c->words = ddf_div64(c->buckets + c->bpw - 1, c->bpw);
	c->fp_mask = cuckoo_mask(c->f);
	return &c->hdr;
}

/* A scan of the whole table: for reporting, not for the packet path. */
static void cuckoo_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	const struct ddf_cuckoo *c = to_cuckoo(f);
	uint64_t i, used = 0;
	uint32_t shift, e;

	for (i = 0; i < c->buckets; i++) {
		uint64_t w = ddf_aword_read(cuckoo_locate(c, i, &shift));

		for (e = 0; e < c->b; e++)
			used += cuckoo_entry(c, w, shift, e) != 0;
	}
	st->slots = c->buckets * c->b;
	st->used = used;
	st->fill_ppm = (uint32_t)ddf_div64(used * 1000000, st->slots);
}

const struct ddf_filter_type ddf_cuckoo_type = {
	.name = "cuckoo",
	.kind = DDF_KIND_CUCKOO,
	.flags = DDF_TF_RANDOM,
	.resolve = cuckoo_resolve,
	.memsize = cuckoo_memsize,
	.init = cuckoo_init,
	.lookup = cuckoo_lookup,
	.insert = cuckoo_insert,
	.test_and_insert = cuckoo_test_and_insert,
	.advance = NULL,
	.stats = cuckoo_stats,
};
