// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * SBF against Deng and Rafiei's formulas: the stable false-positive rate
 * measured on a long stream of distinct keys against
 * (1 - (1 / (1 + 1 / (P (1/K - 1/m))))^Max)^K (the QHT paper's footnote
 * 12), the P that the formula gives for a target, and ddf_sbf_size().
 */
#include "ddf_test_user.h"

/* P by hand (Python, double precision) for the paper's shapes. */
DDF_TEST(sbf_rates_decrements_formula)
{
	static const struct {
		uint32_t K, d;
		uint64_t m;
		double fpr;
		uint64_t P;
	} cases[] = {
		{ 2, 2, 65536, 0.02, 39 }, /* 38.36: the QHT benchmark */
		{ 2, 2, 1ull << 30, 0.02, 39 },
		{ 3, 3, 65536, 0.01, 86 }, /* 85.06 */
		{ 1, 1, 65536, 0.1, 10 }, /* 9.0001 */
		{ 4, 4, 65536, 0.001, 305 }, /* 304.45 */
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_params p = { .kind = DDF_KIND_SBF, .k = cases[i].K,
					.cell_bits = cases[i].d,
					.m = cases[i].m };
		uint64_t P = ddf_sbf_decrements(cases[i].K, cases[i].d,
						cases[i].m, cases[i].fpr);

		DDF_EXPECT_MSG(t, P == cases[i].P, "K=%u d=%u fpr %g: P=%llu",
			       cases[i].K, cases[i].d, cases[i].fpr,
			       (unsigned long long)P);
		p.decrements = (uint32_t)P;
		DDF_EXPECT(t, ddf_sbf_fpr(&p) <= cases[i].fpr);
		DDF_EXPECT(t, ddf_fpr_analytic(&p) == ddf_sbf_fpr(&p));
		p.decrements--;
		DDF_EXPECT(t, ddf_sbf_fpr(&p) > cases[i].fpr);
	}
	/* small m, where the 1/m term matters: by hand */
	{
		struct ddf_params p = { .kind = DDF_KIND_SBF, .k = 2,
					.cell_bits = 2, .m = 4,
					.decrements = 1 };

		/* x = 1/4, zero = (1/5)^3, (1 - 0.008)^2 */
		DDF_EXPECT(t, fabs(ddf_sbf_fpr(&p) - 0.984064) < 1e-12);
		/* x = 1/2, zero = 1/3: 2/3 */
		p.k = 1;
		p.cell_bits = 1;
		p.m = 2;
		DDF_EXPECT(t, fabs(ddf_sbf_fpr(&p) - 2.0 / 3) < 1e-12);
	}
	DDF_EXPECT_EQ(t, ddf_sbf_decrements(2, 2, 1000, 0), 0);
	DDF_EXPECT_EQ(t, ddf_sbf_decrements(2, 2, 1000, 1), 0);
	DDF_EXPECT_EQ(t, ddf_sbf_decrements(2, 2, 2, 0.1), 0); /* 1/K = 1/m */
}

/*
 * Distinct keys: after the zeros settle (a cell decays in about
 * Max * m / P insertions), every DUPLICATE answer is a false positive.
 */
DDF_TEST(sbf_rates_stable_fpr)
{
	static const struct {
		uint32_t K, d;
		double fpr;
	} shapes[] = {
		{ 2, 2, 0.02 }, /* the QHT paper's SBF */
		{ 3, 3, 0.01 },
		{ 1, 1, 0.1 },
		{ 4, 4, 0.001 },
	};
	const uint64_t m = 1 << 16, n = 200000;
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(shapes); i++) {
		struct ddf_params p = { .kind = DDF_KIND_SBF, .m = m,
					.k = shapes[i].K,
					.cell_bits = shapes[i].d,
					.rng_seed = 40 + i };
		struct ddf_filter *f;
		uint64_t warm, seed = 500 + i;
		double a, got, tol;

		p.decrements = (uint32_t)ddf_sbf_decrements(
			shapes[i].K, shapes[i].d, m, shapes[i].fpr);
		f = ddf_test_filter(t, &p);
		DDF_ASSERT(t, f);
		a = ddf_sbf_fpr(&p);
		/* twenty decay times */
		warm = 20 * ((1ull << shapes[i].d) - 1) * m / p.decrements;
		got = ddf_test_fresh_fpr(f, warm, n, &seed);
		tol = ddf_test_rate_tol(a, 0.1, n);
		DDF_LOG(t, "K=%u d=%u P=%u: measured %.5f, formula %.5f",
			shapes[i].K, shapes[i].d, p.decrements, got, a);
		DDF_EXPECT_MSG(t, fabs(got - a) <= tol,
			       "K=%u d=%u P=%u: measured %.5f, formula %.5f",
			       shapes[i].K, shapes[i].d, p.decrements, got, a);
	}
}

