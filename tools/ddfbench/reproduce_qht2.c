// SPDX-License-Identifier: GPL-2.0
/*
 * Quotient Hash Tables (quotient-hash-tables-qqhtd.md), section 6.1:
 * Table 2 (FPR + FNR) and Table 4 (FPR / FNR) on the two artificial
 * streams, for the six filters of the benchmark at 10^4 .. 8 10^6 bits.
 *
 * Scaled. The paper streams 150,000,000 uniform elements from alphabets
 * of 2^24 and 2^27 (88.82% and 39.79% duplicates). A filter's error on a
 * uniform stream depends on its memory against the alphabet and on the
 * stream against the alphabet, so all three shrink by the same factor:
 * every ratio, the duplicate rates included, stays the paper's. The factor
 * (1/16, --quick 1/64) is printed with the table. Two exceptions:
 * - Cuckoo runs up to 16 times smaller still (a saturated table kicks on
 *   every insertion), but keeps at least 128 buckets: a table of a few
 *   buckets is too coarse for its asymptote (its alternate bucket is often
 *   the first);
 * - b_DBF keeps the paper's memory and window: its error depends on the
 *   memory per window element and on its block length, which a scaled
 *   window would make relatively longer (6000 / 16 elements with 6-bit
 *   counters: blocks of 7 and a slack of 18%, against 2% unscaled).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ddf_hash.h"
#include "ddf_size.h"
#include "reproduce.h"

enum { Q2_SQF, Q2_QHT, Q2_CUCKOO, Q2_SBF, Q2_A2, Q2_BDBF, Q2_NF };

static const char *const q2_names[Q2_NF] = {
	"SQF", "QHT", "Cuckoo", "SBF", "A2", "b_DBF",
};

static const double q2_bits[4] = { 8e6, 1e6, 1e5, 1e4 };

/* Table 4, FPR / FNR in percent; Table 2 prints their sums */
static const struct {
	const char *name;
	uint32_t alphabet_bits;
	double rate[4][Q2_NF][2];
} q2_streams[] = {
	{ "Artificial (88.82 %)", 24,
	  { { { 21.87, 64.62 }, { 12.02, 70.74 }, { 27.80, 69.14 },
	      { 25.94, 71.85 }, { 35.22, 52.84 }, { 0.00, 99.96 } },
	    { { 24.60, 73.67 }, { 14.00, 83.80 }, { 28.41, 71.19 },
	      { 26.43, 73.30 }, { 37.72, 60.77 }, { 0.17, 99.79 } },
	    { { 24.94, 74.84 }, { 14.26, 85.53 }, { 28.52, 71.44 },
	      { 26.49, 73.49 }, { 38.00, 61.83 }, { 27.46, 72.51 } },
	    { { 24.98, 74.99 }, { 14.28, 85.69 }, { 28.55, 71.47 },
	      { 26.50, 73.50 }, { 38.03, 61.97 }, { 99.67, 0.31 } } } },
	{ "Artificial (39.79 %)", 27,
	  { { { 24.42, 72.09 }, { 13.86, 81.52 }, { 28.39, 70.82 },
	      { 26.40, 73.00 }, { 37.54, 59.32 }, { 0.00, 99.99 } },
	    { { 24.92, 74.64 }, { 14.24, 85.18 }, { 28.50, 71.41 },
	      { 26.47, 73.44 }, { 38.00, 61.60 }, { 0.17, 99.82 } },
	    { { 24.99, 74.96 }, { 14.29, 85.66 }, { 28.51, 71.49 },
	      { 26.49, 73.50 }, { 38.05, 61.91 }, { 27.46, 72.52 } },
	    { { 25.00, 74.99 }, { 14.28, 85.72 }, { 28.52, 71.49 },
	      { 26.49, 73.51 }, { 38.02, 61.97 }, { 99.69, 0.31 } } } },
};

#define Q2_STREAM 150000000.0
#define Q2_BDBF_WINDOW 6000.0
#define Q2_TOL 3.0 /* points, as for Table 1 */

