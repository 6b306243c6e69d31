// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * APBF/APBBF accuracy against the paper (userspace: floating point, long
 * streams): the analytic recursions reproduce Tables 2 and 3, and measured
 * false-positive rates match the analytic ones.
 */
#include <stdlib.h>
#include "ddf_test_user.h"

/* age-partitioned-bloom-filters.md, Table 2: k, l, actual fp, false acc. */
static const struct {
	uint32_t k, l;
	double fp, acc_false;
	int erratum; /* see table2_analytic */
} table2[] = {
	{ 4, 3, 0.100586, 2.16, 0 },  { 5, 7, 0.101603, 3.42, 0 },
	{ 6, 14, 0.098623, 5.42, 0 }, { 7, 28, 0.099033, 9.10, 0 },
	{ 8, 56, 0.100234, 15.60, 0 }, { 7, 5, 0.011232, 2.02, 0 },
	{ 8, 8, 0.010244, 3.09, 0 },  { 9, 14, 0.010212, 3.79, 0 },
	{ 10, 25, 0.010076, 5.85, 0 }, { 11, 46, 0.009948, 9.55, 0 },
	{ 10, 7, 0.001211, 1.85, 0 }, { 11, 9, 0.000918, 2.15, 0 },
	{ 12, 14, 0.000981, 3.21, 0 }, { 13, 23, 0.000928, 4.20, 1 },
	{ 14, 40, 0.000988, 6.75, 0 }, { 14, 11, 0.000099, 1.93, 0 },
	{ 15, 15, 0.000100, 3.08, 0 }, { 16, 22, 0.000097, 3.36, 0 },
	{ 17, 36, 0.000099, 5.19, 0 }, { 18, 63, 0.000099, 7.68, 0 },
	{ 17, 13, 0.000011, 1.81, 0 }, { 18, 16, 0.000009, 2.20, 0 },
	{ 19, 22, 0.000010, 3.16, 0 }, { 20, 33, 0.000010, 3.68, 0 },
	{ 21, 54, 0.000010, 5.63, 0 },
};

/* Table 3: k, l, B, b, APBBF fp, false accesses */
static const struct {
	uint32_t k, l, B, b;
	double fp, acc_false;
} table3[] = {
	{ 2, 3, 64, 4, 0.0159865, 2.25 },  { 2, 3, 512, 4, 0.0121825, 2.23 },
	{ 2, 5, 64, 4, 0.0257532, 3.37 },  { 2, 5, 512, 4, 0.0197654, 3.33 },
	{ 3, 5, 64, 4, 0.0016005, 2.29 },  { 3, 5, 512, 4, 0.0010688, 2.26 },
	{ 3, 8, 64, 4, 0.0026767, 3.43 },  { 3, 8, 512, 4, 0.0017993, 3.38 },
	{ 2, 3, 64, 8, 0.0005608, 2.05 },  { 2, 3, 512, 8, 0.0000738, 2.02 },
	{ 2, 5, 64, 8, 0.0009231, 3.08 },  { 2, 5, 512, 8, 0.0001226, 3.03 },
	{ 3, 5, 64, 8, 0.0000104, 2.05 },  { 3, 5, 512, 8, 0.0000005, 2.02 },
	{ 3, 8, 64, 8, 0.0000178, 3.08 },  { 3, 8, 512, 8, 0.0000009, 3.03 },
};

/* The paper's linear fill model reproduces every row of Table 2. */
DDF_TEST(table2_analytic)
{
	for (unsigned int i = 0; i < sizeof(table2) / sizeof(table2[0]); i++) {
		uint32_t k = table2[i].k, l = table2[i].l;
		double r[DDF_MAX_K + DDF_MAX_L], F, A;

		for (uint32_t j = 0; j < k + l; j++)
			r[j] = j < k ? (j + 1) / (2.0 * k) : 0.5;
		F = ddf_apbf_F(k, l, r);
		A = ddf_apbf_A_false(k, l, r);
		/*
		 * k=13 l=23: the paper prints 0.000928 but its own recursion
		 * gives 0.000990 (recomputed independently as well); every
		 * other column of the row fits 0.000990, so we read a typo
		 * and report the row instead of asserting it.
		 */
		if (table2[i].erratum)
			DDF_LOG(t, "k=%u l=%u: F=%.6f, paper prints %.6f (erratum, not asserted)",
				k, l, F, table2[i].fp);
		else
			DDF_EXPECT_MSG(t, fabs(F - table2[i].fp) <= 0.5e-6,
				       "k=%u l=%u: F=%.6f, paper %.6f", k, l,
				       F, table2[i].fp);
		/* the paper rounds half up: 3.675 prints as 3.68 */
		DDF_EXPECT_MSG(t, fabs(A - table2[i].acc_false) <= 0.0051,
			       "k=%u l=%u: A=%.3f, paper %.2f", k, l, A,
			       table2[i].acc_false);
	}
}

