// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Age-Partitioned Bloom Filter (Shtul, Baquero, Almeida), section 5: k + l
 * slices of m bits, one hash per physical slice, inserts set a bit in the k
 * newest slices, queries look for k consecutive matches (Algorithm 1).
 * Generation size g = floor(m ln2 / k), window l * g.
 */
#include "ddf_age.h"
#include "ddf_apbf.h"
#include "ddf_hash.h"

struct ddf_apbf {
	struct ddf_filter hdr;
	uint64_t m;
	struct ddf_age age;
};

struct ddf_apbf_probe {
	const struct ddf_apbf *f;
	const struct ddf_hash *h;
};

static uint64_t ddf_apbf_words(const struct ddf_params *p)
{
	return (uint64_t)(p->k + p->l + 1) * ddf_age_seg_words(p->m);
}

/* The slices, then the ticket slots (ddf_age.h). */
static uint64_t ddf_apbf_bytes(const struct ddf_params *p)
{
	return ddf_apbf_words(p) * 8 +
	       ddf_age_slot_bytes(p, ddf_apbf_gen(p->m, p->k));
}

static uint64_t ddf_apbf_window(const struct ddf_params *p)
{
	uint64_t cap = ddf_apbf_gen(p->m, p->k);

	return cap ? ddf_age_window(p, cap) : 0;
}

static int ddf_apbf_resolve(struct ddf_params *p, const char **why)
{
	if (p->k < 1 || p->k > DDF_MAX_K || p->l < 1 || p->l > DDF_MAX_L) {
		*why = "k must be 1..64 and l 1..256";
		return DDF_ERANGE;
	}
	if (p->block_bits || p->block_hashes || p->fp_bits) {
		*why = "block and fingerprint sizes do not apply to apbf";
		return DDF_EINVAL;
	}
	if (!p->m) {
		uint64_t need, slack;

		if (!p->window) {
			*why = "give a window or the slice size m";
			return DDF_EINVAL;
		}
		need = ddf_div64(p->window + p->l - 1, p->l);
		/* the slack of batched tickets (ddf_age.h) grows with cap */
		slack = ddf_age_slack(p, need);
		need = ddf_div64(p->window + slack + p->l - 1, p->l) + slack;
		if (need > DDF_APBF_MAX_M) {
			*why = "window too large for apbf";
			return DDF_ERANGE;
		}
		/* smallest m whose generations hold the window */
		p->m = ddf_mul_shr32(need * p->k, DDF_INV_LN2_Q32);
		while (p->m <= DDF_APBF_MAX_M &&
		       ddf_apbf_window(p) < p->window)
			p->m++;
	}
	if (p->m > DDF_APBF_MAX_M) {
		*why = "apbf slice larger than 2^32 bits";
		return DDF_ERANGE;
	}
	if (!ddf_apbf_gen(p->m, p->k)) {
		*why = "apbf slice too small for one element per generation";
		return DDF_ERANGE;
	}
	if (!(p->flags & DDF_PF_TIME) && !ddf_apbf_window(p)) {
		*why = "apbf too small for the inserts its CPUs can have under way";
		return DDF_ERANGE;
	}
	if (ddf_apbf_bytes(p) > DDF_MAX_BYTES) {
		*why = "apbf larger than the memory cap";
		return DDF_EFBIG;
	}
	p->window = ddf_apbf_window(p);
	return 0;
}

static uint64_t ddf_apbf_memsize(const struct ddf_params *p)
{
	return ddf_align_up(sizeof(struct ddf_apbf), DDF_CACHELINE) +
	       ddf_apbf_bytes(p);
}

static struct ddf_filter *ddf_apbf_init(void *mem, const struct ddf_params *p,
					uint64_t now)
{
	struct ddf_apbf *f = mem;
	ddf_aword *words = (ddf_aword *)((char *)mem +
		ddf_align_up(sizeof(*f), DDF_CACHELINE));

	memset(mem, 0, ddf_apbf_memsize(p));
	f->m = p->m;
	ddf_age_init(&f->age, p, ddf_apbf_gen(p->m, p->k), p->m, words, now);
	return &f->hdr;
}

