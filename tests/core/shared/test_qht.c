// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * QHT, QHTD and QQHTD: the update rules of Algorithms 1 and 2, the empty
 * cell handling of section 3.2 (option 3) and parameter checking.
 *
 * Hashes are built by hand so that each test chooses the row (h1), the
 * fingerprint (low s bits of h2) and the victim of a full QHT row (high 32
 * bits of h2).
 */
#include "ddf_test_util.h"

/* 4 rows: ddf_reduce(row << 62, 4) == row. */
#define ROWS 4

static struct ddf_hash key(uint64_t row, uint64_t fp, uint64_t victim)
{
	struct ddf_hash h = { row << 62, fp | victim << 32 };

	return h;
}

static struct ddf_test_made make(ddf_test_t *t, uint32_t kind, uint32_t k,
				 uint32_t s, uint64_t rows)
{
	struct ddf_params p = { .kind = kind, .k = k, .fp_bits = s, .m = rows };

	return ddf_test_make(t, &p, 0);
}

static struct ddf_filter *filter(ddf_test_t *t, uint32_t kind, uint32_t k,
				 uint32_t s, uint64_t rows)
{
	return make(t, kind, k, s, rows).f;
}

static const uint32_t kinds[] = { DDF_KIND_QHT, DDF_KIND_QHTD, DDF_KIND_QQHTD };

DDF_TEST(qht_types_registered)
{
	static const char *const names[] = { "qht", "qhtd", "qqhtd" };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		const struct ddf_filter_type *ty =
			ddf_filter_type_by_name(names[i]);

		DDF_ASSERT(t, ty);
		ddf_test_expect_type(t, ty, kinds[i]);
	}
}

/* Algorithm 2: the row is a queue; the oldest fingerprint leaves first. */
DDF_TEST(qqhtd_fifo_eviction)
{
	struct ddf_filter *f = filter(t, DDF_KIND_QQHTD, 4, 8, ROWS);
	struct ddf_hash h;
	uint64_t fp;

	DDF_ASSERT(t, f);
	for (fp = 1; fp <= 4; fp++) {
		h = key(2, fp, fp * 7);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
	}
	for (fp = 1; fp <= 4; fp++) {
		h = key(2, fp, 0);
		DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
	}
	DDF_EXPECT_EQ(t, ddf_test_used(f), 4);

	/* k + 1 = 5th key: the first is forgotten, the others stay */
	h = key(2, 5, 0);
	DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
	h = key(2, 1, 0);
	DDF_EXPECT(t, !ddf_filter_lookup(f, &h, 0));
	for (fp = 2; fp <= 5; fp++) {
		h = key(2, fp, 0);
		DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
	}
	/* then the second */
	h = key(2, 6, 0);
	ddf_filter_insert(f, &h, 0);
	h = key(2, 2, 0);
	DDF_EXPECT(t, !ddf_filter_lookup(f, &h, 0));
	for (fp = 3; fp <= 6; fp++) {
		h = key(2, fp, 0);
		DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
	}
	/* other rows are untouched */
	h = key(1, 4, 0);
	DDF_EXPECT(t, !ddf_filter_lookup(f, &h, 0));
	DDF_EXPECT_EQ(t, ddf_test_used(f), 4);
}

/* Algorithm 2 appends even a duplicate, so it is remembered afresh. */
DDF_TEST(qqhtd_duplicate_requeued)
{
	struct ddf_filter *f = filter(t, DDF_KIND_QQHTD, 4, 8, ROWS);
	struct ddf_hash h;
	uint64_t fp;

	DDF_ASSERT(t, f);
	for (fp = 1; fp <= 4; fp++) {
		h = key(0, fp, 0);
		ddf_filter_insert(f, &h, 0);
	}
	h = key(0, 1, 0);
	DDF_EXPECT(t, ddf_filter_test_and_insert(f, &h, 0)); /* 2 3 4 1 */
	h = key(0, 5, 0);
	DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0)); /* 3 4 1 5 */
	h = key(0, 2, 0);
	DDF_EXPECT(t, !ddf_filter_lookup(f, &h, 0));
	h = key(0, 1, 0);
	DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
	for (fp = 6; fp <= 7; fp++) { /* 1 5 6 7 */
		h = key(0, fp, 0);
		ddf_filter_insert(f, &h, 0);
	}
	h = key(0, 1, 0);
	DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
	h = key(0, 8, 0); /* 5 6 7 8 */
	ddf_filter_insert(f, &h, 0);
	h = key(0, 1, 0);
	DDF_EXPECT(t, !ddf_filter_lookup(f, &h, 0));
}

