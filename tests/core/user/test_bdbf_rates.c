// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * b_DBF against its formulas: the false-positive rate on a stream of
 * distinct keys against the mean over the counters' phases, below the
 * worst case; ddf_bdbf_size() for the QHT paper's window of 6000 elements;
 * and arrivals on several threads.
 */
#include <pthread.h>
#include "ddf_test_user.h"

DDF_TEST(bdbf_rates_fpr)
{
	static const struct {
		const char *what;
		struct ddf_size_req req;
	} cases[] = {
		{ "W = 6000, 10^5 bits",
		  { .kind = DDF_KIND_BDBF, .window = 6000, .bytes = 12500 } },
		{ "W = 6000, 10^6 bits",
		  { .kind = DDF_KIND_BDBF, .window = 6000, .bytes = 125000 } },
		{ "W = 1000, target 0.01",
		  { .kind = DDF_KIND_BDBF, .window = 1000, .fpr = 0.01 } },
		{ "W = 20000, target 0.1",
		  { .kind = DDF_KIND_BDBF, .window = 20000, .fpr = 0.1 } },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_size_report rep;
		struct ddf_params p;
		struct ddf_filter *f;
		const char *why = NULL;
		uint64_t seed = 60 + i, n = 300000, warm;
		double mean, worst, got, tol;

		DDF_ASSERT_MSG(t, !ddf_size(&cases[i].req, &p, &rep, &why),
			       "%s: %s", cases[i].what, why);
		f = ddf_test_filter(t, &p);
		DDF_ASSERT(t, f);
		mean = ddf_bdbf_fpr_mean(&p);
		worst = ddf_bdbf_fpr(&p);
		warm = 2 * ((1ull << p.cell_bits) - 1) *
		       ddf_bdbf_block(p.window, p.cell_bits);
		got = ddf_test_fresh_fpr(f, warm, n, &seed);
		tol = ddf_test_rate_tol(mean, 0.05, n);
		DDF_LOG(t, "%s: m=%llu k=%u c=%u d=%llu: measured %.5f, mean %.5f, worst %.5f",
			cases[i].what, (unsigned long long)p.m, p.k,
			p.cell_bits,
			(unsigned long long)ddf_bdbf_block(p.window,
							   p.cell_bits),
			got, mean, worst);
		DDF_EXPECT_MSG(t, fabs(got - mean) <= tol,
			       "%s: measured %.5f, mean %.5f", cases[i].what,
			       got, mean);
		DDF_EXPECT(t, mean <= worst);
		DDF_EXPECT(t, ddf_fpr_analytic(&p) == worst);
		if (cases[i].req.fpr > 0)
			DDF_EXPECT(t, worst <= cases[i].req.fpr);
	}
}

/* The mean formula on hand-checked values: k = 1, c = 2, m = 2, W = 3. */
DDF_TEST(bdbf_rates_formula_by_hand)
{
	struct ddf_params p = { .kind = DDF_KIND_BDBF, .window = 3, .m = 2,
				.k = 1, .cell_bits = 2 };
	/* C = 3, d = 1, a = 1/2: worst 1 - a^3, mean the same (d = 1) */
	DDF_EXPECT(t, fabs(ddf_bdbf_fpr(&p) - 0.875) < 1e-12);
	DDF_EXPECT(t, fabs(ddf_bdbf_fpr_mean(&p) - 0.875) < 1e-12);
	/* W = 5: d = 2; L is 5 or 6: mean 1 - (1/32 + 1/64) / 2 */
	p.window = 5;
	DDF_EXPECT(t, fabs(ddf_bdbf_fpr(&p) - (1 - 1.0 / 64)) < 1e-12);
	DDF_EXPECT(t, fabs(ddf_bdbf_fpr_mean(&p) -
			   (1 - (1.0 / 32 + 1.0 / 64) / 2)) < 1e-12);
	/* k = 2: the square of the per-counter probability, a = 1/4 */
	p.k = 2;
	DDF_EXPECT(t, fabs(ddf_bdbf_fpr(&p) -
			   pow(1 - pow(0.25, 6), 2)) < 1e-12);
	DDF_EXPECT_EQ(t, ddf_bdbf_block(6000, 4), 429);
	DDF_EXPECT_EQ(t, ddf_bdbf_block(6000, 1), 0);
}

