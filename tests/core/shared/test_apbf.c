// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * APBF and APBBF behaviour that must hold in both worlds: no false
 * negatives inside the window (count and time based, with idle gaps),
 * generation bookkeeping, and rejection of bad parameters.
 */
#include "ddf_test_util.h"

#define NS_PER_US 1000ull

static struct ddf_hash key(uint64_t seed, uint64_t i)
{
	return ddf_test_key_at(seed ^ (i * 0x9e3779b97f4a7c15ull));
}

static struct ddf_filter *make(ddf_test_t *t, struct ddf_params *p,
			       uint64_t now)
{
	return ddf_test_make(t, p, now).f;
}

/*
 * Insert 10 windows of distinct keys; after every insert the oldest key of
 * the window must still be present, and at every generation boundary all
 * w keys of the window must be.
 */
static int count_window_fn(ddf_test_t *t, uint32_t kind, uint32_t k,
			   uint32_t l, uint64_t window)
{
	struct ddf_params p = { .kind = kind, .k = k, .l = l,
				.window = window };
	struct ddf_filter *f = make(t, &p, 0);
	struct ddf_stats st;
	uint64_t w, n, misses = 0;

	if (!f)
		return -1;
	ddf_filter_stats(f, &st);
	w = st.window;
	if (w < window)
		return -2;
	n = 10 * w;
	for (uint64_t i = 0; i < n; i++) {
		struct ddf_hash h = key(kind, i), o;

		/* the answer may be a false positive; only misses count */
		ddf_filter_test_and_insert(f, &h, 0);
		o = key(kind, i + 1 > w ? i + 1 - w : 0);
		misses += !ddf_filter_lookup(f, &o, 0);
		if (i % st.gen_size == st.gen_size - 1 || i == n - 1) {
			uint64_t from = i + 1 > w ? i + 1 - w : 0;

			for (uint64_t j = from; j <= i; j++) {
				struct ddf_hash q = key(kind, j);

				misses += !ddf_filter_lookup(f, &q, 0);
			}
		}
	}
	return (int)misses;
}

DDF_TEST(apbf_count_no_false_negatives)
{
	DDF_EXPECT_EQ(t, count_window_fn(t, DDF_KIND_APBF, 4, 3, 1000), 0);
	DDF_EXPECT_EQ(t, count_window_fn(t, DDF_KIND_APBF, 10, 7, 2000), 0);
	DDF_EXPECT_EQ(t, count_window_fn(t, DDF_KIND_APBF, 1, 1, 300), 0);
}

DDF_TEST(apbbf_count_no_false_negatives)
{
	DDF_EXPECT_EQ(t, count_window_fn(t, DDF_KIND_APBBF, 2, 3, 3000), 0);
	DDF_EXPECT_EQ(t, count_window_fn(t, DDF_KIND_APBBF, 3, 8, 5000), 0);
}

/*
 * Time windows: keys arrive at irregular times, with idle gaps of up to
 * three windows. Every key younger than the window must be found.
 */
static int time_window_fn(ddf_test_t *t, uint32_t kind, uint32_t k,
			  uint32_t l)
{
	enum { N = 20000, RING = 4096 };
	uint64_t win = 1000 * NS_PER_US;
	struct ddf_params p = { .kind = kind, .flags = DDF_PF_TIME, .k = k,
				.l = l, .window = 2000, .window_ns = win };
	uint64_t now = 5000, rng = 42, *times;
	struct ddf_filter *f = make(t, &p, now);
	int misses = 0;

	times = ddf_test_alloc(t, RING * sizeof(*times));
	if (!f || !times)
		return -1;
	for (uint64_t i = 0; i < N; i++) {
		uint64_t r = ddf_test_rand(&rng);
		struct ddf_hash h = key(kind + 100, i);

		/* mostly ~1/1000 window apart, sometimes a long silence */
		now += (r % 100 == 0) ? (r >> 40) % (3 * win) : (r >> 40) % 2000;
		ddf_filter_test_and_insert(f, &h, now);
		times[i % RING] = now;
		/* every key of the last RING inserted within win must be found */
		if (i % 512 == 0 || i == N - 1) {
			for (uint64_t j = i >= RING ? i - RING + 1 : 0; j <= i;
			     j++) {
				struct ddf_hash q = key(kind + 100, j);

				if (now - times[j % RING] > win)
					continue;
				misses += !ddf_filter_lookup(f, &q, now);
			}
		}
	}
	return misses;
}

DDF_TEST(apbf_time_no_false_negatives)
{
	DDF_EXPECT_EQ(t, time_window_fn(t, DDF_KIND_APBF, 4, 3), 0);
	DDF_EXPECT_EQ(t, time_window_fn(t, DDF_KIND_APBF, 7, 5), 0);
}

DDF_TEST(apbbf_time_no_false_negatives)
{
	DDF_EXPECT_EQ(t, time_window_fn(t, DDF_KIND_APBBF, 2, 3), 0);
	DDF_EXPECT_EQ(t, time_window_fn(t, DDF_KIND_APBBF, 3, 5), 0);
}

