// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Age-Partitioned Blocked Bloom Filter (section 6): each of the k + l + 1
 * segments is a blocked Bloom filter of nb blocks of B bits; a block is a
 * partitioned Bloom filter of b parts of B/b bits. One 64-bit hash per
 * physical segment picks the block, a mix of it picks the b bits, so an
 * insert touches k cache lines and a query 2-4 on average.
 *
 * Generation size: the paper's Table 3 lists the capacity of an APBBF as
 * 1 - b/2B of the APBF with the same memory; that is the g for which a
 * block part of B/b bits reaches fill 1/2 exactly:
 *   g = floor(nb * ln2 / (k * -ln(1 - b/B)))
 * and with it the analytic rates (ddf_size_apbf.c) reproduce Table 3.
 */
#include "ddf_age.h"
#include "ddf_apbf.h"
#include "ddf_hash.h"

#define DDF_APBBF_PREFETCH 16 /* segments whose blocks we prefetch */

struct ddf_apbbf {
	struct ddf_filter hdr;
	uint64_t nb; /* blocks per segment */
	uint32_t wpb; /* words per block */
	uint32_t b; /* bits per block per insert */
	uint32_t part_shift; /* log2(B / b) */
	struct ddf_age age;
};

struct ddf_apbbf_probe {
	const struct ddf_apbbf *f;
	const struct ddf_hash *h;
	uint32_t n; /* segments with a cached hash */
	uint64_t z[DDF_APBBF_PREFETCH]; /* hash of logical segment i */
};

static uint64_t ddf_apbbf_words(const struct ddf_params *p)
{
	return (uint64_t)(p->k + p->l + 1) *
	       ddf_age_seg_words(p->m * p->block_bits);
}

static int ddf_apbbf_resolve(struct ddf_params *p, const char **why)
{
	const struct ddf_apbbf_shape *s;
	uint64_t g;

	if (p->k < 1 || p->k > DDF_MAX_K || p->l < 1 || p->l > DDF_MAX_L) {
		*why = "k must be 1..64 and l 1..256";
		return DDF_ERANGE;
	}
	if (p->fp_bits) {
		*why = "fingerprint size does not apply to apbbf";
		return DDF_EINVAL;
	}
	if (!p->block_bits && !p->block_hashes) {
		p->block_bits = 512;
		p->block_hashes = 8;
	}
	s = ddf_apbbf_shape(p->block_bits, p->block_hashes);
	if (!s) {
		*why = "apbbf block must be 64 or 512 bits with 4 or 8 bits set";
		return DDF_EINVAL;
	}
	if (!p->m) {
		uint64_t need;

		if (!p->window) {
			*why = "give a window or the number of blocks m";
			return DDF_EINVAL;
		}
		need = ddf_div64(p->window + p->l - 1, p->l);
		p->m = ddf_mul_shr32(need * p->k, s->inv_c_q32);
		if (!p->m)
			p->m = 1;
		while (p->m * p->block_bits <= DDF_APBBF_MAX_SEG_BITS &&
		       ddf_apbbf_gen(p->m, p->k, s) < need)
			p->m++;
	}
	if (p->m > DDF_APBBF_MAX_SEG_BITS / p->block_bits) {
		*why = "apbbf segment larger than 2^36 bits";
		return DDF_ERANGE;
	}
	g = ddf_apbbf_gen(p->m, p->k, s);
	if (!g) {
		*why = "apbbf segment too small for one element per generation";
		return DDF_ERANGE;
	}
	if (ddf_apbbf_words(p) * 8 > DDF_MAX_BYTES) {
		*why = "apbbf larger than the memory cap";
		return DDF_EFBIG;
	}
	p->window = g * p->l;
	return 0;
}

static uint64_t ddf_apbbf_memsize(const struct ddf_params *p)
{
	return ddf_align_up(sizeof(struct ddf_apbbf), DDF_CACHELINE) +
	       ddf_apbbf_words(p) * 8;
}

