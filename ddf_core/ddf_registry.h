/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The filter registry and the generic entry points, for the core's users
 * (the kernel module, the tools, the tests). Adding a filter kind is one
 * file plus one line in ddf_types below.
 *
 * Header-only on purpose: each core .c file stands alone and references
 * nothing but mem*, so the registry, which names every filter type, lives
 * in the users' compilation units.
 */
#ifndef DDF_REGISTRY_H
#define DDF_REGISTRY_H

/* included by ddf_filter.h at its end: first, it brings that one whole */
#include "ddf_filter.h"

extern const struct ddf_filter_type ddf_apbf_type;
extern const struct ddf_filter_type ddf_apbbf_type;
extern const struct ddf_filter_type ddf_qht_type;
extern const struct ddf_filter_type ddf_qhtd_type;
extern const struct ddf_filter_type ddf_qqhtd_type;
extern const struct ddf_filter_type ddf_sqf_type;
extern const struct ddf_filter_type ddf_sbf_type;
extern const struct ddf_filter_type ddf_a2_type;
extern const struct ddf_filter_type ddf_bdbf_type;
extern const struct ddf_filter_type ddf_cuckoo_type;
extern const struct ddf_filter_type ddf_rsbf_type;
extern const struct ddf_filter_type ddf_bsbf_type;
extern const struct ddf_filter_type ddf_bsbfsd_type;
extern const struct ddf_filter_type ddf_rlbsbf_type;
extern const struct ddf_filter_type ddf_exact_type;
extern const struct ddf_filter_type ddf_shf_type;
extern const struct ddf_filter_type ddf_cshf_type;
extern const struct ddf_filter_type ddf_queue_type;

/*
 * The test-and-insert of the filters rules use most, for a packet path to
 * call directly (nf_ddf_hook.c): through the type it is an indirect call,
 * a retpoline in kernels built with them.
 */
bool ddf_apbbf_test_and_insert(struct ddf_filter *f, const struct ddf_hash *h,
			       uint64_t now);
bool ddf_qht_test_and_insert(struct ddf_filter *f, const struct ddf_hash *h,
			     uint64_t now);

static inline const struct ddf_filter_type *ddf_filter_type_at(unsigned int i)
{
	static const struct ddf_filter_type *const ddf_types[] = {
		&ddf_apbf_type, &ddf_apbbf_type, &ddf_qht_type,
		&ddf_qhtd_type, &ddf_qqhtd_type,
		&ddf_sqf_type, &ddf_sbf_type, &ddf_a2_type, &ddf_bdbf_type,
		&ddf_cuckoo_type,
		&ddf_rsbf_type, &ddf_bsbf_type, &ddf_bsbfsd_type,
		&ddf_rlbsbf_type,
		&ddf_exact_type, &ddf_shf_type, &ddf_cshf_type,
		&ddf_queue_type,
	};

	return i < DDF_ARRAY_SIZE(ddf_types) ? ddf_types[i] :
							       NULL;
}

static inline const struct ddf_filter_type *
ddf_filter_type_by_kind(uint32_t kind)
{
	const struct ddf_filter_type *t;

	for (unsigned int i = 0; (t = ddf_filter_type_at(i)); i++)
		if (t->kind == kind)
			return t;
	return NULL;
}

static inline const struct ddf_filter_type *
ddf_filter_type_by_name(const char *name)
{
	const struct ddf_filter_type *t;

	for (unsigned int i = 0; (t = ddf_filter_type_at(i)); i++) {
		const char *a = t->name, *b = name;

		while (*a && *a == *b) {
			a++;
			b++;
		}
		if (*a == *b)
			return t;
	}
	return NULL;
}

static inline const char *ddf_kind_name(uint32_t kind)
{
	const struct ddf_filter_type *t = ddf_filter_type_by_kind(kind);

	return t ? t->name : "unknown";
}

/* Checks every kind shares; the kind's resolve() does the rest. */
static inline int ddf_params_check_common(const struct ddf_params *p,
					  const char **why)
{
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
	if (p->cpus && p->kind != DDF_KIND_APBF && p->kind != DDF_KIND_APBBF) {
		*why = "cpus applies to apbf and apbbf only";
		return DDF_EINVAL;
	}
	if (p->cpus > DDF_MAX_CPUS) {
		*why = "cpus must be at most 8192";
		return DDF_ERANGE;
	}
	return 0;
}

/*
 * The kernel's policy (nf_ddf_policy.c) caps every member, also those a
 * kind does not use and so does not check: checked after the kind's own
 * checks (whose sentences come first), so that what the core accepts (a
 * saved shape ddfctl restores) is never refused by the kernel's policy.
 */
static inline int ddf_params_check_caps(const struct ddf_params *p,
					const char **why)
{
	if (p->k > DDF_MAX_K)
		*why = "k must be at most 64";
	else if (p->l > DDF_MAX_L)
		*why = "l must be at most 256";
	else if (p->subfilters > DDF_MAX_L)
		*why = "subfilters must be at most 256";
	else if (p->block_bits > 512)
		*why = "block_bits must be at most 512";
	else if (p->block_hashes > 64 || p->fp_bits > 64 || p->cell_bits > 64)
		*why = "block_hashes, fp_bits and cell_bits must be at most 64";
	else if (p->inner_kind >= __DDF_KIND_MAX)
		*why = "unknown inner filter kind";
	else
		return 0;
	return DDF_ERANGE;
}

