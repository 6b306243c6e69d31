// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Several CPUs on one filter: two threads test-and-insert distinct keys at
 * once, through generation shifts and spare clearing. No insertion may be
 * lost: every key inside the window is found afterwards.
 */
#include <pthread.h>
#include "ddf_test_user.h"

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

/*
 * Windows under threads: WT_THREADS threads test-and-insert distinct keys
 * into one filter, count and time windows, APBF, APBBF and exact. Count:
 * the window holds every key, and generations turn over several times.
 * Time: one clock all threads read (a ticket times WT_STEP ns), the window
 * a quarter of the run, so keys expire while others arrive; every key no
 * older than the window when the threads are done must be found then. A
 * thread that stalls between its clock read and its insert makes its key
 * older, never younger: the guarantee of ddf_age.h (no caller's clock more
 * than a generation ahead of the inserter's) holds up to that stall.
 */
#define WT_THREADS 3
#define WT_KEYS 100000ull
#define WT_STEP 1000ull

struct wt_shared {
	struct ddf_filter *f;
	bool time;
	uint64_t clock; /* tickets of the logical clock */
	uint64_t *when; /* each key's insertion time */
	pthread_barrier_t go;
};

struct wt_worker {
	struct wt_shared *sh;
	uint64_t id, dups;
};

static struct ddf_hash wt_key(uint64_t id, uint64_t i)
{
	return wkey(7000 + id, i);
}

static void *wt_work(void *arg)
{
	struct wt_worker *w = arg;
	struct wt_shared *sh = w->sh;

	ddf_test_set_slot((uint32_t)w->id); /* its ticket slot, as a CPU's */
	pthread_barrier_wait(&sh->go);
	for (uint64_t i = 0; i < WT_KEYS; i++) {
		struct ddf_hash h = wt_key(w->id, i);
		uint64_t now = 0;

		if (sh->time)
			now = WT_STEP * (1 + __atomic_fetch_add(&sh->clock, 1,
							  __ATOMIC_RELAXED));
		sh->when[w->id * WT_KEYS + i] = now;
		w->dups += ddf_filter_test_and_insert(sh->f, &h, now);
	}
	return NULL;
}

DDF_TEST(threads_windows_lose_nothing)
{
	static const struct ddf_params shapes[] = {
		{ .kind = DDF_KIND_APBF, .k = 4, .l = 6 },
		{ .kind = DDF_KIND_APBBF, .k = 3, .l = 8 },
		{ .kind = DDF_KIND_EXACT },
	};
	const uint64_t all = WT_THREADS * WT_KEYS;

	for (unsigned int i = 0; i < 2 * DDF_ARRAY_SIZE(shapes); i++) {
		struct ddf_params p = shapes[i / 2];
		struct wt_worker w[WT_THREADS];
		pthread_t th[WT_THREADS];
		struct wt_shared sh = { 0 };
		uint64_t end, young = 0, missing = 0, old = 0, kept = 0;
		uint64_t dups = 0;

		sh.time = i % 2;
		if (p.kind != DDF_KIND_EXACT)
			p.cpus = WT_THREADS; /* batched tickets */
		if (sh.time) {
			p.flags = DDF_PF_TIME;
			p.window_ns = all / 4 * WT_STEP;
			p.window = all / 2; /* at most all / 4 per window */
		} else {
			p.window = all;
		}
		sh.f = ddf_test_filter(t, &p);
		sh.when = ddf_test_alloc(t, all * sizeof(*sh.when));
		DDF_ASSERT(t, sh.f && sh.when);
		pthread_barrier_init(&sh.go, NULL, WT_THREADS);
		ddf_test_use_slots();
		for (uint64_t j = 0; j < WT_THREADS; j++) {
			w[j] = (struct wt_worker){ &sh, j, 0 };
			pthread_create(&th[j], NULL, wt_work, &w[j]);
		}
		for (int j = 0; j < WT_THREADS; j++) {
			pthread_join(th[j], NULL);
			dups += w[j].dups;
		}
		pthread_barrier_destroy(&sh.go);
		end = WT_STEP * sh.clock;
		for (uint64_t j = 0; j < all; j++) {
			struct ddf_hash h = wt_key(j / WT_KEYS, j % WT_KEYS);
			bool found = ddf_filter_lookup(sh.f, &h, end);

			if (!sh.time || end - sh.when[j] <= p.window_ns) {
				young++;
				missing += !found;
			} else {
				old++;
				kept += found;
			}
		}
		DDF_LOG(t, "%s %s window: %llu keys on %d threads; %llu inside the window at the end, %llu of them missing; %llu older, %llu of those still found; %llu duplicates reported",
			ddf_kind_name(p.kind), sh.time ? "time" : "count",
			(unsigned long long)all, WT_THREADS,
			(unsigned long long)young, (unsigned long long)missing,
			(unsigned long long)old, (unsigned long long)kept,
			(unsigned long long)dups);
		DDF_EXPECT_EQ(t, missing, 0);
		DDF_EXPECT(t, young >= (sh.time ? all / 4 : all));
		if (sh.time && p.kind == DDF_KIND_EXACT)
			DDF_EXPECT_EQ(t, kept, 0);
	}
}

static ddf_case_t cases[] = {
	DDF_CASE(concurrent_inserts_lose_nothing),
	DDF_CASE(threads_windows_lose_nothing),
	DDF_CASES_END
};

DDF_SUITE(ddf_concurrency, cases);
