// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The cuckoo filter for streams against its formulas: the saturated
 * false-positive rate against 2b / (2^f - 1) (about 2b / 2^f), the load
 * reached before the first dropped fingerprint (Fan et al.: about 50%, 84%
 * and 95% for b = 1, 2, 4), ddf_cuckoo_size(), and insertions on several
 * threads.
 */
#include <pthread.h>
#include "ddf_test_user.h"

DDF_TEST(cuckoo_rates_saturated_fpr)
{
	static const struct {
		uint32_t b, f;
		double expect;
	} shapes[] = {
		{ 1, 3, 2.0 / 7 }, /* the QHT paper's: Table 4 has 28.3% */
		{ 4, 8, 8.0 / 255 },
		{ 2, 6, 4.0 / 63 },
		{ 1, 8, 2.0 / 255 },
		{ 4, 4, 8.0 / 15 },
	};
	const uint64_t buckets = 1024, n = 100000, stream = 10000;
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(shapes); i++) {
		struct ddf_params p = { .kind = DDF_KIND_CUCKOO, .m = buckets,
					.k = shapes[i].b,
					.fp_bits = shapes[i].f,
					.rng_seed = 11 + i };
		struct ddf_filter *f = ddf_test_filter(t, &p);
		uint64_t seed = 900 + i, j, fp = 0, sfp = 0;
		double a, got, sgot, tol;

		DDF_ASSERT(t, f);
		a = ddf_cuckoo_fpr(&p);
		DDF_EXPECT(t, fabs(a - shapes[i].expect) < 1e-12);
		DDF_EXPECT(t, ddf_fpr_analytic(&p) == a);
		for (j = 0; j < 4 * buckets * shapes[i].b; j++) {
			struct ddf_hash h = ddf_test_key(&seed);

			ddf_filter_insert(f, &h, 0);
		}
		/* the stream goes on: fresh keys, test and insert */
		for (j = 0; j < stream; j++) {
			struct ddf_hash h = ddf_test_key(&seed);

			sfp += ddf_filter_test_and_insert(f, &h, 0);
		}
		for (j = 0; j < n; j++) {
			struct ddf_hash h = ddf_test_key(&seed);

			fp += ddf_filter_lookup(f, &h, 0);
		}
		got = (double)fp / n;
		sgot = (double)sfp / stream;
		DDF_LOG(t, "b=%u f=%u: lookups %.4f, stream %.4f, 2b/(2^f-1) %.4f, 2b/2^f %.4f",
			shapes[i].b, shapes[i].f, got, sgot, a,
			2.0 * shapes[i].b / (1 << shapes[i].f));
		tol = ddf_test_rate_tol(a, 0.04, n);
		DDF_EXPECT_MSG(t, fabs(got - a) <= tol,
			       "b=%u f=%u: measured %.4f, formula %.4f",
			       shapes[i].b, shapes[i].f, got, a);
		tol = ddf_test_rate_tol(a, 0.04, stream);
		DDF_EXPECT_MSG(t, fabs(sgot - a) <= tol,
			       "b=%u f=%u: stream %.4f, formula %.4f",
			       shapes[i].b, shapes[i].f, sgot, a);
	}
}

/* Fresh keys until the first one is dropped: the load relocation reaches. */
static double ckr_first_failure(ddf_test_t *t, uint32_t b, uint64_t seed)
{
	struct ddf_params p = { .kind = DDF_KIND_CUCKOO, .m = 1024, .k = b,
				.fp_bits = 64 / b > 32 ? 32 : 64 / b,
				.rng_seed = seed };
	struct ddf_filter *f = ddf_test_filter(t, &p);
	uint64_t s = seed, stored = 0;
	struct ddf_stats st;

	if (!f)
		return 0;
	for (;;) {
		struct ddf_hash h = ddf_test_key(&s);

		if (ddf_filter_test_and_insert(f, &h, 0))
			continue; /* a false positive: nothing stored */
		/* a scan every 16 keys: the load within 16 / slots */
		if (++stored % 16)
			continue;
		ddf_filter_stats(f, &st);
		if (st.used != stored || stored == st.slots)
			return (double)st.used / st.slots;
	}
}

