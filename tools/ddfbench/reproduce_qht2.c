// SPDX-License-Identifier: GPL-2.0
/*
 * Quotient Hash Tables (quotient-hash-tables-qqhtd.md), section 6.1:
 * Table 2 (FPR + FNR) and Table 4 (FPR / FNR) on the two artificial
 * streams, for the six filters of the benchmark at 10^4 .. 8 10^6 bits.
 *
 * Scaled. The paper streams 150,000,000 uniform elements from alphabets
 * of 2^24 and 2^27 (88.82% and 39.79% duplicates). A filter's error on a
 * uniform stream depends on its memory against the alphabet and on the
 * stream against the alphabet, so all three shrink by the same factor
 * (and so does b_DBF's window, counted in elements): every ratio, the
 * duplicate rates included, stays the paper's. The factor (1/16, --quick
 * 1/64; Cuckoo 16 times smaller still) is printed with the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * A saturated cuckoo filter kicks on nearly every insertion (about 3 us
 * each, as the paper's Table 3 finds too): it runs 16 times smaller still.
 */
static unsigned int q2_scale(const struct rp *r, unsigned int fi)
{
	return (r->quick ? 64 : 16) * (fi == Q2_CUCKOO ? 16 : 1);
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

/* b_DBF: the paper fixes the window; counters and k at the lowest fpr */
static void q2_bdbf(struct ddf_params *p, uint64_t bits, uint64_t window)
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
		q2_bdbf(p, bits, bdbf_window);
		break;
	}
}