#define Q2_CUCKOO_MIN_BUCKETS 32
/*
 * Cuckoo (500 kicks per insertion once full) and the unscaled b_DBF (a
 * slice of its counters decremented per element) see at most 2^19
 * elements: both are stationary long before (b_DBF after a window,
 * Cuckoo after its few thousand cells), and their rates per class of
 * element, which the table prints, do not depend on the stream's length.
 */
#define Q2_SLOW_CAP (1ull << 19)

static uint64_t q2_pow2_le(uint64_t x)
{
	uint64_t p = 1;

	while (p * 2 <= x)
		p *= 2;
	return p;
}

/* the stream's and alphabet's scale; the memory's, b_DBF aside */
static unsigned int q2_base(const struct rp *r)
{
	return r->quick ? 64 : 16;
}

/*
 * A saturated cuckoo filter kicks on nearly every insertion (about 3 us
 * each, as the paper's Table 3 finds too): it runs up to 16 times smaller
 * still, down to Q2_CUCKOO_MIN_BUCKETS buckets.
 */
static unsigned int q2_scale(const struct rp *r, unsigned int fi,
			     double bits)
{
	unsigned int f = q2_base(r);

	if (fi != Q2_CUCKOO)
		return f;
	for (f *= 16; f > q2_base(r); f /= 2)
		if (q2_pow2_le((uint64_t)(bits / f) / 3) >=
		    Q2_CUCKOO_MIN_BUCKETS)
			break;
	return f;
}

/* the memory's scale: b_DBF keeps the paper's memory and window */
static unsigned int q2_mem_scale(const struct rp *r, unsigned int fi,
				 double bits)
{
	return fi == Q2_BDBF ? 1 : q2_scale(r, fi, bits);
}

/* A2: the largest window whose worst case meets 0.1, best k (paper) */
static void q2_a2(struct ddf_params *p, uint64_t bits)
{
	uint64_t lo = 1, hi = bits;

	p->m = bits / 2;
	while (lo < hi) {
		uint64_t c = (lo + hi + 1) / 2;
		struct ddf_params q = *p;
		bool fits = false;

		q.window = c;
		for (q.k = 1; q.k <= 16 && !fits; q.k++)
			fits = ddf_a2_fpr(&q) <= 0.1;
		if (fits)
			lo = c;
		else
			hi = c - 1;
	}
	p->window = lo;
	for (p->k = 1; p->k < 16 && ddf_a2_fpr(p) > 0.1; p->k++)
		;
}

/*
 * b_DBF: the paper fixes the window and gives neither the counter width
 * nor k. Its FPR column (0.00, 0.17, 27.46, 99.67 % at 8e6 .. 1e4 bits)
 * fits one shape: 6-bit counters and k = 2 (ddf's mean rate 0.01, 0.49,
 * 26.7, 99.87 %; no other c <= 16, k <= 8 stays within 1.4 points of all
 * four). That shape is measured; q2_bdbf_low() is ddf's own choice.
 */
#define Q2_BDBF_C 6
#define Q2_BDBF_K 2

static void q2_bdbf_paper(struct ddf_params *p, uint64_t bits,
			  uint64_t window)
{
	p->window = window;
	p->cell_bits = Q2_BDBF_C;
	p->k = Q2_BDBF_K;
	p->m = bits / Q2_BDBF_C - (bits / Q2_BDBF_C) % (64 / Q2_BDBF_C);
}

/* ddf's sizing for the budget: counters and k at the lowest fpr */
static void q2_bdbf_low(struct ddf_params *p, uint64_t bits, uint64_t window)
{
	double best = 2;

	p->window = window;
	for (uint32_t c = 2; c <= 16; c++) {
		for (uint32_t k = 1; k <= 32; k++) {
			struct ddf_params q = *p;
			double f;

			q.cell_bits = c;
			q.k = k;
			q.m = bits / c - (bits / c) % (64 / c);
			f = q.m ? ddf_bdbf_fpr(&q) : 2;
			if (f < best) {
				best = f;
				*p = q;
			}
		}
	}
}

