// SPDX-License-Identifier: GPL-2.0
/*
 * Quotient Hash Tables (quotient-hash-tables-qqhtd.md): Table 1 (section
 * 4.5) and the artificial-stream rows of Table 5 (appendix C). The setup is
 * the paper's: about 65,536 bits, streams of 100,000 elements drawn
 * uniformly from 2^20, exact ground truth, 10 runs pooled. Ported from
 * tests/core/user/test_qht_table1.c, which explains the mapping of S.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ddf_hash.h"
#include "reproduce.h"

#define QT_ALPHABET_BITS 20
#define QT_STREAM 100000
#define QT_BITS 65536
/* noise between neighbouring columns is about 0.3 points; steps are 4+ */
#define QT_TREND_SLACK 0.5

struct qt_result {
	double fpr, fnr; /* percent */
};

/*
 * A QHT or QQHTD written apart from ddf's, with no word limit on a row
 * (k cells of s bits in bytes): the paper's algorithms, 0 as the empty
 * cell as in ddf. It runs the same streams, so the paper's S = 64 columns
 * can be reproduced and ddf's other columns checked against it.
 */
struct qt_model {
	uint8_t *cells;
	uint64_t rows, rng;
	uint32_t k, s;
	bool queued;
};

static bool qt_model_stream(struct qt_model *q, const struct ddf_hash *h)
{
	uint8_t *row = q->cells + ddf_reduce(h->h1, q->rows) * q->k;
	uint8_t fp = (uint8_t)(1 + h->h2 % ((1u << q->s) - 1));
	uint32_t i;
	bool dup = false;

	for (i = 0; i < q->k && !dup; i++)
		dup = row[i] == fp;
	if (q->queued) {
		/* Algorithm 2: pop the oldest, append fp, duplicate or not */
		memmove(row, row + 1, q->k - 1);
		row[q->k - 1] = fp;
		return dup;
	}
	if (dup)
		return true;
	for (i = 0; i < q->k && row[i]; i++)
		;
	if (i == q->k)
		i = (uint32_t)ddf_reduce(rp_rand(&q->rng), q->k);
	row[i] = fp;
	return false;
}

/* one run: a fresh filter (or model), stream and hash seeds; counts add */
static void qt_run(struct ddf_filter *f, struct qt_model *mod, uint64_t *seen,
		   uint64_t *rng, uint64_t c[4])
{
	uint64_t seed1 = rp_rand(rng), seed2 = rp_rand(rng);

	memset(seen, 0, (1u << QT_ALPHABET_BITS) / 8);
	for (int i = 0; i < QT_STREAM; i++) {
		uint64_t e = rp_rand(rng) & ((1u << QT_ALPHABET_BITS) - 1);
		struct ddf_hash h = { ddf_fmix64(e ^ seed1),
				      ddf_fmix64(e ^ seed2) };
		bool dup = seen[e / 64] >> (e % 64) & 1;
		bool said = f ? ddf_filter_test_and_insert(f, &h, 0) :
				qt_model_stream(mod, &h);

		seen[e / 64] |= 1ull << (e % 64);
		c[dup ? 2 : 0]++;	/* duplicates, unseen */
		c[dup ? 3 : 1] += dup ? !said : said;
	}
}

/* FPR over unseen elements, FNR over duplicates, pooled over the runs */
static void qt_measure(uint32_t kind, uint32_t k, uint32_t s, int runs,
		       bool model, struct qt_result *res)
{
	uint64_t *seen = malloc((1u << QT_ALPHABET_BITS) / 8);
	uint64_t c[4] = { 0 }, rng = 2024;

	if (!seen) {
		fprintf(stderr, "ddfbench: out of memory\n");
		exit(1);
	}
	for (int run = 0; run < runs; run++) {
		struct ddf_params p = { .kind = kind, .k = k, .fp_bits = s,
					.m = (QT_BITS + k * s / 2) / (k * s) };
		struct qt_model mod = { .rows = p.m, .k = k, .s = s,
					.rng = 7 + run,
					.queued = kind == DDF_KIND_QQHTD };
		struct ddf_filter *f = NULL;

		if (model) {
			mod.cells = calloc(p.m, k);
			if (!mod.cells) {
				fprintf(stderr, "ddfbench: out of memory\n");
				exit(1);
			}
		} else {
			f = rp_filter(&p);
		}
		qt_run(f, &mod, seen, &rng, c);
		if (f)
			rp_filter_free(f);
		free(mod.cells);
	}
	free(seen);
	res->fpr = 100.0 * c[1] / c[0];
	res->fnr = 100.0 * c[3] / c[2];
}

