// SPDX-License-Identifier: GPL-2.0
/*
 * ddfbench speed --threads N: one filter shared by 1, 2, 4 .. N threads
 * that test-and-insert distinct keys at once, as the CPUs of a box share a
 * rule's filter. Mops/s and the scaling over one thread, in one run,
 * beside what one cache line costs to move between two CPUs.
 */
#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "ddf_age.h"
#include "ddf_size.h"
#include "ddfbench.h"

#define TH_SECONDS 1
#define TH_BATCH 4096

struct th_shared {
	struct ddf_filter *f;
	pthread_barrier_t go;
	int stop;
};

struct th_arg {
	struct th_shared *sh;
	uint64_t seed, ops, dups;
	uint32_t slot;
};

/* The calling thread's ticket slot, for ddf_env_slot() (ddf_env.h). */
static _Thread_local uint32_t th_slot_id = UINT32_MAX;

static uint32_t th_slot(void)
{
	return th_slot_id;
}

/* Counts in locals: the threads' th_arg share lines, no writes there. */
static void *th_run(void *arg)
{
	struct th_arg *a = arg;
	struct th_shared *sh = a->sh;
	uint64_t seed = a->seed, ops = 0, dups = 0;

	/* this thread alone inserts through its ticket slot, as a CPU does */
	th_slot_id = a->slot;
	pthread_barrier_wait(&sh->go);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < TH_BATCH; i++) {
			struct ddf_hash h;

			/* rnd(): a key in about a nanosecond, in every row */
			h.h1 = rnd(&seed);
			h.h2 = rnd(&seed);
			dups += ddf_filter_test_and_insert(sh->f, &h, 0);
		}
		ops += TH_BATCH;
	}
	a->ops = ops;
	a->dups = dups;
	return NULL;
}

/* Mops/s of n threads on f for TH_SECONDS; *dups: answers "duplicate". */
static double th_measure(struct ddf_filter *f, unsigned int n, uint64_t *seed,
			 uint64_t *dups)
{
	struct th_shared sh = { .f = f };
	struct th_arg *a = calloc(n, sizeof(*a));
	pthread_t *th = calloc(n, sizeof(*th));
	struct timespec nap = { TH_SECONDS, 0 };
	uint64_t ops = 0;
	double t0;

	if (!a || !th) {
		fprintf(stderr, "ddfbench: out of memory\n");
		exit(1);
	}
	pthread_barrier_init(&sh.go, NULL, n + 1);
	ddf_env_slot_fn = th_slot; /* before the threads, which read it */
	for (unsigned int i = 0; i < n; i++) {
		/* distinct streams: seeds 2^40 apart, never met in a run */
		a[i] = (struct th_arg){ &sh, *seed + ((uint64_t)i << 40), 0, 0,
					i };
		if (pthread_create(&th[i], NULL, th_run, &a[i])) {
			fprintf(stderr, "ddfbench: cannot start thread %u\n", i);
			exit(1);
		}
	}
	pthread_barrier_wait(&sh.go);
	t0 = now_s();
	nanosleep(&nap, NULL);
	__atomic_store_n(&sh.stop, 1, __ATOMIC_RELAXED);
	*dups = 0;
	for (unsigned int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		ops += a[i].ops;
		*dups += a[i].dups;
	}
	t0 = now_s() - t0;
	pthread_barrier_destroy(&sh.go);
	*seed += (uint64_t)n << 40;
	free(a);
	free(th);
	return ops / t0 / 1e6;
}

/*
 * One cache line handed back and forth between two threads on two CPUs:
 * what an insert into a filter the caches hold pays when the line it
 * writes was written last on the other CPU. A test-and-insert much
 * cheaper than this round trip loses to sharing; the figure says how
 * far the scaling of such a filter can go on this machine.
 */
#define TH_RTT_ROUNDS 5
#define TH_RTT_TRIPS 20000
#define TH_RTT_GIVE_UP 5.0 /* s: a CPU taken away must not hang the run */

struct th_rtt {
	_Alignas(64) uint64_t flag; /* odd: the first thread's turn is done */
	_Alignas(64) int quit; /* set by a side that gave up */
	double ns[TH_RTT_ROUNDS];
};

struct th_rtt_arg {
	struct th_rtt *r;
	int side;
};

/* Wait until flag is v; false when either side gave up. */
static bool th_rtt_wait(struct th_rtt *r, uint64_t v, double t0)
{
	for (uint32_t spin = 1;
	     __atomic_load_n(&r->flag, __ATOMIC_ACQUIRE) != v; spin++) {
		if (spin & 0xfffff)
			continue;
		if (__atomic_load_n(&r->quit, __ATOMIC_RELAXED) ||
		    now_s() - t0 > TH_RTT_GIVE_UP) {
			__atomic_store_n(&r->quit, 1, __ATOMIC_RELAXED);
			return false;
		}
	}
	return true;
}

static void *th_rtt_run(void *arg)
{
	struct th_rtt_arg *a = arg;
	struct th_rtt *r = a->r;
	uint64_t v = (uint64_t)a->side;
	double start = now_s();

	for (int k = 0; k < TH_RTT_ROUNDS; k++) {
		double t0 = now_s();

		for (int i = 0; i < TH_RTT_TRIPS; i++) {
			/* each side waits for its own parity, then hands over */
			if (!th_rtt_wait(r, v, start))
				return NULL;
			__atomic_store_n(&r->flag, v + 1, __ATOMIC_RELEASE);
			v += 2;
		}
		if (a->side == 0)
			r->ns[k] = (now_s() - t0) * 1e9 / TH_RTT_TRIPS;
	}
	return NULL;
}

