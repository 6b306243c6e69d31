/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Helpers for the userspace-only tests (tests/core/user/): rates measured
 * in floating point and the sizing code of ddf_size.h, on top of
 * ddf_test_util.h.
 */
#ifndef DDF_TEST_USER_H
#define DDF_TEST_USER_H

#ifdef DDF_TEST_KUNIT
#error "ddf_test_user.h is for the userspace tests only"
#endif

#include <math.h>
#include "ddf_size.h"
#include "ddf_test_util.h"

/* This thread's ticket slot (ddf_age.h), UINT32_MAX for none. */
static _Thread_local uint32_t ddf_test_slot_id = UINT32_MAX;

static inline uint32_t ddf_test_slot(void)
{
	return ddf_test_slot_id;
}

/* Let threads insert through slots: once, before they start. */
static inline void ddf_test_use_slots(void)
{
	ddf_env_slot_fn = ddf_test_slot;
}

/* Insert through slot id from this thread on (UINT32_MAX: none). */
static inline void ddf_test_set_slot(uint32_t id)
{
	ddf_test_slot_id = id;
}

/*
 * The false-positive rate on fresh keys: test and insert warm + n keys of
 * the stream *s; the share of the last n reported as duplicates.
 */
static inline double ddf_test_fresh_fpr(struct ddf_filter *f, uint64_t warm,
					uint64_t n, uint64_t *s)
{
	uint64_t i, fp = 0;

	for (i = 0; i < warm + n; i++) {
		struct ddf_hash h = ddf_test_key(s);
		bool dup = ddf_filter_test_and_insert(f, &h, 0);

		if (i >= warm)
			fp += dup;
	}
	return (double)fp / n;
}

/* How far a rate measured over n trials may be from a: rel a + 4 sigma. */
static inline double ddf_test_rate_tol(double a, double rel, uint64_t n)
{
	return rel * a + 4 * sqrt(a * (1 - a) / n);
}

/* A sizing request that ddf_size() must refuse. */
struct ddf_test_size_refused {
	const char *what;
	struct ddf_size_req req;
};

/* Each request is refused, with a reason. */
static inline void ddf_test_expect_size_refused(ddf_test_t *t,
					const struct ddf_test_size_refused *c,
					unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ddf_params out;
		const char *why = NULL;

		DDF_EXPECT_MSG(t, ddf_size(&c[i].req, &out, NULL, &why),
			       "%s: accepted", c[i].what);
		DDF_EXPECT_MSG(t, why && why[0], "%s: no reason", c[i].what);
	}
}

#endif /* DDF_TEST_USER_H */