/* Section 5.1: QHTD stores a detected duplicate again, QHT does not. */
DDF_TEST(qhtd_stores_duplicates)
{
	static const uint64_t copies[] = { 1, 2, 2 }; /* per kinds[] */
	struct ddf_hash h = key(3, 0x5a, 0x1234);
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct ddf_filter *f = filter(t, kinds[i], 4, 8, ROWS);

		DDF_ASSERT(t, f);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
		DDF_EXPECT(t, ddf_filter_test_and_insert(f, &h, 0));
		DDF_EXPECT_MSG(t, ddf_test_used(f) == copies[i],
			       "%s holds %llu copies, expected %llu",
			       ddf_kind_name(kinds[i]),
			       (unsigned long long)ddf_test_used(f),
			       (unsigned long long)copies[i]);
		/* insert alone follows the same rule */
		ddf_filter_insert(f, &h, 0);
		DDF_EXPECT_EQ(t, ddf_test_used(f), copies[i] == 1 ? 1 : 3);
	}
}

/*
 * Algorithm 1 on a full row: a new fingerprint replaces the cell that the
 * hash's victim bits choose (the same one every time); one already present
 * is detected and nothing changes.
 */
DDF_TEST(qht_full_row_victim)
{
	static const struct {
		uint64_t victim;
		uint64_t evicted, kept;
	} cases[] = {
		{ 0x00000000, 1, 2 }, /* cell 0 */
		{ 0x7fffffff, 1, 2 },
		{ 0x80000000, 2, 1 }, /* cell 1 */
		{ 0xffffffff, 2, 1 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ddf_filter *f = filter(t, DDF_KIND_QHT, 2, 16, ROWS);
		struct ddf_hash h;

		DDF_ASSERT(t, f);
		h = key(1, 1, 0);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
		h = key(1, 2, 0);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
		/* present: detected, the full row is left alone */
		h = key(1, 1, cases[i].victim);
		DDF_EXPECT(t, ddf_filter_test_and_insert(f, &h, 0));
		h = key(1, 2, cases[i].victim);
		DDF_EXPECT(t, ddf_filter_test_and_insert(f, &h, 0));

		h = key(1, 3, cases[i].victim);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
		DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
		h = key(1, cases[i].evicted, 0);
		DDF_EXPECT_MSG(t, !ddf_filter_lookup(f, &h, 0),
			       "case %u: fingerprint %llu not evicted", i,
			       (unsigned long long)cases[i].evicted);
		h = key(1, cases[i].kept, 0);
		DDF_EXPECT_MSG(t, ddf_filter_lookup(f, &h, 0),
			       "case %u: fingerprint %llu lost", i,
			       (unsigned long long)cases[i].kept);
		DDF_EXPECT_EQ(t, ddf_test_used(f), 2);
	}
}

/*
 * Section 3.2, option 3: a hash whose s fingerprint bits are 0 gets a
 * non-zero fingerprint (it occupies a cell), an empty filter holds nothing,
 * and the fingerprint is re-derived rather than set to 1 (option 2).
 */
static void zero_fp_shape(ddf_test_t *t, uint32_t kind, uint32_t k, uint32_t s,
			  uint64_t *seed)
{
	struct ddf_filter *f = filter(t, kind, k, s, ROWS);
	uint64_t low = s >= 64 ? ~0ull : (1ull << s) - 1;
	struct ddf_hash h;
	unsigned int n;

	DDF_EXPECT(t, f);
	if (!f)
		return;
	for (n = 0; n < ROWS; n++) {
		h = key(n, 0, 0);
		h.h2 = ddf_test_rand(seed) & ~low;
		DDF_EXPECT(t, !ddf_filter_lookup(f, &h, 0));
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
		DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
		DDF_EXPECT(t, ddf_filter_test_and_insert(f, &h, 0));
	}
	/* QHTD and QQHTD store the duplicate again */
	DDF_EXPECT_MSG(t, ddf_test_used(f) >= ROWS,
		       "%s k=%u s=%u: zero fingerprint not stored",
		       ddf_kind_name(kind), k, s);
}

DDF_TEST(qht_zero_fingerprint)
{
	static const uint32_t shapes[][2] = {
		{ 4, 16 }, { 8, 8 }, { 64, 1 }, { 1, 64 }, { 2, 32 }, { 5, 12 },
	};
	uint64_t seed = 42;
	unsigned int i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < sizeof(shapes) / sizeof(shapes[0]); j++)
			zero_fp_shape(t, kinds[i], shapes[j][0], shapes[j][1],
				      &seed);

	/* option 3, not option 2: fingerprint 1 is not the zero one */
	for (i = 0; i < 3; i++) {
		struct ddf_filter *f = filter(t, kinds[i], 4, 16, ROWS);
		struct ddf_hash zero = key(0, 0, 0x9876), one = key(0, 1, 0);

		DDF_ASSERT(t, f);
		ddf_filter_insert(f, &zero, 0);
		DDF_EXPECT(t, ddf_filter_lookup(f, &zero, 0));
		DDF_EXPECT(t, !ddf_filter_lookup(f, &one, 0));
	}
}