/*
 * The paper's shapes (its section 6.1 list), memory counted as it counts
 * it: cells times bits per cell.
 */
static void q2_params(unsigned int fi, uint64_t bits, uint64_t bdbf_window,
		      struct ddf_params *p)
{
	static const uint32_t kinds[Q2_NF] = {
		DDF_KIND_SQF, DDF_KIND_QHT, DDF_KIND_CUCKOO,
		DDF_KIND_SBF, DDF_KIND_A2, DDF_KIND_BDBF,
	};

	*p = (struct ddf_params){ .kind = kinds[fi], .rng_seed = 17 + fi };
	switch (fi) {
	case Q2_SQF: /* 1 bucket per row, r = 2, r' = 1 */
		p->k = 1;
		p->fp_bits = 2;
		p->cell_bits = 3;
		/* ddf's SQF wants 2^q rows: the largest that fits */
		for (p->m = 1; p->m * 2 <= bits / 3; p->m *= 2)
			;
		break;
	case Q2_QHT: /* 1 bucket per row, 3-bit fingerprints */
		p->rng_seed = 0;
		p->k = 1;
		p->fp_bits = 3;
		p->m = bits / 3;
		break;
	case Q2_CUCKOO: /* cells of 1 element of 3 bits; 2^q buckets */
		p->k = 1;
		p->fp_bits = 3;
		for (p->m = 1; p->m * 2 <= bits / 3; p->m *= 2)
			;
		break;
	case Q2_SBF: /* 2 bits per cell, 2 hashes, target FPR 0.02 */
		p->k = 2;
		p->cell_bits = 2;
		p->m = bits / 2;
		p->decrements = (uint32_t)ddf_sbf_decrements(2, 2, p->m, 0.02);
		break;
	case Q2_A2: /* target FPR 0.1 on the window; not randomised */
		p->rng_seed = 0;
		q2_a2(p, bits);
		break;
	default: /* window of 6000 elements; not randomised */
		p->rng_seed = 0;
		q2_bdbf_paper(p, bits, bdbf_window);
		break;
	}
}

/*
 * One scaled stream: elements uniform over the alphabet / scale, at most
 * `cap` of the paper's 150,000,000 / scale. in_window: the share of the
 * duplicates whose previous occurrence is at most `window` elements back.
 */
static void q2_measure(struct ddf_params *p, unsigned int scale,
		       uint32_t alphabet_bits, uint64_t cap, uint64_t window,
		       double *fpr, double *fnr, double *in_window)
{
	uint64_t u = (1ull << alphabet_bits) / scale;
	uint64_t n = (uint64_t)(Q2_STREAM / scale), rng = 150, c[4] = { 0 };
	uint64_t salt1 = rp_rand(&rng), salt2 = rp_rand(&rng), near = 0;
	uint32_t *last = window ? calloc(u, sizeof(*last)) : NULL;
	uint64_t *seen = calloc(u / 64 + 1, 8);
	struct ddf_filter *f = rp_filter(p);

	if (!seen || (window && !last)) {
		fprintf(stderr, "ddfbench: out of memory\n");
		exit(1);
	}
	if (n > cap)
		n = cap;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t e = rp_rand(&rng) & (u - 1);
		struct ddf_hash h = { ddf_fmix64(e ^ salt1),
				      ddf_fmix64(e ^ salt2) };
		bool dup = seen[e / 64] >> (e % 64) & 1;
		bool said = ddf_filter_test_and_insert(f, &h, 0);

		seen[e / 64] |= 1ull << (e % 64);
		c[dup ? 2 : 0]++;
		c[dup ? 3 : 1] += dup ? !said : said;
		if (last) {
			near += dup && i + 1 - last[e] <= window;
			last[e] = (uint32_t)(i + 1);
		}
	}
	rp_filter_free(f);
	free(seen);
	free(last);
	*fpr = 100.0 * c[1] / c[0];
	*fnr = 100.0 * c[3] / c[2];
	*in_window = 100.0 * near / c[2];
}

