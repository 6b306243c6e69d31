// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Streaming Quotient Filter: the fingerprint r' bits || Hamming weight of
 * section 2.4, the row from the q most significant bits, random
 * replacement in a full row, rows packed into shared words, and parameter
 * checking.
 *
 * Hashes are built by hand: h1 carries the row in its top q bits, h2 the
 * r-bit remainder in its low bits.
 */
#include "ddf_test_util.h"

/* 4 rows: q = 2, ddf_reduce(row << 62, 4) == row */
static struct ddf_hash sqf_key(uint64_t row, uint64_t rem)
{
	struct ddf_hash h = { row << 62, rem };

	return h;
}

static struct ddf_test_made sqf_make(ddf_test_t *t, uint32_t k, uint32_t r,
				     uint32_t sigma, uint64_t rows,
				     uint64_t seed)
{
	struct ddf_params p = { .kind = DDF_KIND_SQF, .k = k, .fp_bits = r,
				.cell_bits = sigma, .m = rows,
				.rng_seed = seed };

	return ddf_test_make(t, &p, 0);
}

static struct ddf_filter *sqf_filter(ddf_test_t *t, uint32_t k, uint32_t r,
				     uint32_t sigma, uint64_t rows)
{
	return sqf_make(t, k, r, sigma, rows, 1).f;
}

DDF_TEST(sqf_type_registered)
{
	const struct ddf_filter_type *ty = ddf_filter_type_by_name("sqf");

	DDF_ASSERT(t, ty);
	ddf_test_expect_type(t, ty, DDF_KIND_SQF);
}

DDF_TEST(sqf_empty_reports_nothing)
{
	struct ddf_filter *f = sqf_filter(t, 4, 8, 6, 64);
	uint64_t s = 11, hits;
	unsigned int i;

	DDF_ASSERT(t, f);
	hits = ddf_test_lookup_hits(f, &s, 2000);
	/* the all-zero remainder (fingerprint 0 || 0) is not "empty" */
	for (i = 0; i < 4; i++) {
		struct ddf_hash h = sqf_key(i, 0);

		hits += ddf_filter_lookup(f, &h, 0);
	}
	DDF_EXPECT_EQ(t, hits, 0);
	DDF_EXPECT_EQ(t, ddf_test_used(f), 0);
}

DDF_TEST(sqf_inserted_found)
{
	struct ddf_filter *f = sqf_filter(t, 3, 16, 12, 1024);
	uint64_t s = 12, lost = 0, dups = 0;
	unsigned int i;

	DDF_ASSERT(t, f);
	for (i = 0; i < 3000; i++) {
		struct ddf_hash h = ddf_test_key(&s);

		dups += ddf_filter_test_and_insert(f, &h, 0);
		lost += !ddf_filter_lookup(f, &h, 0);
		/* streamed again: a duplicate, stored once */
		lost += !ddf_filter_test_and_insert(f, &h, 0);
	}
	DDF_EXPECT_EQ(t, lost, 0);
	/* k / S-sized collisions only: S = 2^4 * 13 here */
	DDF_EXPECT_MSG(t, dups < 300, "%llu of 3000 fresh keys reported",
		       (unsigned long long)dups);
}

/*
 * r = 8, r' = 2, sigma = 2 + 4: the fingerprint is the two low bits of the
 * remainder and the weight of all eight. Two remainders collide exactly
 * when both agree; bits of h2 above r play no part.
 */
DDF_TEST(sqf_fingerprint_bits_and_weight)
{
	static const struct {
		const char *what;
		uint64_t a, b;
		bool same;
	} cases[] = {
		{ "same remainder", 0x05, 0x05, true },
		{ "same low bits, same weight", 0x05, 0x81, true },
		{ "low bits and weight agree", 0x3d, 0xf1, true },
		{ "same low bits, weight 2 vs 3", 0x05, 0x0d, false },
		{ "same weight, low bits 01 vs 10", 0x05, 0x06, false },
		{ "same weight, low bits 01 vs 11", 0x05, 0x03, false },
		{ "bits above r ignored", 0x05, 0xff05, true },
		{ "bits above r ignored (2)", 0xabcd00, 0, true },
		{ "zero vs low bits 00 weight 1", 0x00, 0x04, false },
		{ "weight 8 vs weight 7", 0xff, 0x7f, false },
		{ "high bit only vs bit 2 only", 0x80, 0x04, true },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_filter *f = sqf_filter(t, 4, 8, 6, 4);
		struct ddf_hash a = sqf_key(2, cases[i].a);
		struct ddf_hash b = sqf_key(2, cases[i].b);

		DDF_ASSERT(t, f);
		DDF_EXPECT_MSG(t, !ddf_filter_test_and_insert(f, &a, 0),
			       "%s: first key reported", cases[i].what);
		DDF_EXPECT_MSG(t, ddf_filter_lookup(f, &b, 0) == cases[i].same,
			       "%s: %#llx then %#llx, duplicate %d expected",
			       cases[i].what, (unsigned long long)cases[i].a,
			       (unsigned long long)cases[i].b, cases[i].same);
		/* another row never matches */
		b = sqf_key(1, cases[i].b);
		DDF_EXPECT(t, !ddf_filter_lookup(f, &b, 0));
	}
}