DDF_TEST(qht_lookup_does_not_modify)
{
	uint64_t seed = 7;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct ddf_test_made m = make(t, kinds[i], 4, 12, 64);
		unsigned char *copy;
		uint64_t diff;

		DDF_ASSERT(t, m.f);
		copy = ddf_test_alloc(t, m.size);
		DDF_ASSERT(t, copy);
		diff = ddf_test_lookup_changes(&m, copy, &seed, 200, 2000);
		DDF_EXPECT_MSG(t, !diff, "%s: lookup changed %llu bytes",
			       ddf_kind_name(kinds[i]),
			       (unsigned long long)diff);
	}
}

DDF_TEST(qht_stats_counts)
{
	struct ddf_filter *f = filter(t, DDF_KIND_QHT, 4, 8, ROWS);
	struct ddf_stats st;
	struct ddf_hash h;
	uint64_t fp;

	DDF_ASSERT(t, f);
	for (fp = 1; fp <= 4; fp++) {
		h = key(fp - 1, fp, 0); /* one per row */
		ddf_filter_insert(f, &h, 0);
	}
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.slots, ROWS * 4);
	DDF_EXPECT_EQ(t, st.used, 4);
	DDF_EXPECT_EQ(t, st.fill_ppm, 250000);
	DDF_EXPECT_EQ(t, st.bytes, ddf_filter_memsize(&f->params));
	DDF_EXPECT_EQ(t, st.window, 0); /* no guaranteed window */
}

