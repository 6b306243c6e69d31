// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Cuckoo filter for streams: partial-key cuckoo hashing (a fingerprint
 * relocated to its other bucket is still found), a high load reached by
 * relocation, the dropped fingerprint when relocation fails (the QHT
 * paper's footnote 4), the zero fingerprint, and parameter checking.
 *
 * Buckets and fingerprints are built by hand with the derivation the
 * filter documents: i1 = ddf_reduce(h1, m), the fingerprint the low f bits
 * of h2, i2 = i1 xor ddf_reduce(ddf_fmix64(fp + 0x9e3779b97f4a7c15), m).
 */
#include "ddf_test_util.h"

static struct ddf_test_made ck_make(ddf_test_t *t, uint64_t buckets,
				    uint32_t b, uint32_t f, uint64_t seed)
{
	struct ddf_params p = { .kind = DDF_KIND_CUCKOO, .m = buckets, .k = b,
				.fp_bits = f, .rng_seed = seed };

	return ddf_test_make(t, &p, 0);
}

static uint64_t ck_alt(uint64_t i, uint64_t fp, uint64_t m)
{
	return i ^ ddf_reduce(ddf_fmix64(fp + 0x9e3779b97f4a7c15ull), m);
}

/* 8 buckets: ddf_reduce(i << 61, 8) == i */
static struct ddf_hash ck_key(uint64_t i1, uint64_t fp)
{
	struct ddf_hash h = { i1 << 61, fp };

	return h;
}

/* The first fingerprint >= from whose other bucket from i1 is want. */
static uint64_t ck_fp_to(uint64_t i1, uint64_t want, uint64_t from)
{
	uint64_t fp;

	for (fp = from; fp < 65536; fp++)
		if (ck_alt(i1, fp, 8) == want)
			return fp;
	return 0;
}

DDF_TEST(cuckoo_type_registered)
{
	const struct ddf_filter_type *ty = ddf_filter_type_by_name("cuckoo");

	DDF_ASSERT(t, ty);
	ddf_test_expect_type(t, ty, DDF_KIND_CUCKOO);
}

DDF_TEST(cuckoo_empty_reports_nothing)
{
	struct ddf_filter *f = ck_make(t, 64, 4, 8, 1).f;
	uint64_t s = 4, hits;

	DDF_ASSERT(t, f);
	hits = ddf_test_lookup_hits(f, &s, 2000);
	DDF_EXPECT_EQ(t, hits, 0);
	DDF_EXPECT_EQ(t, ddf_test_used(f), 0);
}

/* Below saturation every key is found right after it is inserted. */
DDF_TEST(cuckoo_inserted_found)
{
	static const uint32_t shapes[][3] = {
		/* buckets, b, f */
		{ 4096, 1, 3 }, /* the QHT paper's shape: 21 buckets a word */
		{ 1024, 4, 8 }, { 512, 2, 32 }, { 256, 1, 64 }, { 64, 8, 8 },
	};
	unsigned int i, n;

	for (i = 0; i < DDF_ARRAY_SIZE(shapes); i++) {
		struct ddf_filter *f = ck_make(t, shapes[i][0], shapes[i][1],
					       shapes[i][2], i).f;
		uint64_t s = 50 + i, lost = 0;
		/* a third of the entries */
		unsigned int keys = shapes[i][0] * shapes[i][1] / 3;

		DDF_ASSERT(t, f);
		for (n = 0; n < keys; n++) {
			struct ddf_hash h = ddf_test_key(&s);

			ddf_filter_test_and_insert(f, &h, 0);
			lost += !ddf_filter_lookup(f, &h, 0);
			lost += !ddf_filter_test_and_insert(f, &h, 0);
		}
		DDF_EXPECT_MSG(t, !lost, "shape %u: %llu lost", i,
			       (unsigned long long)lost);
	}
}

/*
 * 8 buckets of one entry. A sits in bucket 0, B in bucket 5; X's buckets
 * are 0 and 5. Inserting X evicts A or B (the PRNG picks which), and the
 * evicted one moves to its other bucket, empty: all three are found, in
 * three entries. Every seed must work, whichever it evicts.
 */
DDF_TEST(cuckoo_relocation)
{
	uint64_t fa = ck_fp_to(0, 3, 1); /* A: 0 and 3 */
	uint64_t fb = ck_fp_to(5, 6, fa + 1); /* B: 5 and 6 */
	uint64_t fx = ck_fp_to(0, 5, 1); /* X: 0 and 5 */
	uint64_t seed;

	DDF_ASSERT(t, fa && fb && fx);
	for (seed = 0; seed < 16; seed++) {
		struct ddf_filter *f = ck_make(t, 8, 1, 16, seed).f;
		struct ddf_hash a = ck_key(0, fa), b = ck_key(5, fb);
		struct ddf_hash x = ck_key(0, fx);

		DDF_ASSERT(t, f);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &a, 0));
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &b, 0));
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &x, 0));
		DDF_EXPECT_MSG(t, ddf_filter_lookup(f, &a, 0) &&
				       ddf_filter_lookup(f, &b, 0) &&
				       ddf_filter_lookup(f, &x, 0),
			       "seed %llu: a key lost in the relocation",
			       (unsigned long long)seed);
		DDF_EXPECT_EQ(t, ddf_test_used(f), 3);
		/* found from either bucket: nothing changes */
		DDF_EXPECT(t, ddf_filter_test_and_insert(f, &a, 0));
		DDF_EXPECT(t, ddf_filter_test_and_insert(f, &b, 0));
		DDF_EXPECT_EQ(t, ddf_test_used(f), 3);
	}
}