/* All 2^r remainders fall on S = 2^r' (r - r' + 1) fingerprints (4.4.1). */
DDF_TEST(sqf_fingerprint_count)
{
	/* shapes whose S fingerprints fit one row of 64 / sigma cells */
	static const uint32_t shapes[][2] = { { 2, 1 }, { 3, 1 }, { 4, 1 },
					      { 4, 2 }, { 6, 1 }, { 7, 1 } };
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(shapes); i++) {
		uint32_t r = shapes[i][0], rp = shapes[i][1], wb = 0;
		uint64_t rem, classes = 0, S = (1ull << rp) * (r - rp + 1);
		struct ddf_filter *f;

		while ((1u << wb) <= r)
			wb++;
		f = sqf_filter(t, 64 / (rp + wb), r, rp + wb, 1);
		DDF_ASSERT(t, f);
		DDF_ASSERT(t, S <= 64 / (rp + wb));
		for (rem = 0; rem < (1ull << r); rem++) {
			struct ddf_hash h = sqf_key(0, rem);

			classes += !ddf_filter_test_and_insert(f, &h, 0);
		}
		DDF_EXPECT_MSG(t, classes == S,
			       "r=%u r'=%u: %llu fingerprints, S=%llu", r, rp,
			       (unsigned long long)classes,
			       (unsigned long long)S);
	}
}

/*
 * A full row: a new fingerprint replaces one cell chosen by the PRNG, the
 * others stay; a fingerprint present changes nothing. Over many seeds
 * every cell is chosen, and one seed always chooses the same cell.
 */
DDF_TEST(sqf_full_row_random_replacement)
{
	static const uint64_t rems[5] = { 0x01, 0x02, 0x03, 0x07, 0x0f };
	uint32_t evicted[4] = { 0 };
	uint64_t seed;
	unsigned int i;

	for (seed = 0; seed < 64; seed++) {
		struct ddf_test_made mk = sqf_make(t, 4, 8, 6, 4, seed);
		int gone = -1, again = -1;
		struct ddf_hash h;

		DDF_ASSERT(t, mk.f);
		for (i = 0; i < 4; i++) {
			h = sqf_key(3, rems[i]);
			DDF_EXPECT(t, !ddf_filter_test_and_insert(mk.f, &h, 0));
		}
		h = sqf_key(3, rems[2]);
		DDF_EXPECT(t, ddf_filter_test_and_insert(mk.f, &h, 0));
		DDF_EXPECT_EQ(t, ddf_test_used(mk.f), 4);

		h = sqf_key(3, rems[4]);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(mk.f, &h, 0));
		DDF_EXPECT(t, ddf_filter_lookup(mk.f, &h, 0));
		DDF_EXPECT_EQ(t, ddf_test_used(mk.f), 4);
		for (i = 0; i < 4; i++) {
			h = sqf_key(3, rems[i]);
			if (!ddf_filter_lookup(mk.f, &h, 0)) {
				DDF_EXPECT_MSG(t, gone < 0,
					       "seed %llu: two evicted",
					       (unsigned long long)seed);
				gone = (int)i;
			}
		}
		DDF_ASSERT_MSG(t, gone >= 0, "seed %llu: nothing evicted",
			       (unsigned long long)seed);
		evicted[gone]++;

		/* the same seed makes the same choice */
		mk = sqf_make(t, 4, 8, 6, 4, seed);
		DDF_ASSERT(t, mk.f);
		for (i = 0; i < 5; i++) {
			h = sqf_key(3, rems[i]);
			ddf_filter_insert(mk.f, &h, 0);
		}
		for (i = 0; i < 4; i++) {
			h = sqf_key(3, rems[i]);
			if (!ddf_filter_lookup(mk.f, &h, 0))
				again = (int)i;
		}
		DDF_EXPECT_EQ(t, again, gone);
	}
	for (i = 0; i < 4; i++)
		DDF_EXPECT_MSG(t, evicted[i] >= 4,
			       "cell of %#llx evicted %u times in 64",
			       (unsigned long long)rems[i], evicted[i]);
}