DDF_TEST(qht_rows_from_window)
{
	static const struct {
		uint64_t window;
		uint32_t k;
		uint64_t rows;
	} cases[] = {
		{ 1000, 4, 250 },
		{ 1001, 4, 251 },
		{ 1, 8, 1 },
		{ 63, 1, 63 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ddf_params p = { .kind = DDF_KIND_QQHTD,
					.window = cases[i].window,
					.k = cases[i].k,
					.fp_bits = 8 };
		const char *why = NULL;

		DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
		DDF_EXPECT_EQ(t, p.m, cases[i].rows);
		/* resolving twice changes nothing */
		DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
		DDF_EXPECT_EQ(t, p.m, cases[i].rows);
		DDF_EXPECT_EQ(t, p.window, cases[i].window);
	}

	/* rows given, no window: the window reported is the slot count */
	{
		struct ddf_params p = { .kind = DDF_KIND_QHT, .k = 4,
					.fp_bits = 8, .m = 16 };
		const char *why = NULL;

		DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
		DDF_EXPECT_EQ(t, p.m, 16);
		DDF_EXPECT_EQ(t, p.window, 64);
	}
}

DDF_TEST(qht_bad_params)
{
	static const struct ddf_test_bad_params cases[] = {
		{ "k = 0", { .k = 0, .fp_bits = 8, .m = 16 }, DDF_EINVAL },
		{ "s = 0", { .k = 4, .fp_bits = 0, .m = 16 }, DDF_EINVAL },
		{ "k*s = 65", { .k = 5, .fp_bits = 13, .m = 16 }, DDF_ERANGE },
		{ "k = 65", { .k = 65, .fp_bits = 1, .m = 16 }, DDF_ERANGE },
		{ "s = 65", { .k = 1, .fp_bits = 65, .m = 16 }, DDF_ERANGE },
		{ "time flag",
		  { .flags = DDF_PF_TIME,
		    .window_ns = 1000000000,
		    .k = 4,
		    .fp_bits = 8,
		    .m = 16 },
		  DDF_EINVAL },
		{ "unknown flag",
		  { .flags = 0x80, .k = 4, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
		{ "window_ns without the time flag",
		  { .window_ns = 1000000000, .k = 4, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
		{ "APBF l",
		  { .l = 4, .k = 4, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
		{ "APBBF block_bits",
		  { .block_bits = 64, .k = 4, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
		{ "APBBF block_hashes",
		  { .block_hashes = 4, .k = 4, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
		{ "neither rows nor window",
		  { .k = 4, .fp_bits = 8 },
		  DDF_EINVAL },
		{ "rows too big",
		  { .k = 4, .fp_bits = 8, .m = 1ull << 40 },
		  DDF_EFBIG },
		{ "rows just too big",
		  { .k = 4, .fp_bits = 8, .m = DDF_MAX_BYTES / 8 },
		  DDF_EFBIG },
		{ "window too big for the memory limit",
		  { .k = 1, .fp_bits = 8, .window = DDF_MAX_WINDOW },
		  DDF_EFBIG },
		{ "window above DDF_MAX_WINDOW",
		  { .k = 4, .fp_bits = 8, .window = DDF_MAX_WINDOW + 1 },
		  DDF_ERANGE },
	};
	unsigned int i, j;

	for (j = 0; j < 3; j++) {
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct ddf_params p = cases[i].p;
			const char *why = NULL;
			int err;

			p.kind = kinds[j];
			err = ddf_params_resolve(&p, &why);
			DDF_EXPECT_MSG(t, err == cases[i].err,
				       "%s, %s: error %d, expected %d",
				       ddf_kind_name(kinds[j]), cases[i].what,
				       err, cases[i].err);
			DDF_EXPECT_MSG(t, why && why[0],
				       "%s, %s: no reason given",
				       ddf_kind_name(kinds[j]), cases[i].what);
		}
	}

	/* the largest table that fits is accepted */
	{
		struct ddf_params p = { .kind = DDF_KIND_QHT,
					.k = 4,
					.fp_bits = 8,
					.m = DDF_MAX_BYTES / 8 - 64 };
		const char *why = NULL;

		DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
		DDF_EXPECT(t, ddf_filter_memsize(&p) > 0);
		DDF_EXPECT(t, ddf_filter_memsize(&p) <=
				      DDF_MAX_BYTES + DDF_CACHELINE);
	}
}

/* Rows of one cell, and cells of one bit, are edge cases of the packing. */
DDF_TEST(qht_extreme_shapes)
{
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct ddf_filter *f = filter(t, kinds[i], 1, 64, ROWS);
		struct ddf_hash a = { 0, 0xfedcba9876543210ull };
		struct ddf_hash b = { 0, 0x0123456789abcdefull };

		DDF_ASSERT(t, f);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &a, 0));
		DDF_EXPECT(t, ddf_filter_lookup(f, &a, 0));
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &b, 0));
		DDF_EXPECT(t, !ddf_filter_lookup(f, &a, 0)); /* one cell */
		DDF_EXPECT(t, ddf_filter_lookup(f, &b, 0));

		/* s = 1: S = 1, every fingerprint is 1 */
		f = filter(t, kinds[i], 64, 1, ROWS);
		DDF_ASSERT(t, f);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &a, 0));
		DDF_EXPECT(t, ddf_filter_lookup(f, &b, 0));
	}
}

static ddf_case_t ddf_qht_cases[] = {
	DDF_CASE(qht_types_registered),	      DDF_CASE(qqhtd_fifo_eviction),
	DDF_CASE(qqhtd_duplicate_requeued),   DDF_CASE(qhtd_stores_duplicates),
	DDF_CASE(qht_full_row_victim),	      DDF_CASE(qht_zero_fingerprint),
	DDF_CASE(qht_lookup_does_not_modify), DDF_CASE(qht_stats_counts),
	DDF_CASE(qht_rows_from_window),	      DDF_CASE(qht_bad_params),
	DDF_CASE(qht_extreme_shapes),	      DDF_CASES_END,
};

DDF_SUITE(ddf_qht, ddf_qht_cases);