/*
 * SBF and A2 do not reach the FPRs the paper prints (its footnote 19 says
 * its own SBF measured ~28% against a 2% target): their FPR is judged
 * against ddf's analytic rate, and the FNR and sum that follow from the
 * paper's FPR are shown without a verdict.
 */
static void q2_judge_own(struct rp *r, const char *row, unsigned int fi,
			 const struct ddf_params *p, const double *pp,
			 double fpr, double fnr)
{
	double ref = 100 * (fi == Q2_SBF ? ddf_sbf_fpr(p) : ddf_a2_fpr_mean(p));

	rp_meas(r, row, "FPR % (Table 4)", pp[0], fpr, ref,
		fi == Q2_SBF ? "ddf's stable rate" : "ddf's mean over a cycle",
		1.0, "1 point");
	rp_cmp(r, row, "FNR % (Table 4)", pp[1], fnr, RP_INFO, 0, NULL);
	rp_cmp(r, row, "FPR + FNR % (Table 2)", pp[0] + pp[1], fpr + fnr,
	       RP_INFO, 0, NULL);
}

/*
 * A table that keeps S distinct fingerprints of an alphabet of U misses a
 * duplicate only when its element is not held (at least 1 - S/U of the
 * time) and no other fingerprint matches: FNR <= (1 - S/U)(1 - FPR). The
 * paper's Cuckoo at 8e6 bits on the 88.82 % stream is above that bound
 * for any table of its memory (2^21 to 2.67M cells): its value is
 * disputed and ddf's is held to the bound.
 */
static void q2_cuckoo_bound(struct rp *r, const char *row,
			    const struct ddf_params *p, unsigned int scale,
			    uint32_t alphabet_bits, const double *pp,
			    double fpr, double fnr)
{
	double su = (double)p->m * p->k / ((1ull << alphabet_bits) / scale);
	double bound = 100 * (1 - su) * (1 - fpr / 100);
	double cells = q2_bits[0] / 3;
	double pbound = 100 * (1 - cells / (1ull << alphabet_bits)) *
			(1 - pp[0] / 100);

	rp_cmp(r, row, rp_fmt(r, "bound: FNR <= (1 - S/U)(1 - FPR) = %.2f", bound),
	       NAN, fnr <= bound, RP_TREND, 0, NULL);
	if (pp[1] <= pbound + Q2_TOL) {
		rp_cmp(r, row, "FNR % (Table 4)", pp[1], fnr, RP_ABS, Q2_TOL,
		       NULL);
		rp_cmp(r, row, "FPR + FNR % (Table 2)", pp[0] + pp[1],
		       fpr + fnr, RP_ABS, Q2_TOL, NULL);
		return;
	}
	rp_cmp(r, row, "FNR % (Table 4)", pp[1], fnr, RP_PAPER, 0,
	       rp_fmt(r, "above %.1f, the bound for all %.0f cells full at its own FPR",
		      pbound, cells));
	rp_cmp(r, row, "FPR + FNR % (Table 2)", pp[0] + pp[1], fpr + fnr,
	       RP_PAPER, 0, "follows the FNR");
}

