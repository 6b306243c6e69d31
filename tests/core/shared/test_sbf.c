// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Stable Bloom Filter: the answer comes before the update, P random
 * decrements that leave zero cells alone and come before the K cells are
 * set to Max, forgetting after Max decrements of a cell, the PRNG seed, and
 * parameter checking.
 *
 * Keys that must land on a given cell are searched for with the same
 * derivation the filter documents: cell i = ddf_reduce(ddf_hash_nth(h, i), m).
 */
#include "ddf_test_util.h"

static struct ddf_test_made sbf_make(ddf_test_t *t, uint64_t m, uint32_t d,
				     uint32_t K, uint32_t P, uint64_t seed)
{
	struct ddf_params p = { .kind = DDF_KIND_SBF, .m = m, .cell_bits = d,
				.k = K, .decrements = P, .rng_seed = seed };

	return ddf_test_make(t, &p, 0);
}

/* A key whose single cell (K = 1) among m is cell. */
static struct ddf_hash sbf_key_at(uint64_t m, uint64_t cell, uint64_t salt)
{
	uint64_t s = salt * 0x51ed27ull + cell;
	struct ddf_hash h;

	do
		h = ddf_test_key(&s);
	while (ddf_reduce(ddf_hash_nth(&h, 0), m) != cell);
	return h;
}

DDF_TEST(sbf_type_registered)
{
	const struct ddf_filter_type *ty = ddf_filter_type_by_name("sbf");

	DDF_ASSERT(t, ty);
	ddf_test_expect_type(t, ty, DDF_KIND_SBF);
}

DDF_TEST(sbf_empty_reports_nothing)
{
	struct ddf_filter *f = sbf_make(t, 1000, 2, 2, 10, 1).f;
	uint64_t s = 3, hits;

	DDF_ASSERT(t, f);
	hits = ddf_test_lookup_hits(f, &s, 2000);
	DDF_EXPECT_EQ(t, hits, 0);
	DDF_EXPECT_EQ(t, ddf_test_used(f), 0);
}

/*
 * Found right after insertion, whatever the decrements did: they come
 * before the K cells are set. m = 1 makes every decrement hit the key's
 * own cell.
 */
DDF_TEST(sbf_inserted_found)
{
	static const struct {
		uint64_t m;
		uint32_t d, K, P;
	} shapes[] = {
		{ 1, 1, 1, 1 }, { 1, 2, 3, 5 }, { 64, 1, 2, 64 },
		{ 4096, 2, 2, 39 }, { 1000, 3, 4, 200 }, { 999, 32, 1, 7 },
	};
	unsigned int i, n;

	for (i = 0; i < DDF_ARRAY_SIZE(shapes); i++) {
		struct ddf_filter *f = sbf_make(t, shapes[i].m, shapes[i].d,
						shapes[i].K, shapes[i].P, i).f;
		uint64_t s = 100 + i, lost = 0;

		DDF_ASSERT(t, f);
		for (n = 0; n < 2000; n++) {
			struct ddf_hash h = ddf_test_key(&s);

			ddf_filter_test_and_insert(f, &h, 0);
			lost += !ddf_filter_lookup(f, &h, 0);
			ddf_filter_insert(f, &h, 0);
			lost += !ddf_filter_lookup(f, &h, 0);
		}
		DDF_EXPECT_MSG(t, !lost, "m=%llu d=%u K=%u P=%u: %llu lost",
			       (unsigned long long)shapes[i].m, shapes[i].d,
			       shapes[i].K, shapes[i].P,
			       (unsigned long long)lost);
	}
}

/* The answer is taken before the key's own update. */
DDF_TEST(sbf_answer_before_update)
{
	struct ddf_filter *f = sbf_make(t, 1, 2, 1, 1, 0).f;
	uint64_t s = 5;
	struct ddf_hash a = ddf_test_key(&s), b = ddf_test_key(&s);

	DDF_ASSERT(t, f);
	DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &a, 0));
	/* one cell: b finds a's cell set, a false positive */
	DDF_EXPECT(t, ddf_filter_test_and_insert(f, &b, 0));
	DDF_EXPECT(t, ddf_filter_test_and_insert(f, &a, 0));
}