/*
 * With b = 4, relocation fills about 95% of the entries before the first
 * insertion fails (Fan et al.); two choices alone stop well before.
 */
DDF_TEST(cuckoo_high_load)
{
	struct ddf_filter *f = ck_make(t, 256, 4, 16, 3).f;
	uint64_t s = 77, lost = 0;
	unsigned int n, keys = 256 * 4 * 93 / 100;

	DDF_ASSERT(t, f);
	for (n = 0; n < keys; n++) {
		struct ddf_hash h = ddf_test_key(&s);

		ddf_filter_test_and_insert(f, &h, 0);
	}
	s = 77;
	for (n = 0; n < keys; n++) {
		struct ddf_hash h = ddf_test_key(&s);

		lost += !ddf_filter_lookup(f, &h, 0);
	}
	DDF_EXPECT_MSG(t, !lost && ddf_test_used(f) == keys,
		       "%u keys at 93%% load: %llu lost, %llu entries used",
		       keys, (unsigned long long)lost,
		       (unsigned long long)ddf_test_used(f));
}

/*
 * A full table: an insertion relocates up to 500 times, then drops the
 * fingerprint in hand and reports UNSEEN; the table stays full and every
 * stored fingerprint belongs to one of the keys.
 */
DDF_TEST(cuckoo_failure_discarded)
{
	struct ddf_filter *f = ck_make(t, 4, 1, 16, 9).f;
	uint64_t s = 5, n, found = 0;

	DDF_ASSERT(t, f);
	/* keys 0 .. 3 fill buckets 0 .. 3 (4 buckets: i1 = h1 >> 62) */
	for (n = 0; n < 5; n++) {
		struct ddf_hash h = { (n & 3) << 62, 1000 + n };

		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
	}
	DDF_EXPECT_EQ(t, ddf_test_used(f), 4);
	for (n = 0; n < 5; n++) {
		struct ddf_hash h = { (n & 3) << 62, 1000 + n };

		found += ddf_filter_lookup(f, &h, 0);
	}
	/* one of the five was dropped */
	DDF_EXPECT_EQ(t, found, 4);
	/* and so on: the table keeps 4 of the keys */
	for (n = 0; n < 200; n++) {
		struct ddf_hash h = ddf_test_key(&s);

		ddf_filter_test_and_insert(f, &h, 0);
	}
	DDF_EXPECT_EQ(t, ddf_test_used(f), 4);
}