static void q2_cell(struct rp *r, unsigned int st, unsigned int mi,
		    unsigned int fi)
{
	unsigned int f = q2_scale(r, fi, q2_bits[mi]);
	unsigned int fm = q2_mem_scale(r, fi, q2_bits[mi]);
	const double *pp = q2_streams[st].rate[mi][fi];
	const char *row = rp_fmt(r, "%.5s%% dup, %g bits, %s",
				 q2_streams[st].name + 12, q2_bits[mi],
				 q2_names[fi]);
	struct ddf_params p;
	double fpr, fnr, near;

	q2_params(fi, (uint64_t)(q2_bits[mi] / fm),
		  (uint64_t)(Q2_BDBF_WINDOW / fm), &p);
	q2_measure(&p, f, q2_streams[st].alphabet_bits,
		   fi == Q2_CUCKOO || fi == Q2_BDBF ? Q2_SLOW_CAP : ~0ull,
		   fi == Q2_BDBF ? p.window : 0, &fpr, &fnr, &near);
	if (fi == Q2_SBF || fi == Q2_A2) {
		q2_judge_own(r, row, fi, &p, pp, fpr, fnr);
		return;
	}
	rp_cmp(r, row, "FPR % (Table 4)", pp[0], fpr, RP_ABS, Q2_TOL, NULL);
	if (fi == Q2_CUCKOO && mi == 0) {
		q2_cuckoo_bound(r, row, &p, f, q2_streams[st].alphabet_bits,
				pp, fpr, fnr);
		return;
	}
	if (fi == Q2_BDBF) {
		/*
		 * Repeats inside the window are never missed; on the paper's
		 * stream they are 6000 / alphabet of the duplicates (0.04 %
		 * at most), on the scaled one more: the FNR is judged over
		 * the duplicates outside the window.
		 */
		rp_cmp(r, row, "duplicates inside the window % (paper's stream: < 0.04)",
		       NAN, near, RP_INFO, 0, NULL);
		fnr = 100 * fnr / (100 - near);
		rp_cmp(r, row, "FNR % outside the window (Table 4)", pp[1], fnr,
		       RP_ABS, Q2_TOL, NULL);
	} else {
		rp_cmp(r, row, "FNR % (Table 4)", pp[1], fnr, RP_ABS, Q2_TOL,
		       NULL);
	}
	rp_cmp(r, row, "FPR + FNR % (Table 2)", pp[0] + pp[1], fpr + fnr,
	       RP_ABS, Q2_TOL, NULL);
	if (fi == Q2_BDBF && st == 0) {
		struct ddf_params low = p;

		q2_bdbf_low(&low, (uint64_t)q2_bits[mi], p.window);
		rp_cmp(r, row, rp_fmt(r, "FPR %% of ddf's lowest-fpr shape (c=%u, k=%u), analytic mean",
				      low.cell_bits, low.k),
		       NAN, 100 * ddf_bdbf_fpr_mean(&low), RP_INFO, 0, NULL);
	}
}

/* Why the paper's Cuckoo at 8e6 bits misses more duplicates than ddf's */
static void q2_cuckoo_note(struct rp *r)
{
	const double *pp = q2_streams[0].rate[0][Q2_CUCKOO];
	double held = 1 - pp[1] / (100 - pp[0]);

	rp_note(r, "Cuckoo at 8e6 bits, 88.82 %% stream: the paper's FPR %.2f %% says its table was nearly full (2/7 = 28.6 %% when full), yet its FNR %.2f %% says it held only %.1f %% of the alphabet (1 - FNR/(1 - FPR)), %.1fM elements, where 8e6 bits of 3-bit cells hold 2.1M (2^21 buckets) to 2.67M: a table that keeps what it stores cannot miss that many. ddf's stays under the bound (the row \"bound\"); the paper's value is disputed. On the 39.79 %% stream, where S/U is 8 times smaller, the paper's value is within the bound and ddf agrees with it.",
		pp[0], pp[1], 100 * held,
		held * (1u << q2_streams[0].alphabet_bits) / 1e6);
	rp_note(r, "b_DBF: the paper gives neither its counter width nor k; 6-bit counters with k = 2 is the shape whose analytic FPR lies nearest all four of its FPRs (within 0.72 points; the next, c = 4 and k = 7, within 1.5; checked over c <= 16, k <= 8): the FPR rows check that ddf's b_DBF of that shape measures what the paper measured, the shape itself was read off the paper's FPR column. Lowest-fpr shapes (ddf's sizing, info rows) do far better: 27 %% is not what a b_DBF of 1e5 bits must make. b_DBF runs unscaled (memory and window) on the scaled stream, cut to 2^19 elements: a repeat then falls inside the window more often than in the paper's (the info rows; such repeats are never missed), so its FNR is counted over the duplicates outside the window, as nearly all of the paper's are.");
}

