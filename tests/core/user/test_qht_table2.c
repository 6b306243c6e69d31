// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The QHT paper's Tables 2 and 4 (section 6.1, appendix A), a subset of
 * what `ddfbench reproduce qht-table2` runs: the 88.82 % stream (150M
 * uniform elements from 2^24) scaled by 1/64 with the memory (Cuckoo,
 * which relocates 500 times per insertion once full, by 1/1024), so
 * elements per bit and the duplicate share are the paper's. The shapes are the
 * paper's list (SQF r = 2 r' = 1; QHT and Cuckoo one 3-bit fingerprint per
 * row or bucket; SBF 2-bit cells, K = 2, P for 0.02; A2 the largest window
 * whose worst case meets 0.1), and b_DBF 6-bit counters with k = 2, the
 * shape its FPR column implies (tests/reproduce/FINDINGS.md).
 *
 * Judged: SQF, QHT, Cuckoo and b_DBF against the paper within 3 points;
 * SBF and A2, whose printed FPRs are far above their own targets (the
 * paper's footnote 19), against ddf's analytic rates within 1 point; the
 * Cuckoo at 8e6 bits, whose printed FNR is above what a full table can
 * miss, against that bound. Seconds in all.
 */
#include <stdlib.h>
#include <string.h>
#include "ddf_hash.h"
#include "ddf_test_user.h"

#define Q2_SCALE 64
/* a saturated cuckoo table relocates 500 times per insertion */
#define Q2_CUCKOO_SCALE 1024
#define Q2_TOL 3.0

struct q2_rates {
	double fpr, fnr, in_window; /* percent */
};

/*
 * The stream scaled by 1/scale, at most cap elements; exact truth from a
 * bitmap, and the share of duplicates whose previous occurrence is at most
 * window back.
 */
static bool q2_run(ddf_test_t *t, struct ddf_params *p, uint64_t scale,
		   uint64_t cap, uint64_t window, struct q2_rates *out)
{
	uint64_t alphabet = (1ull << 24) / scale, n = 150000000ull / scale;
	struct ddf_filter *f = ddf_test_filter(t, p);
	uint64_t *seen = calloc(alphabet / 64 + 1, 8);
	uint32_t *last = calloc(alphabet, sizeof(*last));
	uint64_t rng = 150, c[4] = { 0 }, near = 0, i;
	uint64_t salt1 = ddf_test_rand(&rng), salt2 = ddf_test_rand(&rng);

	if (!f || !seen || !last) {
		free(seen);
		free(last);
		return false;
	}
	if (n > cap)
		n = cap;
	for (i = 0; i < n; i++) {
		uint64_t e = ddf_test_rand(&rng) & (alphabet - 1);
		struct ddf_hash h = { ddf_fmix64(e ^ salt1),
				      ddf_fmix64(e ^ salt2) };
		bool dup = seen[e / 64] >> (e % 64) & 1;
		bool said = ddf_filter_test_and_insert(f, &h, 0);

		seen[e / 64] |= 1ull << (e % 64);
		c[dup ? 2 : 0]++;
		c[dup ? 3 : 1] += dup ? !said : said;
		near += dup && window && i + 1 - last[e] <= window;
		last[e] = (uint32_t)(i + 1);
	}
	free(seen);
	free(last);
	out->fpr = 100.0 * c[1] / c[0];
	out->fnr = 100.0 * c[3] / c[2];
	out->in_window = 100.0 * near / c[2];
	return true;
}

static uint64_t q2_pow2_le(uint64_t x)
{
	uint64_t p = 1;

	while (p * 2 <= x)
		p *= 2;
	return p;
}

/* SQF, QHT and Cuckoo at 1e6 and 1e5 bits: the paper's rates, 3 points */
DDF_TEST(qht_table2_fingerprint_filters)
{
	static const struct {
		const char *name;
		uint32_t kind;
		double bits, fpr, fnr; /* the paper's Table 4 */
	} cells[] = {
		{ "SQF", DDF_KIND_SQF, 1e6, 24.60, 73.67 },
		{ "QHT", DDF_KIND_QHT, 1e6, 14.00, 83.80 },
		{ "Cuckoo", DDF_KIND_CUCKOO, 1e6, 28.41, 71.19 },
		{ "SQF", DDF_KIND_SQF, 1e5, 24.94, 74.84 },
		{ "QHT", DDF_KIND_QHT, 1e5, 14.26, 85.53 },
		{ "Cuckoo", DDF_KIND_CUCKOO, 1e5, 28.52, 71.44 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cells); i++) {
		uint64_t scale = cells[i].kind == DDF_KIND_CUCKOO ?
					 Q2_CUCKOO_SCALE : Q2_SCALE;
		uint64_t bits = (uint64_t)(cells[i].bits / scale);
		struct ddf_params p = { .kind = cells[i].kind, .k = 1,
					.fp_bits = 3, .rng_seed = 17 + i };
		struct q2_rates m;

		if (cells[i].kind == DDF_KIND_SQF) {
			p.fp_bits = 2;
			p.cell_bits = 3;
			p.m = q2_pow2_le(bits / 3);
		} else if (cells[i].kind == DDF_KIND_CUCKOO) {
			p.m = q2_pow2_le(bits / 3);
		} else {
			p.rng_seed = 0;
			p.m = bits / 3;
		}
		DDF_ASSERT(t, q2_run(t, &p, scale, ~0ull, 0, &m));
		DDF_LOG(t, "%-6s %g bits: FPR %.2f (paper %.2f) FNR %.2f (paper %.2f)",
			cells[i].name, cells[i].bits, m.fpr, cells[i].fpr,
			m.fnr, cells[i].fnr);
		DDF_EXPECT_MSG(t, fabs(m.fpr - cells[i].fpr) <= Q2_TOL &&
				  fabs(m.fnr - cells[i].fnr) <= Q2_TOL,
			       "%s %g bits: %.2f/%.2f", cells[i].name,
			       cells[i].bits, m.fpr, m.fnr);
	}
}

/*
 * Cuckoo at 8e6 bits: a table holding S distinct fingerprints of U misses
 * a duplicate at most (1 - S/U)(1 - FPR) of the time; the paper's 69.14 %
 * is above that bound for any table of its memory, ddf's must be below.
 */
DDF_TEST(qht_table2_cuckoo_bound)
{
	uint64_t scale = Q2_CUCKOO_SCALE, u = (1ull << 24) / scale;
	struct ddf_params p = { .kind = DDF_KIND_CUCKOO, .k = 1, .fp_bits = 3,
				.rng_seed = 3,
				.m = q2_pow2_le((uint64_t)(8e6 / scale) / 3) };
	double su = (double)p.m / u, bound, paper_bound;
	struct q2_rates m;

	DDF_ASSERT(t, q2_run(t, &p, scale, ~0ull, 0, &m));
	bound = 100 * (1 - su) * (1 - m.fpr / 100);
	paper_bound = 100 * (1 - 8e6 / 3 / (1 << 24)) * (1 - 27.80 / 100);
	DDF_LOG(t, "8e6 bits (1/%llu): %llu buckets, S/U %.3f: FPR %.2f FNR %.2f, bound %.2f; paper FNR 69.14 against its bound %.2f",
		(unsigned long long)scale, (unsigned long long)p.m, su, m.fpr,
		m.fnr, bound, paper_bound);
	DDF_EXPECT(t, m.fnr <= bound);
	DDF_EXPECT(t, fabs(m.fpr - 27.80) <= Q2_TOL);
	DDF_EXPECT(t, 69.14 > paper_bound + Q2_TOL);
}

/*
 * b_DBF, 6-bit counters, k = 2, window 6000, unscaled memory: the paper's
 * FPR and, over the duplicates outside the window (nearly all of the
 * paper's), its FNR. The stream is cut to 2^19: b_DBF is stationary after
 * a window.
 */
DDF_TEST(qht_table2_bdbf)
{
	static const struct {
		double bits, fpr, fnr;
	} cells[] = {
		{ 1e6, 0.17, 99.79 }, { 1e5, 27.46, 72.51 },
		{ 1e4, 99.67, 0.31 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cells); i++) {
		uint64_t cnt = (uint64_t)(cells[i].bits / 6);
		struct ddf_params p = { .kind = DDF_KIND_BDBF, .window = 6000,
					.k = 2, .cell_bits = 6,
					.m = cnt - cnt % 10 };
		struct q2_rates m;
		double fnr;

		DDF_ASSERT(t, q2_run(t, &p, Q2_SCALE, 1u << 19, 6000, &m));
		fnr = 100 * m.fnr / (100 - m.in_window);
		DDF_LOG(t, "b_DBF %g bits: FPR %.2f (paper %.2f) FNR outside the window %.2f (paper %.2f; %.2f %% of duplicates inside)",
			cells[i].bits, m.fpr, cells[i].fpr, fnr, cells[i].fnr,
			m.in_window);
		DDF_EXPECT_MSG(t, fabs(m.fpr - cells[i].fpr) <= Q2_TOL &&
				  fabs(fnr - cells[i].fnr) <= Q2_TOL,
			       "b_DBF %g bits: %.2f/%.2f", cells[i].bits, m.fpr,
			       fnr);
	}
}

/* SBF and A2 at 1e6 bits meet their own analytic rates, within 1 point */
DDF_TEST(qht_table2_sbf_a2_own_rates)
{
	uint64_t bits = (uint64_t)(1e6 / Q2_SCALE);
	struct ddf_params sbf = { .kind = DDF_KIND_SBF, .k = 2, .cell_bits = 2,
				  .m = bits / 2, .rng_seed = 20 };
	struct ddf_params a2 = { .kind = DDF_KIND_A2, .m = bits / 2 };
	uint64_t lo = 1, hi = bits;
	struct q2_rates m;
	double ref;

	sbf.decrements = (uint32_t)ddf_sbf_decrements(2, 2, sbf.m, 0.02);
	DDF_ASSERT(t, q2_run(t, &sbf, Q2_SCALE, ~0ull, 0, &m));
	ref = 100 * ddf_sbf_fpr(&sbf);
	DDF_LOG(t, "SBF: FPR %.2f, stable rate %.2f (paper 26.43)", m.fpr, ref);
	DDF_EXPECT(t, fabs(m.fpr - ref) <= 1);
	/* A2: the largest window whose worst case meets 0.1, best k */
	while (lo < hi) {
		uint64_t c = (lo + hi + 1) / 2;
		struct ddf_params q = a2;
		bool fits = false;

		q.window = c;
		for (q.k = 1; q.k <= 16 && !fits; q.k++)
			fits = ddf_a2_fpr(&q) <= 0.1;
		if (fits)
			lo = c;
		else
			hi = c - 1;
	}
	a2.window = lo;
	for (a2.k = 1; a2.k < 16 && ddf_a2_fpr(&a2) > 0.1; a2.k++)
		;
	DDF_ASSERT(t, q2_run(t, &a2, Q2_SCALE, ~0ull, 0, &m));
	ref = 100 * ddf_a2_fpr_mean(&a2);
	DDF_LOG(t, "A2 (window %llu, k=%u): FPR %.2f, mean over a cycle %.2f (paper 37.72)",
		(unsigned long long)a2.window, a2.k, m.fpr, ref);
	DDF_EXPECT(t, fabs(m.fpr - ref) <= 1);
}

static ddf_case_t ddf_qht_table2_cases[] = {
	DDF_CASE(qht_table2_fingerprint_filters),
	DDF_CASE(qht_table2_cuckoo_bound),
	DDF_CASE(qht_table2_bdbf),
	DDF_CASE(qht_table2_sbf_a2_own_rates),
	DDF_CASES_END,
};

DDF_SUITE(ddf_qht_table2, ddf_qht_table2_cases);