static struct ddf_filter *ddf_apbbf_init(void *mem,
					 const struct ddf_params *p,
					 uint64_t now)
{
	const struct ddf_apbbf_shape *s =
		ddf_apbbf_shape(p->block_bits, p->block_hashes);
	struct ddf_apbbf *f = mem;
	ddf_aword *words = (ddf_aword *)((char *)mem +
		ddf_align_up(sizeof(*f), DDF_CACHELINE));
	uint32_t part = p->block_bits / p->block_hashes;

	memset(mem, 0, ddf_apbbf_memsize(p));
	f->nb = p->m;
	f->wpb = p->block_bits / 64;
	f->b = p->block_hashes;
	while ((1u << f->part_shift) < part)
		f->part_shift++;
	ddf_age_init(&f->age, p, ddf_apbbf_gen(p->m, p->k, s),
		     p->m * p->block_bits, words, now);
	return &f->hdr;
}

static inline ddf_aword *ddf_apbbf_block(const struct ddf_apbbf *f,
					 uint64_t z, uint32_t phys)
{
	return ddf_age_seg(&f->age, phys) + ddf_reduce(z, f->nb) * f->wpb;
}

/*
 * The b bit positions of a key in its block: part i of B/b bits gets the
 * next log2(B/b) bits of a second mix of the segment hash (a second mix so
 * the bits do not track the block index). Returns the word and the bit.
 */
static inline uint32_t ddf_apbbf_pos(const struct ddf_apbbf *f, uint64_t y,
				     uint32_t i)
{
	uint32_t part = 1u << f->part_shift;

	return i * part +
	       (uint32_t)((y >> (i * f->part_shift)) & (part - 1));
}

static inline uint64_t ddf_apbbf_bits(uint64_t z)
{
	return ddf_fmix64(z ^ 0x9e3779b97f4a7c15ull);
}

/* All b bits of the key set in its block of segment phys? */
static bool ddf_apbbf_test_z(const struct ddf_apbbf *f, uint64_t z,
			     uint32_t phys)
{
	const ddf_aword *w = ddf_apbbf_block(f, z, phys);
	uint64_t y = ddf_apbbf_bits(z);

	if (f->wpb == 1) {
		uint64_t m = 0;

		for (uint32_t i = 0; i < f->b; i++)
			m |= 1ull << ddf_apbbf_pos(f, y, i);
		return (ddf_aword_read(w) & m) == m;
	}
	for (uint32_t i = 0; i < f->b; i++) {
		uint32_t pos = ddf_apbbf_pos(f, y, i);

		if (!(ddf_aword_read(&w[pos >> 6]) & (1ull << (pos & 63))))
			return false;
	}
	return true;
}

static void ddf_apbbf_set_z(const struct ddf_apbbf *f, uint64_t z,
			    uint32_t phys)
{
	ddf_aword *w = ddf_apbbf_block(f, z, phys);
	uint64_t y = ddf_apbbf_bits(z);

	if (f->wpb == 1) {
		uint64_t m = 0;

		for (uint32_t i = 0; i < f->b; i++)
			m |= 1ull << ddf_apbbf_pos(f, y, i);
		/* skip the locked OR when the bits are already there */
		if ((ddf_aword_read(w) & m) != m)
			ddf_aword_or(w, m);
		return;
	}
	for (uint32_t i = 0; i < f->b; i++) {
		uint32_t pos = ddf_apbbf_pos(f, y, i);
		uint64_t bit = 1ull << (pos & 63);

		if (!(ddf_aword_read(&w[pos >> 6]) & bit))
			ddf_aword_or(&w[pos >> 6], bit);
	}
}

static bool ddf_apbbf_match(const void *ctx, uint32_t i, uint32_t phys)
{
	const struct ddf_apbbf_probe *pr = ctx;
	uint64_t z = i < pr->n ? pr->z[i] : ddf_hash_nth(pr->h, phys);

	return ddf_apbbf_test_z(pr->f, z, phys);
}

