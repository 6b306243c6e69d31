// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A2 against its formulas: the false-positive rate just before a swap
 * against 1 - (1 - f(c))^2, the rate over whole cycles against its mean,
 * ddf_a2_size() for the QHT paper's target of 0.1 on the window, and the
 * insertion count under several threads.
 */
#include <pthread.h>
#include "ddf_test_user.h"

static bool a2r_close(ddf_test_t *t, const char *what, double got, double a,
		      uint64_t n)
{
	double tol = ddf_test_rate_tol(a, 0.05, n);

	DDF_LOG(t, "%s: measured %.5f, formula %.5f", what, got, a);
	return fabs(got - a) <= tol;
}

/*
 * Insert fresh keys until a1 holds c - 1 (and a2, after a first swap, c).
 * A key that a1 reports falsely takes no place, hence the loop.
 */
static void a2r_advance(struct ddf_filter *f, uint64_t c, uint64_t *seed)
{
	struct ddf_stats st;
	uint64_t d;

	for (;;) {
		ddf_filter_stats(f, &st);
		if (st.generation && st.inserts % c == c - 1)
			return;
		d = (c - 1 + c - st.inserts % c) % c;
		for (d = d ? d : c; d; d--) {
			struct ddf_hash h = ddf_test_key(seed);

			ddf_filter_test_and_insert(f, &h, 0);
		}
	}
}

