// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Batched insert tickets (ddf_age.h, params.cpus): each slot reserves B
 * tickets at once. The window asked for must hold whatever the slots do:
 * one thread playing C slots in an adversarial order (a slot that reserves
 * a batch and then waits while the others run generations ahead), real
 * threads with a slot each, and the sizing's own promises.
 */
#include <pthread.h>
#include "ddf_age.h"
#include "ddf_test_user.h"

static const struct ddf_params tk_shapes[] = {
	{ .kind = DDF_KIND_APBF, .k = 4, .l = 6 },
	{ .kind = DDF_KIND_APBBF, .k = 3, .l = 8 },
	{ .kind = DDF_KIND_APBBF, .k = 2, .l = 5, .block_bits = 64,
	  .block_hashes = 4 },
};

static struct ddf_hash tk_key(uint64_t i)
{
	return ddf_test_key_at(0x71c6e7ull ^ (i * 0x9e3779b97f4a7c15ull));
}

/* The batch and slack of a resolved filter, read back from its stats. */
static uint64_t tk_slack(const struct ddf_params *p)
{
	uint64_t cap = ddf_apbf_gen_size(p);

	return ddf_age_slack(p, cap);
}

/*
 * The sizing: with C CPUs the window is still at least the one asked for,
 * and the memory at most that of one CPU's filter holding the inserts C
 * CPUs can have under way as well (2 (C - 1) more a generation), plus
 * 1/64 for the tickets slots hold, plus the slots' lines; the stats
 * report that window.
 */
DDF_TEST(tickets_sizing_keeps_window)
{
	static const uint32_t cpus[] = { 1, 2, 4, 16, 64, 1024, 8192 };
	static const uint64_t windows[] = { 1000, 40000, 1000000 };

	for (unsigned int s = 0; s < DDF_ARRAY_SIZE(tk_shapes); s++)
		for (unsigned int w = 0; w < DDF_ARRAY_SIZE(windows); w++) {
			for (unsigned int c = 0; c < DDF_ARRAY_SIZE(cpus); c++) {
				struct ddf_params p = tk_shapes[s];
				struct ddf_params one = tk_shapes[s];
				struct ddf_stats st = { 0 };
				struct ddf_filter *f;
				uint64_t b, b1;

				one.window = windows[w] +
					     2ull * (cpus[c] - 1) * (one.l + 1);
				DDF_ASSERT(t, !ddf_params_resolve(&one, NULL));
				b1 = ddf_filter_memsize(&one);
				p.window = windows[w];
				p.cpus = cpus[c];
				DDF_ASSERT(t, !ddf_params_resolve(&p, NULL));
				b = ddf_filter_memsize(&p);
				DDF_EXPECT_MSG(t, p.window >= windows[w],
					       "%s window %llu cpus %u: %llu",
					       ddf_kind_name(p.kind),
					       (unsigned long long)windows[w],
					       cpus[c],
					       (unsigned long long)p.window);
				DDF_EXPECT_MSG(t, b <= b1 + b1 / 64 +
						       b1 / (64 * p.l) +
						       b1 / 1000 +
						       64ull * cpus[c] + 4096,
					       "%s window %llu cpus %u: %llu bytes, %llu with one CPU and the window of the CPUs' inserts under way",
					       ddf_kind_name(p.kind),
					       (unsigned long long)windows[w],
					       cpus[c], (unsigned long long)b,
					       (unsigned long long)b1);
				f = ddf_test_filter(t, &p);
				DDF_ASSERT(t, f);
				ddf_filter_stats(f, &st);
				DDF_EXPECT_EQ(t, st.window, p.window);
			}
		}
}

/*
 * One thread, C slots, an order chosen to hurt: slot 0 mostly sleeps on a
 * half-spent batch while the others run ahead; each insert goes through
 * the slot picked for it. Every key among the last `window` inserts (in
 * call order, which is spend order here) must be found, at checkpoints
 * all through the run; the stats count every insert, no held ticket.
 */
#define TK_C 4
#define TK_PROBES 200000ull

