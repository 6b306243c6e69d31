// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A2 (Yoon's aging Bloom filter with two active buffers): the swap after
 * `window` insertions into a1, copy-on-find from a2, duplicates found in a1
 * not aging the filter, the guaranteed window, and parameter checking.
 *
 * The buffers are large against the few keys used, so a false positive
 * would need several bits of one key out of 8 to 64 to collide: the
 * deterministic keys below have none.
 */
#include "ddf_test_util.h"

static struct ddf_test_made a2_make(ddf_test_t *t, uint64_t window,
				    uint64_t m, uint32_t k)
{
	struct ddf_params p = { .kind = DDF_KIND_A2, .window = window, .m = m,
				.k = k };

	return ddf_test_make(t, &p, 0);
}

static struct ddf_hash a2_key(uint64_t i)
{
	return ddf_test_key_at(i * 0x2545f4914f6cdd1dull + 17);
}

DDF_TEST(a2_type_registered)
{
	const struct ddf_filter_type *ty = ddf_filter_type_by_name("a2");

	DDF_ASSERT(t, ty);
	ddf_test_expect_type(t, ty, DDF_KIND_A2);
}

DDF_TEST(a2_empty_reports_nothing)
{
	struct ddf_filter *f = a2_make(t, 100, 4096, 4).f;
	uint64_t i, hits = 0;

	DDF_ASSERT(t, f);
	for (i = 0; i < 2000; i++) {
		struct ddf_hash h = a2_key(i);

		hits += ddf_filter_lookup(f, &h, 0);
	}
	DDF_EXPECT_EQ(t, hits, 0);
}

DDF_TEST(a2_inserted_found)
{
	struct ddf_filter *f = a2_make(t, 500, 8192, 4).f;
	uint64_t i, lost = 0;

	DDF_ASSERT(t, f);
	for (i = 0; i < 5000; i++) {
		struct ddf_hash h = a2_key(i);

		ddf_filter_test_and_insert(f, &h, 0);
		lost += !ddf_filter_lookup(f, &h, 0);
		lost += !ddf_filter_test_and_insert(f, &h, 0);
	}
	DDF_EXPECT_EQ(t, lost, 0);
}

/*
 * Capacity 4: the 4th insertion swaps; the first four live on in a2 and
 * go with the next swap, four insertions later.
 */
DDF_TEST(a2_swap_after_capacity)
{
	struct ddf_filter *f = a2_make(t, 4, 1 << 14, 8).f;
	struct ddf_stats st;
	struct ddf_hash h;
	uint64_t i;

	DDF_ASSERT(t, f);
	for (i = 0; i < 3; i++) {
		h = a2_key(i);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
	}
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.generation, 0);
	DDF_EXPECT_EQ(t, st.inserts, 3);
	h = a2_key(3);
	DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.generation, 1);
	DDF_EXPECT_EQ(t, st.used, 0); /* a1 is empty after a swap */
	for (i = 0; i < 4; i++) {
		h = a2_key(i);
		DDF_EXPECT_MSG(t, ddf_filter_lookup(f, &h, 0),
			       "key %llu lost in the swap",
			       (unsigned long long)i);
	}
	for (i = 4; i < 8; i++) {
		h = a2_key(i);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
	}
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.generation, 2);
	for (i = 0; i < 8; i++) {
		h = a2_key(i);
		DDF_EXPECT_MSG(t, ddf_filter_lookup(f, &h, 0) == (i >= 4),
			       "key %llu after two swaps",
			       (unsigned long long)i);
	}
}

/*
 * Copy-on-find: a key found only in a2 is copied into a1 and survives the
 * next swap; a lookup does not copy, and then the key goes with a2.
 */
