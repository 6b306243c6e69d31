// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * SQF against its formulas: the asymptotic false-positive rate measured on
 * a saturated filter against k * binom(2n, n) / (2^r' 4^n) (the QHT
 * paper's section 4.1.1 with the exact collision probability), the
 * sizing of ddf_sqf_size(), and rows sharing words under several threads.
 */
#include <pthread.h>
#include "ddf_test_user.h"

DDF_TEST(sqf_rates_asymptotic_fpr)
{
	static const struct {
		uint32_t k, r, sigma;
		double expect; /* by hand from the formula */
	} shapes[] = {
		{ 1, 2, 3, 0.25 }, /* the paper's benchmark shape */
		{ 1, 3, 3, 0.1875 }, /* same sigma, r = 3: 6 fingerprints */
		{ 1, 8, 6, 0.25 * 924 / 4096 },
		{ 4, 2, 3, 1.0 }, /* footnote 8: FPR 1 */
		{ 2, 6, 5, 2 * 0.25 * 70 / 256 },
		{ 4, 10, 8, 4.0 / 16 * 924 / 4096 },
	};
	const uint64_t rows = 1024, n = 200000;
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(shapes); i++) {
		struct ddf_params p = { .kind = DDF_KIND_SQF, .k = shapes[i].k,
					.fp_bits = shapes[i].r,
					.cell_bits = shapes[i].sigma,
					.m = rows, .rng_seed = 7 + i };
		struct ddf_filter *f = ddf_test_filter(t, &p);
		uint64_t seed = 1000 + i;
		double a, paper, got, tol;

		DDF_ASSERT(t, f);
		a = ddf_sqf_fpr(&p);
		paper = ddf_sqf_fpr_paper(&p);
		DDF_EXPECT_MSG(t, fabs(a - shapes[i].expect) < 1e-12,
			       "k=%u r=%u: analytic %.6f, by hand %.6f",
			       shapes[i].k, shapes[i].r, a, shapes[i].expect);
		DDF_EXPECT(t, ddf_fpr_analytic(&p) == a);
		/* fresh keys after saturation: a DUPLICATE answer is false */
		got = ddf_test_fresh_fpr(f, 30 * rows * shapes[i].k, n, &seed);
		tol = ddf_test_rate_tol(a, 0.04, n);
		DDF_LOG(t, "k=%u r=%u sigma=%u: measured %.4f, formula %.4f, paper's approximation %.4f",
			shapes[i].k, shapes[i].r, shapes[i].sigma, got, a,
			paper);
		DDF_EXPECT_MSG(t, fabs(got - a) <= tol,
			       "k=%u r=%u: measured %.4f, formula %.4f",
			       shapes[i].k, shapes[i].r, got, a);
	}
}

