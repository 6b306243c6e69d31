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

struct ddf_filter *ddf_apbbf_il_init(void *mem, uint64_t size,
				     const struct ddf_params *p, uint64_t now)
{
	uint64_t need = ddf_apbbf_il_memsize(p);
	struct ddf_filter *f;
	char *base = mem;
	uint64_t lead;

	if (!need || !mem || size < need)
		return NULL;
	/* as ddf_filter_init(): aligned, every byte of need written */
	mem = ddf_align_ptr(mem, DDF_CACHELINE);
	lead = (uint64_t)((char *)mem - base);
	memset(base, 0, lead);
	memset(base + need - DDF_CACHELINE + lead, 0, DDF_CACHELINE - lead);
	f = ddf_apbbf_il_type.init(mem, p, now);
	f->type = &ddf_apbbf_il_type;
	f->params = *p;
	f->bytes = need;
	return f;
}