DDF_TEST(bdbf_rates_size)
{
	static const uint64_t windows[] = { 10, 6000, 100000 };
	static const double targets[] = { 0.1, 0.01, 1e-4 };
	unsigned int i, j;

	for (i = 0; i < DDF_ARRAY_SIZE(windows); i++)
		for (j = 0; j < DDF_ARRAY_SIZE(targets); j++) {
			struct ddf_size_req req = { .kind = DDF_KIND_BDBF,
						    .window = windows[i],
						    .fpr = targets[j] };
			struct ddf_size_report rep;
			struct ddf_params out, less;
			const char *why = NULL;
			uint64_t words;
			uint32_t k, c;

			DDF_ASSERT_MSG(t, !ddf_size(&req, &out, &rep, &why),
				       "%s", why);
			DDF_EXPECT(t, rep.fpr <= targets[j]);
			DDF_EXPECT_EQ(t, rep.window, windows[i]);
			/* no shape fits in one word less */
			words = ddf_div64(out.m + 64 / out.cell_bits - 1,
					  64 / out.cell_bits);
			for (c = 2; c <= 16; c++)
				for (k = 1; k <= 64; k++) {
					less = out;
					less.cell_bits = c;
					less.k = k;
					less.m = (words - 1) * (64 / c);
					DDF_EXPECT_MSG(t, ddf_bdbf_fpr(&less) >
								  targets[j],
						       "W=%llu fpr %g: c=%u k=%u fits in less",
						       (unsigned long long)windows[i],
						       targets[j], c, k);
				}
		}
	/* a budget: the lowest worst case, the paper's 10^5 bits */
	{
		struct ddf_size_req req = { .kind = DDF_KIND_BDBF,
					    .window = 6000, .bytes = 12500 };
		struct ddf_size_report rep;
		struct ddf_params out, alt;
		const char *why = NULL;
		uint32_t k, c;

		DDF_ASSERT(t, !ddf_size(&req, &out, &rep, &why));
		DDF_EXPECT(t, rep.bytes <= 12500);
		for (c = 2; c <= 16; c++)
			for (k = 1; k <= 64; k++) {
				alt = out;
				alt.cell_bits = c;
				alt.k = k;
				alt.m = ddf_div64(out.m * out.cell_bits, c);
				alt.m -= alt.m % (64 / c);
				DDF_EXPECT(t, ddf_bdbf_fpr(&alt) >=
						      rep.fpr - 1e-12);
			}
	}
}

DDF_TEST(bdbf_rates_size_errors)
{
	static const struct ddf_test_size_refused cases[] = {
		{ "no window", { .kind = DDF_KIND_BDBF, .fpr = 0.1 } },
		{ "neither target nor budget",
		  { .kind = DDF_KIND_BDBF, .window = 100 } },
		{ "budget misses the target",
		  { .kind = DDF_KIND_BDBF, .window = 100000, .fpr = 0.001,
		    .bytes = 4096 } },
		{ "budget below a word",
		  { .kind = DDF_KIND_BDBF, .window = 100, .bytes = 100 } },
		{ "time mode",
		  { .kind = DDF_KIND_BDBF, .flags = DDF_PF_TIME,
		    .window_ns = 1000000000, .window = 100, .fpr = 0.1 } },
		{ "k too large",
		  { .kind = DDF_KIND_BDBF, .window = 100, .fpr = 0.1,
		    .k = 65 } },
	};

	ddf_test_expect_size_refused(t, cases, DDF_ARRAY_SIZE(cases));
}

/*
 * Two threads on a small, busy filter (W = 64, 8-bit counters: d = 1, so
 * every arrival decrements every word) while the other thread sets
 * counters in them. A key is found right after its own insertion unless W
 * arrivals came in between (a thread can be descheduled for that long),
 * and the arrivals add up. The threads live through all the rounds and
 * start each one together on a fresh filter.
 */
#define BDC_THREADS 2
#define BDC_KEYS 300
#define BDC_ROUNDS 200
#define BDC_W 64