static void ddf_apbbf_set(struct ddf_apbbf *f, const struct ddf_hash *h,
			  uint64_t gn, const struct ddf_apbbf_probe *pr)
{
	uint32_t base = ddf_age_base(&f->age, gn);

	for (uint32_t i = 0; i < f->age.k; i++) {
		uint32_t ph = ddf_age_phys(&f->age, base, i);
		uint64_t z = pr && i < pr->n ? pr->z[i] : ddf_hash_nth(h, ph);

		ddf_apbbf_set_z(f, z, ph);
	}
}

/*
 * Issue the loads of every block an operation may touch before using any,
 * so that their cache misses overlap instead of queueing.
 */
static void ddf_apbbf_prefetch(struct ddf_apbbf_probe *pr, uint64_t G)
{
	const struct ddf_apbbf *f = pr->f;
	uint32_t base = ddf_age_base(&f->age, G);
	uint32_t n = f->age.k + f->age.l;

	if (n > DDF_APBBF_PREFETCH)
		n = DDF_APBBF_PREFETCH;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t ph = ddf_age_phys(&f->age, base, i);

		pr->z[i] = ddf_hash_nth(pr->h, ph);
		ddf_prefetch_w(ddf_apbbf_block(f, pr->z[i], ph));
	}
	pr->n = n;
}

static bool ddf_apbbf_lookup(struct ddf_filter *hdr, const struct ddf_hash *h,
			     uint64_t now)
{
	struct ddf_apbbf *f = (struct ddf_apbbf *)hdr;
	struct ddf_apbbf_probe pr = { .f = f, .h = h };
	uint64_t d, G = ddf_age_lookup_gen(&f->age, now, &d);

	return ddf_age_query(&f->age, G, d, &pr, ddf_apbbf_match);
}

static void ddf_apbbf_insert(struct ddf_filter *hdr, const struct ddf_hash *h,
			     uint64_t now)
{
	struct ddf_apbbf *f = (struct ddf_apbbf *)hdr;

	ddf_apbbf_set(f, h, ddf_age_begin_insert(&f->age, now), NULL);
}

static bool ddf_apbbf_test_and_insert(struct ddf_filter *hdr,
				      const struct ddf_hash *h, uint64_t now)
{
	struct ddf_apbbf *f = (struct ddf_apbbf *)hdr;
	struct ddf_apbbf_probe pr = { .f = f, .h = h };
	uint64_t gn = ddf_age_begin_insert(&f->age, now);
	uint64_t G = ddf_age_gen(&f->age);
	bool dup;

	ddf_apbbf_prefetch(&pr, G);
	dup = ddf_age_query(&f->age, G, 0, &pr, ddf_apbbf_match);
	/* the cached hashes are those of generation G's segments */
	ddf_apbbf_set(f, h, gn, gn == G ? &pr : NULL);
	return dup;
}

static void ddf_apbbf_advance(struct ddf_filter *hdr, uint64_t now)
{
	struct ddf_apbbf *f = (struct ddf_apbbf *)hdr;
	uint64_t v = ddf_age_view(&f->age, now);

	if (f->age.time_mode && ddf_age_gen(&f->age) < v)
		ddf_age_sync(&f->age, v);
}

static void ddf_apbbf_stats(const struct ddf_filter *hdr,
			    struct ddf_stats *st)
{
	const struct ddf_apbbf *f = (const struct ddf_apbbf *)hdr;

	ddf_age_stats(&f->age, st);
}

static uint64_t ddf_apbbf_segment_bits(const struct ddf_filter *hdr, uint32_t i)
{
	return ddf_age_segment_bits(&((const struct ddf_apbbf *)hdr)->age, i);
}

const struct ddf_filter_type ddf_apbbf_type = {
	.name = "apbbf",
	.kind = DDF_KIND_APBBF,
	.resolve = ddf_apbbf_resolve,
	.memsize = ddf_apbbf_memsize,
	.init = ddf_apbbf_init,
	.lookup = ddf_apbbf_lookup,
	.insert = ddf_apbbf_insert,
	.test_and_insert = ddf_apbbf_test_and_insert,
	.advance = ddf_apbbf_advance,
	.stats = ddf_apbbf_stats,
	.segment_bits = ddf_apbbf_segment_bits,
};
