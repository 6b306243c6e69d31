// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The APBF paper's Tables 1 and 4 (`ddfbench reproduce apbf-table1`,
 * `apbbf-table4`). Table 1, a classic Bloom filter half full: ddf's
 * recursions F and A with l = 0 give its fp and false-query accesses; the
 * paper truncates bits per element and fp to the digits it prints. Table
 * 4, APBBF bits per element: ddf's k + l segments match the paper's
 * within the printed decimal; ddf's real memory has one spare segment
 * more ((k + l + 1) / (k + l)) and still beats SWAMP's.
 */
#include "ddf_test_user.h"

DDF_TEST(apbf_table1_bloom)
{
	static const struct {
		double aimed;
		uint32_t k;
		double bits, fp, acc_false;
	} rows[] = {
		{ 1e-1, 4, 5.77, 0.0625, 1.73 },
		{ 1e-2, 7, 10.09, 0.0078125, 1.94 },
		{ 1e-3, 10, 14.42, 0.0009765625, 1.99 },
		{ 1e-4, 14, 20.19, 0.0000610351, 2.00 },
		{ 1e-5, 17, 24.52, 0.0000076293, 2.00 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(rows); i++) {
		uint32_t k = (uint32_t)ceil(log2(1 / rows[i].aimed) - 1e-9), j;
		double r[DDF_MAX_K], F, A;

		for (j = 0; j < k; j++)
			r[j] = 0.5;
		F = ddf_apbf_F(k, 0, r);
		A = ddf_apbf_A_false(k, 0, r);
		DDF_LOG(t, "aimed %g: k %u, bits %.4f, fp %.10f, false-query accesses %.4f",
			rows[i].aimed, k, k / log(2), F, A);
		DDF_EXPECT_EQ(t, k, rows[i].k);
		DDF_EXPECT(t, fabs(floor(k / log(2) * 100 + 1e-9) / 100 -
				   rows[i].bits) < 1e-9);
		DDF_EXPECT(t, fabs(floor(F * 1e10 + 1e-6) / 1e10 -
				   rows[i].fp) < 1e-15);
		DDF_EXPECT(t, fabs(A - rows[i].acc_false) <= 0.005);
	}
}

DDF_TEST(apbbf_table4_bits)
{
	static const struct {
		uint32_t k, l, b;
		double apbbf, swamp;
	} rows[] = {
		{ 2, 5, 4, 16.2, 32.0 }, { 3, 8, 4, 23.9, 39.8 },
		{ 2, 5, 8, 32.6, 48.5 }, { 3, 8, 8, 48.0, 64.6 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(rows); i++) {
		struct ddf_params p = { .kind = DDF_KIND_APBBF, .k = rows[i].k,
					.l = rows[i].l, .window = 1u << 16,
					.block_bits = 512,
					.block_hashes = rows[i].b };
		const char *why;
		double seg, real;

		DDF_ASSERT(t, !ddf_params_resolve(&p, &why));
		seg = (double)p.m * p.block_bits * (p.k + p.l) / p.window;
		real = ddf_filter_memsize(&p) * 8.0 / p.window;
		DDF_LOG(t, "k=%u l=%u b=%u: %.2f bits per element in k + l segments (paper %.1f), %.2f with ddf's spare segment (SWAMP %.1f)",
			p.k, p.l, p.block_hashes, seg, rows[i].apbbf, real,
			rows[i].swamp);
		DDF_EXPECT(t, fabs(seg - rows[i].apbbf) <= 0.1);
		DDF_EXPECT(t, real < rows[i].swamp);
	}
}

static ddf_case_t ddf_apbf_tables_1_4_cases[] = {
	DDF_CASE(apbf_table1_bloom),
	DDF_CASE(apbbf_table4_bits),
	DDF_CASES_END,
};

DDF_SUITE(ddf_apbf_tables_1_4, ddf_apbf_tables_1_4_cases);
