// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing of the QHT family: ddf_qht_size() round trips, its shape rule, its
 * errors, and ddf_qht_fpr() against a saturated filter.
 */
#include <stdlib.h>
#include "ddf_test_user.h"

static const uint32_t qs_kinds[] = { DDF_KIND_QHT, DDF_KIND_QHTD,
				     DDF_KIND_QQHTD };

static int qs_size(const struct ddf_size_req *req, struct ddf_params *out,
		   const char **why)
{
	return ddf_qht_size(ddf_filter_type_by_kind(req->kind), req, out, why);
}

static double qs_fpr(uint32_t kind, uint32_t k, uint32_t s)
{
	struct ddf_params p = { .kind = kind, .k = k, .fp_bits = s, .m = 1 };

	return ddf_qht_fpr(&p);
}

DDF_TEST(qht_size_round_trip)
{
	static const double targets[] = { 0.9,	0.5,  0.25, 0.1,
					  0.01, 1e-3, 1e-6, 1e-12 };
	static const uint64_t budgets[] = { 512, 4096, 65536, 1 << 20,
					    1ull << 30 };
	unsigned int i, j, n;

	for (i = 0; i < 3; i++)
		for (j = 0; j < sizeof(targets) / sizeof(targets[0]); j++)
			for (n = 0; n < sizeof(budgets) / sizeof(budgets[0]);
			     n++) {
				struct ddf_size_req req = {
					.kind = qs_kinds[i],
					.fpr = targets[j],
					.bytes = budgets[n],
				};
				struct ddf_params out, again;
				const char *why = NULL;
				uint32_t k;
				int err = qs_size(&req, &out, &why);

				DDF_ASSERT_MSG(
					t, !err, "%s fpr %g bytes %llu: %s",
					ddf_kind_name(qs_kinds[i]), targets[j],
					(unsigned long long)budgets[n], why);
				DDF_EXPECT_EQ(t, out.kind, qs_kinds[i]);
				DDF_EXPECT(t, out.k * out.fp_bits <= 64);
				DDF_EXPECT(t, ddf_qht_fpr(&out) <= targets[j]);
				DDF_EXPECT(t, ddf_filter_memsize(&out) <=
						      budgets[n]);
				/* not wasteful: one more row would not fit */
				DDF_EXPECT(t, ddf_filter_memsize(&out) + 8 >
						      budgets[n]);
				/* out is resolved: resolving changes nothing */
				again = out;
				DDF_EXPECT_EQ(
					t, ddf_params_resolve(&again, &why), 0);
				DDF_EXPECT_EQ(t, again.m, out.m);
				/* the rule: no larger k reaches the target */
				for (k = out.k + 1; k <= 64; k++)
					DDF_EXPECT_MSG(t,
						       qs_fpr(qs_kinds[i], k,
							      64 / k) >
							       targets[j],
						       "k=%u would do for %g",
						       k, targets[j]);
				/* ... and s takes the rest of the word */
				DDF_EXPECT_EQ(t, out.fp_bits, 64 / out.k);
			}
}