/* Table 1: S = 4 .. 64, k = S/4 */
static const struct {
	uint32_t s, k;
	double fpr, fnr, sum;
} t1[] = {
	{ 2, 1, 22.57, 35.89, 58.45 }, { 3, 2, 23.25, 44.24, 67.49 },
	{ 4, 4, 23.53, 50.77, 74.30 }, { 5, 8, 23.62, 54.55, 78.17 },
	{ 6, 16, 23.50, 58.73, 82.23 },
};

/* the paper's 10 runs take a tenth of a second: --quick keeps them */
static int qt_runs(const struct rp *r)
{
	return 10;
}

static void qt_t1_col(struct rp *r, unsigned int c, double *prev)
{
	const char *row = rp_fmt(r, "S=%u (s=%u, k=%u, N=%u)",
				 1u << t1[c].s, t1[c].s, t1[c].k,
				 (QT_BITS + t1[c].k * t1[c].s / 2) /
					 (t1[c].k * t1[c].s));
	bool fits = t1[c].k * t1[c].s <= 64;
	struct qt_result m, mm;
	double sum;

	/* the reference model: every column, the paper's S = 64 included */
	qt_measure(DDF_KIND_QHT, t1[c].k, t1[c].s, qt_runs(r), true, &mm);
	if (!fits) {
		rp_cmp(r, row, "FPR + FNR % (k s > 64: not a ddf row)",
		       t1[c].sum, NAN, RP_INFO, 0, NULL);
		m = mm;
	} else {
		qt_measure(DDF_KIND_QHT, t1[c].k, t1[c].s, qt_runs(r), false,
			   &m);
		rp_cmp(r, row, "FPR %", t1[c].fpr, m.fpr, RP_ABS, 1.0,
		       "1 point");
		rp_cmp(r, row, "FNR %", t1[c].fnr, m.fnr, RP_ABS, 3.0,
		       "3 points");
		rp_cmp(r, row, "FPR + FNR %", t1[c].sum, m.fpr + m.fnr,
		       RP_ABS, 3.0, "3 points");
		rp_meas(r, row, "FPR + FNR %: ddf against the model", t1[c].sum,
			m.fpr + m.fnr, mm.fpr + mm.fnr, "the model's", 1.0,
			"1 point");
	}
	rp_cmp(r, row, "FPR + FNR % of the reference model (not ddf)",
	       t1[c].sum, mm.fpr + mm.fnr, RP_ABS, 3.0, "3 points");
	sum = m.fpr + m.fnr;
	if (c)
		rp_cmp(r, row, rp_fmt(r, "trend: sum above S=%u's - %.1f%s",
				      1u << t1[c - 1].s, QT_TREND_SLACK,
				      fits ? "" : " (model)"),
		       NAN, sum > *prev - QT_TREND_SLACK, RP_TREND, 0, NULL);
	*prev = sum;
}