/* A fingerprint of zero is re-derived: stored, found, not "empty". */
DDF_TEST(cuckoo_zero_fingerprint)
{
	static const uint32_t shapes[][2] = { { 1, 3 }, { 4, 16 }, { 2, 32 },
					      { 1, 64 }, { 8, 8 } };
	unsigned int i, n;

	for (i = 0; i < DDF_ARRAY_SIZE(shapes); i++) {
		struct ddf_filter *f = ck_make(t, 8, shapes[i][0],
					       shapes[i][1], 0).f;
		uint64_t low = shapes[i][1] >= 64 ? ~0ull :
						    (1ull << shapes[i][1]) - 1;
		uint64_t s = 1;

		DDF_ASSERT(t, f);
		for (n = 0; n < 4; n++) {
			struct ddf_hash h = ck_key(n, 0);
			bool dup;

			h.h2 = ddf_test_rand(&s) & ~low;
			/* few fingerprints: later keys may collide */
			if (!n || shapes[i][1] >= 16)
				DDF_EXPECT(t, !ddf_filter_lookup(f, &h, 0));
			dup = ddf_filter_test_and_insert(f, &h, 0);
			if (!n || shapes[i][1] >= 16)
				DDF_EXPECT(t, !dup);
			DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
		}
		DDF_EXPECT(t, ddf_test_used(f) >= 1);
	}
	/* re-derived (option 3), not mapped to 1 (option 2) */
	{
		struct ddf_filter *f = ck_make(t, 8, 4, 16, 0).f;
		struct ddf_hash zero = ck_key(2, 0x50000), one = ck_key(2, 1);

		DDF_ASSERT(t, f);
		ddf_filter_insert(f, &zero, 0);
		DDF_EXPECT(t, ddf_filter_lookup(f, &zero, 0));
		DDF_EXPECT(t, !ddf_filter_lookup(f, &one, 0));
	}
}

/* The relocations follow the seed: the same seed, the same table. */
DDF_TEST(cuckoo_seed_reproducible)
{
	struct ddf_test_made a = ck_make(t, 16, 1, 16, 42);
	struct ddf_test_made b = ck_make(t, 16, 1, 16, 42);
	uint64_t s = 3, i, diff = 0;

	DDF_ASSERT(t, a.f && b.f);
	for (i = 0; i < 40; i++) { /* far past full: many relocations */
		struct ddf_hash h = ddf_test_key(&s);

		ddf_filter_insert(a.f, &h, 0);
		ddf_filter_insert(b.f, &h, 0);
	}
	s = 3;
	for (i = 0; i < 40; i++) {
		struct ddf_hash h = ddf_test_key(&s);

		diff += ddf_filter_lookup(a.f, &h, 0) !=
			ddf_filter_lookup(b.f, &h, 0);
	}
	DDF_EXPECT_EQ(t, diff, 0);
	DDF_EXPECT_EQ(t, ddf_test_used(a.f), 16);
}

DDF_TEST(cuckoo_lookup_does_not_modify)
{
	struct ddf_test_made mk = ck_make(t, 64, 2, 8, 5);
	uint64_t s = 99, diff;
	unsigned char *copy;

	DDF_ASSERT(t, mk.f);
	copy = ddf_test_alloc(t, mk.size);
	DDF_ASSERT(t, copy);
	/* 300 keys: past full */
	diff = ddf_test_lookup_changes(&mk, copy, &s, 300, 2000);
	DDF_EXPECT_EQ(t, diff, 0);
}

DDF_TEST(cuckoo_resolve_fills)
{
	struct ddf_params p = { .kind = DDF_KIND_CUCKOO, .k = 4,
				.fp_bits = 8, .window = 1000 };
	const char *why = NULL;

	/* 250 buckets needed: 256 */
	DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
	DDF_EXPECT_EQ(t, p.m, 256);
	DDF_EXPECT_EQ(t, p.window, 1000);
	p.window = 0;
	DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
	DDF_EXPECT_EQ(t, p.window, 1024);
}

