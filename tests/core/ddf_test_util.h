/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Helpers for the core's tests, in both worlds (see ddf_test.h): making a
 * filter from its params, keys from a seed, and the loops many tests share.
 * Nothing here needs libc or floating point; the userspace-only helpers
 * are in ddf_test_user.h.
 *
 * The helpers use DDF_EXPECT only: DDF_ASSERT belongs in the test itself.
 */
#ifndef DDF_TEST_UTIL_H
#define DDF_TEST_UTIL_H

#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_test.h"

/* A filter and the memory it lives in, freed when the test ends. */
struct ddf_test_made {
	struct ddf_filter *f;
	unsigned char *mem;
	uint64_t size;
};

/*
 * Resolve *p (in place), allocate its memsize zeroed and init the filter
 * at time now. f is NULL (and maybe mem too) if a step fails.
 */
static inline struct ddf_test_made ddf_test_make(ddf_test_t *t,
						 struct ddf_params *p,
						 uint64_t now)
{
	struct ddf_test_made mk = { 0 };
	const char *why;

	if (ddf_params_resolve(p, &why))
		return mk;
	mk.size = ddf_filter_memsize(p);
	mk.mem = ddf_test_alloc(t, mk.size);
	if (mk.mem)
		mk.f = ddf_filter_init(mk.mem, mk.size, p, now);
	return mk;
}

/* The filter alone, made at time 0. */
static inline struct ddf_filter *ddf_test_filter(ddf_test_t *t,
						 struct ddf_params *p)
{
	return ddf_test_make(t, p, 0).f;
}

/* The next key of the stream *s: h1, then h2. */
static inline struct ddf_hash ddf_test_key(uint64_t *s)
{
	struct ddf_hash h;

	h.h1 = ddf_test_rand(s);
	h.h2 = ddf_test_rand(s);
	return h;
}

/* The first key of the stream seed: a key from a seed mixed with an index. */
static inline struct ddf_hash ddf_test_key_at(uint64_t seed)
{
	return ddf_test_key(&seed);
}

/* Insert the next n keys of the stream *s. */
static inline void ddf_test_insert_keys(struct ddf_filter *f, uint64_t *s,
					uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		struct ddf_hash h = ddf_test_key(s);

		ddf_filter_insert(f, &h, 0);
	}
}

/* How many of the next n keys of the stream *s a lookup reports. */
static inline uint64_t ddf_test_lookup_hits(struct ddf_filter *f,
					    uint64_t *s, uint64_t n)
{
	uint64_t i, hits = 0;

	for (i = 0; i < n; i++) {
		struct ddf_hash h = ddf_test_key(s);

		hits += ddf_filter_lookup(f, &h, 0);
	}
	return hits;
}

/* Copy the filter's memory (mk->size bytes) into copy. */
static inline void ddf_test_snapshot(const struct ddf_test_made *mk,
				     unsigned char *copy)
{
	uint64_t b;

	for (b = 0; b < mk->size; b++)
		copy[b] = mk->mem[b];
}

/* How many bytes of the filter's memory differ from copy. */
static inline uint64_t ddf_test_changed(const struct ddf_test_made *mk,
					const unsigned char *copy)
{
	uint64_t b, diff = 0;

	for (b = 0; b < mk->size; b++)
		diff += copy[b] != mk->mem[b];
	return diff;
}

/*
 * Insert the next `inserts` keys of the stream *s, take a snapshot into
 * copy, look the next `lookups` keys up: the bytes the lookups changed.
 */
static inline uint64_t ddf_test_lookup_changes(const struct ddf_test_made *mk,
					       unsigned char *copy,
					       uint64_t *s, uint64_t inserts,
					       uint64_t lookups)
{
	ddf_test_insert_keys(mk->f, s, inserts);
	ddf_test_snapshot(mk, copy);
	ddf_test_lookup_hits(mk->f, s, lookups);
	return ddf_test_changed(mk, copy);
}

/* Entries (cells, fingerprints) in use. */
static inline uint64_t ddf_test_used(const struct ddf_filter *f)
{
	struct ddf_stats st;

	ddf_filter_stats(f, &st);
	return st.used;
}

/* ty, found by name, is the type of kind, found by kind, with no advance(). */
static inline void ddf_test_expect_type(ddf_test_t *t,
					const struct ddf_filter_type *ty,
					uint32_t kind)
{
	DDF_EXPECT_EQ(t, ty->kind, kind);
	DDF_EXPECT(t, ddf_filter_type_by_kind(kind) == ty);
	DDF_EXPECT(t, !ty->advance);
}

/* A row of a table of bad parameters: resolving p fails with err. */
struct ddf_test_bad_params {
	const char *what;
	struct ddf_params p;
	int err;
};

/* Each case, of the given kind, is refused with its error and a reason. */
static inline void ddf_test_expect_refused(ddf_test_t *t, uint32_t kind,
					   const struct ddf_test_bad_params *c,
					   unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ddf_params p = c[i].p;
		const char *why = NULL;
		int err;

		p.kind = kind;
		err = ddf_params_resolve(&p, &why);
		DDF_EXPECT_MSG(t, err == c[i].err, "%s: error %d, expected %d",
			       c[i].what, err, c[i].err);
		DDF_EXPECT_MSG(t, why && why[0], "%s: no reason given",
			       c[i].what);
	}
}

#endif /* DDF_TEST_UTIL_H */