void rp_qht_table1(struct rp *r)
{
	double prev = 0;

	rp_begin(r, "QHT error rates at the same asymptotic FPR (k/S = 1/4)",
		 "quotient-hash-tables-qqhtd.md, Table 1 (section 4.5)");
	for (unsigned int c = 0; c < sizeof(t1) / sizeof(t1[0]); c++)
		qt_t1_col(r, c, &prev);
	rp_note(r, "setup: QHT (Algorithm 1), N k s ~ %u bits, %u uniform elements from 2^%u, %d runs pooled, exact ground truth.",
		QT_BITS, QT_STREAM, QT_ALPHABET_BITS, qt_runs(r));
	rp_note(r, "S maps to s = log2(S) fingerprint bits with k = S/4 per row, N = 65,536/(k s) rows. ddf keeps 0 as the empty cell, so only 2^s - 1 fingerprints exist (k/S is 1/3 .. 8/31); the FPRs still match, which suggests the paper reserved a value too.");
	rp_note(r, "S=64 needs k s = 96 bits per row, more than ddf's one 64-bit row word: not a ddf configuration. A reference model of Algorithm 1 written apart from ddf (bytes per cell, no word limit, the same streams) reproduces that column, and ddf's other columns agree with it within a point: the missing column is ddf's row format, not a disagreement with the paper.");
	rp_note(r, "claim: FPR + FNR rises with S (a smaller S saturates later); each step is judged with %.1f points of slack for run noise.",
		QT_TREND_SLACK);
}

/* Table 5, artificial stream (4.62 %): QHT and QQHTD, FPR + FNR */
static const struct {
	uint32_t k, s;
	double qht, qqhtd;
} t5[] = {
	{ 2, 3, 67.39, 67.91 }, { 4, 4, 74.48, 74.41 },
	{ 8, 5, 79.32, 79.19 }, { 16, 6, 82.10, 82.26 },
};

static void qt_t5_col(struct rp *r, unsigned int c, double prev[2])
{
	const char *row = rp_fmt(r, "k=%u S=%u", t5[c].k, 1u << t5[c].s);
	bool fits = t5[c].k * t5[c].s <= 64;
	struct qt_result q, qq;
	double sq, sqq;

	qt_measure(DDF_KIND_QHT, t5[c].k, t5[c].s, qt_runs(r), !fits, &q);
	qt_measure(DDF_KIND_QQHTD, t5[c].k, t5[c].s, qt_runs(r), !fits, &qq);
	sq = q.fpr + q.fnr;
	sqq = qq.fpr + qq.fnr;
	rp_cmp(r, row, fits ? "QHT FPR + FNR %" :
			      "QHT FPR + FNR % (k s > 64: reference model, not ddf)",
	       t5[c].qht, sq, RP_ABS, 3.0, "3 points");
	rp_cmp(r, row, fits ? "QQHTD FPR + FNR %" :
			      "QQHTD FPR + FNR % (k s > 64: reference model, not ddf)",
	       t5[c].qqhtd, sqq, RP_ABS, 3.0, "3 points");
	rp_cmp(r, row, "claim: QQHTD within 2 points of QHT", NAN,
	       fabs(sqq - sq) < 2, RP_TREND, 0, NULL);
	if (c) {
		rp_cmp(r, row, "trend: QHT sum rises with S", NAN,
		       sq > prev[0] - QT_TREND_SLACK, RP_TREND, 0, NULL);
		rp_cmp(r, row, "trend: QQHTD sum rises with S", NAN,
		       sqq > prev[1] - QT_TREND_SLACK, RP_TREND, 0, NULL);
	}
	prev[0] = sq;
	prev[1] = sqq;
}

/*
 * A stand-in for the "Real (10.3 %)" row, which needs the paper's trace:
 * 100,000 elements, 10.32 % of them repeats of an element seen d elements
 * earlier, d log-uniform in 1 .. 10^5 (an assumed recency; the paper
 * states only the share of duplicates), all others new. It tests the
 * paper's claim for real streams, QQHTD below QHT, not its numbers.
 */
#define QT_REAL_DUP 0.1032