void rp_qht_table2(struct rp *r)
{
	unsigned int f = q2_base(r);

	rp_begin(r, "Error rates of six filters on saturating uniform streams, scaled",
		 "quotient-hash-tables-qqhtd.md, Table 2 and Table 4 (section 6.1, appendix A), artificial streams");
	/* --quick: the first stream only */
	for (unsigned int st = 0; st < (r->quick ? 1u : 2u); st++)
		for (unsigned int mi = 0; mi < 4; mi++)
			for (unsigned int fi = 0; fi < Q2_NF; fi++)
				q2_cell(r, st, mi, fi);
	rp_note(r, "scaled by 1/%u: streams of 150,000,000/%u elements from alphabets of 2^24/%u and 2^27/%u, memories divided alike; elements per bit and duplicate rates are the paper's. Cuckoo: 1/%u, 1/%u, 1/%u, 1/%u of the alphabet and memory at 8e6 .. 1e4 bits (at least %d buckets); b_DBF: the paper's memory and window; both streams cut to 2^19 elements (see Q2_SLOW_CAP). Row labels give the paper's memory.%s",
		f, f, f, f, q2_scale(r, Q2_CUCKOO, q2_bits[0]),
		q2_scale(r, Q2_CUCKOO, q2_bits[1]),
		q2_scale(r, Q2_CUCKOO, q2_bits[2]),
		q2_scale(r, Q2_CUCKOO, q2_bits[3]), Q2_CUCKOO_MIN_BUCKETS,
		r->quick ? " --quick: the 88.82 % stream only." : "");
	rp_note(r, "shapes (paper's list): SQF 1 bucket per row, r = 2, r' = 1; QHT 1 bucket, 3-bit fingerprints; Cuckoo cells of one 3-bit fingerprint; SBF 2-bit cells, 2 hashes, P for a stable FPR of 0.02; A2 the largest window whose worst case meets 0.1; b_DBF window 6000, 6-bit counters, k = 2 (see below). Memory counted as cells times bits; SQF and Cuckoo round their rows down to a power of two, as ddf's require (up to half the memory).");
	rp_note(r, "SBF: the paper targets 0.02 but prints FPRs of 26%%, and its footnote 19 says its implementation reached ~28%% for reasons it could not find; A2: it targets 0.1 on the window but prints 35-38%%. ddf's filters meet their targets, so their FPRs are judged against ddf's analytic rates and the FNRs (which trade against the FPR) are shown for information.");
	q2_cuckoo_note(r);
	rp_note(r, "one run per cell (the paper averages 5); the \"Real (10.3 %%)\" stream needs the paper's CommonCrawl trace: not reproduced.");
}

/*
 * Table 3 (section 6.2): microseconds per Stream (Insert after Detect)
 * with 1 Mb of memory, the Table 2 shapes. Absolute times belong to the
 * paper's laptop and implementation: ddf's are printed beside them, and
 * what is judged is the paper's reading of them, the order of the
 * filters. Each filter sees the 88.82 % stream (alphabet 2^24) after a
 * warm-up that saturates it; hashes are precomputed, so the time is the
 * filter's own (the paper's includes hashing its elements).
 */
#define T3_WARM (1u << 19)
#define T3_OPS (1u << 21)