/* A key older than the window plus the slack (k generations) is gone. */
DDF_TEST(apbf_forgets_after_window_and_slack)
{
	struct ddf_params p = { .kind = DDF_KIND_APBF, .k = 4, .l = 3,
				.window = 3000 };
	struct ddf_filter *f = make(t, &p, 0);
	struct ddf_hash h = key(7, 0);
	struct ddf_stats st;
	uint64_t found = 0, trials = 0;

	DDF_ASSERT(t, f);
	ddf_filter_stats(f, &st);
	ddf_filter_insert(f, &h, 0);
	/* k + l + 1 generations later every slice holding it was reused */
	for (uint64_t i = 1; i <= (4 + 3 + 1) * st.gen_size; i++) {
		struct ddf_hash o = key(8, i);

		ddf_filter_insert(f, &o, 0);
	}
	/* only a false positive could report it now; try other keys too */
	for (uint64_t i = 0; i < 64; i++) {
		struct ddf_hash o = key(7, i);

		found += ddf_filter_lookup(f, &o, 0);
		trials++;
	}
	DDF_EXPECT_MSG(t, found < trials / 2, "old keys still found: %llu/%llu",
		       (unsigned long long)found, (unsigned long long)trials);
	DDF_EXPECT(t, st.window >= 3000);
}

/* A gap longer than the whole filter empties it in one bounded pass. */
DDF_TEST(apbf_time_long_gap_empties)
{
	struct ddf_params p = { .kind = DDF_KIND_APBBF, .flags = DDF_PF_TIME,
				.k = 2, .l = 3, .window = 1000,
				.window_ns = 100 * NS_PER_US };
	struct ddf_filter *f = make(t, &p, 0);
	struct ddf_stats st;
	uint64_t found = 0;

	DDF_ASSERT(t, f);
	for (uint64_t i = 0; i < 1000; i++) {
		struct ddf_hash h = key(9, i);

		ddf_filter_insert(f, &h, i * 50);
	}
	ddf_filter_advance(f, 1000 * NS_PER_US * 1000);
	for (uint64_t i = 0; i < 1000; i++) {
		struct ddf_hash h = key(9, i);

		found += ddf_filter_lookup(f, &h, 1000 * NS_PER_US * 1000);
	}
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, found, 0);
	DDF_EXPECT(t, st.generation > 1000);
	DDF_EXPECT_EQ(t, st.window_ns, 3 * 33334ull); /* l * ceil(100us / l) */
}

/* lookup reports presence without inserting */
/*
 * Timestamps of different CPUs lag each other. A key whose timestamp is
 * one generation older than the window as the newest caller sees it still
 * lands in live segments, and a lookup at its own time finds it; a ticket
 * that late in count mode is outside the window and writes nothing.
 */
DDF_TEST(apbf_time_lagging_timestamp_found)
{
	static const uint32_t kinds[] = { DDF_KIND_APBF, DDF_KIND_APBBF };

	for (unsigned int i = 0; i < 2; i++) {
		uint64_t gen = 100 * NS_PER_US, t0 = 1000;
		struct ddf_params p = { .kind = kinds[i], .flags = DDF_PF_TIME,
					.k = 4, .l = 3, .window = 1000,
					.window_ns = 3 * gen };
		struct ddf_filter *f = make(t, &p, t0);
		struct ddf_hash late = key(21, 1), newer = key(21, 2);

		DDF_ASSERT(t, f);
		/* another CPU has reached generation 10 */
		ddf_filter_insert(f, &newer, t0 + 10 * gen);
		/* this one stamped its packet in generation 6: l + 1 behind */
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &late,
							  t0 + 6 * gen + 1));
		DDF_EXPECT_MSG(t, ddf_filter_lookup(f, &late, t0 + 6 * gen + 2),
			       "%s: a lagging key is lost",
			       ddf_kind_name(kinds[i]));
		DDF_EXPECT(t, ddf_filter_lookup(f, &newer, t0 + 10 * gen));
	}
}

DDF_TEST(apbf_lookup_does_not_insert)
{
	struct ddf_params p = { .kind = DDF_KIND_APBBF, .k = 3, .l = 5,
				.window = 10000 };
	struct ddf_filter *f = make(t, &p, 0);
	uint64_t fp = 0;

	DDF_ASSERT(t, f);
	for (uint64_t i = 0; i < 1000; i++) {
		struct ddf_hash h = key(11, i);

		fp += ddf_filter_lookup(f, &h, 0);
		fp += ddf_filter_lookup(f, &h, 0);
	}
	DDF_EXPECT_EQ(t, fp, 0);
	for (uint64_t i = 0; i < 1000; i++) {
		struct ddf_hash h = key(11, i);

		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
		DDF_EXPECT(t, ddf_filter_test_and_insert(f, &h, 0));
	}
}