/* Worked examples of the rule, by hand from k/S and 1 - (1 - 1/S)^k. */
DDF_TEST(qht_size_examples)
{
	static const struct {
		uint32_t kind;
		double fpr;
		uint32_t k, s;
	} cases[] = {
		{ DDF_KIND_QHT, 0.25, 10, 6 }, /* 10/63; 12/31 fails */
		{ DDF_KIND_QHT, 0.01, 6, 10 }, /* 6/1023; 7/511 fails */
		{ DDF_KIND_QHT, 1e-3, 4, 16 }, /* 5/4095 fails */
		{ DDF_KIND_QHT, 1e-6, 2, 32 }, /* 3/(2^21 - 1) fails */
		{ DDF_KIND_QHT, 1.0, 64, 1 },
		{ DDF_KIND_QQHTD, 0.25, 10, 6 }, /* 0.149 */
		{ DDF_KIND_QQHTD, 0.35, 12, 5 }, /* 0.325 */
		{ DDF_KIND_QHTD, 0.01, 6, 10 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ddf_size_req req = { .kind = cases[i].kind,
					    .fpr = cases[i].fpr,
					    .bytes = 1 << 20 };
		struct ddf_params out;
		const char *why;

		DDF_ASSERT(t, !qs_size(&req, &out, &why));
		DDF_EXPECT_MSG(t,
			       out.k == cases[i].k && out.fp_bits == cases[i].s,
			       "%s fpr %g: k=%u s=%u, expected k=%u s=%u",
			       ddf_kind_name(cases[i].kind), cases[i].fpr,
			       out.k, out.fp_bits, cases[i].k, cases[i].s);
	}
	/* the formulas at small values */
	DDF_EXPECT(t, qs_fpr(DDF_KIND_QHT, 2, 3) == 2.0 / 7);
	DDF_EXPECT(t, qs_fpr(DDF_KIND_QHTD, 2, 3) >
			      1 - (6.0 / 7) * (6.0 / 7) - 1e-15);
	DDF_EXPECT(t, qs_fpr(DDF_KIND_QHTD, 2, 3) <
			      1 - (6.0 / 7) * (6.0 / 7) + 1e-15);
	DDF_EXPECT(t, qs_fpr(DDF_KIND_QHT, 4, 1) == 1); /* S = 1 */
	/* no cancellation for tiny 1/S: about k / S */
	DDF_EXPECT(t, qs_fpr(DDF_KIND_QQHTD, 1, 64) > 5.4e-20);
	DDF_EXPECT(t, qs_fpr(DDF_KIND_QQHTD, 2, 32) > 4.6e-10);
}

DDF_TEST(qht_size_window_and_fixed_shape)
{
	struct ddf_size_req req = { .kind = DDF_KIND_QQHTD,
				    .fpr = 0.25,
				    .window = 1000 };
	struct ddf_params out;
	const char *why;

	/* no budget: rows from the window, ceil(1000 / 10) */
	DDF_ASSERT(t, !qs_size(&req, &out, &why));
	DDF_EXPECT_EQ(t, out.k, 10);
	DDF_EXPECT_EQ(t, out.m, 100);
	DDF_EXPECT_EQ(t, out.window, 1000);

	/* k given: s fills the word */
	req.k = 4;
	DDF_ASSERT(t, !qs_size(&req, &out, &why));
	DDF_EXPECT_EQ(t, out.k, 4);
	DDF_EXPECT_EQ(t, out.fp_bits, 16);
	DDF_EXPECT_EQ(t, out.m, 250);

	/* fp_bits given: the largest k that meets the target */
	req.k = 0;
	req.fp_bits = 8; /* 63/255 < 0.25, 64/255 > 0.25 */
	req.kind = DDF_KIND_QHT;
	DDF_ASSERT(t, !qs_size(&req, &out, &why));
	DDF_EXPECT_EQ(t, out.k, 8); /* k * 8 <= 64 binds first */
	req.fp_bits = 3; /* k / 7 <= 0.25: k = 1 */
	DDF_ASSERT(t, !qs_size(&req, &out, &why));
	DDF_EXPECT_EQ(t, out.k, 1);

	/* both given, no target: taken as they are */
	req.k = 3;
	req.fp_bits = 21;
	req.fpr = 0;
	DDF_ASSERT(t, !qs_size(&req, &out, &why));
	DDF_EXPECT(t, out.k == 3 && out.fp_bits == 21 && out.m == 334);
}

DDF_TEST(qht_size_errors)
{
	static const struct {
		const char *what;
		struct ddf_size_req req;
		int err;
	} cases[] = {
		{ "no target and no shape",
		  { .kind = DDF_KIND_QHT, .bytes = 4096 },
		  DDF_EINVAL },
		{ "target above 1",
		  { .kind = DDF_KIND_QHT, .fpr = 1.5, .bytes = 4096 },
		  DDF_ERANGE },
		{ "unreachable target",
		  { .kind = DDF_KIND_QHT, .fpr = 1e-25, .bytes = 4096 },
		  DDF_ERANGE },
		{ "fixed shape misses the target",
		  { .kind = DDF_KIND_QHT,
		    .fpr = 0.01,
		    .bytes = 4096,
		    .k = 8,
		    .fp_bits = 8 },
		  DDF_ERANGE },
		{ "fixed k misses the target",
		  { .kind = DDF_KIND_QHT, .fpr = 1e-6, .bytes = 4096, .k = 8 },
		  DDF_ERANGE },
		{ "k * fp_bits > 64",
		  { .kind = DDF_KIND_QHT, .bytes = 4096, .k = 8, .fp_bits = 9 },
		  DDF_ERANGE },
		{ "budget below one row",
		  { .kind = DDF_KIND_QHT, .fpr = 0.1, .bytes = 64 },
		  DDF_ERANGE },
		{ "neither budget nor window",
		  { .kind = DDF_KIND_QHT, .fpr = 0.1 },
		  DDF_EINVAL },
		{ "time mode",
		  { .kind = DDF_KIND_QQHTD,
		    .flags = DDF_PF_TIME,
		    .window_ns = 1000000000,
		    .fpr = 0.1,
		    .bytes = 4096 },
		  DDF_EINVAL },
		{ "APBF field",
		  { .kind = DDF_KIND_QHTD, .fpr = 0.1, .bytes = 4096, .l = 8 },
		  DDF_EINVAL },
		{ "budget too large",
		  { .kind = DDF_KIND_QHT,
		    .fpr = 0.1,
		    .bytes = DDF_MAX_BYTES * 2 },
		  DDF_EFBIG },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ddf_params out;
		const char *why = NULL;
		int err = qs_size(&cases[i].req, &out, &why);

		DDF_EXPECT_MSG(t, err == cases[i].err,
			       "%s: error %d, expected %d (%s)", cases[i].what,
			       err, cases[i].err, why ? why : "no reason");
		DDF_EXPECT_MSG(t, why && why[0], "%s: no reason given",
			       cases[i].what);
	}
	/* a type that is not of the family */
	{
		struct ddf_size_req req = { .kind = DDF_KIND_QHT,
					    .fpr = 0.1,
					    .bytes = 4096 };
		struct ddf_params out;
		const char *why = NULL;

		DDF_EXPECT_EQ(
			t,
			ddf_qht_size(ddf_filter_type_by_kind(DDF_KIND_QHTD),
				     &req, &out, &why),
			DDF_EINVAL);
		DDF_EXPECT(t, why);
	}
}

/*
 * ddf_qht_fpr() is the limit of the measured FPR: a tiny filter, a stream
 * of distinct elements (every positive is false), the first 50,000 left out
 * as the warm-up to saturation.
 */
DDF_TEST(qht_fpr_matches_saturated_filter)
{
	static const uint32_t shapes[][2] = {
		{ 2, 3 }, { 4, 4 }, { 1, 2 }, { 8, 5 }
	};
	unsigned int i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++) {
			struct ddf_params p = { .kind = qs_kinds[i],
						.k = shapes[j][0],
						.fp_bits = shapes[j][1],
						.m = 64 };
			uint64_t size, rng = 99 + j;
			const uint64_t warm = 50000, total = 450000;
			struct ddf_filter *f;
			const char *why;
			double got, want, sd;
			void *mem;

			DDF_ASSERT(t, !ddf_params_resolve(&p, &why));
			size = ddf_filter_memsize(&p);
			mem = malloc(size);
			DDF_ASSERT(t, mem);
			f = ddf_filter_init(mem, size, &p, 0);
			got = ddf_test_fresh_fpr(f, warm, total - warm, &rng);
			free(mem);
			want = ddf_qht_fpr(&p);
			/* binomial noise, generously: 6 sigma */
			sd = 6 *
			     __builtin_sqrt(want * (1 - want) / (total - warm));
			DDF_EXPECT_MSG(
				t, got > want - sd && got < want + sd,
				"%s k=%u s=%u: measured %.4f, analytic %.4f",
				ddf_kind_name(qs_kinds[i]), p.k, p.fp_bits, got,
				want);
		}
}

static ddf_case_t ddf_qht_size_cases[] = {
	DDF_CASE(qht_size_round_trip),
	DDF_CASE(qht_size_examples),
	DDF_CASE(qht_size_window_and_fixed_shape),
	DDF_CASE(qht_size_errors),
	DDF_CASE(qht_fpr_matches_saturated_filter),
	DDF_CASES_END,
};

DDF_SUITE(ddf_qht_size, ddf_qht_size_cases);