DDF_TEST(tickets_adversarial_order_keeps_window)
{
	uint64_t worst = 0;

	for (unsigned int s = 0; s < DDF_ARRAY_SIZE(tk_shapes); s++) {
		struct ddf_params p = tk_shapes[s];
		uint64_t rng = 0xadd5 + s, n, missing = 0, checks = 0, fp = 0;
		double fpr;
		struct ddf_stats st = { 0 };
		struct ddf_filter *f;

		p.window = 40000;
		p.cpus = TK_C;
		f = ddf_test_filter(t, &p);
		DDF_ASSERT(t, f);
		DDF_ASSERT_MSG(t, tk_slack(&p) > 0, "%s: no batching to test",
			       ddf_kind_name(p.kind));
		n = 12 * p.window;
		ddf_test_use_slots();
		for (uint64_t i = 0; i < n; i++) {
			uint64_t r = ddf_test_rand(&rng);
			struct ddf_hash h = tk_key(i);

			/* slot 0: 1 in 500; the others share the rest */
			ddf_test_set_slot(r % 500 == 0 ? 0 :
					  1 + (uint32_t)((r >> 20) % (TK_C - 1)));
			ddf_filter_test_and_insert(f, &h, 0);
			if (i + 1 >= p.window && (i + 1) % (p.window / 3) == 0) {
				for (uint64_t j = i + 1 - p.window; j <= i;
				     j++) {
					struct ddf_hash q = tk_key(j);

					missing += !ddf_filter_lookup(f, &q, 0);
				}
				checks++;
			}
		}
		ddf_test_set_slot(UINT32_MAX);
		ddf_filter_stats(f, &st);
		/* the analytic rate holds: generations are full at g + S */
		for (uint64_t i = 0; i < TK_PROBES; i++) {
			struct ddf_hash q = tk_key(n + 1000 + i);

			fp += ddf_filter_lookup(f, &q, 0);
		}
		fpr = ddf_fpr_analytic(&p);
		DDF_LOG(t, "%s k=%u l=%u cpus %u: window %llu, slack %llu, %llu inserts, %llu checkpoints of the last window: %llu missing; stats: %llu inserts, generation %llu; false positives %llu of %llu, analytic %.3g",
			ddf_kind_name(p.kind), p.k, p.l, p.cpus,
			(unsigned long long)p.window,
			(unsigned long long)tk_slack(&p),
			(unsigned long long)n, (unsigned long long)checks,
			(unsigned long long)missing,
			(unsigned long long)st.inserts,
			(unsigned long long)st.generation,
			(unsigned long long)fp, TK_PROBES, fpr);
		DDF_EXPECT(t, fp <= 1.1 * fpr * TK_PROBES +
				   4 * ddf_sqrt(fpr * TK_PROBES) + 3);
		DDF_EXPECT_EQ(t, missing, 0);
		DDF_EXPECT_EQ(t, st.inserts, n);
		DDF_EXPECT(t, st.generation >= n / st.gen_size - 1);
		worst += missing;
	}
	DDF_EXPECT_EQ(t, worst, 0);
}

/*
 * Real threads, a slot each, count and time windows smaller than the run.
 * Count: every insert takes a number from one counter before it starts.
 * Inserts numbered before a key's can finish after it only while they are
 * under way, at most one per other thread: keys numbered within the last
 * window less the threads must be found at the end, however the threads
 * are preempted.
 */
#define TK_THREADS 3
#define TK_KEYS 120000ull

struct tk_shared {
	struct ddf_filter *f;
	uint64_t order; /* numbers taken after each insert */
	uint64_t *when; /* each key's number */
	pthread_barrier_t go;
};

struct tk_worker {
	struct tk_shared *sh;
	uint32_t id;
};

static void *tk_work(void *arg)
{
	struct tk_worker *w = arg;
	struct tk_shared *sh = w->sh;

	ddf_test_set_slot(w->id);
	pthread_barrier_wait(&sh->go);
	for (uint64_t i = 0; i < TK_KEYS; i++) {
		uint64_t j = w->id * TK_KEYS + i;
		struct ddf_hash h = tk_key(j);

		sh->when[j] = __atomic_fetch_add(&sh->order, 1,
						 __ATOMIC_SEQ_CST);
		ddf_filter_test_and_insert(sh->f, &h, 0);
	}
	return NULL;
}

DDF_TEST(tickets_threads_keep_window)
{
	const uint64_t all = TK_THREADS * TK_KEYS;

	for (unsigned int s = 0; s < DDF_ARRAY_SIZE(tk_shapes); s++) {
		struct ddf_params p = tk_shapes[s];
		struct tk_worker w[TK_THREADS];
		pthread_t th[TK_THREADS];
		struct tk_shared sh = { 0 };
		struct ddf_stats st = { 0 };
		uint64_t young = 0, missing = 0;

		p.window = all / 8;
		p.cpus = TK_THREADS;
		sh.f = ddf_test_filter(t, &p);
		sh.when = ddf_test_alloc(t, all * sizeof(*sh.when));
		DDF_ASSERT(t, sh.f && sh.when);
		pthread_barrier_init(&sh.go, NULL, TK_THREADS);
		ddf_test_use_slots();
		for (uint32_t j = 0; j < TK_THREADS; j++) {
			w[j] = (struct tk_worker){ &sh, j };
			pthread_create(&th[j], NULL, tk_work, &w[j]);
		}
		for (int j = 0; j < TK_THREADS; j++)
			pthread_join(th[j], NULL);
		pthread_barrier_destroy(&sh.go);
		for (uint64_t j = 0; j < all; j++) {
			struct ddf_hash h = tk_key(j);

			if (sh.when[j] + p.window < all + TK_THREADS)
				continue;
			young++;
			missing += !ddf_filter_lookup(sh.f, &h, 0);
		}
		ddf_filter_stats(sh.f, &st);
		DDF_LOG(t, "%s k=%u l=%u, %d threads with a slot each: window %llu (slack %llu), %llu inserts; the last window less %d: %llu keys, %llu missing; stats count %llu inserts",
			ddf_kind_name(p.kind), p.k, p.l, TK_THREADS,
			(unsigned long long)p.window,
			(unsigned long long)tk_slack(&p),
			(unsigned long long)all, TK_THREADS,
			(unsigned long long)young,
			(unsigned long long)missing,
			(unsigned long long)st.inserts);
		DDF_EXPECT(t, tk_slack(&p) > 0);
		DDF_EXPECT_EQ(t, missing, 0);
		DDF_EXPECT_EQ(t, young, p.window - TK_THREADS);
		DDF_EXPECT_EQ(t, st.inserts, all);
	}
}

static ddf_case_t cases[] = {
	DDF_CASE(tickets_sizing_keeps_window),
	DDF_CASE(tickets_adversarial_order_keeps_window),
	DDF_CASE(tickets_threads_keep_window),
	DDF_CASES_END
};

DDF_SUITE(ddf_tickets, cases);
