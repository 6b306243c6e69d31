// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Several CPUs on one filter: two threads test-and-insert distinct keys at
 * once, through generation shifts and spare clearing. No insertion may be
 * lost: every key inside the window is found afterwards.
 */
#include <pthread.h>
#include "ddf_test_util.h"

struct worker {
	struct ddf_filter *f;
	uint64_t seed, n, dups;
	pthread_barrier_t *go;
};

static struct ddf_hash wkey(uint64_t seed, uint64_t i)
{
	return ddf_test_key_at(seed * 0x100000001b3ull + i);
}

static void *work(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->go);
	for (uint64_t i = 0; i < w->n; i++) {
		struct ddf_hash h = wkey(w->seed, i);

		w->dups += ddf_filter_test_and_insert(w->f, &h, 0);
	}
	return NULL;
}

static uint64_t run_pair(ddf_test_t *t, struct ddf_params *p, uint64_t n,
			 uint64_t *missing)
{
	struct worker w[2];
	pthread_t th[2];
	pthread_barrier_t go;
	struct ddf_filter *f;

	*missing = ~0ull;
	f = ddf_test_filter(t, p);
	if (!f)
		return 0;
	pthread_barrier_init(&go, NULL, 2);
	for (int i = 0; i < 2; i++) {
		w[i] = (struct worker){ f, 1000 + i, n, 0, &go };
		pthread_create(&th[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&go);
	*missing = 0;
	for (int i = 0; i < 2; i++)
		for (uint64_t j = 0; j < n; j++) {
			struct ddf_hash h = wkey(1000 + i, j);

			*missing += !ddf_filter_lookup(f, &h, 0);
		}
	return w[0].dups + w[1].dups;
}

/*
 * The window holds all 2n keys while the generations turn over several
 * times during the run (2n > 3g), so shifts race with inserts.
 */
DDF_TEST(concurrent_inserts_lose_nothing)
{
	static const struct ddf_params shapes[] = {
		{ .kind = DDF_KIND_APBF, .k = 4, .l = 6 },
		{ .kind = DDF_KIND_APBBF, .k = 2, .l = 5 },
		{ .kind = DDF_KIND_APBBF, .k = 3, .l = 8, .block_bits = 64,
		  .block_hashes = 4 },
	};
	uint64_t n = 400000;

	for (unsigned int i = 0; i < 3; i++) {
		struct ddf_params p = shapes[i];
		uint64_t missing, dups;

		p.window = 2 * n;
		dups = run_pair(t, &p, n, &missing);
		DDF_LOG(t, "%s k=%u l=%u: %llu inserts on 2 threads, %llu missing, %llu reported duplicate (false positives)",
			ddf_kind_name(p.kind), p.k, p.l,
			(unsigned long long)(2 * n),
			(unsigned long long)missing,
			(unsigned long long)dups);
		DDF_EXPECT_EQ(t, missing, 0);
	}
}

static ddf_case_t cases[] = {
	DDF_CASE(concurrent_inserts_lose_nothing),
	DDF_CASES_END
};

DDF_SUITE(ddf_concurrency, cases);