/*
 * Decrements leave zero cells alone: with P = m decrements into an empty
 * filter, an insertion leaves exactly its K cells non-zero. A cell wrapped
 * from 0 to Max would show up as an extra used cell.
 */
DDF_TEST(sbf_decrement_skips_zero)
{
	struct ddf_filter *f = sbf_make(t, 64, 2, 1, 64, 9).f;
	struct ddf_hash a = sbf_key_at(64, 10, 1), b = sbf_key_at(64, 20, 1);
	uint64_t c, other = 0;

	DDF_ASSERT(t, f);
	ddf_filter_insert(f, &a, 0);
	DDF_EXPECT_EQ(t, ddf_test_used(f), 1);
	ddf_filter_insert(f, &b, 0);
	DDF_EXPECT(t, ddf_test_used(f) >= 1 && ddf_test_used(f) <= 2);
	DDF_EXPECT(t, ddf_filter_lookup(f, &b, 0));
	for (c = 0; c < 64; c++) {
		struct ddf_hash h = sbf_key_at(64, c, 2);

		if (c != 10 && c != 20)
			other += ddf_filter_lookup(f, &h, 0);
	}
	DDF_EXPECT_EQ(t, other, 0);
}

/*
 * Two cells, P = 1: each insertion of b (cell 1) decrements cell 0 with
 * probability 1/2, so a (cell 0) is forgotten after exactly Max such
 * decrements: never before Max insertions of b, after 2 Max on average (a
 * negative binomial). Over 200 seeds the mean must be near 2 Max; with
 * P = 2 and Max = 3 it is 3.26 (cell 0 takes Binomial(2, 1/2) decrements
 * per insertion).
 */
static uint64_t sbf_forget_after(ddf_test_t *t, uint32_t d, uint32_t P,
				 uint64_t seed, uint64_t *min)
{
	struct ddf_filter *f = sbf_make(t, 2, d, 1, P, seed).f;
	struct ddf_hash a = sbf_key_at(2, 0, 3), b = sbf_key_at(2, 1, 3);
	uint64_t n;

	if (!f)
		return 0;
	ddf_filter_insert(f, &a, 0);
	for (n = 1; n < 1000; n++) {
		ddf_filter_insert(f, &b, 0);
		if (!ddf_filter_lookup(f, &a, 0))
			break;
	}
	if (n < *min)
		*min = n;
	return n;
}

DDF_TEST(sbf_forgets_after_max_decrements)
{
	static const struct {
		uint32_t d, P;
		uint64_t lo, hi; /* bounds on the sum over 200 seeds */
	} cases[] = {
		/* Max = 1: mean 2 */
		{ 1, 1, 340, 460 },
		/* Max = 3: mean 6 */
		{ 2, 1, 1080, 1320 },
		/* Max = 7: mean 14 */
		{ 3, 1, 2600, 3000 },
		/* Max = 3, P = 2: mean 3.26 */
		{ 2, 2, 580, 730 },
	};
	unsigned int i;
	uint64_t seed;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		uint64_t sum = 0, min = ~0ull;
		uint64_t max = (1ull << cases[i].d) - 1;

		for (seed = 0; seed < 200; seed++)
			sum += sbf_forget_after(t, cases[i].d, cases[i].P,
						seed, &min);
		DDF_EXPECT_MSG(t, sum >= cases[i].lo && sum <= cases[i].hi,
			       "d=%u P=%u: forgotten after %llu insertions in 200 runs, expected %llu..%llu",
			       cases[i].d, cases[i].P, (unsigned long long)sum,
			       (unsigned long long)cases[i].lo,
			       (unsigned long long)cases[i].hi);
		/* P decrements per insertion: at least Max / P insertions */
		DDF_EXPECT_MSG(t, min * cases[i].P >= max,
			       "d=%u P=%u: forgotten after %llu insertions",
			       cases[i].d, cases[i].P,
			       (unsigned long long)min);
	}
}