/* Resolve through a known type (for code that must not use the registry). */
static inline int ddf_params_resolve_type(const struct ddf_filter_type *t,
					  struct ddf_params *p,
					  const char **why)
{
	int err = ddf_params_check_common(p, why);

	if (!err)
		err = t->resolve(p, why);
	return err ? err : ddf_params_check_caps(p, why);
}

/*
 * The queuing construction (ddf_queue.c) wraps subfilters of another kind,
 * whose type a core file cannot look up: the registry finds it and hands
 * it over. A queue is resolved, sized and built only through
 * ddf_params_resolve(), ddf_filter_memsize() and ddf_filter_init().
 */
int ddf_queue_resolve(const struct ddf_filter_type *inner,
		      struct ddf_params *p, const char **why);
uint64_t ddf_queue_memsize(const struct ddf_filter_type *inner,
			   const struct ddf_params *p);
struct ddf_filter *ddf_queue_init(const struct ddf_filter_type *inner,
				  void *mem, const struct ddf_params *p,
				  uint64_t now);

static inline const struct ddf_filter_type *
ddf_queue_inner_type(const struct ddf_params *p)
{
	return ddf_filter_type_by_kind(p->inner_kind);
}

static inline int ddf_queue_params_resolve(struct ddf_params *p,
					   const char **why)
{
	int err = ddf_params_check_common(p, why);

	if (!err)
		err = ddf_queue_resolve(ddf_queue_inner_type(p), p, why);
	return err ? err : ddf_params_check_caps(p, why);
}

/* with room to align, as ddf_filter_memsize_type() (0: invalid) */
static inline uint64_t ddf_queue_filter_memsize(const struct ddf_params *p)
{
	uint64_t sz = ddf_queue_memsize(ddf_queue_inner_type(p), p);

	return sz ? sz + DDF_CACHELINE : 0;
}

/*
 * Validate params and fill every derived field. Returns 0 or a DDF_E* code
 * with *why pointing at a sentence for the user.
 */
static inline int ddf_params_resolve(struct ddf_params *p, const char **why)
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
	if (t->kind == DDF_KIND_QUEUE)
		return ddf_queue_params_resolve(p, why);
	return ddf_params_resolve_type(t, p, why);
}

/* Bytes to provide for a filter with resolved params (0: invalid). */
static inline uint64_t ddf_filter_memsize_type(const struct ddf_filter_type *t,
					       const struct ddf_params *p)
{
	uint64_t sz = t->memsize(p);

	if (!sz || sz > DDF_MAX_BYTES)
		return 0;
	/* room to align the filter to a cache line in the caller's memory */
	return sz + DDF_CACHELINE;
}

static inline uint64_t ddf_filter_memsize(const struct ddf_params *p)
{
	const struct ddf_filter_type *t = ddf_filter_type_by_kind(p->kind);

	if (t && t->kind == DDF_KIND_QUEUE)
		return ddf_queue_filter_memsize(p);
	return t ? ddf_filter_memsize_type(t, p) : 0;
}

/*
 * Where a filter of need bytes goes in mem (size bytes): cache-line
 * aligned, the room the alignment takes before it and after its last
 * line zeroed (a kind's init zeroes its own memsize), or NULL.
 */
static inline void *ddf_filter_place(void *mem, uint64_t size, uint64_t need)
{
	char *base = mem, *at;
	uint64_t lead;

	if (!need || !mem || size < need)
		return NULL;
	at = ddf_align_ptr(mem, DDF_CACHELINE);
	lead = (uint64_t)(at - base);
	memset(base, 0, lead);
	memset(base + need - DDF_CACHELINE + lead, 0, DDF_CACHELINE - lead);
	return at;
}

/*
 * Build a filter in mem. Returns the filter (inside mem, cache-line aligned)
 * or NULL if p is not resolved or size is too small. Every byte of the
 * first ddf_filter_memsize(p) is written (a kind's init zeroes all of its
 * memsize, this the room to align), so mem need not be zeroed first.
 */
static inline struct ddf_filter *ddf_filter_init(void *mem, uint64_t size,
						 const struct ddf_params *p,
						 uint64_t now)
{
	const struct ddf_filter_type *t = ddf_filter_type_by_kind(p->kind);
	uint64_t need = t ? ddf_filter_memsize(p) : 0;
	struct ddf_filter *f;

	mem = ddf_filter_place(mem, size, need);
	if (!mem)
		return NULL;
	if (t->kind == DDF_KIND_QUEUE)
		f = ddf_queue_init(ddf_queue_inner_type(p), mem, p, now);
	else
		f = t->init(mem, p, now);
	if (f) {
		f->type = t;
		f->params = *p;
		f->bytes = need;
	}
	return f;
}

#endif /* DDF_REGISTRY_H */
