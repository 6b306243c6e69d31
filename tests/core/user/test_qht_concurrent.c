// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Several threads streaming into one QHT-family filter at once: a row
 * update must never be lost, and test_and_insert must stay one atomic
 * detect-and-update (of threads racing on one element, exactly one is told
 * UNSEEN by a QHT).
 */
#include <pthread.h>
#include <stdlib.h>
#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_test.h"

#define QC_THREADS 8
#define QC_K 8 /* = QC_THREADS: one cell per thread, no eviction */
#define QC_ROWS 256
#define QC_ROUNDS 1000

/* rows is a power of two: ddf_reduce(row << 56, 256) == row */
static struct ddf_hash qc_key(uint64_t row, uint64_t fp)
{
	struct ddf_hash h = { row << 56, fp };

	return h;
}

struct qc_shared {
	pthread_barrier_t start, done;
	struct ddf_filter *f;
	void *mem;
	uint64_t size;
	struct ddf_params p;
	int mode; /* 0: distinct fingerprints, 1: the same elements */
	uint32_t unseen[QC_ROWS * QC_K]; /* mode 1: UNSEEN answers per key */
	uint64_t wrong; /* mode 0: false duplicates */
};

struct qc_thread {
	struct qc_shared *sh;
	unsigned int id;
};

static void *qc_worker(void *arg)
{
	struct qc_thread *th = arg;
	struct qc_shared *sh = th->sh;
	unsigned int round, r, c;

	for (round = 0; round < QC_ROUNDS; round++) {
		pthread_barrier_wait(&sh->start);
		for (r = 0; r < QC_ROWS; r++) {
			if (sh->mode == 0) {
				struct ddf_hash h = qc_key(r, th->id + 1);

				if (ddf_filter_test_and_insert(sh->f, &h, 0))
					__atomic_fetch_add(&sh->wrong, 1,
							   __ATOMIC_RELAXED);
				continue;
			}
			for (c = 0; c < QC_K; c++) {
				struct ddf_hash h = qc_key(r, c + 1);

				if (!ddf_filter_test_and_insert(sh->f, &h, 0))
					__atomic_fetch_add(
						&sh->unseen[r * QC_K + c], 1,
						__ATOMIC_RELAXED);
			}
		}
		pthread_barrier_wait(&sh->done);
	}
	return NULL;
}

/*
 * Runs QC_ROUNDS rounds on a fresh filter each; check() runs between
 * rounds, while the workers wait.
 */
static void qc_run(ddf_test_t *t, struct qc_shared *sh,
		   void (*check)(ddf_test_t *t, struct qc_shared *sh))
{
	struct qc_thread th[QC_THREADS];
	pthread_t tid[QC_THREADS];
	unsigned int i, round;

	pthread_barrier_init(&sh->start, NULL, QC_THREADS + 1);
	pthread_barrier_init(&sh->done, NULL, QC_THREADS + 1);
	for (i = 0; i < QC_THREADS; i++) {
		th[i].sh = sh;
		th[i].id = i;
		pthread_create(&tid[i], NULL, qc_worker, &th[i]);
	}
	for (round = 0; round < QC_ROUNDS; round++) {
		sh->f = ddf_filter_init(sh->mem, sh->size, &sh->p, 0);
		for (i = 0; i < QC_ROWS * QC_K; i++)
			sh->unseen[i] = 0;
		pthread_barrier_wait(&sh->start);
		pthread_barrier_wait(&sh->done);
		check(t, sh);
	}
	for (i = 0; i < QC_THREADS; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&sh->start);
	pthread_barrier_destroy(&sh->done);
}

/*
 * Every thread's fingerprint is in every row: K appends to K cells, so an
 * update lost to a race would leave a cell empty and a fingerprint out.
 */
static void qc_check_all_stored(ddf_test_t *t, struct qc_shared *sh)
{
	struct ddf_stats st;
	unsigned int r, c, missing = 0;

	for (r = 0; r < QC_ROWS; r++)
		for (c = 0; c < QC_K; c++) {
			struct ddf_hash h = qc_key(r, c + 1);

			missing += !ddf_filter_lookup(sh->f, &h, 0);
		}
	ddf_filter_stats(sh->f, &st);
	DDF_EXPECT_MSG(t, !missing && st.used == QC_ROWS * QC_K,
		       "%s: %u fingerprints lost, %llu cells used",
		       ddf_kind_name(sh->p.kind), missing,
		       (unsigned long long)st.used);
}

/* QHT: of the threads racing on one element, one alone is told UNSEEN */
static void qc_check_one_unseen(ddf_test_t *t, struct qc_shared *sh)
{
	unsigned int i, bad = 0;

	for (i = 0; i < QC_ROWS * QC_K; i++)
		bad += sh->unseen[i] != 1;
	DDF_EXPECT_MSG(t, !bad, "%u elements not reported UNSEEN exactly once",
		       bad);
	qc_check_all_stored(t, sh);
}

static struct qc_shared *qc_alloc(ddf_test_t *t, uint32_t kind, int mode)
{
	struct qc_shared *sh = ddf_test_alloc(t, sizeof(*sh));
	const char *why;

	if (!sh)
		return NULL;
	sh->p = (struct ddf_params){
		.kind = kind, .k = QC_K, .fp_bits = 8, .m = QC_ROWS
	};
	sh->mode = mode;
	if (ddf_params_resolve(&sh->p, &why))
		return NULL;
	sh->size = ddf_filter_memsize(&sh->p);
	sh->mem = ddf_test_alloc(t, sh->size);
	return sh->mem ? sh : NULL;
}

DDF_TEST(qht_concurrent_no_lost_update)
{
	static const uint32_t kinds[] = { DDF_KIND_QHT, DDF_KIND_QHTD,
					  DDF_KIND_QQHTD };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct qc_shared *sh = qc_alloc(t, kinds[i], 0);

		DDF_ASSERT(t, sh);
		qc_run(t, sh, qc_check_all_stored);
		DDF_EXPECT_MSG(
			t, sh->wrong == 0,
			"%s: %llu distinct fingerprints reported as duplicates",
			ddf_kind_name(kinds[i]), (unsigned long long)sh->wrong);
	}
}

DDF_TEST(qht_concurrent_one_unseen)
{
	struct qc_shared *sh = qc_alloc(t, DDF_KIND_QHT, 1);

	DDF_ASSERT(t, sh);
	qc_run(t, sh, qc_check_one_unseen);
}

static ddf_case_t ddf_qht_concurrent_cases[] = {
	DDF_CASE(qht_concurrent_no_lost_update),
	DDF_CASE(qht_concurrent_one_unseen),
	DDF_CASES_END,
};

DDF_SUITE(ddf_qht_concurrent, ddf_qht_concurrent_cases);