/* Each insertion sets a key's K cells to Max: a cell at Max - 1 is reset. */
DDF_TEST(sbf_set_to_max_refreshes)
{
	uint64_t seed, survived = 0;

	for (seed = 0; seed < 100; seed++) {
		struct ddf_filter *f = sbf_make(t, 2, 2, 1, 1, seed).f;
		struct ddf_hash a = sbf_key_at(2, 0, 4);
		struct ddf_hash b = sbf_key_at(2, 1, 4);
		unsigned int n;

		DDF_ASSERT(t, f);
		ddf_filter_insert(f, &a, 0);
		/* a again after every b: its cell never falls below Max - 1 */
		for (n = 0; n < 50; n++) {
			ddf_filter_insert(f, &b, 0);
			survived += ddf_filter_lookup(f, &a, 0);
			/* a duplicate is inserted all the same */
			survived += ddf_filter_test_and_insert(f, &a, 0);
		}
	}
	DDF_EXPECT_EQ(t, survived, 100 * 50 * 2);
}

/* The decrements follow the seed: the same seed, the same state. */
DDF_TEST(sbf_seed_reproducible)
{
	struct ddf_test_made a = sbf_make(t, 512, 2, 2, 20, 77);
	struct ddf_test_made b = sbf_make(t, 512, 2, 2, 20, 77);
	struct ddf_test_made c = sbf_make(t, 512, 2, 2, 20, 78);
	uint64_t s = 1, i, same_ab = 1, same_ac = 1;

	DDF_ASSERT(t, a.f && b.f && c.f);
	for (i = 0; i < 300; i++) {
		struct ddf_hash h = ddf_test_key(&s);

		ddf_filter_insert(a.f, &h, 0);
		ddf_filter_insert(b.f, &h, 0);
		ddf_filter_insert(c.f, &h, 0);
	}
	/* compare the cells, which follow the header */
	for (i = 0; i < 512; i++) {
		struct ddf_hash h = sbf_key_at(512, i, 5);
		bool x = ddf_filter_lookup(a.f, &h, 0);

		same_ab &= x == ddf_filter_lookup(b.f, &h, 0);
		same_ac &= x == ddf_filter_lookup(c.f, &h, 0);
	}
	DDF_EXPECT(t, same_ab);
	DDF_EXPECT(t, ddf_test_used(a.f) == ddf_test_used(b.f));
	DDF_EXPECT(t, !same_ac || ddf_test_used(a.f) != ddf_test_used(c.f));
}

DDF_TEST(sbf_lookup_does_not_modify)
{
	struct ddf_test_made mk = sbf_make(t, 4096, 2, 2, 30, 5);
	uint64_t s = 99, diff;
	unsigned char *copy;

	DDF_ASSERT(t, mk.f);
	copy = ddf_test_alloc(t, mk.size);
	DDF_ASSERT(t, copy);
	diff = ddf_test_lookup_changes(&mk, copy, &s, 1000, 2000);
	DDF_EXPECT_EQ(t, diff, 0);
}