struct bdc_shared {
	pthread_barrier_t start, done;
	unsigned int ready; /* threads awake, all rounds */
	uint64_t arrived; /* arrivals completed in the round */
	struct ddf_filter *f;
};

struct bdc {
	struct bdc_shared *sh;
	unsigned int id;
	uint64_t lost;
};

static void *bdc_work(void *arg)
{
	struct bdc *w = arg;
	struct bdc_shared *sh = w->sh;
	unsigned int round, i;

	for (round = 0; round < BDC_ROUNDS; round++) {
		uint64_t s = 1000ull * round + w->id;

		pthread_barrier_wait(&sh->start);
		/* spin until both are awake, so that they really overlap */
		__atomic_fetch_add(&sh->ready, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&sh->ready, __ATOMIC_SEQ_CST) <
		       BDC_THREADS * (round + 1))
			;
		for (i = 0; i < BDC_KEYS; i++) {
			struct ddf_hash h = ddf_test_key(&s);
			uint64_t before = __atomic_load_n(&sh->arrived,
							  __ATOMIC_SEQ_CST);
			uint64_t after;
			bool found;

			ddf_filter_insert(sh->f, &h, 0);
			found = ddf_filter_lookup(sh->f, &h, 0);
			after = __atomic_add_fetch(&sh->arrived, 1,
						   __ATOMIC_SEQ_CST);
			/* one arrival of the other thread may be uncounted */
			w->lost += !found &&
				   after - before + BDC_THREADS < BDC_W;
		}
		pthread_barrier_wait(&sh->done);
	}
	return NULL;
}

DDF_TEST(bdbf_rates_threads)
{
	struct ddf_params p = { .kind = DDF_KIND_BDBF, .window = BDC_W,
				.m = 1024, .k = 2, .cell_bits = 8 };
	struct bdc_shared sh = { 0 };
	struct bdc w[BDC_THREADS];
	pthread_t th[BDC_THREADS];
	unsigned int round, i, bad = 0;
	uint64_t lost = 0;
	const char *why;
	uint64_t size;
	void *mem;

	DDF_ASSERT(t, !ddf_params_resolve(&p, &why));
	size = ddf_filter_memsize(&p);
	mem = ddf_test_alloc(t, size);
	DDF_ASSERT(t, mem);
	pthread_barrier_init(&sh.start, NULL, BDC_THREADS + 1);
	pthread_barrier_init(&sh.done, NULL, BDC_THREADS + 1);
	for (i = 0; i < BDC_THREADS; i++) {
		w[i] = (struct bdc){ &sh, i, 0 };
		pthread_create(&th[i], NULL, bdc_work, &w[i]);
	}
	for (round = 0; round < BDC_ROUNDS; round++) {
		struct ddf_stats st;

		sh.f = ddf_filter_init(mem, size, &p, 0);
		sh.arrived = 0;
		pthread_barrier_wait(&sh.start);
		pthread_barrier_wait(&sh.done);
		ddf_filter_stats(sh.f, &st);
		bad += st.inserts != BDC_THREADS * BDC_KEYS;
	}
	for (i = 0; i < BDC_THREADS; i++) {
		pthread_join(th[i], NULL);
		lost += w[i].lost;
	}
	pthread_barrier_destroy(&sh.start);
	pthread_barrier_destroy(&sh.done);
	DDF_EXPECT_MSG(t, !lost, "%llu keys lost right after insertion",
		       (unsigned long long)lost);
	DDF_EXPECT_MSG(t, !bad, "%u of %u rounds miscounted arrivals", bad,
		       BDC_ROUNDS);
}

static ddf_case_t ddf_bdbf_rates_cases[] = {
	DDF_CASE(bdbf_rates_fpr),
	DDF_CASE(bdbf_rates_formula_by_hand),
	DDF_CASE(bdbf_rates_size),
	DDF_CASE(bdbf_rates_size_errors),
	DDF_CASE(bdbf_rates_threads),
	DDF_CASES_END,
};

DDF_SUITE(ddf_bdbf_rates, ddf_bdbf_rates_cases);