DDF_TEST(sqf_rates_size_examples)
{
	static const struct {
		double fpr;
		uint32_t k, r, sigma;
	} cases[] = {
		/* sigma = 3 holds the most cells; r = 3 beats r = 2 */
		{ 0.25, 1, 3, 3 },
		{ 0.19, 1, 3, 3 },
		/*
		 * sigma = 4 reaches 0.1128 at best; at sigma = 5 the lowest
		 * rate is r = 7, r' = 2: binom(10, 5) / 4^5 / 4 = 0.0615
		 */
		{ 0.1, 1, 7, 5 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_size_req req = { .kind = DDF_KIND_SQF,
					    .fpr = cases[i].fpr,
					    .bytes = 1 << 16 };
		struct ddf_size_report rep;
		struct ddf_params out;
		const char *why = NULL;
		int err = ddf_size(&req, &out, &rep, &why);

		DDF_ASSERT_MSG(t, !err, "fpr %g: %s", cases[i].fpr, why);
		DDF_EXPECT_MSG(t, out.k == cases[i].k &&
				       out.fp_bits == cases[i].r &&
				       out.cell_bits == cases[i].sigma,
			       "fpr %g: k=%u r=%u sigma=%u", cases[i].fpr,
			       out.k, out.fp_bits, out.cell_bits);
		DDF_EXPECT(t, rep.fpr <= cases[i].fpr);
	}
}

DDF_TEST(sqf_rates_size_round_trip)
{
	static const double targets[] = { 0.9, 0.3, 0.1, 0.01, 1e-3, 1e-6 };
	static const uint64_t budgets[] = { 1024, 4096, 65536, 1 << 20 };
	unsigned int i, j;

	for (i = 0; i < DDF_ARRAY_SIZE(targets); i++)
		for (j = 0; j < DDF_ARRAY_SIZE(budgets); j++) {
			struct ddf_size_req req = { .kind = DDF_KIND_SQF,
						    .fpr = targets[i],
						    .bytes = budgets[j] };
			struct ddf_size_report rep;
			struct ddf_params out, again;
			const char *why = NULL;
			int err = ddf_size(&req, &out, &rep, &why);

			DDF_ASSERT_MSG(t, !err, "fpr %g bytes %llu: %s",
				       targets[i],
				       (unsigned long long)budgets[j], why);
			DDF_EXPECT(t, rep.fpr <= targets[i]);
			DDF_EXPECT(t, rep.bytes == ddf_filter_memsize(&out));
			DDF_EXPECT(t, rep.bytes <= budgets[j]);
			/* twice the rows would not fit */
			again = out;
			again.m *= 2;
			DDF_EXPECT(t, ddf_filter_memsize(&again) > budgets[j]);
			again = out;
			DDF_EXPECT_EQ(t, ddf_params_resolve(&again, &why), 0);
			DDF_EXPECT_EQ(t, again.m, out.m);
		}
}

DDF_TEST(sqf_rates_size_errors)
{
	static const struct ddf_test_size_refused cases[] = {
		{ "no target and no shape",
		  { .kind = DDF_KIND_SQF, .bytes = 4096 } },
		{ "no budget and no window",
		  { .kind = DDF_KIND_SQF, .fpr = 0.1 } },
		{ "fpr above 1",
		  { .kind = DDF_KIND_SQF, .fpr = 1.5, .bytes = 4096 } },
		{ "fixed shape misses the target",
		  { .kind = DDF_KIND_SQF, .fpr = 0.01, .k = 1, .fp_bits = 2,
		    .bytes = 4096 } },
		{ "budget below one word",
		  { .kind = DDF_KIND_SQF, .fpr = 0.1, .bytes = 16 } },
		{ "time mode",
		  { .kind = DDF_KIND_SQF, .flags = DDF_PF_TIME,
		    .window_ns = 1000000000, .fpr = 0.1, .bytes = 4096 } },
	};

	ddf_test_expect_size_refused(t, cases, DDF_ARRAY_SIZE(cases));
}

/*
 * Four threads fill every row of a k = 4 table at once, each with its own
 * fingerprint, rows paired in words (sigma = 6): an update lost to a race
 * would leave a fingerprint out.
 */
#define SQFC_THREADS 4
#define SQFC_ROWS 256
#define SQFC_ROUNDS 100

struct sqfc_shared {
	pthread_barrier_t go;
	struct ddf_filter *f;
};

struct sqfc {
	struct sqfc_shared *sh;
	uint64_t rem;
};

static void *sqfc_work(void *arg)
{
	struct sqfc *w = arg;
	uint64_t r;

	pthread_barrier_wait(&w->sh->go);
	for (r = 0; r < SQFC_ROWS; r++) {
		struct ddf_hash h = { r << 56, w->rem };

		ddf_filter_test_and_insert(w->sh->f, &h, 0);
	}
	return NULL;
}

DDF_TEST(sqf_rates_threads_share_words)
{
	/* four remainders, four fingerprints (r = 8, r' = 2) */
	static const uint64_t rems[SQFC_THREADS] = { 0x01, 0x02, 0x03, 0x07 };
	struct ddf_params p = { .kind = DDF_KIND_SQF, .k = 4, .fp_bits = 8,
				.cell_bits = 6, .m = SQFC_ROWS };
	struct sqfc_shared sh;
	struct sqfc w[SQFC_THREADS];
	pthread_t th[SQFC_THREADS];
	unsigned int round, i, bad = 0;

	for (round = 0; round < SQFC_ROUNDS; round++) {
		struct ddf_stats st;

		sh.f = ddf_test_filter(t, &p);
		DDF_ASSERT(t, sh.f);
		pthread_barrier_init(&sh.go, NULL, SQFC_THREADS);
		for (i = 0; i < SQFC_THREADS; i++) {
			w[i] = (struct sqfc){ &sh, rems[i] };
			pthread_create(&th[i], NULL, sqfc_work, &w[i]);
		}
		for (i = 0; i < SQFC_THREADS; i++)
			pthread_join(th[i], NULL);
		pthread_barrier_destroy(&sh.go);
		ddf_filter_stats(sh.f, &st);
		bad += st.used != SQFC_ROWS * 4;
	}
	DDF_EXPECT_MSG(t, !bad, "%u of %u rounds lost a fingerprint", bad,
		       SQFC_ROUNDS);
}

static ddf_case_t ddf_sqf_rates_cases[] = {
	DDF_CASE(sqf_rates_asymptotic_fpr),
	DDF_CASE(sqf_rates_size_examples),
	DDF_CASE(sqf_rates_size_round_trip),
	DDF_CASE(sqf_rates_size_errors),
	DDF_CASE(sqf_rates_threads_share_words),
	DDF_CASES_END,
};

DDF_SUITE(ddf_sqf_rates, ddf_sqf_rates_cases);