DDF_TEST(cuckoo_rates_load_before_failure)
{
	static const struct {
		uint32_t b;
		double lo;
	} cases[] = { { 1, 0.40 }, { 2, 0.80 }, { 4, 0.93 }, { 8, 0.97 } };
	unsigned int i, r;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		double sum = 0;

		for (r = 0; r < 4; r++)
			sum += ckr_first_failure(t, cases[i].b, 10 * i + r);
		DDF_LOG(t, "b=%u: load at the first dropped fingerprint %.3f",
			cases[i].b, sum / 4);
		DDF_EXPECT_MSG(t, sum / 4 >= cases[i].lo,
			       "b=%u: load %.3f at the first failure",
			       cases[i].b, sum / 4);
	}
}

DDF_TEST(cuckoo_rates_size)
{
	static const struct {
		double fpr;
		uint32_t b, f;
	} examples[] = {
		{ 0.3, 1, 3 }, /* 2/7, 21 entries a word */
		{ 0.25, 1, 4 }, /* 2/15, 16 entries a word */
		{ 0.01, 1, 8 }, /* 2/255 */
		{ 1e-6, 1, 21 }, /* 2 / (2^21 - 1), 3 entries a word */
	};
	static const uint64_t budgets[] = { 512, 4096, 1 << 20 };
	unsigned int i, j;

	for (i = 0; i < DDF_ARRAY_SIZE(examples); i++)
		for (j = 0; j < DDF_ARRAY_SIZE(budgets); j++) {
			struct ddf_size_req req = { .kind = DDF_KIND_CUCKOO,
						    .fpr = examples[i].fpr,
						    .bytes = budgets[j] };
			struct ddf_size_report rep;
			struct ddf_params out, more;
			const char *why = NULL;

			DDF_ASSERT_MSG(t, !ddf_size(&req, &out, &rep, &why),
				       "%s", why);
			DDF_EXPECT_MSG(t, out.k == examples[i].b &&
					       out.fp_bits == examples[i].f,
				       "fpr %g: b=%u f=%u", examples[i].fpr,
				       out.k, out.fp_bits);
			DDF_EXPECT(t, rep.fpr <= examples[i].fpr);
			DDF_EXPECT(t, rep.bytes <= budgets[j]);
			more = out;
			more.m *= 2;
			DDF_EXPECT(t, ddf_filter_memsize(&more) > budgets[j]);
		}
	/* a window: buckets for it; a fixed shape */
	{
		struct ddf_size_req req = { .kind = DDF_KIND_CUCKOO,
					    .window = 1000, .k = 4,
					    .fp_bits = 8 };
		struct ddf_params out;
		const char *why = NULL;

		DDF_ASSERT(t, !ddf_size(&req, &out, NULL, &why));
		DDF_EXPECT_EQ(t, out.m, 256);
		DDF_EXPECT_EQ(t, out.window, 1000);
	}
}

DDF_TEST(cuckoo_rates_size_errors)
{
	static const struct ddf_test_size_refused cases[] = {
		{ "no target and no shape",
		  { .kind = DDF_KIND_CUCKOO, .bytes = 4096 } },
		{ "no budget and no window",
		  { .kind = DDF_KIND_CUCKOO, .fpr = 0.1 } },
		{ "fpr out of range",
		  { .kind = DDF_KIND_CUCKOO, .fpr = -1, .bytes = 4096 } },
		{ "shape misses the target",
		  { .kind = DDF_KIND_CUCKOO, .fpr = 0.01, .k = 4,
		    .fp_bits = 4, .bytes = 4096 } },
		{ "target out of reach",
		  { .kind = DDF_KIND_CUCKOO, .fpr = 1e-30, .bytes = 4096 } },
		{ "budget below a word",
		  { .kind = DDF_KIND_CUCKOO, .fpr = 0.1, .bytes = 16 } },
	};

	ddf_test_expect_size_refused(t, cases, DDF_ARRAY_SIZE(cases));
}