static inline uint64_t ddf_apbf_bit(const struct ddf_apbf *f,
				    const struct ddf_hash *h, uint32_t phys)
{
	return ddf_reduce(ddf_hash_nth(h, phys), f->m);
}

static bool ddf_apbf_match(const void *ctx, uint32_t i, uint32_t phys)
{
	const struct ddf_apbf_probe *pr = ctx;
	uint64_t b = ddf_apbf_bit(pr->f, pr->h, phys);
	const ddf_aword *w = ddf_age_seg(&pr->f->age, phys);

	return (ddf_aword_read(&w[b >> 6]) >> (b & 63)) & 1;
}

static void ddf_apbf_set(struct ddf_apbf *f, const struct ddf_hash *h,
			 uint32_t base)
{
	for (uint32_t i = 0; i < f->age.k; i++) {
		uint32_t ph = ddf_age_phys(&f->age, base, i);
		uint64_t b = ddf_apbf_bit(f, h, ph);
		ddf_aword *w = &ddf_age_seg(&f->age, ph)[b >> 6];
		uint64_t bit = 1ull << (b & 63);

		/* skip the locked OR when the bit is already there */
		if (!(ddf_aword_read(w) & bit))
			ddf_aword_or(w, bit);
	}
}

static bool ddf_apbf_lookup(struct ddf_filter *hdr, const struct ddf_hash *h,
			    uint64_t now)
{
	struct ddf_apbf *f = (struct ddf_apbf *)hdr;
	struct ddf_apbf_probe pr = { f, h };
	uint64_t d;
	struct ddf_age_at at = ddf_age_lookup_at(&f->age, now, &d);

	return ddf_age_query(&f->age, at, d, &pr, ddf_apbf_match);
}

static void ddf_apbf_insert(struct ddf_filter *hdr, const struct ddf_hash *h,
			    uint64_t now)
{
	struct ddf_apbf *f = (struct ddf_apbf *)hdr;
	struct ddf_age_at ins, cur;

	ddf_age_begin_insert(&f->age, now, &ins, &cur);
	ddf_apbf_set(f, h, ins.base);
}

static bool ddf_apbf_test_and_insert(struct ddf_filter *hdr,
				     const struct ddf_hash *h, uint64_t now)
{
	struct ddf_apbf *f = (struct ddf_apbf *)hdr;
	struct ddf_apbf_probe pr = { f, h };
	struct ddf_age_at ins, cur;
	bool dup;

	ddf_age_begin_insert(&f->age, now, &ins, &cur);
	dup = ddf_age_query(&f->age, cur, 0, &pr, ddf_apbf_match);
	ddf_apbf_set(f, h, ins.base);
	return dup;
}

static void ddf_apbf_advance(struct ddf_filter *hdr, uint64_t now)
{
	ddf_age_advance(&((struct ddf_apbf *)hdr)->age, now);
}

static void ddf_apbf_stats(const struct ddf_filter *hdr, struct ddf_stats *st)
{
	const struct ddf_apbf *f = (const struct ddf_apbf *)hdr;

	ddf_age_stats(&f->age, st);
}

static uint64_t ddf_apbf_segment_bits(const struct ddf_filter *hdr, uint32_t i)
{
	return ddf_age_segment_bits(&((const struct ddf_apbf *)hdr)->age, i);
}

const struct ddf_filter_type ddf_apbf_type = {
	.name = "apbf",
	.kind = DDF_KIND_APBF,
	.resolve = ddf_apbf_resolve,
	.memsize = ddf_apbf_memsize,
	.init = ddf_apbf_init,
	.lookup = ddf_apbf_lookup,
	.insert = ddf_apbf_insert,
	.test_and_insert = ddf_apbf_test_and_insert,
	.advance = ddf_apbf_advance,
	.stats = ddf_apbf_stats,
	.segment_bits = ddf_apbf_segment_bits,
};
