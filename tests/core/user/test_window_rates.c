// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The window filters against the analysis of "Approaching Optimal
 * Duplicate Detection in a Sliding Window" (Geraud-Stewart, Lombard-Platet,
 * Naccache):
 *   - SHF and CSHF measured on streams of distinct keys against Theorem 3,
 *     at memories M where the paper's hash size h is a whole number (so
 *     Algorithm 1's floor changes nothing) and at M = 10^5 bits where it
 *     is not (there the filter follows its floored h);
 *   - w_max, the window where Theorem 3's FP reaches 1/2, solved for 200
 *     memories log-spaced in [10^2, 10^6], and the paper's linear fits
 *     w_max = 0.0233 M + 186 (SHF, r^2 = 0.9977) and 0.0627 M + 443
 *     (CSHF, r^2 = 0.9981);
 *   - a queue of QHTs measured against Theorem 5 (by phase within a
 *     rotation) and Theorem 7 (its average);
 *   - several threads streaming into one filter.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "ddf_test_user.h"

static struct ddf_filter *wr_build(struct ddf_params p, void **mem)
{
	const char *why;
	uint64_t size;

	*mem = NULL;
	if (ddf_params_resolve(&p, &why))
		return NULL;
	size = ddf_filter_memsize(&p);
	*mem = malloc(size);
	return *mem ? ddf_filter_init(*mem, size, &p, 0) : NULL;
}

/* FP of a filter fed distinct keys: after warm insertions, over n more. */
static double wr_measure(struct ddf_filter *f, uint64_t warm, uint64_t n,
			 uint64_t *seed)
{
	uint64_t i, fp = 0;

	for (i = 0; i < warm; i++) {
		struct ddf_hash h = ddf_test_key(seed);

		ddf_filter_insert(f, &h, 0);
	}
	for (i = 0; i < n; i++) {
		struct ddf_hash h = ddf_test_key(seed);

		fp += ddf_filter_test_and_insert(f, &h, 0);
	}
	return (double)fp / n;
}

/* Binomial noise of a rate p over n trials, in units of sigma. */
static double wr_sigmas(double measured, double p, uint64_t n)
{
	double sd = sqrt(p * (1 - p) / n);

	return sd > 0 ? fabs(measured - p) / sd : (measured == p ? 0 : 1e9);
}

/*
 * Theorem 3. Within 4 sigma of 1 - (1 - 2^-h)^w at the filter's h (a
 * whole number of bits); where the paper's h is whole too, that is
 * Theorem 3 itself.
 */
DDF_TEST(shf_cshf_theorem3)
{
	static const struct {
		uint32_t kind;
		double M;
		uint64_t w, n;
	} cases[] = {
		{ DDF_KIND_SHF, 7168, 256, 100000 },
		{ DDF_KIND_SHF, 38912, 1024, 200000 },
		{ DDF_KIND_SHF, 180224, 4096, 200000 },
		{ DDF_KIND_SHF, 100000, 2500, 100000 },
		{ DDF_KIND_CSHF, 2560, 256, 100000 },
		{ DDF_KIND_CSHF, 14336, 1024, 100000 },
		{ DDF_KIND_CSHF, 100000, 7000, 20000 },
	};
	uint64_t seed = 2020;
	unsigned int i;

	DDF_LOG(t, "kind       M     w  h   measured  1-(1-2^-h)^w  Theorem 3");
	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		uint32_t h = ddf_shf_bits(cases[i].kind, cases[i].M,
					  cases[i].w);
		struct ddf_params p = { .kind = cases[i].kind,
					.window = cases[i].w,
					.fp_bits = h };
		double paper = ddf_shf_fpr_paper(cases[i].kind, cases[i].M,
						 (double)cases[i].w);
		double model = ddf_shf_fpr_bits(h, (double)cases[i].w);
		struct ddf_filter *f;
		double got;
		void *mem;

		f = wr_build(p, &mem);
		DDF_ASSERT(t, f);
		got = wr_measure(f, cases[i].w, cases[i].n, &seed);
		free(mem);
		DDF_LOG(t, "%-5s %7.0f %5llu %2u   %.5f   %.5f       %.5f",
			ddf_kind_name(cases[i].kind), cases[i].M,
			(unsigned long long)cases[i].w, h, got, model, paper);
		DDF_EXPECT_MSG(t, wr_sigmas(got, model, cases[i].n) < 4,
			       "%s M=%.0f w=%llu: measured %.5f, model %.5f",
			       ddf_kind_name(cases[i].kind), cases[i].M,
			       (unsigned long long)cases[i].w, got, model);
		/* the floored h sits between h and h + 1 of the paper */
		DDF_EXPECT(t, paper <= model * (1 + 1e-9) &&
				      paper >= ddf_shf_fpr_bits(h + 1, cases[i].w) *
						       (1 - 1e-9));
	}
}