DDF_TEST(sbf_bad_params)
{
	static const struct ddf_test_bad_params cases[] = {
		{ "m = 0", { .k = 2, .cell_bits = 2, .decrements = 10 },
		  DDF_EINVAL },
		{ "K = 0", { .m = 64, .cell_bits = 2, .decrements = 10 },
		  DDF_EINVAL },
		{ "d = 0", { .m = 64, .k = 2, .decrements = 10 }, DDF_EINVAL },
		{ "P = 0", { .m = 64, .k = 2, .cell_bits = 2 }, DDF_EINVAL },
		{ "K = 65", { .m = 64, .k = 65, .cell_bits = 2,
			      .decrements = 10 }, DDF_ERANGE },
		{ "d = 33", { .m = 64, .k = 2, .cell_bits = 33,
			      .decrements = 10 }, DDF_ERANGE },
		{ "P = 65537", { .m = 64, .k = 2, .cell_bits = 2,
				 .decrements = 65537 }, DDF_ERANGE },
		{ "cells too many", { .m = 1ull << 40, .k = 2, .cell_bits = 8,
				      .decrements = 10 }, DDF_EFBIG },
		{ "a window", { .window = 1000, .m = 64, .k = 2,
				.cell_bits = 2, .decrements = 10 },
		  DDF_EINVAL },
		{ "time flag",
		  { .flags = DDF_PF_TIME, .window_ns = 1000000000, .m = 64,
		    .k = 2, .cell_bits = 2, .decrements = 10 }, DDF_EINVAL },
		{ "unknown flag", { .flags = 0x40, .m = 64, .k = 2,
				    .cell_bits = 2, .decrements = 10 },
		  DDF_EINVAL },
		{ "fingerprint bits", { .fp_bits = 8, .m = 64, .k = 2,
					.cell_bits = 2, .decrements = 10 },
		  DDF_EINVAL },
		{ "APBF l", { .l = 3, .m = 64, .k = 2, .cell_bits = 2,
			      .decrements = 10 }, DDF_EINVAL },
		{ "APBBF block_bits", { .block_bits = 64, .m = 64, .k = 2,
					.cell_bits = 2, .decrements = 10 },
		  DDF_EINVAL },
		{ "APBBF block_hashes", { .block_hashes = 4, .m = 64, .k = 2,
					  .cell_bits = 2, .decrements = 10 },
		  DDF_EINVAL },
		{ "queue subfilters", { .subfilters = 2, .m = 64, .k = 2,
					.cell_bits = 2, .decrements = 10 },
		  DDF_EINVAL },
		{ "queue inner_kind", { .inner_kind = 3, .m = 64, .k = 2,
					.cell_bits = 2, .decrements = 10 },
		  DDF_EINVAL },
	};

	ddf_test_expect_refused(t, DDF_KIND_SBF, cases, DDF_ARRAY_SIZE(cases));
	/* the limits themselves are accepted */
	{
		struct ddf_params p = { .kind = DDF_KIND_SBF, .m = 1,
					.k = 64, .cell_bits = 32,
					.decrements = 65536 };
		const char *why = NULL;

		DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
		DDF_EXPECT(t, ddf_filter_memsize(&p) > 0);
	}
}

DDF_TEST(sbf_stats_counts)
{
	struct ddf_filter *f = sbf_make(t, 100, 3, 1, 1, 0).f;
	struct ddf_hash h;
	struct ddf_stats st;
	uint64_t c;

	DDF_ASSERT(t, f);
	for (c = 0; c < 100; c += 10) {
		h = sbf_key_at(100, c, 6);
		ddf_filter_insert(f, &h, 0);
	}
	/* 10 cells set to 7; 9 decrements at most: none back to zero */
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.slots, 100);
	DDF_EXPECT_EQ(t, st.used, 10);
	DDF_EXPECT_EQ(t, st.fill_ppm, 100000);
	DDF_EXPECT_EQ(t, st.bytes, ddf_filter_memsize(&f->params));
}

static ddf_case_t ddf_sbf_cases[] = {
	DDF_CASE(sbf_type_registered),
	DDF_CASE(sbf_empty_reports_nothing),
	DDF_CASE(sbf_inserted_found),
	DDF_CASE(sbf_answer_before_update),
	DDF_CASE(sbf_decrement_skips_zero),
	DDF_CASE(sbf_forgets_after_max_decrements),
	DDF_CASE(sbf_set_to_max_refreshes),
	DDF_CASE(sbf_seed_reproducible),
	DDF_CASE(sbf_lookup_does_not_modify),
	DDF_CASE(sbf_bad_params),
	DDF_CASE(sbf_stats_counts),
	DDF_CASES_END,
};

DDF_SUITE(ddf_sbf, ddf_sbf_cases);