static double t3_time(struct ddf_params *p)
{
	struct ddf_hash *hs = malloc(T3_OPS * sizeof(*hs));
	uint64_t rng = 33, salt1 = rp_rand(&rng), salt2 = rp_rand(&rng);
	uint64_t u = (1ull << 24) - 1, dups = 0;
	struct ddf_filter *f = rp_filter(p);
	double best[3];

	if (!hs) {
		fprintf(stderr, "ddfbench: out of memory\n");
		exit(1);
	}
	for (uint64_t i = 0; i < T3_WARM; i++) {
		uint64_t e = rp_rand(&rng) & u;
		struct ddf_hash h = { ddf_fmix64(e ^ salt1),
				      ddf_fmix64(e ^ salt2) };

		dups += ddf_filter_test_and_insert(f, &h, 0);
	}
	for (int round = 0; round < 3; round++) {
		struct timespec a, b;
		uint64_t i;

		for (uint64_t i = 0; i < T3_OPS; i++) {
			uint64_t e = rp_rand(&rng) & u;

			hs[i] = (struct ddf_hash){ ddf_fmix64(e ^ salt1),
						   ddf_fmix64(e ^ salt2) };
		}
		/* at most a second a round: the cuckoo table kicks */
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = 0; i < T3_OPS; i++) {
			dups += ddf_filter_test_and_insert(f, &hs[i], 0);
			if (!(i & 4095)) {
				clock_gettime(CLOCK_MONOTONIC, &b);
				if (b.tv_sec - a.tv_sec > 1)
					break;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		best[round] = ((b.tv_sec - a.tv_sec) * 1e9 +
			       (b.tv_nsec - a.tv_nsec)) / i / 1000;
	}
	rp_filter_free(f);
	free(hs);
	if (dups == 1)
		puts("");
	/* the median of three rounds */
	if (best[0] > best[1]) {
		double x = best[0];

		best[0] = best[1];
		best[1] = x;
	}
	return best[2] < best[0] ? best[0] : best[2] > best[1] ? best[1] :
								 best[2];
}

void rp_qht_table3(struct rp *r)
{
	/* SQF QHT QQHTD Cuckoo SBF A2 b_DBF, microseconds */
	static const double paper[] = { 0.423, 0.288, 0.330, 2.464, 1.578,
					1.280, 2.565 };
	static const char *const names[] = { "SQF", "QHT", "QQHTD", "Cuckoo",
					     "SBF", "A2", "b_DBF" };
	static const int fis[] = { Q2_SQF, Q2_QHT, Q2_QHT, Q2_CUCKOO, Q2_SBF,
				   Q2_A2, Q2_BDBF };
	double us[7];
	bool faster = true;

	rp_begin(r, "Time of one Stream with 1 Mb of memory",
		 "quotient-hash-tables-qqhtd.md, Table 3 (section 6.2)");
	for (int i = 0; i < 7; i++) {
		struct ddf_params p;

		q2_params(fis[i], 1000000, (uint64_t)Q2_BDBF_WINDOW, &p);
		if (i == 2)
			p.kind = DDF_KIND_QQHTD;
		us[i] = t3_time(&p);
	}
	for (int i = 0; i < 7; i++) {
		const char *row = names[i];

		rp_cmp(r, row, "us per Stream (paper: laptop i7, hashing included)",
		       paper[i], us[i], RP_INFO, 0, NULL);
		rp_cmp(r, row, "time / QHT's", paper[i] / paper[1],
		       us[i] / us[1], RP_INFO, 0, NULL);
		if (i >= 3)
			faster &= us[1] < us[i];
	}
	rp_cmp(r, "QHT", "claim: QHT faster than Cuckoo, SBF, A2 and b_DBF",
	       NAN, faster, RP_TREND, 0, NULL);
	rp_note(r, "the paper's prose reads its table as: QHT 6 times as fast as every filter but SQF and 10 times as fast as b_DBF, SQF 50 %% slower than QHT, QQHTD faster than SQF; its own table has A2 4.4 and SBF 5.5 times QHT's time, so \"6 times\" is loose. Its times include hashing each element; ddf's are the filter alone (hashes precomputed, up to %u after a warm-up of %u elements of the 88.82 %% stream, median of 3 rounds of at most a second), on whatever machine runs this, so only the order is judged: QHT ahead of the four filters that are not quotient tables. The ratios differ with the implementations: ddf's saturated Cuckoo relocates 500 times per insertion, its A2 is a few bit reads in a filter that fits the cache. SQF and QQHTD against QHT are shown, not judged: with one bucket per row the three do the same work.",
		T3_OPS, T3_WARM);
}