/* Least squares y = a x + b, and r^2. */
static void wr_fit(const double *x, const double *y, int n, double *a,
		   double *b, double *r2)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
	int i;

	for (i = 0; i < n; i++) {
		mx += x[i] / n;
		my += y[i] / n;
	}
	for (i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	*a = sxy / sxx;
	*b = my - *a * mx;
	*r2 = sxy * sxy / (sxx * syy);
}

/*
 * Section 3.2: w_max over about 200 memories log-spaced in [10^2, 10^6].
 * The fit reproduces the paper's slope within 1% and intercept within 5%
 * (about 0.5% and 3% off) and its r^2 within 0.0005.
 */
DDF_TEST(wmax_linear_fits)
{
	static const struct {
		uint32_t kind;
		double a, b, r2;
	} paper[] = {
		{ DDF_KIND_SHF, 0.0233, 186, 0.9977 },
		{ DDF_KIND_CSHF, 0.0627, 443, 0.9981 },
	};
	enum { N = 200 };
	double M[N], w[N], a, b, r2;
	unsigned int k;
	int i;

	for (k = 0; k < DDF_ARRAY_SIZE(paper); k++) {
		for (i = 0; i < N; i++) {
			M[i] = pow(10, 2 + 4.0 * i / (N - 1));
			w[i] = ddf_shf_wmax(paper[k].kind, M[i]);
			/* it is the root: FP = 1/2 there */
			DDF_EXPECT(t, fabs(ddf_shf_fpr_paper(paper[k].kind,
							     M[i], w[i]) -
					   0.5) < 1e-9);
		}
		wr_fit(M, w, N, &a, &b, &r2);
		DDF_LOG(t, "%s: w_max = %.5f M + %.1f (r^2 %.5f); paper %.4f M + %.0f (r^2 %.4f); w_max(1e5) = %.0f",
			ddf_kind_name(paper[k].kind), a, b, r2, paper[k].a,
			paper[k].b, paper[k].r2,
			ddf_shf_wmax(paper[k].kind, 1e5));
		DDF_EXPECT(t, fabs(a / paper[k].a - 1) < 0.01);
		DDF_EXPECT(t, fabs(b / paper[k].b - 1) < 0.05);
		DDF_EXPECT(t, fabs(r2 - paper[k].r2) < 0.0005);
	}
}

/*
 * Theorem 5: a queue of L = 4 QHTs (k = 4, s = 5, 500 rows) with
 * c = 2000 insertions each, fed distinct keys. After the queue has filled
 * (L c insertions), the FP at phase m mod c is
 * 1 - (1 - FP(c))^(L-1) (1 - FP(m mod c)); measured over four quarters of
 * the rotation, each against the mean of Theorem 5 over its phases, and
 * overall against Theorem 7. Within 4 sigma.
 */