DDF_TEST(apbf_bad_params_rejected)
{
	static const struct ddf_test_bad_params cases[] = {
		{ "unknown kind", { .kind = 99, .k = 4, .l = 3, .window = 10 },
		  DDF_EINVAL },
		{ "k = 0", { .kind = DDF_KIND_APBF, .l = 3, .window = 10 },
		  DDF_ERANGE },
		{ "l = 0", { .kind = DDF_KIND_APBF, .k = 3, .window = 10 },
		  DDF_ERANGE },
		{ "k too big", { .kind = DDF_KIND_APBF, .k = 65, .l = 3,
				 .window = 10 }, DDF_ERANGE },
		{ "l too big", { .kind = DDF_KIND_APBBF, .k = 2, .l = 257,
				 .window = 10 }, DDF_ERANGE },
		{ "no window, no size", { .kind = DDF_KIND_APBF, .k = 4,
					  .l = 3 }, DDF_EINVAL },
		{ "block size on apbf", { .kind = DDF_KIND_APBF, .k = 4, .l = 3,
					  .window = 10, .block_bits = 512 },
		  DDF_EINVAL },
		{ "block of 128 bits", { .kind = DDF_KIND_APBBF, .k = 2, .l = 3,
					 .window = 10, .block_bits = 128,
					 .block_hashes = 4 }, DDF_EINVAL },
		{ "unknown flag", { .kind = DDF_KIND_APBF, .flags = 0x80,
				    .k = 4, .l = 3, .window = 10 },
		  DDF_EINVAL },
		{ "time window 1us", { .kind = DDF_KIND_APBF,
				       .flags = DDF_PF_TIME, .k = 4, .l = 3,
				       .window = 10, .window_ns = 1000 },
		  DDF_ERANGE },
		{ "time window 2h", { .kind = DDF_KIND_APBF,
				      .flags = DDF_PF_TIME, .k = 4, .l = 3,
				      .window = 10,
				      .window_ns = 7200000000000ull },
		  DDF_ERANGE },
		{ "window_ns without time flag", { .kind = DDF_KIND_APBF,
						   .k = 4, .l = 3, .window = 10,
						   .window_ns = 100000 },
		  DDF_EINVAL },
		{ "window beyond the cap", { .kind = DDF_KIND_APBF, .k = 4,
					     .l = 3, .window = 1ull << 41 },
		  DDF_ERANGE },
		{ "slice beyond 2^32 bits", { .kind = DDF_KIND_APBF, .k = 64,
					      .l = 1, .window = 1ull << 38 },
		  DDF_ERANGE },
		{ "filter beyond the memory cap", { .kind = DDF_KIND_APBBF,
						    .k = 64, .l = 256,
						    .window = 1ull << 40 },
		  DDF_ERANGE },
		/* members the kind does not use, beyond the policy's caps */
		{ "subfilters beyond the cap", { .kind = DDF_KIND_APBBF,
						 .k = 4, .l = 3, .window = 500,
						 .subfilters = 257 },
		  DDF_ERANGE },
		{ "cell_bits beyond the cap", { .kind = DDF_KIND_APBF, .k = 4,
						.l = 3, .window = 10,
						.cell_bits = 65 },
		  DDF_ERANGE },
		{ "inner kind unknown", { .kind = DDF_KIND_APBF, .k = 4, .l = 3,
					  .window = 10,
					  .inner_kind = __DDF_KIND_MAX },
		  DDF_ERANGE },
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ddf_params p = cases[i].p;
		const char *why = NULL;
		int err = ddf_params_resolve(&p, &why);

		DDF_EXPECT_MSG(t, err == cases[i].err, "%s: got %d, want %d",
			       cases[i].what, err, cases[i].err);
		DDF_EXPECT_MSG(t, why && why[0], "%s: no reason given",
			       cases[i].what);
	}
}

/* memsize is what init needs, and a smaller buffer is refused */
DDF_TEST(apbf_init_checks_size)
{
	struct ddf_params p = { .kind = DDF_KIND_APBF, .k = 4, .l = 3,
				.window = 1000 };
	const char *why;
	uint64_t sz;
	void *mem;

	DDF_ASSERT(t, ddf_params_resolve(&p, &why) == 0);
	sz = ddf_filter_memsize(&p);
	mem = ddf_test_alloc(t, sz);
	DDF_ASSERT(t, mem);
	DDF_EXPECT(t, !ddf_filter_init(mem, sz - 1, &p, 0));
	DDF_EXPECT(t, ddf_filter_init(mem, sz, &p, 0));
}

static ddf_case_t ddf_apbf_cases[] = {
	DDF_CASE(apbf_count_no_false_negatives),
	DDF_CASE(apbbf_count_no_false_negatives),
	DDF_CASE(apbf_time_no_false_negatives),
	DDF_CASE(apbbf_time_no_false_negatives),
	DDF_CASE(apbf_forgets_after_window_and_slack),
	DDF_CASE(apbf_time_long_gap_empties),
	DDF_CASE(apbf_time_lagging_timestamp_found),
	DDF_CASE(apbf_lookup_does_not_insert),
	DDF_CASE(apbf_bad_params_rejected),
	DDF_CASE(apbf_init_checks_size),
	DDF_CASES_END
};

DDF_SUITE(ddf_apbf, ddf_apbf_cases);