/* Blocked segments (Poisson block loads) reproduce Table 3. */
DDF_TEST(table3_analytic)
{
	for (unsigned int i = 0; i < sizeof(table3) / sizeof(table3[0]); i++) {
		struct ddf_params p = { .kind = DDF_KIND_APBBF, .k = table3[i].k,
					.l = table3[i].l, .window = 2000000,
					.block_bits = table3[i].B,
					.block_hashes = table3[i].b };
		double r[DDF_MAX_K + DDF_MAX_L], F, A;
		const char *why;

		DDF_ASSERT(t, !ddf_params_resolve(&p, &why));
		ddf_apbf_fills(&p, NULL, r, false);
		F = ddf_apbf_F(p.k, p.l, r);
		A = ddf_apbf_A_false(p.k, p.l, r);
		/* 7 printed decimals; integer g moves the 6th digit a little */
		DDF_EXPECT_MSG(t, fabs(F - table3[i].fp) <=
				       0.51e-7 + 2e-5 * table3[i].fp,
			       "%u/%u/%u/%u: F=%.7f, paper %.7f", p.k, p.l,
			       p.block_bits, p.block_hashes, F, table3[i].fp);
		DDF_EXPECT_MSG(t, fabs(A - table3[i].acc_false) <= 0.01,
			       "%u/%u/%u/%u: A=%.3f, paper %.2f", p.k, p.l,
			       p.block_bits, p.block_hashes, A,
			       table3[i].acc_false);
	}
}

struct fp_result {
	uint64_t probes, hits;
	double expect; /* sum of the conditional analytic rate per probe */
	double var; /* its binomial variance */
	double analytic; /* expected worst-case rate (no state) */
};

/*
 * Fill to steady state, then at `rounds` moments just before a shift probe
 * never-inserted keys. The conditional analytic rate at each moment comes
 * from the actual fill of every slice (APBF: popcount / m).
 */
static int measure_fp(ddf_test_t *t, struct ddf_params *p, int rounds,
		      uint64_t probes, struct fp_result *res)
{
	struct ddf_filter *f = ddf_test_filter(t, p);
	uint64_t ins = 1, prb = 2ull << 62, g;
	struct ddf_stats st;

	if (!f)
		return -1;
	ddf_filter_stats(f, &st);
	g = st.gen_size;
	memset(res, 0, sizeof(*res));
	res->analytic = ddf_fpr_analytic(p);
	/* k + l + 1 generations reach the steady state */
	for (uint64_t i = 0; i < (p->k + p->l + 1) * g; i++) {
		struct ddf_hash h = ddf_test_key(&ins);

		ddf_filter_insert(f, &h, 0);
	}
	for (int r = 0; r < rounds; r++) {
		double rr[DDF_MAX_K + DDF_MAX_L], pr;
		uint64_t hits = 0;

		/* the last insert of a generation: the worst case */
		for (uint64_t i = 0; i < g; i++) {
			struct ddf_hash h = ddf_test_key(&ins);

			ddf_filter_insert(f, &h, 0);
		}
		if (p->kind == DDF_KIND_APBF) {
			for (uint32_t i = 0; i < p->k + p->l; i++)
				rr[i] = (double)f->type->segment_bits(f, i) /
					p->m;
			pr = ddf_apbf_F(p->k, p->l, rr);
		} else {
			pr = res->analytic;
		}
		for (uint64_t q = 0; q < probes; q++) {
			struct ddf_hash h = ddf_test_key(&prb);

			hits += ddf_filter_lookup(f, &h, 0);
		}
		res->probes += probes;
		res->hits += hits;
		res->expect += pr * probes;
		res->var += pr * (1 - pr) * probes;
	}
	return 0;
}

/* Measured APBF fp within 3 standard errors of the analytic rate. */
DDF_TEST(apbf_measured_fp)
{
	static const uint32_t rows[][2] = { { 4, 3 }, { 7, 5 }, { 10, 7 } };

	for (unsigned int i = 0; i < 3; i++) {
		struct ddf_params p = { .kind = DDF_KIND_APBF, .k = rows[i][0],
					.l = rows[i][1], .window = 300000 };
		struct fp_result r;
		double meas, z, zu;

		DDF_ASSERT(t, !measure_fp(t, &p, 10,
					  i == 0 ? 100000 : 600000, &r));
		meas = (double)r.hits / r.probes;
		z = (r.hits - r.expect) / sqrt(r.var);
		/* against the state-free expectation: fill noise is tiny */
		zu = (meas - r.analytic) /
		     sqrt(r.analytic * (1 - r.analytic) / r.probes);
		DDF_LOG(t, "k=%u l=%u: measured %.6f, analytic %.6f (given the fills %.6f), paper %.6f, z=%.2f/%.2f, %llu probes",
			p.k, p.l, meas, r.analytic, r.expect / r.probes,
			table2[i == 0 ? 0 : i == 1 ? 5 : 10].fp, z, zu,
			(unsigned long long)r.probes);
		DDF_EXPECT_MSG(t, fabs(z) <= 3.0, "k=%u l=%u: z=%.2f", p.k,
			       p.l, z);
		DDF_EXPECT_MSG(t, fabs(zu) <= 3.0, "k=%u l=%u: zu=%.2f", p.k,
			       p.l, zu);
	}
}