DDF_TEST(a2_copy_on_find)
{
	static const bool copy[] = { true, false };
	unsigned int c;

	for (c = 0; c < DDF_ARRAY_SIZE(copy); c++) {
		struct ddf_filter *f = a2_make(t, 4, 1 << 14, 8).f;
		struct ddf_stats st;
		struct ddf_hash h;
		uint64_t i;

		DDF_ASSERT(t, f);
		for (i = 0; i < 4; i++) { /* a2 = { 0, 1, 2, 3 }, a1 = {} */
			h = a2_key(i);
			ddf_filter_insert(f, &h, 0);
		}
		h = a2_key(0);
		if (copy[c])
			DDF_EXPECT(t, ddf_filter_test_and_insert(f, &h, 0));
		else
			DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
		ddf_filter_stats(f, &st);
		/* the copy took a place in a1 */
		DDF_EXPECT_EQ(t, st.inserts, copy[c] ? 5 : 4);
		for (i = 4; i < (copy[c] ? 7 : 8); i++) {
			h = a2_key(i);
			DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
		}
		ddf_filter_stats(f, &st);
		DDF_EXPECT_EQ(t, st.generation, 2);
		h = a2_key(0);
		DDF_EXPECT_MSG(t, ddf_filter_lookup(f, &h, 0) == copy[c],
			       "copy %d: the found key %s", copy[c],
			       copy[c] ? "was lost" : "survived");
		for (i = 1; i < 4; i++) {
			h = a2_key(i);
			DDF_EXPECT(t, !ddf_filter_lookup(f, &h, 0));
		}
	}
}

/* A key already in a1 takes no place there: the filter does not age. */
DDF_TEST(a2_found_in_a1_does_not_age)
{
	struct ddf_filter *f = a2_make(t, 3, 1 << 14, 8).f;
	struct ddf_hash h = a2_key(42);
	struct ddf_stats st;
	unsigned int i;

	DDF_ASSERT(t, f);
	DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
	for (i = 0; i < 100; i++) {
		DDF_EXPECT(t, ddf_filter_test_and_insert(f, &h, 0));
		ddf_filter_insert(f, &h, 0);
	}
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.generation, 0);
	DDF_EXPECT_EQ(t, st.inserts, 1);
}

/*
 * The guaranteed window: after every insertion the last `window` distinct
 * keys are all found.
 */
DDF_TEST(a2_no_false_negative_in_window)
{
	static const struct {
		uint64_t window, m;
		uint32_t k;
	} shapes[] = {
		{ 1, 512, 1 }, { 2, 512, 3 }, { 7, 4096, 2 },
		{ 100, 4096, 3 }, { 1000, 1 << 15, 5 },
	};
	unsigned int s;

	for (s = 0; s < DDF_ARRAY_SIZE(shapes); s++) {
		struct ddf_filter *f = a2_make(t, shapes[s].window, shapes[s].m,
					       shapes[s].k).f;
		uint64_t w = shapes[s].window, i, j, miss = 0;
		struct ddf_stats st;

		DDF_ASSERT(t, f);
		ddf_filter_stats(f, &st);
		DDF_EXPECT_EQ(t, st.window, w);
		for (i = 0; i < 4 * w + 50; i++) {
			struct ddf_hash h = a2_key(i + 1000000 * s);

			ddf_filter_test_and_insert(f, &h, 0);
			for (j = i + 1 > w ? i + 1 - w : 0; j <= i; j++) {
				struct ddf_hash o = a2_key(j + 1000000 * s);

				miss += !ddf_filter_lookup(f, &o, 0);
			}
		}
		DDF_EXPECT_MSG(t, !miss, "window %llu: %llu misses",
			       (unsigned long long)w,
			       (unsigned long long)miss);
	}
}

DDF_TEST(a2_lookup_does_not_modify)
{
	struct ddf_test_made mk = a2_make(t, 50, 4096, 3);
	uint64_t i, diff;
	unsigned char *copy;

	DDF_ASSERT(t, mk.f);
	copy = ddf_test_alloc(t, mk.size);
	DDF_ASSERT(t, copy);
	for (i = 0; i < 120; i++) { /* a2 full, a1 partly */
		struct ddf_hash h = a2_key(i);

		ddf_filter_insert(mk.f, &h, 0);
	}
	ddf_test_snapshot(&mk, copy);
	for (i = 0; i < 3000; i++) { /* old keys (a2) and new ones */
		struct ddf_hash h = a2_key(i);

		ddf_filter_lookup(mk.f, &h, 0);
	}
	diff = ddf_test_changed(&mk, copy);
	DDF_EXPECT_EQ(t, diff, 0);
}

