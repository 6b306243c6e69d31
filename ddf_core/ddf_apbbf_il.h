/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * APBBF with its segments interleaved (ddf_apbbf.c, DDF_APBBF_INTERLEAVED):
 * an experiment for userspace (ddfbench --layout interleaved, the core's
 * tests), not in the registry, so neither the kernel nor ddfctl can make
 * one. Its params are an apbbf's (DDF_KIND_APBBF), resolved and sized as
 * such, with the same memory.
 */
#ifndef DDF_APBBF_IL_H
#define DDF_APBBF_IL_H

#include "ddf_filter.h"

extern const struct ddf_filter_type ddf_apbbf_il_type;

/* As ddf_filter_memsize() for resolved apbbf params: the same bytes. */
uint64_t ddf_apbbf_il_memsize(const struct ddf_params *p);
/* As ddf_filter_init() for resolved apbbf params, in the interleaved layout. */
struct ddf_filter *ddf_apbbf_il_init(void *mem, uint64_t size,
				     const struct ddf_params *p, uint64_t now);

/* Fetch the lines of h's group (the filter built by ddf_apbbf_il_init()). */
void ddf_apbbf_il_prefetch(const struct ddf_filter *f,
			   const struct ddf_hash *h);
/* As the paper's layout's own prefetch would, for an apbbf of ddf_filter_init() */
void ddf_apbbf_paper_prefetch(const struct ddf_filter *f,
			      const struct ddf_hash *h);

#endif /* DDF_APBBF_IL_H */