/* Measured APBBF fp within 20% of Table 3. */
DDF_TEST(apbbf_measured_fp)
{
	static const uint32_t rows[][5] = {
		{ 2, 3, 512, 4, 1 }, { 3, 5, 512, 4, 5 }, { 2, 5, 64, 8, 10 }
	};

	for (unsigned int i = 0; i < 3; i++) {
		struct ddf_params p = { .kind = DDF_KIND_APBBF,
					.k = rows[i][0], .l = rows[i][1],
					.window = 200000,
					.block_bits = rows[i][2],
					.block_hashes = rows[i][3] };
		double paper = table3[rows[i][4]].fp, meas;
		struct fp_result r;

		DDF_ASSERT(t, !measure_fp(t, &p, 10, 200000, &r));
		meas = (double)r.hits / r.probes;
		DDF_LOG(t, "%u/%u/%u/%u: measured %.7f, analytic %.7f, Table 3 %.7f, %llu probes",
			p.k, p.l, p.block_bits, p.block_hashes, meas,
			r.analytic, paper, (unsigned long long)r.probes);
		DDF_EXPECT_MSG(t, fabs(meas / paper - 1) <= 0.2,
			       "%u/%u/%u/%u: measured %.7f vs %.7f", p.k, p.l,
			       p.block_bits, p.block_hashes, meas, paper);
	}
}

/* Sizing meets its target and its report agrees with the filter. */
DDF_TEST(sizing_round_trip)
{
	static const double fprs[] = { 0.1, 0.01, 1e-3, 1e-4, 1e-6 };
	static const uint32_t kinds[] = { DDF_KIND_APBF, DDF_KIND_APBBF };

	for (unsigned int ki = 0; ki < 2; ki++) {
		for (unsigned int i = 0; i < 5; i++) {
			struct ddf_size_req req = { .kind = kinds[ki],
						    .window = 100000,
						    .fpr = fprs[i] };
			struct ddf_size_report rep;
			struct ddf_params p, q;
			const char *why = NULL;
			int err = ddf_size(&req, &p, &rep, &why);

			DDF_EXPECT_MSG(t, !err, "%s fpr %g: %s",
				       ddf_kind_name(kinds[ki]), fprs[i], why);
			if (err)
				continue;
			DDF_EXPECT(t, rep.fpr <= fprs[i]);
			DDF_EXPECT(t, rep.window >= 100000);
			DDF_EXPECT_EQ(t, rep.bytes, ddf_filter_memsize(&p));
			/* resolving the result again changes nothing */
			q = p;
			DDF_EXPECT(t, !ddf_params_resolve(&q, &why));
			DDF_EXPECT(t, !memcmp(&p, &q, sizeof(p)));
			/* a budget of those bytes gets at least that rate */
			req.fpr = 0;
			req.bytes = rep.bytes;
			DDF_EXPECT(t, !ddf_size(&req, &q, &rep, &why));
			DDF_EXPECT(t, rep.fpr <= fprs[i]);
		}
	}
}

DDF_TEST(sizing_rejects_bad_requests)
{
	static const struct {
		const char *what;
		struct ddf_size_req req;
	} cases[] = {
		{ "no window", { .kind = DDF_KIND_APBF, .fpr = 0.01 } },
		{ "no target", { .kind = DDF_KIND_APBF, .window = 10 } },
		{ "fpr 1", { .kind = DDF_KIND_APBBF, .window = 10, .fpr = 1 } },
		{ "tiny budget", { .kind = DDF_KIND_APBBF, .window = 1000000,
				   .bytes = 100 } },
		{ "unknown kind", { .kind = 77, .window = 10, .fpr = 0.1 } },
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ddf_params p;
		const char *why = NULL;
		int err = ddf_size(&cases[i].req, &p, NULL, &why);

		DDF_EXPECT_MSG(t, err < 0 && why, "%s: err %d", cases[i].what,
			       err);
	}
}

/* The freestanding elementary functions agree with libm. */
DDF_TEST(math_matches_libm)
{
	for (double x = -30; x < 30; x += 0.37) {
		DDF_EXPECT_MSG(t, fabs(ddf_exp(x) / exp(x) - 1) < 1e-13,
			       "exp(%g)", x);
		DDF_EXPECT_MSG(t, fabs(ddf_log(exp(x)) - x) < 1e-12, "log(%g)",
			       exp(x));
	}
	DDF_EXPECT(t, fabs(ddf_pow(0.5, 10) - 1.0 / 1024) < 1e-15);
	DDF_EXPECT(t, fabs(ddf_sqrt(2) - sqrt(2)) < 1e-15);
}

static ddf_case_t cases[] = {
	DDF_CASE(table2_analytic),   DDF_CASE(table3_analytic),
	DDF_CASE(apbf_measured_fp),  DDF_CASE(apbbf_measured_fp),
	DDF_CASE(sizing_round_trip), DDF_CASE(sizing_rejects_bad_requests),
	DDF_CASE(math_matches_libm), DDF_CASES_END
};

DDF_SUITE(ddf_apbf_accuracy, cases);