/* Duplicates leave more zero cells: the formula bounds the rate. */
DDF_TEST(sbf_rates_bound_with_duplicates)
{
	struct ddf_params p = { .kind = DDF_KIND_SBF, .m = 1 << 16, .k = 2,
				.cell_bits = 2, .decrements = 39 };
	struct ddf_filter *f = ddf_test_filter(t, &p);
	uint64_t j, seed = 9, fresh = 0, fp = 0, next = 1;
	const uint64_t n = 400000;
	double got;

	DDF_ASSERT(t, f);
	/* half the stream repeats one of the last 1000 keys */
	for (j = 0; j < n; j++) {
		uint64_t r = ddf_test_rand(&seed), id;
		bool dup, new = !(r & 1) || next <= 1000;
		struct ddf_hash h;

		id = new ? next++ : next - 1 - ((r >> 1) % 1000);
		h.h1 = ddf_fmix64(id);
		h.h2 = ddf_fmix64(id ^ 0xabcdefull);
		dup = ddf_filter_test_and_insert(f, &h, 0);
		if (new && j > n / 4) {
			fresh++;
			fp += dup;
		}
	}
	got = (double)fp / fresh;
	DDF_LOG(t, "half duplicates: fresh keys reported %.5f, bound %.5f",
		got, ddf_sbf_fpr(&p));
	DDF_EXPECT(t, got <= ddf_sbf_fpr(&p));
}

DDF_TEST(sbf_rates_size)
{
	static const uint64_t budgets[] = { 1024, 4096, 1 << 20 };
	static const double targets[] = { 0.02, 0.1, 0.001 };
	unsigned int i, j;

	for (i = 0; i < DDF_ARRAY_SIZE(budgets); i++)
		for (j = 0; j < DDF_ARRAY_SIZE(targets); j++) {
			struct ddf_size_req req = { .kind = DDF_KIND_SBF,
						    .bytes = budgets[i],
						    .fpr = targets[j] };
			struct ddf_size_report rep;
			struct ddf_params out, more;
			const char *why = NULL;
			int err = ddf_size(&req, &out, &rep, &why);

			DDF_ASSERT_MSG(t, !err, "bytes %llu fpr %g: %s",
				       (unsigned long long)budgets[i],
				       targets[j], why);
			DDF_EXPECT_EQ(t, out.k, 2);
			DDF_EXPECT_EQ(t, out.cell_bits, 2);
			DDF_EXPECT(t, rep.fpr <= targets[j]);
			DDF_EXPECT(t, rep.bytes <= budgets[i]);
			DDF_EXPECT(t, rep.bytes == ddf_filter_memsize(&out));
			/* one more word of cells would not fit */
			more = out;
			more.m += 32;
			DDF_EXPECT(t, ddf_filter_memsize(&more) > budgets[i]);
		}
	/* no target: the paper's 0.02; k given */
	{
		struct ddf_size_req req = { .kind = DDF_KIND_SBF,
					    .bytes = 1 << 20, .k = 3 };
		struct ddf_params out;
		const char *why = NULL;

		DDF_ASSERT(t, !ddf_size(&req, &out, NULL, &why));
		DDF_EXPECT_EQ(t, out.k, 3);
		DDF_EXPECT(t, ddf_sbf_fpr(&out) <= 0.02);
		out.decrements--;
		DDF_EXPECT(t, ddf_sbf_fpr(&out) > 0.02);
	}
}

DDF_TEST(sbf_rates_size_errors)
{
	static const struct ddf_test_size_refused cases[] = {
		{ "no budget", { .kind = DDF_KIND_SBF, .fpr = 0.02 } },
		{ "a window", { .kind = DDF_KIND_SBF, .window = 1000,
				.bytes = 4096 } },
		{ "fpr 1", { .kind = DDF_KIND_SBF, .fpr = 1, .bytes = 4096 } },
		{ "budget below a word", { .kind = DDF_KIND_SBF,
					   .bytes = 64 } },
		{ "k too large", { .kind = DDF_KIND_SBF, .k = 65,
				   .bytes = 4096 } },
		{ "fpr out of reach", { .kind = DDF_KIND_SBF, .fpr = 1e-30,
					.bytes = 4096 } },
	};

	ddf_test_expect_size_refused(t, cases, DDF_ARRAY_SIZE(cases));
}

static ddf_case_t ddf_sbf_rates_cases[] = {
	DDF_CASE(sbf_rates_decrements_formula),
	DDF_CASE(sbf_rates_stable_fpr),
	DDF_CASE(sbf_rates_bound_with_duplicates),
	DDF_CASE(sbf_rates_size),
	DDF_CASE(sbf_rates_size_errors),
	DDF_CASES_END,
};

DDF_SUITE(ddf_sbf_rates, ddf_sbf_rates_cases);