/* The row is the q most significant bits of h1; the rest is unused. */
DDF_TEST(sqf_row_from_top_bits)
{
	struct ddf_filter *f = sqf_filter(t, 2, 8, 6, 4);
	struct ddf_hash h = sqf_key(1, 0x55);
	unsigned int row;

	DDF_ASSERT(t, f);
	ddf_filter_insert(f, &h, 0);
	h.h1 |= 0x3fffffffffffffffull; /* low bits: same row */
	DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
	for (row = 0; row < 4; row++) {
		h = sqf_key(row, 0x55);
		DDF_EXPECT_EQ(t, ddf_filter_lookup(f, &h, 0), row == 1);
	}
}

/*
 * k = 1, sigma = 3: 21 rows per word. Every row keeps its own cell when
 * its neighbours in the word change.
 */
DDF_TEST(sqf_rows_share_words)
{
	const uint64_t rows = 64;
	struct ddf_filter *f = sqf_filter(t, 1, 2, 3, rows);
	uint64_t r, lost = 0;

	DDF_ASSERT(t, f);
	for (r = 0; r < rows; r++) {
		struct ddf_hash h = { r << 58, r & 3 };

		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
	}
	DDF_EXPECT_EQ(t, ddf_test_used(f), rows);
	for (r = 0; r < rows; r++) {
		/* r = 2, r' = 1: the four remainders are four fingerprints */
		struct ddf_hash h = { r << 58, r & 3 };
		struct ddf_hash o = { r << 58, (r + 1) & 3 };

		lost += !ddf_filter_lookup(f, &h, 0);
		lost += ddf_filter_lookup(f, &o, 0);
	}
	DDF_EXPECT_EQ(t, lost, 0);
	/* one row replaced: the others keep theirs */
	{
		struct ddf_hash h = { 5ull << 58, 0 };

		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
		for (r = 0; r < rows; r++) {
			struct ddf_hash o = { r << 58, r & 3 };

			if (r != 5)
				lost += !ddf_filter_lookup(f, &o, 0);
		}
		DDF_EXPECT_EQ(t, lost, 0);
		DDF_EXPECT_EQ(t, ddf_test_used(f), rows);
	}
}

DDF_TEST(sqf_lookup_does_not_modify)
{
	struct ddf_test_made mk = sqf_make(t, 3, 10, 8, 64, 5);
	uint64_t s = 99, diff;
	unsigned char *copy;

	DDF_ASSERT(t, mk.f);
	copy = ddf_test_alloc(t, mk.size);
	DDF_ASSERT(t, copy);
	diff = ddf_test_lookup_changes(&mk, copy, &s, 300, 2000);
	DDF_EXPECT_EQ(t, diff, 0);
}