DDF_TEST(a2_bad_params)
{
	static const struct ddf_test_bad_params cases[] = {
		{ "no window", { .m = 4096, .k = 3 }, DDF_EINVAL },
		{ "m = 0", { .window = 10, .k = 3 }, DDF_EINVAL },
		{ "k = 0", { .window = 10, .m = 4096 }, DDF_EINVAL },
		{ "k = 65", { .window = 10, .m = 4096, .k = 65 }, DDF_ERANGE },
		{ "m too large", { .window = 10, .m = 1ull << 40, .k = 3 },
		  DDF_EFBIG },
		{ "window above DDF_MAX_WINDOW",
		  { .window = DDF_MAX_WINDOW + 1, .m = 4096, .k = 3 },
		  DDF_ERANGE },
		{ "time flag",
		  { .flags = DDF_PF_TIME, .window_ns = 1000000000,
		    .window = 10, .m = 4096, .k = 3 }, DDF_EINVAL },
		{ "unknown flag", { .flags = 0x10, .window = 10, .m = 4096,
				    .k = 3 }, DDF_EINVAL },
		{ "a PRNG seed", { .rng_seed = 1, .window = 10, .m = 4096,
				   .k = 3 }, DDF_EINVAL },
		{ "cell_bits", { .cell_bits = 2, .window = 10, .m = 4096,
				 .k = 3 }, DDF_EINVAL },
		{ "decrements", { .decrements = 2, .window = 10, .m = 4096,
				  .k = 3 }, DDF_EINVAL },
		{ "fp_bits", { .fp_bits = 8, .window = 10, .m = 4096,
			       .k = 3 }, DDF_EINVAL },
		{ "APBF l", { .l = 2, .window = 10, .m = 4096, .k = 3 },
		  DDF_EINVAL },
		{ "APBBF block_bits", { .block_bits = 64, .window = 10,
					.m = 4096, .k = 3 }, DDF_EINVAL },
		{ "APBBF block_hashes", { .block_hashes = 4, .window = 10,
					  .m = 4096, .k = 3 }, DDF_EINVAL },
		{ "queue subfilters", { .subfilters = 3, .window = 10,
					.m = 4096, .k = 3 }, DDF_EINVAL },
		{ "queue inner_kind", { .inner_kind = 3, .window = 10,
					.m = 4096, .k = 3 }, DDF_EINVAL },
	};

	ddf_test_expect_refused(t, DDF_KIND_A2, cases, DDF_ARRAY_SIZE(cases));
}

DDF_TEST(a2_stats_counts)
{
	struct ddf_filter *f = a2_make(t, 10, 640, 2).f;
	struct ddf_stats st;
	uint64_t i;

	DDF_ASSERT(t, f);
	for (i = 0; i < 23; i++) {
		struct ddf_hash h = a2_key(i);

		ddf_filter_insert(f, &h, 0);
	}
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.window, 10);
	DDF_EXPECT_EQ(t, st.gen_size, 10);
	DDF_EXPECT_EQ(t, st.generation, 2);
	DDF_EXPECT_EQ(t, st.inserts, 23);
	DDF_EXPECT_EQ(t, st.slots, 640);
	DDF_EXPECT(t, st.used > 0 && st.used <= 6); /* 3 keys, k = 2 */
	DDF_EXPECT_EQ(t, st.bytes, ddf_filter_memsize(&f->params));
}

static ddf_case_t ddf_a2_cases[] = {
	DDF_CASE(a2_type_registered),
	DDF_CASE(a2_empty_reports_nothing),
	DDF_CASE(a2_inserted_found),
	DDF_CASE(a2_swap_after_capacity),
	DDF_CASE(a2_copy_on_find),
	DDF_CASE(a2_found_in_a1_does_not_age),
	DDF_CASE(a2_no_false_negative_in_window),
	DDF_CASE(a2_lookup_does_not_modify),
	DDF_CASE(a2_bad_params),
	DDF_CASE(a2_stats_counts),
	DDF_CASES_END,
};

DDF_SUITE(ddf_a2, ddf_a2_cases);