DDF_TEST(queue_theorem5)
{
	enum { L = 4, C = 2000, ROT = 100, BINS = 4 };
	struct ddf_params p = { .kind = DDF_KIND_QUEUE,
				.inner_kind = DDF_KIND_QHT,
				.window = L * C,
				.subfilters = L,
				.k = 4,
				.fp_bits = 5,
				.m = 500 };
	uint64_t fp[BINS] = { 0 }, seen[BINS] = { 0 }, all = 0, seed = 77;
	double model[BINS] = { 0 }, avg;
	struct ddf_filter *f;
	const char *why;
	uint64_t m, ph;
	void *mem;
	int b;

	DDF_ASSERT(t, !ddf_params_resolve(&p, &why));
	f = wr_build(p, &mem);
	DDF_ASSERT(t, f);
	for (m = 0; m < (uint64_t)L * C; m++) {
		struct ddf_hash h = ddf_test_key(&seed);

		ddf_filter_insert(f, &h, 0);
	}
	for (; m < (uint64_t)(L + ROT) * C; m++) {
		struct ddf_hash h = ddf_test_key(&seed);
		bool dup = ddf_filter_test_and_insert(f, &h, 0);

		b = (int)(m % C) * BINS / C;
		fp[b] += dup;
		seen[b]++;
		all += dup;
	}
	free(mem);
	for (ph = 0; ph < C; ph++)
		model[ph * BINS / C] += ddf_queue_fpr_at(&p, ph) / (C / BINS);
	avg = ddf_queue_fpr_avg(&p);
	DDF_LOG(t, "queue of %d QHT(k=4, s=5, 500 rows), c = %d: FP(c) = %.5f",
		L, C, ddf_window_fp_after(&(struct ddf_params){
			.kind = DDF_KIND_QHT, .k = 4, .fp_bits = 5, .m = 500,
			.window = C }, C));
	for (b = 0; b < BINS; b++) {
		double got = (double)fp[b] / seen[b];

		DDF_LOG(t, "phase %4d..%4d: measured %.5f, Theorem 5 %.5f",
			b * C / BINS, (b + 1) * C / BINS - 1, got, model[b]);
		DDF_EXPECT_MSG(t, wr_sigmas(got, model[b], seen[b]) < 4,
			       "phase quarter %d: %.5f vs %.5f", b, got,
			       model[b]);
	}
	DDF_LOG(t, "average: measured %.5f, Theorem 7 %.5f; before a rotation (Theorem 5, m mod c = c - 1) %.5f",
		(double)all / (ROT * C), avg, ddf_fpr_analytic(&p));
	DDF_EXPECT(t, wr_sigmas((double)all / (ROT * C), avg, ROT * C) < 4);
	/* Theorem 7 is Theorem 5 averaged over the phases */
	DDF_EXPECT(t, fabs((model[0] + model[1] + model[2] + model[3]) / BINS -
			   avg) < 1e-9);
	DDF_EXPECT(t, fabs(ddf_fpr_analytic(&p) -
			   ddf_queue_fpr_at(&p, C - 1)) < 1e-12);
}

/* Sizing: exact, SHF by target fpr and by memory budget. */
DDF_TEST(window_sizing)
{
	struct ddf_size_req req = { .kind = DDF_KIND_SHF, .window = 1024,
				    .fpr = 0.07 };
	struct ddf_size_report rep;
	struct ddf_params p;
	const char *why = NULL;

	DDF_ASSERT(t, !ddf_size(&req, &p, &rep, &why));
	DDF_EXPECT_EQ(t, p.fp_bits, 14); /* 0.0606 <= 0.07 < h = 13's */
	DDF_EXPECT(t, fabs(rep.fpr - 0.0605887290459477) < 1e-9);
	DDF_EXPECT_EQ(t, rep.bytes, ddf_filter_memsize(&p));

	req.fpr = 0;
	req.bytes = rep.bytes;
	DDF_ASSERT(t, !ddf_size(&req, &p, &rep, &why));
	DDF_EXPECT_EQ(t, p.fp_bits, 14);
	req.bytes = rep.bytes + 1024 / 8; /* one more bit per entry */
	DDF_ASSERT(t, !ddf_size(&req, &p, &rep, &why));
	DDF_EXPECT_EQ(t, p.fp_bits, 15);

	req = (struct ddf_size_req){ .kind = DDF_KIND_EXACT, .window = 100 };
	DDF_ASSERT(t, !ddf_size(&req, &p, &rep, &why));
	DDF_EXPECT(t, rep.fpr == 0 && rep.window == 100);

	req = (struct ddf_size_req){ .kind = DDF_KIND_QUEUE, .window = 100 };
	DDF_EXPECT(t, ddf_size(&req, &p, &rep, &why) == DDF_EINVAL && why);
}

/*
 * Several threads at once, in rounds: each round every thread streams the
 * same fresh keys, in the same order so that they race on each key, into
 * one filter, or, for a queue, its own distinct keys.
 */
enum { WC_THREADS = 8, WC_KEYS = 500, WC_ROUNDS = 100 };

struct wc_shared {
	struct ddf_filter *f;
	pthread_barrier_t start;
	uint32_t unseen[WC_KEYS];
	uint64_t round_seed;
	uint64_t wrong, false_dups;
	int distinct; /* 1: each thread its own keys */
};

struct wc_thread {
	struct wc_shared *sh;
	unsigned int id;
};