DDF_TEST(sqf_resolve_fills)
{
	static const struct {
		const char *what;
		struct ddf_params in;
		uint64_t m, window;
		uint32_t sigma;
	} cases[] = {
		{ "r' = r / 2 by default", { .k = 1, .fp_bits = 2, .m = 8 },
		  8, 8, 3 },
		{ "r = 8: r' = 4, 4 weight bits", { .k = 2, .fp_bits = 8,
						    .m = 16 }, 16, 32, 8 },
		{ "r = 64: r' = 32, 7 weight bits", { .k = 1, .fp_bits = 64,
						     .m = 1 }, 1, 1, 39 },
		{ "rows from a window, rounded up to 2^q",
		  { .k = 3, .fp_bits = 4, .cell_bits = 4, .window = 1000 },
		  512, 1000, 4 },
		{ "window of one", { .k = 1, .fp_bits = 2, .window = 1 },
		  1, 1, 3 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_params p = cases[i].in;
		const char *why = NULL;

		p.kind = DDF_KIND_SQF;
		DDF_EXPECT_MSG(t, !ddf_params_resolve(&p, &why), "%s: %s",
			       cases[i].what, why);
		DDF_EXPECT_MSG(t, p.m == cases[i].m && p.cell_bits ==
				       cases[i].sigma &&
				       p.window == cases[i].window,
			       "%s: m=%llu sigma=%u window=%llu", cases[i].what,
			       (unsigned long long)p.m, p.cell_bits,
			       (unsigned long long)p.window);
		/* resolving twice changes nothing */
		DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
		DDF_EXPECT_EQ(t, p.m, cases[i].m);
	}
}

DDF_TEST(sqf_bad_params)
{
	static const struct ddf_test_bad_params cases[] = {
		{ "k = 0", { .fp_bits = 8, .m = 16 }, DDF_EINVAL },
		{ "r = 0", { .k = 1, .m = 16 }, DDF_EINVAL },
		{ "r = 1 leaves no r' < r", { .k = 1, .fp_bits = 1, .m = 16 },
		  DDF_ERANGE },
		{ "r = 65", { .k = 1, .fp_bits = 65, .m = 16 }, DDF_ERANGE },
		{ "sigma = weight bits: r' = 0",
		  { .k = 1, .fp_bits = 8, .cell_bits = 4, .m = 16 },
		  DDF_ERANGE },
		{ "sigma below the weight bits",
		  { .k = 1, .fp_bits = 8, .cell_bits = 2, .m = 16 },
		  DDF_ERANGE },
		{ "r' = r", { .k = 1, .fp_bits = 8, .cell_bits = 12, .m = 16 },
		  DDF_ERANGE },
		{ "k * sigma = 66", { .k = 11, .fp_bits = 8, .cell_bits = 6,
				      .m = 16 }, DDF_ERANGE },
		{ "rows not a power of two",
		  { .k = 1, .fp_bits = 8, .m = 12 }, DDF_EINVAL },
		{ "neither rows nor window", { .k = 1, .fp_bits = 8 },
		  DDF_EINVAL },
		{ "rows too big", { .k = 1, .fp_bits = 8, .m = 1ull << 40 },
		  DDF_EFBIG },
		{ "window above DDF_MAX_WINDOW",
		  { .k = 1, .fp_bits = 8, .window = DDF_MAX_WINDOW + 1 },
		  DDF_ERANGE },
		{ "time flag",
		  { .flags = DDF_PF_TIME, .window_ns = 1000000000, .k = 1,
		    .fp_bits = 8, .m = 16 }, DDF_EINVAL },
		{ "unknown flag", { .flags = 0x80, .k = 1, .fp_bits = 8,
				    .m = 16 }, DDF_EINVAL },
		{ "APBF l", { .l = 4, .k = 1, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
		{ "APBBF block_bits",
		  { .block_bits = 64, .k = 1, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
		{ "APBBF block_hashes",
		  { .block_hashes = 4, .k = 1, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
		{ "SBF decrements",
		  { .decrements = 3, .k = 1, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
		{ "queue inner_kind",
		  { .inner_kind = DDF_KIND_QHT, .k = 1, .fp_bits = 8,
		    .m = 16 }, DDF_EINVAL },
		{ "queue subfilters",
		  { .subfilters = 4, .k = 1, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
	};

	ddf_test_expect_refused(t, DDF_KIND_SQF, cases, DDF_ARRAY_SIZE(cases));
}

DDF_TEST(sqf_stats_counts)
{
	struct ddf_filter *f = sqf_filter(t, 4, 8, 6, 4);
	struct ddf_stats st;
	uint64_t row;

	DDF_ASSERT(t, f);
	for (row = 0; row < 4; row++) {
		struct ddf_hash h = sqf_key(row, row + 1);

		ddf_filter_insert(f, &h, 0);
	}
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.slots, 16);
	DDF_EXPECT_EQ(t, st.used, 4);
	DDF_EXPECT_EQ(t, st.fill_ppm, 250000);
	DDF_EXPECT_EQ(t, st.bytes, ddf_filter_memsize(&f->params));
	DDF_EXPECT_EQ(t, st.window, 0); /* no guaranteed window */
}

static ddf_case_t ddf_sqf_cases[] = {
	DDF_CASE(sqf_type_registered),
	DDF_CASE(sqf_empty_reports_nothing),
	DDF_CASE(sqf_inserted_found),
	DDF_CASE(sqf_fingerprint_bits_and_weight),
	DDF_CASE(sqf_fingerprint_count),
	DDF_CASE(sqf_full_row_random_replacement),
	DDF_CASE(sqf_row_from_top_bits),
	DDF_CASE(sqf_rows_share_words),
	DDF_CASE(sqf_lookup_does_not_modify),
	DDF_CASE(sqf_resolve_fills),
	DDF_CASE(sqf_bad_params),
	DDF_CASE(sqf_stats_counts),
	DDF_CASES_END,
};

DDF_SUITE(ddf_sqf, ddf_sqf_cases);
