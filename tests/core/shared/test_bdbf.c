// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Block decaying Bloom filter: the block size from the window and the
 * counter width, no false negative inside the window, the exact arrival at
 * which a key expires (its counter's slice decrements it once per block,
 * at the slice's own phase), refresh by a duplicate, and parameter
 * checking.
 *
 * Keys' counters are computed with the derivation the filter documents:
 * counter i = ddf_reduce(ddf_hash_nth(h, i), m).
 */
#include "ddf_test_util.h"

static struct ddf_test_made bdbf_make(ddf_test_t *t, uint64_t W, uint64_t m,
				      uint32_t k, uint32_t c)
{
	struct ddf_params p = { .kind = DDF_KIND_BDBF, .window = W, .m = m,
				.k = k, .cell_bits = c };

	return ddf_test_make(t, &p, 0);
}

static uint64_t bdbf_ctr(const struct ddf_hash *h, uint32_t i, uint64_t m)
{
	return ddf_reduce(ddf_hash_nth(h, i), m);
}

DDF_TEST(bdbf_type_registered)
{
	const struct ddf_filter_type *ty = ddf_filter_type_by_name("bdbf");

	DDF_ASSERT(t, ty);
	ddf_test_expect_type(t, ty, DDF_KIND_BDBF);
}

DDF_TEST(bdbf_empty_reports_nothing)
{
	struct ddf_filter *f = bdbf_make(t, 100, 4096, 3, 4).f;
	uint64_t s = 1, hits;

	DDF_ASSERT(t, f);
	hits = ddf_test_lookup_hits(f, &s, 2000);
	DDF_EXPECT_EQ(t, hits, 0);
}

/* d = ceil((W - 1) / (C - 1)), C = 2^c - 1 */
DDF_TEST(bdbf_block_size)
{
	static const struct {
		uint64_t W;
		uint32_t c;
		uint64_t d;
	} cases[] = {
		{ 1, 2, 1 },	 { 2, 2, 1 },	   { 3, 2, 1 },
		{ 4, 2, 2 },	 { 10, 2, 5 },	   { 6000, 4, 429 },
		{ 6000, 3, 1000 }, { 255, 8, 1 },  { 256, 8, 2 },
		{ 1000, 16, 1 }, { 1ull << 40, 32, 257 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_params p = { .kind = DDF_KIND_BDBF,
					.window = cases[i].W, .m = 64, .k = 1,
					.cell_bits = cases[i].c };
		struct ddf_filter *f;
		struct ddf_stats st;
		uint64_t s = 2;
		const char *why;
		void *mem;

		DDF_ASSERT(t, !ddf_params_resolve(&p, &why));
		mem = ddf_test_alloc(t, ddf_filter_memsize(&p));
		DDF_ASSERT(t, mem);
		f = ddf_filter_init(mem, ddf_filter_memsize(&p), &p, 0);
		DDF_ASSERT(t, f);
		ddf_test_insert_keys(f, &s, 7);
		ddf_filter_stats(f, &st);
		DDF_EXPECT_MSG(t, st.gen_size == cases[i].d,
			       "W=%llu c=%u: d=%llu, expected %llu",
			       (unsigned long long)cases[i].W, cases[i].c,
			       (unsigned long long)st.gen_size,
			       (unsigned long long)cases[i].d);
		DDF_EXPECT_EQ(t, st.window, cases[i].W);
		DDF_EXPECT_EQ(t, st.inserts, 7);
		DDF_EXPECT_EQ(t, st.generation, ddf_div64(7, cases[i].d));
	}
}

/*
 * The arrival at which a key expires, predicted from its counters: a
 * counter in word w (of nw, cpw counters a word) belongs to slice j of
 * the balanced split of the words into d slices, and is decremented at
 * the arrivals = j mod d. Set at arrival t, it reaches zero at the C-th
 * such arrival after t, t + delta + (C - 1) d, and a key is found while
 * all its counters are non-zero. Fillers avoid the key's counters.
 */
static uint64_t bdbf_slice(uint64_t w, uint64_t nw, uint64_t d)
{
	uint64_t q = ddf_div64(nw, d), r = nw - q * d;

	if (w < r * (q + 1))
		return ddf_div64(w, q + 1);
	return r + ddf_div64(w - r * (q + 1), q);
}

static void bdbf_expiry_shape(ddf_test_t *t, uint64_t W, uint32_t c,
			      uint64_t m, uint32_t k, unsigned int keys)
{
	struct ddf_filter *f = bdbf_make(t, W, m, k, c).f;
	uint64_t C = (1ull << c) - 1, cpw = 64 / c;
	uint64_t nw = ddf_div64(m + cpw - 1, cpw);
	uint64_t d = W > 1 ? ddf_div64(W - 2 + C - 1, C - 1) : 1;
	uint64_t s = W * 31 + c, arrival = 0, bad = 0, lo = ~0ull, hi = 0;
	unsigned int n, i, j;

	DDF_EXPECT(t, f);
	if (!f)
		return;
	for (n = 0; n < keys; n++) {
		struct ddf_hash a = ddf_test_key(&s);
		uint64_t ctr[8], expect = ~0ull, fillers = 0;

		for (i = 0; i < k; i++) {
			uint64_t jw = bdbf_slice(ddf_div64(bdbf_ctr(&a, i, m),
							   cpw), nw, d);
			/* the first arrival after this one in slice jw */
			uint64_t delta = ddf_mod64(jw + d -
						   ddf_mod64(arrival + 1, d),
						   d) + 1;

			ctr[i] = bdbf_ctr(&a, i, m);
			if (delta + (C - 1) * d < expect)
				expect = delta + (C - 1) * d;
		}
		ddf_filter_insert(f, &a, 0);
		arrival++;
		while (ddf_filter_lookup(f, &a, 0) && fillers <= C * d) {
			struct ddf_hash h = ddf_test_key(&s);
			bool clash = false;

			for (i = 0; i < k; i++)
				for (j = 0; j < k; j++)
					clash |= bdbf_ctr(&h, i, m) == ctr[j];
			if (clash)
				continue;
			ddf_filter_insert(f, &h, 0);
			arrival++;
			fillers++;
		}
		bad += fillers != expect;
		if (fillers < lo)
			lo = fillers;
		if (fillers > hi)
			hi = fillers;
		if (fillers != expect && bad < 4)
			DDF_LOG(t, "W=%llu c=%u k=%u: key %u expired after %llu arrivals, expected %llu",
				(unsigned long long)W, c, k, n,
				(unsigned long long)fillers,
				(unsigned long long)expect);
	}
	DDF_EXPECT_MSG(t, !bad, "W=%llu c=%u k=%u: %llu keys expired off time",
		       (unsigned long long)W, c, k, (unsigned long long)bad);
	/* in the window always; gone by C d */
	DDF_EXPECT(t, lo >= W && hi <= C * d);
	/* k = 1 and enough keys: every phase of the block shows */
	if (k == 1 && keys >= 20 * d)
		DDF_EXPECT_MSG(t, lo == (C - 1) * d + 1 && hi == C * d,
			       "W=%llu c=%u: expiry spread %llu..%llu",
			       (unsigned long long)W, c,
			       (unsigned long long)lo, (unsigned long long)hi);
}

DDF_TEST(bdbf_window_expiry)
{
	bdbf_expiry_shape(t, 10, 2, 1 << 12, 1, 200); /* d = 5 */
	bdbf_expiry_shape(t, 1, 2, 1 << 10, 1, 50); /* d = 1 */
	bdbf_expiry_shape(t, 2, 2, 1 << 10, 1, 50);
	bdbf_expiry_shape(t, 100, 3, 1 << 14, 1, 400); /* d = 17 */
	bdbf_expiry_shape(t, 64, 8, 1 << 12, 1, 30); /* d = 1 */
	bdbf_expiry_shape(t, 1000, 4, 1 << 16, 1, 30); /* d = 72 */
	bdbf_expiry_shape(t, 100, 2, 1 << 14, 3, 60); /* d = 50 */
	bdbf_expiry_shape(t, 30, 5, 3000, 4, 60); /* 64 % 5 != 0 */
	/* fewer words than elements per block: most slices are empty */
	bdbf_expiry_shape(t, 6000, 2, 64, 1, 3); /* nw = 2, d = 3000 */
}

/* After every arrival, the key W - 1 arrivals back is still found. */
DDF_TEST(bdbf_no_false_negative_in_window)
{
	static const struct {
		uint64_t W, m;
		uint32_t k, c;
	} shapes[] = {
		{ 1, 64, 1, 2 }, { 7, 256, 2, 2 }, { 100, 4096, 3, 3 },
		{ 1000, 1 << 14, 4, 4 }, { 500, 1 << 12, 2, 8 },
		{ 333, 999, 5, 5 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(shapes); i++) {
		struct ddf_filter *f = bdbf_make(t, shapes[i].W, shapes[i].m,
						 shapes[i].k, shapes[i].c).f;
		uint64_t W = shapes[i].W, n, miss = 0, seed = 40 + i;
		uint64_t back = seed;

		DDF_ASSERT(t, f);
		for (n = 0; n < 10 * W + 100; n++) {
			struct ddf_hash h = ddf_test_key(&seed), o;

			ddf_filter_test_and_insert(f, &h, 0);
			miss += !ddf_filter_lookup(f, &h, 0);
			if (n + 1 >= W) {
				o = ddf_test_key(&back); /* key n + 1 - W */
				miss += !ddf_filter_lookup(f, &o, 0);
			}
		}
		DDF_EXPECT_MSG(t, !miss, "W=%llu c=%u: %llu misses",
			       (unsigned long long)W, shapes[i].c,
			       (unsigned long long)miss);
	}
}

/* A duplicate sets its counters again: the window restarts from it. */
DDF_TEST(bdbf_duplicate_refreshes)
{
	struct ddf_filter *f = bdbf_make(t, 100, 1 << 14, 2, 2).f; /* 150 */
	uint64_t s = 8;
	struct ddf_hash a = ddf_test_key(&s);

	DDF_ASSERT(t, f);
	DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &a, 0));
	ddf_test_insert_keys(f, &s, 99);
	DDF_EXPECT(t, ddf_filter_test_and_insert(f, &a, 0));
	ddf_test_insert_keys(f, &s, 99);
	/* 199 arrivals after the first: only the refresh keeps it */
	DDF_EXPECT(t, ddf_filter_lookup(f, &a, 0));
	ddf_test_insert_keys(f, &s, 151);
	DDF_EXPECT(t, !ddf_filter_lookup(f, &a, 0));
}

DDF_TEST(bdbf_lookup_does_not_modify)
{
	struct ddf_test_made mk = bdbf_make(t, 50, 2048, 3, 3);
	uint64_t s = 99, diff;
	unsigned char *copy;

	DDF_ASSERT(t, mk.f);
	copy = ddf_test_alloc(t, mk.size);
	DDF_ASSERT(t, copy);
	diff = ddf_test_lookup_changes(&mk, copy, &s, 300, 2000);
	DDF_EXPECT_EQ(t, diff, 0);
}

DDF_TEST(bdbf_bad_params)
{
	static const struct ddf_test_bad_params cases[] = {
		{ "no window", { .m = 4096, .k = 3, .cell_bits = 4 },
		  DDF_EINVAL },
		{ "m = 0", { .window = 10, .k = 3, .cell_bits = 4 },
		  DDF_EINVAL },
		{ "k = 0", { .window = 10, .m = 4096, .cell_bits = 4 },
		  DDF_EINVAL },
		{ "c = 0", { .window = 10, .m = 4096, .k = 3 }, DDF_EINVAL },
		{ "c = 1: no room for a block age",
		  { .window = 10, .m = 4096, .k = 3, .cell_bits = 1 },
		  DDF_ERANGE },
		{ "c = 33", { .window = 10, .m = 4096, .k = 3,
			      .cell_bits = 33 }, DDF_ERANGE },
		{ "k = 65", { .window = 10, .m = 4096, .k = 65,
			      .cell_bits = 4 }, DDF_ERANGE },
		{ "m too large", { .window = 10, .m = 1ull << 40, .k = 3,
				   .cell_bits = 4 }, DDF_EFBIG },
		{ "window above DDF_MAX_WINDOW",
		  { .window = DDF_MAX_WINDOW + 1, .m = 4096, .k = 3,
		    .cell_bits = 4 }, DDF_ERANGE },
		{ "time flag",
		  { .flags = DDF_PF_TIME, .window_ns = 1000000000,
		    .window = 10, .m = 4096, .k = 3, .cell_bits = 4 },
		  DDF_EINVAL },
		{ "unknown flag", { .flags = 0x8, .window = 10, .m = 4096,
				    .k = 3, .cell_bits = 4 }, DDF_EINVAL },
		{ "a PRNG seed", { .rng_seed = 5, .window = 10, .m = 4096,
				   .k = 3, .cell_bits = 4 }, DDF_EINVAL },
		{ "decrements", { .decrements = 5, .window = 10, .m = 4096,
				  .k = 3, .cell_bits = 4 }, DDF_EINVAL },
		{ "fp_bits", { .fp_bits = 5, .window = 10, .m = 4096, .k = 3,
			       .cell_bits = 4 }, DDF_EINVAL },
		{ "APBF l", { .l = 5, .window = 10, .m = 4096, .k = 3,
			      .cell_bits = 4 }, DDF_EINVAL },
		{ "APBBF block_bits", { .block_bits = 64, .window = 10,
					.m = 4096, .k = 3, .cell_bits = 4 },
		  DDF_EINVAL },
		{ "APBBF block_hashes", { .block_hashes = 4, .window = 10,
					  .m = 4096, .k = 3, .cell_bits = 4 },
		  DDF_EINVAL },
		{ "queue subfilters", { .subfilters = 2, .window = 10,
					.m = 4096, .k = 3, .cell_bits = 4 },
		  DDF_EINVAL },
		{ "queue inner_kind", { .inner_kind = 3, .window = 10,
					.m = 4096, .k = 3, .cell_bits = 4 },
		  DDF_EINVAL },
	};

	ddf_test_expect_refused(t, DDF_KIND_BDBF, cases,
				DDF_ARRAY_SIZE(cases));
}

DDF_TEST(bdbf_stats_counts)
{
	struct ddf_filter *f = bdbf_make(t, 10, 640, 1, 2).f; /* d = 5 */
	struct ddf_stats st;
	uint64_t s = 3;

	DDF_ASSERT(t, f);
	ddf_test_insert_keys(f, &s, 12);
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.slots, 640);
	DDF_EXPECT_EQ(t, st.inserts, 12);
	DDF_EXPECT_EQ(t, st.generation, 2);
	DDF_EXPECT(t, st.used >= 1 && st.used <= 12);
	DDF_EXPECT_EQ(t, st.bytes, ddf_filter_memsize(&f->params));
}

static ddf_case_t ddf_bdbf_cases[] = {
	DDF_CASE(bdbf_type_registered),
	DDF_CASE(bdbf_empty_reports_nothing),
	DDF_CASE(bdbf_block_size),
	DDF_CASE(bdbf_window_expiry),
	DDF_CASE(bdbf_no_false_negative_in_window),
	DDF_CASE(bdbf_duplicate_refreshes),
	DDF_CASE(bdbf_lookup_does_not_modify),
	DDF_CASE(bdbf_bad_params),
	DDF_CASE(bdbf_stats_counts),
	DDF_CASES_END,
};

DDF_SUITE(ddf_bdbf, ddf_bdbf_cases);
