// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The interleaved APBBF (ddf_apbbf_il.h): the same filter code as
 * ddf_apbbf.c, compiled with the interleaved block layout, so that the
 * two differ only in where a segment's blocks live. Userspace only
 * (Kbuild leaves this file out).
 */
#define DDF_APBBF_INTERLEAVED 1
#include "ddf_apbbf.c"
#include "ddf_apbbf_il.h"

/* the paper's layout's memsize: the struct and the words are the same */
uint64_t ddf_apbbf_il_memsize(const struct ddf_params *p)
{
	return p->kind == DDF_KIND_APBBF ?
	       ddf_filter_memsize_type(&ddf_apbbf_il_type, p) : 0;
}

/*
 * A key's group is found from h1 alone, whatever the generation, so a
 * caller holding the next keys' hashes can fetch their lines ahead: one
 * multiply where the paper's layout would need the generation and a hash
 * per segment probed.
 */
void ddf_apbbf_il_prefetch(const struct ddf_filter *hdr,
			   const struct ddf_hash *h)
{
	const struct ddf_apbbf *f = (const struct ddf_apbbf *)hdr;
	uint64_t gw = (uint64_t)f->age.nseg * f->wpb;
	const ddf_aword *g = f->age.words + ddf_reduce(h->h1, f->nb) * gw;

	ddf_prefetch_w(g);
	ddf_prefetch_w(g + gw - 1);
}

/*
 * The same for the paper's layout (a filter of ddf_filter_init(): the
 * struct is the one above, the layout's only difference is the block's
 * address, as ddf_apbbf_block() computes it there): the blocks its own
 * prefetch would fetch (ddf_apbbf_prefetch()), in the generation current
 * now, one hash per segment.
 */
void ddf_apbbf_paper_prefetch(const struct ddf_filter *hdr,
			      const struct ddf_hash *h)
{
	const struct ddf_apbbf *f = (const struct ddf_apbbf *)hdr;
	const struct ddf_age *a = &f->age;
	uint32_t base = ddf_age_load(a).base;
	int i, k = (int)a->k;

	for (i = (int)a->l; i >= 0; i = i >= k ? i - k : i - 1) {
		uint32_t ph = ddf_age_phys(a, base, (uint32_t)i);

		ddf_prefetch_w(ddf_age_seg(a, ph) +
			       ddf_reduce(ddf_hash_dh(h, ph), f->nb) * f->wpb);
	}
}

struct ddf_filter *ddf_apbbf_il_init(void *mem, uint64_t size,
				     const struct ddf_params *p, uint64_t now)
{
	uint64_t need = ddf_apbbf_il_memsize(p);
	struct ddf_filter *f;

	/* as ddf_filter_init(): aligned, every byte of need written */
	mem = ddf_filter_place(mem, size, need);
	if (!mem)
		return NULL;
	f = ddf_apbbf_il_type.init(mem, p, now);
	f->type = &ddf_apbbf_il_type;
	f->params = *p;
	f->bytes = need;
	return f;
}