static double qt_standin_sum(uint32_t kind, uint32_t k, uint32_t s,
			     double *dup_share)
{
	uint64_t *stream = malloc(QT_STREAM * sizeof(*stream));
	double p = QT_REAL_DUP / 0.913, best = 0;
	uint64_t c[4] = { 0 };

	if (!stream) {
		fprintf(stderr, "ddfbench: out of memory\n");
		exit(1);
	}
	for (int run = 0; run < 10; run++) {
		struct ddf_params pr = { .kind = kind, .k = k, .fp_bits = s,
					 .m = (QT_BITS + k * s / 2) / (k * s) };
		struct ddf_filter *f = rp_filter(&pr);
		uint64_t rng = 4242 + run, fresh = 1ull << 40, dups = 0;
		uint64_t salt1 = rp_rand(&rng), salt2 = rp_rand(&rng);

		for (int i = 0; i < QT_STREAM; i++) {
			double u = (double)(rp_rand(&rng) >> 11) / 0x1p53;
			uint64_t d = (uint64_t)exp(log(1e5) *
				((double)(rp_rand(&rng) >> 11) / 0x1p53));
			bool rep = u < p && d >= 1 && d <= (uint64_t)i;
			uint64_t e = rep ? stream[i - d] : fresh++;
			struct ddf_hash h = { ddf_fmix64(e ^ salt1),
					      ddf_fmix64(e ^ salt2) };
			bool said = ddf_filter_test_and_insert(f, &h, 0);

			stream[i] = e;
			dups += rep;
			c[rep ? 2 : 0]++;
			c[rep ? 3 : 1] += rep ? !said : said;
		}
		rp_filter_free(f);
		best += (double)dups / QT_STREAM / 10;
	}
	free(stream);
	*dup_share = 100 * best;
	return 100.0 * c[1] / c[0] + 100.0 * c[3] / c[2];
}

/*
 * The one property the paper states of its real stream, 10.32 %
 * duplicates, on a uniform stream (1e5 draws from the alphabet that gives
 * that share): what a stand-in "with the stated properties" would measure.
 */
static double qt_uniform_sum(uint32_t kind, uint32_t k, uint32_t s)
{
	double lo = 1e-6, hi = 50;
	uint64_t u, c[4] = { 0 };
	uint64_t *seen;

	for (int i = 0; i < 100; i++) {
		double x = (lo + hi) / 2;

		if ((1 - exp(-x)) / x > 1 - QT_REAL_DUP)
			lo = x;
		else
			hi = x;
	}
	u = (uint64_t)(QT_STREAM / lo);
	seen = malloc((u / 64 + 1) * 8);
	if (!seen) {
		fprintf(stderr, "ddfbench: out of memory\n");
		exit(1);
	}
	for (int run = 0; run < 10; run++) {
		struct ddf_params pr = { .kind = kind, .k = k, .fp_bits = s,
					 .m = (QT_BITS + k * s / 2) / (k * s) };
		struct ddf_filter *f = rp_filter(&pr);
		uint64_t rng = 777 + run;
		uint64_t salt1 = rp_rand(&rng), salt2 = rp_rand(&rng);

		memset(seen, 0, (u / 64 + 1) * 8);
		for (int i = 0; i < QT_STREAM; i++) {
			uint64_t e = ddf_reduce(rp_rand(&rng), u);
			struct ddf_hash h = { ddf_fmix64(e ^ salt1),
					      ddf_fmix64(e ^ salt2) };
			bool dup = seen[e / 64] >> (e % 64) & 1;
			bool said = ddf_filter_test_and_insert(f, &h, 0);

			seen[e / 64] |= 1ull << (e % 64);
			c[dup ? 2 : 0]++;
			c[dup ? 3 : 1] += dup ? !said : said;
		}
		rp_filter_free(f);
	}
	free(seen);
	return 100.0 * c[1] / c[0] + 100.0 * c[3] / c[2];
}