DDF_TEST(cuckoo_bad_params)
{
	static const struct ddf_test_bad_params cases[] = {
		{ "b = 0", { .fp_bits = 8, .m = 16 }, DDF_EINVAL },
		{ "f = 0", { .k = 4, .m = 16 }, DDF_EINVAL },
		{ "b * f = 65", { .k = 5, .fp_bits = 13, .m = 16 },
		  DDF_ERANGE },
		{ "f = 65", { .k = 1, .fp_bits = 65, .m = 16 }, DDF_ERANGE },
		{ "b = 65", { .k = 65, .fp_bits = 1, .m = 16 }, DDF_ERANGE },
		{ "buckets not a power of two",
		  { .k = 4, .fp_bits = 8, .m = 12 }, DDF_EINVAL },
		{ "neither buckets nor window", { .k = 4, .fp_bits = 8 },
		  DDF_EINVAL },
		{ "buckets too many", { .k = 1, .fp_bits = 8, .m = 1ull << 40 },
		  DDF_EFBIG },
		{ "window above DDF_MAX_WINDOW",
		  { .k = 4, .fp_bits = 8, .window = DDF_MAX_WINDOW + 1 },
		  DDF_ERANGE },
		{ "time flag",
		  { .flags = DDF_PF_TIME, .window_ns = 1000000000, .k = 4,
		    .fp_bits = 8, .m = 16 }, DDF_EINVAL },
		{ "unknown flag", { .flags = 0x20, .k = 4, .fp_bits = 8,
				    .m = 16 }, DDF_EINVAL },
		{ "cell_bits", { .cell_bits = 2, .k = 4, .fp_bits = 8,
				 .m = 16 }, DDF_EINVAL },
		{ "decrements", { .decrements = 2, .k = 4, .fp_bits = 8,
				  .m = 16 }, DDF_EINVAL },
		{ "APBF l", { .l = 2, .k = 4, .fp_bits = 8, .m = 16 },
		  DDF_EINVAL },
		{ "APBBF block_bits", { .block_bits = 64, .k = 4, .fp_bits = 8,
					.m = 16 }, DDF_EINVAL },
		{ "APBBF block_hashes", { .block_hashes = 4, .k = 4,
					  .fp_bits = 8, .m = 16 }, DDF_EINVAL },
		{ "queue subfilters", { .subfilters = 2, .k = 4, .fp_bits = 8,
					.m = 16 }, DDF_EINVAL },
		{ "queue inner_kind", { .inner_kind = 3, .k = 4, .fp_bits = 8,
					.m = 16 }, DDF_EINVAL },
	};

	ddf_test_expect_refused(t, DDF_KIND_CUCKOO, cases,
				DDF_ARRAY_SIZE(cases));
}

DDF_TEST(cuckoo_stats_counts)
{
	struct ddf_filter *f = ck_make(t, 8, 2, 16, 0).f;
	struct ddf_stats st;
	uint64_t i;

	DDF_ASSERT(t, f);
	for (i = 0; i < 4; i++) { /* one key in each of buckets 0 .. 3 */
		struct ddf_hash h = ck_key(i, 100 + i);

		ddf_filter_insert(f, &h, 0);
	}
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.slots, 16);
	DDF_EXPECT_EQ(t, st.used, 4);
	DDF_EXPECT_EQ(t, st.fill_ppm, 250000);
	DDF_EXPECT_EQ(t, st.bytes, ddf_filter_memsize(&f->params));
}

static ddf_case_t ddf_cuckoo_cases[] = {
	DDF_CASE(cuckoo_type_registered),
	DDF_CASE(cuckoo_empty_reports_nothing),
	DDF_CASE(cuckoo_inserted_found),
	DDF_CASE(cuckoo_relocation),
	DDF_CASE(cuckoo_high_load),
	DDF_CASE(cuckoo_failure_discarded),
	DDF_CASE(cuckoo_zero_fingerprint),
	DDF_CASE(cuckoo_seed_reproducible),
	DDF_CASE(cuckoo_lookup_does_not_modify),
	DDF_CASE(cuckoo_resolve_fills),
	DDF_CASE(cuckoo_bad_params),
	DDF_CASE(cuckoo_stats_counts),
	DDF_CASES_END,
};

DDF_SUITE(ddf_cuckoo, ddf_cuckoo_cases);
