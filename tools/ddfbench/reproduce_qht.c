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

/* one run: a fresh filter, stream and hash seeds; counts accumulate */
static void qt_run(struct ddf_filter *f, uint64_t *seen, uint64_t *rng,
		   uint64_t c[4])
{
	uint64_t seed1 = rp_rand(rng), seed2 = rp_rand(rng);

	memset(seen, 0, (1u << QT_ALPHABET_BITS) / 8);
	for (int i = 0; i < QT_STREAM; i++) {
		uint64_t e = rp_rand(rng) & ((1u << QT_ALPHABET_BITS) - 1);
		struct ddf_hash h = { ddf_fmix64(e ^ seed1),
				      ddf_fmix64(e ^ seed2) };
		bool dup = seen[e / 64] >> (e % 64) & 1;
		bool said = ddf_filter_test_and_insert(f, &h, 0);

		seen[e / 64] |= 1ull << (e % 64);
		c[dup ? 2 : 0]++;	/* duplicates, unseen */
		c[dup ? 3 : 1] += dup ? !said : said;
	}
}

/* FPR over unseen elements, FNR over duplicates, pooled over the runs */
static void qt_measure(uint32_t kind, uint32_t k, uint32_t s, int runs,
		       struct qt_result *res)
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
		struct ddf_filter *f = rp_filter(&p);

		qt_run(f, seen, &rng, c);
		rp_filter_free(f);
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
	struct qt_result m;
	double sum;

	if (t1[c].k * t1[c].s > 64) {
		rp_cmp(r, rp_fmt(r, "S=%u", 1u << t1[c].s),
		       "FPR + FNR % (k s > 64: not a ddf row)", t1[c].sum, NAN,
		       RP_INFO, 0, NULL);
		return;
	}
	qt_measure(DDF_KIND_QHT, t1[c].k, t1[c].s, qt_runs(r), &m);
	sum = m.fpr + m.fnr;
	rp_cmp(r, row, "FPR %", t1[c].fpr, m.fpr, RP_ABS, 1.0,
	       "1 point");
	rp_cmp(r, row, "FNR %", t1[c].fnr, m.fnr, RP_ABS, 3.0,
	       "3 points");
	rp_cmp(r, row, "FPR + FNR %", t1[c].sum, sum, RP_ABS, 3.0,
	       "3 points");
	if (c)
		rp_cmp(r, row, rp_fmt(r, "trend: sum above S=%u's - %.1f",
				      1u << t1[c - 1].s, QT_TREND_SLACK),
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
	rp_note(r, "S=64 needs k s = 96 bits per row, more than ddf's one 64-bit row word: not reproduced.");
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
	struct qt_result q, qq;
	double sq, sqq;

	if (t5[c].k * t5[c].s > 64) {
		rp_cmp(r, row, "QHT FPR + FNR % (k s > 64)", t5[c].qht, NAN,
		       RP_INFO, 0, NULL);
		rp_cmp(r, row, "QQHTD FPR + FNR % (k s > 64)", t5[c].qqhtd,
		       NAN, RP_INFO, 0, NULL);
		return;
	}
	qt_measure(DDF_KIND_QHT, t5[c].k, t5[c].s, qt_runs(r), &q);
	qt_measure(DDF_KIND_QQHTD, t5[c].k, t5[c].s, qt_runs(r), &qq);
	sq = q.fpr + q.fnr;
	sqq = qq.fpr + qq.fnr;
	rp_cmp(r, row, "QHT FPR + FNR %", t5[c].qht, sq, RP_ABS, 3.0,
	       "3 points");
	rp_cmp(r, row, "QQHTD FPR + FNR %", t5[c].qqhtd, sqq, RP_ABS, 3.0,
	       "3 points");
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

void rp_qht_table5(struct rp *r)
{
	double prev[2] = { 0, 0 };

	rp_begin(r, "QHT and QQHTD with the same parameters, artificial stream",
		 "quotient-hash-tables-qqhtd.md, Table 5 (appendix C), row \"Artificial (4.62 %)\"");
	for (unsigned int c = 0; c < sizeof(t5) / sizeof(t5[0]); c++)
		qt_t5_col(r, c, prev);
	rp_note(r, "setup: Table 1's (N k s ~ %u bits, %u uniform elements from 2^%u, %d runs). The \"Real (10.3 %%)\" row needs the paper's trace, which is not available: not reproduced.",
		QT_BITS, QT_STREAM, QT_ALPHABET_BITS, qt_runs(r));
	rp_note(r, "claims: QQHTD offers no advantage on artificial streams (within 2 points of QHT), and both sums rise with S (%.1f points of slack).",
		QT_TREND_SLACK);
	rp_note(r, "k=16 S=64 needs 96 bits per row: not reproduced.");
}