static void *wc_worker(void *arg)
{
	struct wc_thread *th = arg;
	struct wc_shared *sh = th->sh;
	uint64_t seed = th->id, i;
	int r;

	for (r = 0; r < WC_ROUNDS; r++) {
		/* thread 0 checks and resets the counts between rounds */
		pthread_barrier_wait(&sh->start);
		if (th->id == 0) {
			for (i = 0; r && !sh->distinct && i < WC_KEYS; i++)
				sh->wrong += sh->unseen[i] != 1;
			memset(sh->unseen, 0, sizeof(sh->unseen));
			sh->round_seed = ddf_fmix64(r + 1);
		}
		pthread_barrier_wait(&sh->start);
		for (i = 0; i < WC_KEYS; i++) {
			uint64_t k = i;
			struct ddf_hash h = { ddf_fmix64(k ^ sh->round_seed),
					      k ^ sh->round_seed };

			if (sh->distinct) {
				h = ddf_test_key(&seed);
				h.h2 = (h.h2 << 4) | th->id;
			}
			if (ddf_filter_test_and_insert(sh->f, &h, 0)) {
				if (sh->distinct)
					__atomic_fetch_add(&sh->false_dups, 1,
							   __ATOMIC_RELAXED);
			} else if (!sh->distinct) {
				__atomic_fetch_add(&sh->unseen[k], 1,
						   __ATOMIC_RELAXED);
			}
		}
	}
	pthread_barrier_wait(&sh->start);
	return NULL;
}

static void wc_run(struct wc_shared *sh)
{
	struct wc_thread th[WC_THREADS];
	pthread_t tid[WC_THREADS];
	unsigned int i;

	pthread_barrier_init(&sh->start, NULL, WC_THREADS);
	for (i = 0; i < WC_THREADS; i++) {
		th[i].sh = sh;
		th[i].id = i;
		pthread_create(&tid[i], NULL, wc_worker, &th[i]);
	}
	for (i = 0; i < WC_THREADS; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&sh->start);
	for (i = 0; !sh->distinct && i < WC_KEYS; i++)
		sh->wrong += sh->unseen[i] != 1;
}

/*
 * Exact and SHF (h = 64) over a window of two rounds: of the threads
 * racing on one key exactly one is told UNSEEN. Queues of exact filters
 * and of SHFs rotating every 16 insertions, fed distinct keys: no false
 * duplicates and no crash (a subfilter rebuilt under a reader would show
 * as garbage).
 */
DDF_TEST(window_concurrent)
{
	static const struct ddf_params ps[] = {
		{ .kind = DDF_KIND_EXACT, .window = 2 * WC_THREADS * WC_KEYS },
		{ .kind = DDF_KIND_SHF,
		  .window = 2 * WC_THREADS * WC_KEYS,
		  .fp_bits = 64 },
		{ .kind = DDF_KIND_QUEUE,
		  .inner_kind = DDF_KIND_EXACT,
		  .window = 32,
		  .subfilters = 2 },
		{ .kind = DDF_KIND_QUEUE,
		  .inner_kind = DDF_KIND_SHF,
		  .window = 64,
		  .subfilters = 4,
		  .fp_bits = 64 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(ps); i++) {
		struct wc_shared *sh = calloc(1, sizeof(*sh));
		struct ddf_stats st;
		void *mem;

		DDF_ASSERT(t, sh);
		sh->f = wr_build(ps[i], &mem);
		DDF_ASSERT(t, sh->f);
		sh->distinct = ps[i].kind == DDF_KIND_QUEUE;
		wc_run(sh);
		ddf_filter_stats(sh->f, &st);
		DDF_EXPECT_MSG(t, !sh->wrong && !sh->false_dups,
			       "%s: %llu keys not told UNSEEN once, %llu false duplicates",
			       ddf_kind_name(ps[i].kind),
			       (unsigned long long)sh->wrong,
			       (unsigned long long)sh->false_dups);
		DDF_EXPECT_EQ(t, st.inserts,
			      WC_THREADS * WC_KEYS * WC_ROUNDS);
		free(mem);
		free(sh);
	}
}

static ddf_case_t ddf_window_rates_cases[] = {
	DDF_CASE(shf_cshf_theorem3), DDF_CASE(wmax_linear_fits),
	DDF_CASE(queue_theorem5),    DDF_CASE(window_sizing),
	DDF_CASE(window_concurrent), DDF_CASES_END,
};

DDF_SUITE(ddf_window_rates, ddf_window_rates_cases);