DDF_TEST(a2_rates_fpr)
{
	static const struct {
		uint64_t window;
		double target;
	} cases[] = {
		{ 6000, 0.1 }, /* the QHT paper's window and target */
		{ 1000, 0.01 },
		{ 20000, 0.3 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_size_req req = { .kind = DDF_KIND_A2,
					    .window = cases[i].window,
					    .fpr = cases[i].target };
		uint64_t c = cases[i].window, seed = 31 + i, j, cyc, cycles, tc;
		uint64_t fp = 0, probes = 0, sfp = 0, sn = 0;
		struct ddf_params p;
		struct ddf_filter *f;
		const char *why;

		DDF_ASSERT_MSG(t, !ddf_size(&req, &p, NULL, &why), "%s", why);
		f = ddf_test_filter(t, &p);
		DDF_ASSERT(t, f);
		tc = (uint64_t)ddf_a2_cycle(&p);
		/* about 120000 stream elements and 120000 probes */
		cycles = 6 + 120000 / c;
		for (cyc = 0; cyc < cycles; cyc++) {
			/* just before a swap: lookups of fresh keys */
			a2r_advance(f, c, &seed);
			for (j = 0; j < 120000 / cycles; j++, probes++) {
				struct ddf_hash h = ddf_test_key(&seed);

				fp += ddf_filter_lookup(f, &h, 0);
			}
			/* a cycle of the stream: t_c elements */
			for (j = 0; j < tc; j++, sn++) {
				struct ddf_hash h = ddf_test_key(&seed);

				sfp += ddf_filter_test_and_insert(f, &h, 0);
			}
		}
		DDF_EXPECT(t, probes > 0);
		DDF_EXPECT_MSG(t, a2r_close(t, "before a swap",
					    (double)fp / probes,
					    ddf_a2_fpr(&p), probes),
			       "window %llu: before a swap",
			       (unsigned long long)c);
		DDF_EXPECT(t, ddf_a2_fpr(&p) <= cases[i].target);
		DDF_EXPECT_MSG(t, a2r_close(t, "over cycles",
					    (double)sfp / sn,
					    ddf_a2_fpr_mean(&p), sn),
			       "window %llu: over cycles",
			       (unsigned long long)c);
	}
}

/*
 * A key a1 reports falsely takes no place: a cycle lasts t_c > c stream
 * elements, as the model says, and a1 that cannot take c insertions never
 * swaps.
 */
DDF_TEST(a2_rates_cycle_length)
{
	static const struct {
		uint64_t window, m;
		uint32_t k;
	} cases[] = {
		{ 6000, 37376, 4 }, { 20000, 76288, 3 }, { 1000, 2048, 2 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_params p = { .kind = DDF_KIND_A2,
					.window = cases[i].window,
					.m = cases[i].m, .k = cases[i].k };
		struct ddf_filter *f = ddf_test_filter(t, &p);
		uint64_t seed = 77 + i, j, n = 30 * cases[i].window;
		struct ddf_stats st;
		double got;

		DDF_ASSERT(t, f);
		for (j = 0; j < n; j++) {
			struct ddf_hash h = ddf_test_key(&seed);

			ddf_filter_test_and_insert(f, &h, 0);
		}
		ddf_filter_stats(f, &st);
		DDF_ASSERT(t, st.generation > 0);
		got = (double)(n - st.inserts % cases[i].window) /
		      st.generation;
		DDF_LOG(t, "c=%llu m=%llu k=%u: %.0f stream elements per swap, model %.0f",
			(unsigned long long)cases[i].window,
			(unsigned long long)cases[i].m, cases[i].k, got,
			ddf_a2_cycle(&p));
		DDF_EXPECT(t, fabs(got / ddf_a2_cycle(&p) - 1) < 0.02);
	}
	/* c >= (m / k) H_k: a1 saturates before c insertions */
	{
		struct ddf_params p = { .kind = DDF_KIND_A2, .window = 1200,
					.m = 512, .k = 2 }; /* 384 */
		struct ddf_filter *f = ddf_test_filter(t, &p);
		uint64_t seed = 3, j, dups = 0;
		struct ddf_stats st;

		DDF_ASSERT(t, f);
		DDF_EXPECT(t, ddf_a2_cycle(&p) == 0);
		DDF_EXPECT(t, ddf_a2_fpr(&p) == 1);
		for (j = 0; j < 20000; j++) {
			struct ddf_hash h = ddf_test_key(&seed);

			dups += ddf_filter_test_and_insert(f, &h, 0);
		}
		ddf_filter_stats(f, &st);
		DDF_EXPECT_EQ(t, st.generation, 0);
		DDF_EXPECT(t, dups > 19000);
	}
}

DDF_TEST(a2_rates_size_target)
{
	static const uint64_t windows[] = { 100, 6000, 100000 };
	static const double targets[] = { 0.1, 0.01, 1e-4 };
	unsigned int i, j;

	for (i = 0; i < DDF_ARRAY_SIZE(windows); i++)
		for (j = 0; j < DDF_ARRAY_SIZE(targets); j++) {
			struct ddf_size_req req = { .kind = DDF_KIND_A2,
						    .window = windows[i],
						    .fpr = targets[j] };
			struct ddf_size_report rep;
			struct ddf_params out, less;
			const char *why = NULL;
			uint32_t k;

			DDF_ASSERT_MSG(t, !ddf_size(&req, &out, &rep, &why),
				       "%s", why);
			DDF_EXPECT(t, rep.fpr <= targets[j]);
			DDF_EXPECT_EQ(t, rep.window, windows[i]);
			DDF_EXPECT_EQ(t, out.m % 512, 0);
			/* a cache line less misses the target for every k */
			less = out;
			less.m -= 512;
			for (k = 1; k <= 64 && less.m; k++) {
				less.k = k;
				DDF_EXPECT_MSG(t, ddf_a2_fpr(&less) > targets[j],
					       "w=%llu fpr %g: k=%u m=%llu would do",
					       (unsigned long long)windows[i],
					       targets[j], k,
					       (unsigned long long)less.m);
			}
		}
}

DDF_TEST(a2_rates_size_budget)
{
	static const uint64_t budgets[] = { 1024, 65536, 1 << 20 };
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(budgets); i++) {
		struct ddf_size_req req = { .kind = DDF_KIND_A2,
					    .window = 1000,
					    .bytes = budgets[i] };
		struct ddf_size_report rep;
		struct ddf_params out, more;
		const char *why = NULL;
		uint32_t k;

		DDF_ASSERT_MSG(t, !ddf_size(&req, &out, &rep, &why), "%s",
			       why);
		DDF_EXPECT(t, rep.bytes <= budgets[i]);
		more = out;
		more.m += 512;
		DDF_EXPECT(t, ddf_filter_memsize(&more) > budgets[i]);
		/* the best k for these buffers */
		more = out;
		for (k = 1; k <= 64; k++) {
			more.k = k;
			DDF_EXPECT(t, ddf_a2_fpr(&more) >= rep.fpr);
		}
	}
}

DDF_TEST(a2_rates_size_errors)
{
	static const struct ddf_test_size_refused cases[] = {
		{ "no window", { .kind = DDF_KIND_A2, .fpr = 0.1 } },
		{ "neither target nor budget",
		  { .kind = DDF_KIND_A2, .window = 100 } },
		{ "budget misses the target",
		  { .kind = DDF_KIND_A2, .window = 100000, .fpr = 0.001,
		    .bytes = 4096 } },
		{ "budget below two lines",
		  { .kind = DDF_KIND_A2, .window = 100, .bytes = 200 } },
		{ "time mode",
		  { .kind = DDF_KIND_A2, .flags = DDF_PF_TIME,
		    .window_ns = 1000000000, .window = 100, .fpr = 0.1 } },
		{ "k too large",
		  { .kind = DDF_KIND_A2, .window = 100, .fpr = 0.1,
		    .k = 65 } },
	};

	ddf_test_expect_size_refused(t, cases, DDF_ARRAY_SIZE(cases));
}

/*
 * Four threads insert distinct keys into buffers too large for a false
 * positive: every insertion takes exactly one place in a1, through every
 * swap, so the count must come out exact.
 */
#define A2C_THREADS 2
#define A2C_KEYS 100000

struct a2c {
	pthread_barrier_t *go;
	struct ddf_filter *f;
	uint64_t seed, dups;
};

static void *a2c_work(void *arg)
{
	struct a2c *w = arg;
	unsigned int i;

	pthread_barrier_wait(w->go);
	for (i = 0; i < A2C_KEYS; i++) {
		struct ddf_hash h = ddf_test_key(&w->seed);

		w->dups += ddf_filter_test_and_insert(w->f, &h, 0);
	}
	return NULL;
}

DDF_TEST(a2_rates_threads_count)
{
	struct ddf_params p = { .kind = DDF_KIND_A2, .window = 97,
				.m = 1 << 18, .k = 4 };
	uint64_t n = A2C_THREADS * A2C_KEYS;
	unsigned int i, round, bad = 0;

	for (round = 0; round < 10; round++) {
		struct ddf_filter *f = ddf_test_filter(t, &p);
		struct a2c w[A2C_THREADS];
		pthread_t th[A2C_THREADS];
		pthread_barrier_t go;
		struct ddf_stats st;
		uint64_t dups = 0;

		DDF_ASSERT(t, f);
		pthread_barrier_init(&go, NULL, A2C_THREADS);
		for (i = 0; i < A2C_THREADS; i++) {
			w[i] = (struct a2c){ &go, f, 1000 * round + i, 0 };
			pthread_create(&th[i], NULL, a2c_work, &w[i]);
		}
		for (i = 0; i < A2C_THREADS; i++) {
			pthread_join(th[i], NULL);
			dups += w[i].dups;
		}
		pthread_barrier_destroy(&go);
		ddf_filter_stats(f, &st);
		bad += dups || st.inserts != n || st.generation != n / 97;
	}
	DDF_EXPECT_MSG(t, !bad, "%u of 10 rounds miscounted", bad);
}

static ddf_case_t ddf_a2_rates_cases[] = {
	DDF_CASE(a2_rates_fpr),
	DDF_CASE(a2_rates_cycle_length),
	DDF_CASE(a2_rates_size_target),
	DDF_CASE(a2_rates_size_budget),
	DDF_CASE(a2_rates_size_errors),
	DDF_CASE(a2_rates_threads_count),
	DDF_CASES_END,
};

DDF_SUITE(ddf_a2_rates, ddf_a2_rates_cases);