/*
 * Two threads insert distinct keys into a table that holds them all, with
 * relocations (b = 2 at 66% load): under the busy bit no relocation is
 * lost, so every key is found afterwards. The threads live through all
 * the rounds and start each one together on a fresh, small table.
 */
#define CKC_THREADS 2
#define CKC_KEYS 170
#define CKC_ROUNDS 200

struct ckc_shared {
	pthread_barrier_t start, done;
	unsigned int ready; /* threads awake in this round */
	struct ddf_params p;
	void *mem;
	uint64_t size;
	struct ddf_filter *f;
};

struct ckc {
	struct ckc_shared *sh;
	unsigned int id;
};

static uint64_t ckc_seed(unsigned int round, unsigned int id)
{
	return 1000ull * round + id;
}

static void *ckc_work(void *arg)
{
	struct ckc *w = arg;
	unsigned int round, i;

	for (round = 0; round < CKC_ROUNDS; round++) {
		uint64_t s = ckc_seed(round, w->id);

		pthread_barrier_wait(&w->sh->start);
		/* spin until both are awake, so that they really overlap */
		__atomic_fetch_add(&w->sh->ready, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&w->sh->ready, __ATOMIC_SEQ_CST) <
		       CKC_THREADS * (round + 1))
			;
		for (i = 0; i < CKC_KEYS; i++) {
			struct ddf_hash h = ddf_test_key(&s);

			ddf_filter_test_and_insert(w->sh->f, &h, 0);
		}
		pthread_barrier_wait(&w->sh->done);
	}
	return NULL;
}

DDF_TEST(cuckoo_rates_threads)
{
	struct ckc_shared sh = {
		.p = { .kind = DDF_KIND_CUCKOO, .m = 256, .k = 2,
		       .fp_bits = 32, .rng_seed = 1 },
	};
	struct ckc w[CKC_THREADS];
	pthread_t th[CKC_THREADS];
	unsigned int round, i, bad = 0;
	const char *why;

	DDF_ASSERT(t, !ddf_params_resolve(&sh.p, &why));
	sh.size = ddf_filter_memsize(&sh.p);
	sh.mem = ddf_test_alloc(t, sh.size);
	DDF_ASSERT(t, sh.mem);
	pthread_barrier_init(&sh.start, NULL, CKC_THREADS + 1);
	pthread_barrier_init(&sh.done, NULL, CKC_THREADS + 1);
	for (i = 0; i < CKC_THREADS; i++) {
		w[i] = (struct ckc){ &sh, i };
		pthread_create(&th[i], NULL, ckc_work, &w[i]);
	}
	for (round = 0; round < CKC_ROUNDS; round++) {
		struct ddf_stats st;
		uint64_t lost = 0, n;

		sh.f = ddf_filter_init(sh.mem, sh.size, &sh.p, 0);
		pthread_barrier_wait(&sh.start);
		pthread_barrier_wait(&sh.done);
		for (i = 0; i < CKC_THREADS; i++) {
			uint64_t s = ckc_seed(round, i);

			for (n = 0; n < CKC_KEYS; n++) {
				struct ddf_hash h = ddf_test_key(&s);

				lost += !ddf_filter_lookup(sh.f, &h, 0);
			}
		}
		ddf_filter_stats(sh.f, &st);
		bad += lost || st.used != CKC_THREADS * CKC_KEYS;
	}
	for (i = 0; i < CKC_THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&sh.start);
	pthread_barrier_destroy(&sh.done);
	DDF_EXPECT_MSG(t, !bad, "%u of %u rounds lost keys", bad, CKC_ROUNDS);
}

static ddf_case_t ddf_cuckoo_rates_cases[] = {
	DDF_CASE(cuckoo_rates_saturated_fpr),
	DDF_CASE(cuckoo_rates_load_before_failure),
	DDF_CASE(cuckoo_rates_size),
	DDF_CASE(cuckoo_rates_size_errors),
	DDF_CASE(cuckoo_rates_threads),
	DDF_CASES_END,
};

DDF_SUITE(ddf_cuckoo_rates, ddf_cuckoo_rates_cases);
