// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The filter registry and the generic entry points. Adding a filter kind is
 * one file plus one line in ddf_types[] below.
 */
#include "ddf_filter.h"

extern const struct ddf_filter_type ddf_apbf_type;
extern const struct ddf_filter_type ddf_apbbf_type;
extern const struct ddf_filter_type ddf_qht_type;
extern const struct ddf_filter_type ddf_qhtd_type;
extern const struct ddf_filter_type ddf_qqhtd_type;

static const struct ddf_filter_type *const ddf_types[] = {
	&ddf_apbf_type, &ddf_apbbf_type, &ddf_qht_type,
	&ddf_qhtd_type, &ddf_qqhtd_type,
};

#define DDF_NTYPES (sizeof(ddf_types) / sizeof(ddf_types[0]))

const struct ddf_filter_type *ddf_filter_type_by_kind(uint32_t kind)
{
	for (unsigned int i = 0; i < DDF_NTYPES; i++)
		if (ddf_types[i]->kind == kind)
			return ddf_types[i];
	return NULL;
}

static bool ddf_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const struct ddf_filter_type *ddf_filter_type_by_name(const char *name)
{
	for (unsigned int i = 0; i < DDF_NTYPES; i++)
		if (ddf_streq(ddf_types[i]->name, name))
			return ddf_types[i];
	return NULL;
}

const char *ddf_kind_name(uint32_t kind)
{
	const struct ddf_filter_type *t = ddf_filter_type_by_kind(kind);

	return t ? t->name : "unknown";
}

int ddf_params_resolve(struct ddf_params *p, const char **why)
{
	const struct ddf_filter_type *t = ddf_filter_type_by_kind(p->kind);
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!t) {
		*why = "unknown filter kind";
		return DDF_EINVAL;
	}
	if (p->flags & ~__DDF_PF_ALL) {
		*why = "unknown filter flags";
		return DDF_EINVAL;
	}
	if (p->flags & DDF_PF_TIME) {
		if (p->window_ns < DDF_MIN_WINDOW_NS ||
		    p->window_ns > DDF_MAX_WINDOW_NS) {
			*why = "time window must be between 10us and 1h";
			return DDF_ERANGE;
		}
	} else if (p->window_ns) {
		*why = "window_ns given but the filter is count based";
		return DDF_EINVAL;
	}
	if (p->window > DDF_MAX_WINDOW) {
		*why = "window too large";
		return DDF_ERANGE;
	}
	return t->resolve(p, why);
}

uint64_t ddf_filter_memsize(const struct ddf_params *p)
{
	const struct ddf_filter_type *t = ddf_filter_type_by_kind(p->kind);
	uint64_t sz;

	if (!t)
		return 0;
	sz = t->memsize(p);
	if (!sz || sz > DDF_MAX_BYTES)
		return 0;
	/* room to align the filter to a cache line inside the caller's memory */
	return sz + DDF_CACHELINE;
}

struct ddf_filter *ddf_filter_init(void *mem, uint64_t size,
				   const struct ddf_params *p, uint64_t now)
{
	const struct ddf_filter_type *t = ddf_filter_type_by_kind(p->kind);
	uint64_t need = ddf_filter_memsize(p);
	struct ddf_filter *f;

	if (!t || !mem || !need || size < need)
		return NULL;
	f = t->init(ddf_align_ptr(mem, DDF_CACHELINE), p, now);
	if (f) {
		f->type = t;
		f->params = *p;
		f->bytes = need;
	}
	return f;
}

void ddf_filter_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	memset(st, 0, sizeof(*st));
	f->type->stats(f, st);
	st->bytes = f->bytes;
}