/* one scaled stream: n elements uniform over the alphabet / scale */
static void q2_measure(struct ddf_params *p, unsigned int scale,
		       uint32_t alphabet_bits, double *fpr, double *fnr)
{
	uint64_t u = (1ull << alphabet_bits) / scale;
	uint64_t n = (uint64_t)(Q2_STREAM / scale), rng = 150, c[4] = { 0 };
	uint64_t salt1 = rp_rand(&rng), salt2 = rp_rand(&rng);
	uint64_t *seen = calloc(u / 64 + 1, 8);
	struct ddf_filter *f = rp_filter(p);

	if (!seen) {
		fprintf(stderr, "ddfbench: out of memory\n");
		exit(1);
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t e = rp_rand(&rng) & (u - 1);
		struct ddf_hash h = { ddf_fmix64(e ^ salt1),
				      ddf_fmix64(e ^ salt2) };
		bool dup = seen[e / 64] >> (e % 64) & 1;
		bool said = ddf_filter_test_and_insert(f, &h, 0);

		seen[e / 64] |= 1ull << (e % 64);
		c[dup ? 2 : 0]++;
		c[dup ? 3 : 1] += dup ? !said : said;
	}
	rp_filter_free(f);
	free(seen);
	*fpr = 100.0 * c[1] / c[0];
	*fnr = 100.0 * c[3] / c[2];
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

static void q2_cell(struct rp *r, unsigned int st, unsigned int mi,
		    unsigned int fi)
{
	unsigned int f = q2_scale(r, fi);
	const double *pp = q2_streams[st].rate[mi][fi];
	const char *row = rp_fmt(r, "%.5s%% dup, %g bits, %s",
				 q2_streams[st].name + 12, q2_bits[mi],
				 q2_names[fi]);
	struct ddf_params p;
	double fpr, fnr;

	q2_params(fi, (uint64_t)(q2_bits[mi] / f),
		  (uint64_t)(Q2_BDBF_WINDOW / f), &p);
	q2_measure(&p, q2_scale(r, fi), q2_streams[st].alphabet_bits, &fpr,
		   &fnr);
	if (fi == Q2_SBF || fi == Q2_A2) {
		q2_judge_own(r, row, fi, &p, pp, fpr, fnr);
		return;
	}
	rp_cmp(r, row, "FPR % (Table 4)", pp[0], fpr, RP_ABS, Q2_TOL, NULL);
	rp_cmp(r, row, "FNR % (Table 4)", pp[1], fnr, RP_ABS, Q2_TOL, NULL);
	rp_cmp(r, row, "FPR + FNR % (Table 2)", pp[0] + pp[1], fpr + fnr,
	       RP_ABS, Q2_TOL, NULL);
}

/*
 * Why Cuckoo at 8e6 bits misses fewer duplicates than the paper says: a
 * saturated table holding S fingerprints of an alphabet of U misses a
 * duplicate about (1 - S/U)(1 - FPR) of the time.
 */
static void q2_cuckoo_note(struct rp *r)
{
	unsigned int f = q2_scale(r, Q2_CUCKOO);
	const double *pp = q2_streams[0].rate[0][Q2_CUCKOO];
	struct ddf_params p, small;
	double su, fpr;

	q2_params(Q2_CUCKOO, (uint64_t)(q2_bits[0] / f), 1, &p);
	q2_params(Q2_CUCKOO, (uint64_t)(q2_bits[3] / f), 1, &small);
	su = (double)p.m * p.k / ((1ull << q2_streams[0].alphabet_bits) / f);
	fpr = ddf_cuckoo_fpr(&p);
	rp_note(r, "disagreements: Cuckoo at 8e6 bits misses fewer duplicates than the paper's (FNR %.2f%%): holding S/U = %.3f of the alphabet at an FPR of %.3f, a saturated table misses about (1 - S/U)(1 - FPR) = %.1f%% of the duplicates, near ddf's value; the paper's FNR implies it kept only ~%.0f%% of the alphabet. At 1e4 bits the scaled Cuckoo has %llu buckets, too coarse for its asymptote. b_DBF at 1e5 and 1e4 bits: the paper does not give its counter width and k, and its printed rates (27%% FPR at 16 bits per window element, 99.7%% at 1.7) fit none of ddf's lowest-fpr shapes.",
		pp[1], su, fpr, 100 * (1 - su) * (1 - fpr),
		100 * (1 - pp[1] / (100 - pp[0])),
		(unsigned long long)small.m);
}

void rp_qht_table2(struct rp *r)
{
	unsigned int f = q2_scale(r, Q2_QHT);

	rp_begin(r, "Error rates of six filters on saturating uniform streams, scaled",
		 "quotient-hash-tables-qqhtd.md, Table 2 and Table 4 (section 6.1, appendix A), artificial streams");
	/* --quick: the first stream only */
	for (unsigned int st = 0; st < (r->quick ? 1u : 2u); st++)
		for (unsigned int mi = 0; mi < 4; mi++)
			for (unsigned int fi = 0; fi < Q2_NF; fi++)
				q2_cell(r, st, mi, fi);
	rp_note(r, "scaled by 1/%u (Cuckoo 1/%u): streams of 150,000,000/%u elements from alphabets of 2^24/%u and 2^27/%u, memories and b_DBF's window of 6000 divided alike; elements per bit and duplicate rates are the paper's. Row labels give the paper's memory.%s",
		f, q2_scale(r, Q2_CUCKOO), f, f, f,
		r->quick ? " --quick: the 88.82 % stream only." : "");
	rp_note(r, "shapes (paper's list): SQF 1 bucket per row, r = 2, r' = 1; QHT 1 bucket, 3-bit fingerprints; Cuckoo cells of one 3-bit fingerprint; SBF 2-bit cells, 2 hashes, P for a stable FPR of 0.02; A2 the largest window whose worst case meets 0.1; b_DBF window 6000 with the counter width and k of lowest worst-case fpr (the paper does not give them). Memory counted as cells times bits; SQF and Cuckoo round their rows down to a power of two, as ddf's require (up to half the memory).");
	rp_note(r, "SBF: the paper targets 0.02 but prints FPRs of 26%%, and its footnote 19 says its implementation reached ~28%% for reasons it could not find; A2: it targets 0.1 on the window but prints 35-38%%. ddf's filters meet their targets, so their FPRs are judged against ddf's analytic rates and the FNRs (which trade against the FPR) are shown for information.");
	q2_cuckoo_note(r);
	rp_note(r, "one run per cell (the paper averages 5); the \"Real (10.3 %%)\" stream needs the paper's CommonCrawl trace: not reproduced.");
}