static void qt_t5_standin(struct rp *r, unsigned int c)
{
	static const double real[][2] = {
		{ 27.01, 24.67 }, { 28.07, 24.56 }, { 28.95, 24.42 },
		{ 29.3, 24.62 },
	};
	const char *row = rp_fmt(r, "stand-in, k=%u S=%u", t5[c].k,
				 1u << t5[c].s);
	double dq, dqq, sq, sqq;

	if (t5[c].k * t5[c].s > 64) {
		rp_cmp(r, row, "Real stream: QHT / QQHTD (paper; no trace)",
		       real[c][0], NAN, RP_INFO, 0, NULL);
		return;
	}
	rp_cmp(r, rp_fmt(r, "uniform, 10.32 %% dup, k=%u S=%u", t5[c].k,
			 1u << t5[c].s),
	       "QHT FPR + FNR % (uniform stream, the paper's duplicate share)",
	       real[c][0], qt_uniform_sum(DDF_KIND_QHT, t5[c].k, t5[c].s),
	       RP_INFO, 0, NULL);
	rp_cmp(r, rp_fmt(r, "uniform, 10.32 %% dup, k=%u S=%u", t5[c].k,
			 1u << t5[c].s),
	       "QQHTD FPR + FNR % (uniform stream, the paper's duplicate share)",
	       real[c][1], qt_uniform_sum(DDF_KIND_QQHTD, t5[c].k, t5[c].s),
	       RP_INFO, 0, NULL);
	sq = qt_standin_sum(DDF_KIND_QHT, t5[c].k, t5[c].s, &dq);
	sqq = qt_standin_sum(DDF_KIND_QQHTD, t5[c].k, t5[c].s, &dqq);
	rp_cmp(r, row, "QHT FPR + FNR % (synthetic, not the paper's stream)",
	       real[c][0], sq, RP_INFO, 0, NULL);
	rp_cmp(r, row, "QQHTD FPR + FNR % (synthetic, not the paper's stream)",
	       real[c][1], sqq, RP_INFO, 0, NULL);
	rp_cmp(r, row, rp_fmt(r, "claim on a stream with recency: QQHTD below QHT (duplicates %.2f %%)",
			      dq),
	       NAN, sqq < sq, RP_TREND, 0, NULL);
}
void rp_qht_table5(struct rp *r)
{
	double prev[2] = { 0, 0 };

	rp_begin(r, "QHT and QQHTD with the same parameters, artificial stream",
		 "quotient-hash-tables-qqhtd.md, Table 5 (appendix C), row \"Artificial (4.62 %)\"");
	for (unsigned int c = 0; c < sizeof(t5) / sizeof(t5[0]); c++)
		qt_t5_col(r, c, prev);
	for (unsigned int c = 0; c < sizeof(t5) / sizeof(t5[0]); c++)
		qt_t5_standin(r, c);
	rp_note(r, "setup: Table 1's (N k s ~ %u bits, %u uniform elements from 2^%u, %d runs).",
		QT_BITS, QT_STREAM, QT_ALPHABET_BITS, qt_runs(r));
	rp_note(r, "the \"Real (10.3 %%)\" row needs the paper's trace (URLs of a CommonCrawl crawl), which is not available: its numbers are not reproduced. The paper states only its share of duplicates, and the error of these filters depends on how far back a duplicate's previous occurrence lies, which that share does not fix: a uniform stream with that share (the \"uniform\" rows) errs like the artificial row, two to three times the real row's sums, and there QQHTD is no better than QHT. The stand-in rows are a synthetic stream with an assumed recency (10.32 %% repeats at distances log-uniform in 1 .. 10^5): they test the paper's claim that QQHTD beats QHT on a real stream, and their sums are shown for information only, never judged against the paper's.");
	rp_note(r, "claims: QQHTD offers no advantage on artificial streams (within 2 points of QHT), and both sums rise with S (%.1f points of slack).",
		QT_TREND_SLACK);
	rp_note(r, "k=16 S=64 needs 96 bits per row, more than a ddf row word: that column is the reference model of Algorithms 1 and 2 written apart from ddf (see qht-table1), labelled as such.");
}