/*
 * The median round trip in ns between the first two CPUs this process
 * may use (*cpu0, *cpu1), or 0 and the reason in *why.
 */
static double th_line_rtt(int *cpu0, int *cpu1, const char **why)
{
	struct th_rtt r = { 0 };
	struct th_rtt_arg a[2] = { { &r, 0 }, { &r, 1 } };
	pthread_attr_t attr;
	pthread_t th[2];
	cpu_set_t set, one;
	int cpu[2], n = 0, started = 0;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		*why = "the CPUs this process may use are unknown";
		return 0;
	}
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	if (n < 2) {
		*why = "one CPU: no line moves between CPUs";
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		CPU_ZERO(&one);
		CPU_SET(cpu[i], &one);
		if (pthread_attr_init(&attr))
			break;
		if (!pthread_attr_setaffinity_np(&attr, sizeof(one), &one) &&
		    !pthread_create(&th[i], &attr, th_rtt_run, &a[i]))
			started++;
		pthread_attr_destroy(&attr);
		if (started != i + 1)
			break;
	}
	if (started < 2)
		__atomic_store_n(&r.quit, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (r.quit) {
		*why = started < 2 ? "no thread could be put on each of two CPUs" :
				     "the line stopped moving (a CPU taken away)";
		return 0;
	}
	*cpu0 = cpu[0];
	*cpu1 = cpu[1];
	qsort(r.ns, TH_RTT_ROUNDS, sizeof(r.ns[0]), cmp_double);
	return r.ns[TH_RTT_ROUNDS / 2];
}

/*
 * The lines other than the filter's own bits or slots that one
 * test-and-insert writes, read off the code; NULL where not stated.
 */
static const char *th_shared_writes(const struct ddf_params *p)
{
	static char buf[200];
	bool time = p->flags & DDF_PF_TIME;
	uint32_t B = ddf_age_batch(p, ddf_apbf_gen_size(p));

	switch (p->kind) {
	case DDF_KIND_APBF:
	case DDF_KIND_APBBF:
		if (B > 1) {
			snprintf(buf, sizeof(buf),
				 "0 in the common case: %s once per batch of %u inserts (ddf_age.h)",
				 time ? "the spare segment's clearing" :
					"the insert ticket (one atomic add) and the spare segment's clearing",
				 B);
			return buf;
		}
		return time ? "0 (the spare segment's clearing cursor: once per chunk of inserts)" :
			      "1, the insert ticket (ddf_age.h: one atomic add, no batches: cpus 1 or a small filter); the spare segment's clearing cursor once per chunk of inserts";
	case DDF_KIND_QHT:
	case DDF_KIND_QHTD:
	case DDF_KIND_QQHTD:
		return "0 (a compare-and-swap on the key's own row only)";
	case DDF_KIND_QUEUE:
		return "2, the insert ticket and the current subfilter's state word (entered and left: two compare-and-swaps on one line)";
	case DDF_KIND_EXACT:
	case DDF_KIND_SHF:
	case DDF_KIND_CSHF:
		return "1 besides the ring and dictionary slots: the lock line (taken and released, the counters beside it)";
	default:
		return NULL;
	}
}

void speed_threads(const struct opts *o, const struct ddf_params *p,
		   struct ddf_filter *f)
{
	const char *w = th_shared_writes(p), *why = NULL;
	uint64_t seed = 0x5eed, dups;
	int c0 = -1, c1 = -1;
	double one = 0, rtt = th_line_rtt(&c0, &c1, &why);
	unsigned int n = 1;

	if (o->json)
		printf(", \"threads\": [");
	else
		printf("threads  Mops/s  scaling over 1 thread (%d s each, one shared filter, distinct keys)\n",
		       TH_SECONDS);
	for (;;) {
		double m = th_measure(f, n, &seed, &dups);

		if (n == 1)
			one = m;
		if (o->json)
			printf("%s{\"threads\": %u, \"mops\": %.3f, \"scaling\": %.3f, \"dups\": %llu}",
			       n == 1 ? "" : ", ", n, m, m / one,
			       (unsigned long long)dups);
		else
			printf("%7u  %6.2f  %.2f\n", n, m, m / one);
		fflush(stdout);
		if (n == o->threads)
			break;
		n = 2 * n < o->threads ? 2 * n : o->threads;
	}
	if (o->json) {
		printf("], \"shared_lines_written_per_op\": ");
		if (w)
			printf("\"%s\"", w);
		else
			printf("null");
		if (rtt > 0)
			printf(", \"line_round_trip_ns\": %.1f", rtt);
		else
			printf(", \"line_round_trip_ns\": null");
	} else {
		printf("shared lines written per op besides the filter's own: %s\n",
		       w ? w : "not stated for this kind");
		if (rtt > 0)
			printf("a cache line from CPU %d to CPU %d and back: %.1f ns (an insert pays about half of it for a line the other CPU wrote last)\n",
			       c0, c1, rtt);
		else
			printf("a cache line between CPUs: not measured (%s)\n",
			       why);
	}
}
