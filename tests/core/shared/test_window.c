// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The window filters of "Approaching Optimal Duplicate Detection in a
 * Sliding Window": the exact filter of Theorem 1 against a brute-force
 * window, SHF and CSHF (Algorithm 1 and its compact form), the queuing
 * construction (section 5) and parameter checking.
 *
 * The reference: element i of a stream is a duplicate iff an equal key is
 * among elements i - w .. i - 1, every element counting whether or not it
 * was a duplicate itself (editcap -D's rule).
 */
#include "ddf_test_util.h"

static struct ddf_filter *win_filter(ddf_test_t *t, uint32_t kind,
				     uint64_t w, uint32_t h)
{
	struct ddf_params p = { .kind = kind, .window = w, .fp_bits = h };

	return ddf_test_filter(t, &p);
}

static struct ddf_filter *win_queue(ddf_test_t *t, uint32_t inner,
				    uint64_t w, uint32_t L,
				    struct ddf_params extra)
{
	extra.kind = DDF_KIND_QUEUE;
	extra.inner_kind = inner;
	extra.window = w;
	extra.subfilters = L;
	return ddf_test_filter(t, &extra);
}

static bool win_eq(const struct ddf_hash *a, const struct ddf_hash *b)
{
	return a->h1 == b->h1 && a->h2 == b->h2;
}

/* Is keys[i] among keys[i - w .. i - 1]? */
static bool win_ref_dup(const struct ddf_hash *keys, uint64_t i, uint64_t w)
{
	uint64_t j = i > w ? i - w : 0;

	for (; j < i; j++)
		if (win_eq(&keys[j], &keys[i]))
			return true;
	return false;
}

/* Is the short hash (low h bits of h2) of keys[i] among the previous w? */
static bool win_ref_short(const struct ddf_hash *keys, uint64_t i, uint64_t w,
			  uint32_t h)
{
	uint64_t mask = h >= 64 ? ~0ull : (1ull << h) - 1;
	uint64_t j = i > w ? i - w : 0;

	for (; j < i; j++)
		if (!((keys[j].h2 ^ keys[i].h2) & mask))
			return true;
	return false;
}

/* Distinct keys among the last w of keys[0 .. n - 1]. */
static uint64_t win_distinct(const struct ddf_hash *keys, uint64_t n,
			     uint64_t w)
{
	uint64_t from = n > w ? n - w : 0, distinct = 0, k, m;

	for (k = from; k < n; k++) {
		for (m = from; m < k; m++)
			if (win_eq(&keys[m], &keys[k]))
				break;
		distinct += m == k;
	}
	return distinct;
}

/*
 * A stream of n keys with repeats at distances w - 1, w and w + 1, short
 * distances and a small alphabet. If crowd, h1 takes only three values so
 * that the dictionary's runs are long and deletions shift many entries.
 */
static void win_stream(struct ddf_hash *keys, uint64_t n, uint64_t w,
		       bool crowd, uint64_t *s)
{
	static const uint64_t crowd_h1[] = { 0x1ull << 60, 0x2ull << 60,
					     0xfull << 60 };
	uint64_t i;

	for (i = 0; i < n; i++) {
		uint64_t r = ddf_test_rand(s) % 8, d = 0;

		switch (r) {
		case 0:
			d = w > 1 ? w - 1 : 1;
			break;
		case 1:
			d = w;
			break;
		case 2:
			d = w + 1;
			break;
		case 3:
			d = 1 + ddf_test_rand(s) % (w + 2);
			break;
		}
		if (d && d <= i) {
			keys[i] = keys[i - d];
			continue;
		}
		keys[i] = ddf_test_key(s);
		if (r == 4) /* a small alphabet */
			keys[i].h2 = ddf_test_rand(s) % 5;
		if (crowd)
			keys[i].h1 = crowd_h1[ddf_test_rand(s) % 3];
		else if (r == 5) /* same h1 as a recent key, other h2 */
			keys[i].h1 = i ? keys[i - 1].h1 : 0;
	}
}

/* Theorem 1: no errors, at window sizes from 1 up, crowded or not. */
DDF_TEST(exact_matches_reference)
{
	static const uint64_t ws[] = { 1, 2, 3, 7, 64, 1000 };
	uint64_t seed = 11;
	unsigned int i, crowd;

	for (crowd = 0; crowd < 2; crowd++) {
		for (i = 0; i < DDF_ARRAY_SIZE(ws); i++) {
			uint64_t w = ws[i], n = 6 * w + 300, j, wrong = 0;
			uint64_t dups = 0, at_w = 0;
			struct ddf_filter *f = win_filter(t, DDF_KIND_EXACT, w,
							  0);
			struct ddf_hash *keys =
				ddf_test_alloc(t, n * sizeof(*keys));
			struct ddf_stats st;

			DDF_ASSERT(t, f && keys);
			win_stream(keys, n, w, crowd, &seed);
			for (j = 0; j < n; j++) {
				bool ref = win_ref_dup(keys, j, w);
				bool got;

				if (j % 3 == 0 && ddf_filter_lookup(f, &keys[j],
								    0) != ref)
					wrong++;
				got = ddf_filter_test_and_insert(f, &keys[j],
								 0);
				wrong += got != ref;
				dups += ref;
				at_w += j >= w && ref &&
					win_eq(&keys[j], &keys[j - w]);
			}
			DDF_EXPECT_MSG(t, !wrong,
				       "w=%llu crowd=%u: %llu wrong answers",
				       (unsigned long long)w, crowd,
				       (unsigned long long)wrong);
			/* the stream does exercise the edge of the window */
			DDF_EXPECT(t, dups > n / 8 && at_w > 0);
			/* D holds exactly the distinct keys of the window */
			ddf_filter_stats(f, &st);
			DDF_EXPECT_EQ(t, st.used, win_distinct(keys, n, w));
			DDF_EXPECT_EQ(t, st.inserts, n);
			DDF_EXPECT_EQ(t, st.window, w);
		}
	}
}

/*
 * A duplicate enters the window too: with w = 2, in A B A C A the last A
 * is 2 back from the second A (a duplicate), 4 from the first. editcap
 * -D 3 compares with the previous 2 packets, the same way.
 */
DDF_TEST(exact_duplicates_enter_window)
{
	static const struct {
		char key;
		bool dup;
	} seq[] = {
		{ 'A', false }, { 'B', false }, { 'A', true }, { 'C', false },
		{ 'A', true }, { 'D', false }, { 'E', false }, { 'A', false },
	};
	unsigned int i, mode;

	for (mode = 0; mode < 2; mode++) {
		struct ddf_filter *f = win_filter(t, DDF_KIND_EXACT, 2, 0);

		DDF_ASSERT(t, f);
		for (i = 0; i < DDF_ARRAY_SIZE(seq); i++) {
			struct ddf_hash h = { 0x1234, (uint64_t)seq[i].key };
			bool got;

			if (mode) { /* lookup, then insert alone */
				got = ddf_filter_lookup(f, &h, 0);
				ddf_filter_insert(f, &h, 0);
			} else {
				got = ddf_filter_test_and_insert(f, &h, 0);
			}
			DDF_EXPECT_MSG(t, got == seq[i].dup,
				       "mode %u, element %u (%c): %d", mode, i,
				       seq[i].key, got);
		}
	}
}

/*
 * Time mode: within window_ns (inclusive) and among the last w; the same
 * for SHF with 64-bit short hashes (distinct h2 here).
 */
static void win_time_window(ddf_test_t *t, uint32_t kind)
{
	struct ddf_params p = { .kind = kind,
				.flags = DDF_PF_TIME,
				.window = 4,
				.window_ns = 100000,
				.fp_bits = kind == DDF_KIND_SHF ? 64 : 0 };
	struct ddf_filter *f = ddf_test_filter(t, &p);
	struct ddf_hash a = { 1, 1 }, b = { 2, 2 };
	struct ddf_stats st;
	uint64_t i;

	DDF_EXPECT(t, f);
	if (!f)
		return;
	DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &a, 1000));
	DDF_EXPECT(t, ddf_filter_lookup(f, &a, 101000)); /* exactly 100us */
	DDF_EXPECT(t, !ddf_filter_lookup(f, &a, 101001));
	DDF_EXPECT(t, ddf_filter_lookup(f, &a, 999)); /* an older clock */
	/* the newest occurrence decides */
	DDF_EXPECT(t, ddf_filter_test_and_insert(f, &a, 50000));
	DDF_EXPECT(t, ddf_filter_lookup(f, &a, 150000));
	DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &a, 150001));
	/* 4 others push it out of the ring, however recent */
	for (i = 0; i < 4; i++) {
		b.h2 = 10 + i;
		ddf_filter_insert(f, &b, 150002);
	}
	DDF_EXPECT(t, !ddf_filter_lookup(f, &a, 150003));
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.window_ns, 100000);
	DDF_EXPECT_EQ(t, st.window, 0);
}

DDF_TEST(window_time_mode)
{
	win_time_window(t, DDF_KIND_EXACT);
	win_time_window(t, DDF_KIND_SHF);
}

/*
 * SHF: every true duplicate is found, and the answer is exactly "an equal
 * short hash among the previous w" (so a false positive is a collision).
 */
DDF_TEST(shf_no_false_negatives)
{
	static const uint32_t hs[] = { 4, 12, 64 };
	uint64_t seed = 5, w = 300, n = 3000, j;
	struct ddf_hash *keys = ddf_test_alloc(t, n * sizeof(*keys));
	unsigned int i;

	DDF_ASSERT(t, keys);
	win_stream(keys, n, w, false, &seed);
	for (i = 0; i < DDF_ARRAY_SIZE(hs); i++) {
		struct ddf_filter *f = win_filter(t, DDF_KIND_SHF, w, hs[i]);
		uint64_t fn = 0, fp = 0, differ = 0;

		DDF_ASSERT(t, f);
		for (j = 0; j < n; j++) {
			bool ref = win_ref_dup(keys, j, w);
			bool got = ddf_filter_test_and_insert(f, &keys[j], 0);

			fn += ref && !got;
			fp += !ref && got;
			differ += got != win_ref_short(keys, j, w, hs[i]);
		}
		DDF_EXPECT_MSG(t, !fn, "h=%u: %llu false negatives", hs[i],
			       (unsigned long long)fn);
		DDF_EXPECT_MSG(t, !differ, "h=%u: %llu answers differ",
			       hs[i], (unsigned long long)differ);
		/*
		 * 16 values for 300 keys: mostly "seen"; the stream has keys
		 * equal in h2 only, so even h = 64 meets some
		 */
		DDF_EXPECT(t, fp > 0);
	}
}

/* Only the low h bits of h2 make the short hash. */
DDF_TEST(shf_short_hash_bits)
{
	unsigned int kind;

	for (kind = 0; kind < 2; kind++) {
		uint32_t k = kind ? DDF_KIND_CSHF : DDF_KIND_SHF;
		struct ddf_filter *f = win_filter(t, k, 8, 13);
		struct ddf_hash a = { 1, 0x0abcull }, b = { 2, 0xf0abcull };
		struct ddf_hash c = { 1, 0x0abdull };

		DDF_ASSERT(t, f);
		ddf_filter_insert(f, &a, 0);
		/* differs above bit 13 only: the same short hash */
		DDF_EXPECT(t, ddf_filter_lookup(f, &b, 0));
		DDF_EXPECT(t, !ddf_filter_lookup(f, &c, 0));
	}
}

/*
 * Same w and h, same hashes: CSHF answers as SHF does, with short hashes
 * straddling words (h = 13, 33) or not (8, 64), and many collisions.
 */
DDF_TEST(cshf_equals_shf)
{
	static const struct {
		uint64_t w;
		uint32_t h;
	} cases[] = { { 1, 8 }, { 37, 5 }, { 200, 8 }, { 257, 13 },
		      { 100, 33 }, { 64, 64 }, { 1000, 10 } };
	uint64_t seed = 99;
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		uint64_t w = cases[i].w, n = 4 * w + 500, j, differ = 0;
		uint64_t dups = 0;
		struct ddf_filter *s = win_filter(t, DDF_KIND_SHF, w,
						  cases[i].h);
		struct ddf_filter *c = win_filter(t, DDF_KIND_CSHF, w,
						  cases[i].h);
		struct ddf_hash *keys = ddf_test_alloc(t, n * sizeof(*keys));

		DDF_ASSERT(t, s && c && keys);
		win_stream(keys, n, w, false, &seed);
		for (j = 0; j < n; j++) {
			bool a, b;

			if (j % 5 == 0) {
				struct ddf_hash q = ddf_test_key(&seed);

				differ += ddf_filter_lookup(s, &q, 0) !=
					  ddf_filter_lookup(c, &q, 0);
			}
			a = ddf_filter_test_and_insert(s, &keys[j], 0);
			b = ddf_filter_test_and_insert(c, &keys[j], 0);
			differ += a != b;
			dups += a;
		}
		DDF_EXPECT_MSG(t, !differ, "w=%llu h=%u: %llu answers differ",
			       (unsigned long long)w, cases[i].h,
			       (unsigned long long)differ);
		DDF_EXPECT(t, dups > 0);
	}
}

/*
 * Queue of L = 3 exact subfilters, window 12: c = 4. Keys 1..12 fill
 * three generations; the 13th insertion rotates and drops keys 1..4.
 */
DDF_TEST(queue_rotation_drops_oldest)
{
	struct ddf_params none = { 0 };
	struct ddf_filter *f = win_queue(t, DDF_KIND_EXACT, 12, 3, none);
	struct ddf_stats st;
	struct ddf_hash h;
	uint64_t k;

	DDF_ASSERT(t, f);
	for (k = 1; k <= 12; k++) {
		h = (struct ddf_hash){ k, k };
		DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
	}
	for (k = 1; k <= 12; k++) {
		h = (struct ddf_hash){ k, k };
		DDF_EXPECT_MSG(t, ddf_filter_lookup(f, &h, 0),
			       "key %llu lost before any rotation",
			       (unsigned long long)k);
	}
	/* the L empty subfilters of init rotate out first */
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.generation, 2);
	DDF_EXPECT_EQ(t, st.window, 8); /* (L - 1) c, guaranteed */

	h = (struct ddf_hash){ 13, 13 };
	DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0));
	for (k = 1; k <= 13; k++) {
		h = (struct ddf_hash){ k, k };
		DDF_EXPECT_MSG(t, ddf_filter_lookup(f, &h, 0) == (k > 4),
			       "key %llu after the first rotation",
			       (unsigned long long)k);
	}
	ddf_filter_stats(f, &st);
	DDF_EXPECT_EQ(t, st.generation, 3);
	DDF_EXPECT_EQ(t, st.inserts, 13);

	/* a duplicate in an older subfilter is found, and stored again */
	h = (struct ddf_hash){ 5, 5 };
	DDF_EXPECT(t, ddf_filter_test_and_insert(f, &h, 0));
	for (k = 15; k <= 17; k++) { /* the 17th rotates: 5..8 go */
		h = (struct ddf_hash){ k, k };
		ddf_filter_insert(f, &h, 0);
	}
	for (k = 1; k <= 17; k++) {
		bool want = (k >= 9 && k <= 13) || k >= 15 || k == 5;

		h = (struct ddf_hash){ k, k };
		DDF_EXPECT_MSG(t, ddf_filter_lookup(f, &h, 0) == want,
			       "key %llu after the second rotation",
			       (unsigned long long)k);
	}
}

/* L = 1: each rotation empties the queue. */
DDF_TEST(queue_single_subfilter)
{
	struct ddf_params none = { 0 };
	struct ddf_filter *f = win_queue(t, DDF_KIND_EXACT, 4, 1, none);
	struct ddf_hash h;
	uint64_t k;

	DDF_ASSERT(t, f);
	for (k = 1; k <= 4; k++) {
		h = (struct ddf_hash){ k, k };
		ddf_filter_insert(f, &h, 0);
	}
	for (k = 1; k <= 4; k++) {
		h = (struct ddf_hash){ k, k };
		DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
	}
	h = (struct ddf_hash){ 1, 1 };
	DDF_EXPECT(t, !ddf_filter_test_and_insert(f, &h, 0)); /* rotates */
	for (k = 1; k <= 4; k++) {
		h = (struct ddf_hash){ k, k };
		DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0) == (k == 1));
	}
}

/* Many rotations, over several inner kinds: recent repeats are found. */
DDF_TEST(queue_over_kinds)
{
	static const struct {
		uint32_t inner;
		struct ddf_params extra;
	} cases[] = {
		{ DDF_KIND_EXACT, { 0 } },
		{ DDF_KIND_SHF, { .fp_bits = 20 } },
		{ DDF_KIND_CSHF, { .fp_bits = 20 } },
		/* rows to spare: no eviction of the previous key */
		{ DDF_KIND_QHT, { .k = 4, .fp_bits = 16, .m = 1000 } },
		{ DDF_KIND_QQHTD, { .k = 4, .fp_bits = 16, .m = 1000 } },
		{ DDF_KIND_APBF, { .k = 4, .l = 4 } },
	};
	uint64_t seed = 3;
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_filter *f =
			win_queue(t, cases[i].inner, 200, 4, cases[i].extra);
		struct ddf_hash prev = ddf_test_key(&seed);
		uint64_t j, missed = 0;
		struct ddf_stats st;

		DDF_ASSERT_MSG(t, f, "queue of %s",
			       ddf_kind_name(cases[i].inner));
		ddf_filter_insert(f, &prev, 0);
		for (j = 0; j < 2000; j++) {
			struct ddf_hash h = ddf_test_key(&seed);

			ddf_filter_insert(f, &h, 0);
			/* just inserted: in the newest subfilter */
			missed += !ddf_filter_test_and_insert(f, &h, 0);
			missed += !ddf_filter_lookup(f, &prev, 0);
			prev = h;
		}
		DDF_EXPECT_MSG(t, !missed, "queue of %s: %llu missed",
			       ddf_kind_name(cases[i].inner),
			       (unsigned long long)missed);
		ddf_filter_stats(f, &st);
		DDF_EXPECT_EQ(t, st.inserts, 4001);
		DDF_EXPECT_EQ(t, st.gen_size, 50);
		DDF_EXPECT_EQ(t, st.generation, 4001 / 50);
	}
}

/* Resolve twice changes nothing; the inner kind's choices are kept. */
DDF_TEST(queue_resolve)
{
	struct ddf_params p = { .kind = DDF_KIND_QUEUE,
				.inner_kind = DDF_KIND_QHT,
				.window = 1000,
				.subfilters = 4,
				.k = 4,
				.fp_bits = 8 };
	struct ddf_params again;
	const char *why = NULL;
	uint64_t size;

	DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
	DDF_EXPECT_EQ(t, p.m, 63); /* rows for c = 250 at k = 4 */
	DDF_EXPECT_EQ(t, p.window, 1000);
	DDF_EXPECT_EQ(t, p.kind, DDF_KIND_QUEUE);
	again = p;
	DDF_EXPECT_EQ(t, ddf_params_resolve(&again, &why), 0);
	DDF_EXPECT(t, !memcmp(&again, &p, sizeof(p)));
	size = ddf_filter_memsize(&p);
	DDF_EXPECT(t, size > 4 * 63 * 8 && size < 4 * 63 * 8 + 4096);
	/* the queue's own type cannot resolve without the registry */
	again = p;
	DDF_EXPECT(t, ddf_params_resolve_type(&ddf_queue_type, &again, &why));
	DDF_EXPECT(t, why && why[0]);
	DDF_EXPECT_EQ(t, ddf_filter_memsize_type(&ddf_queue_type, &p), 0);
}

DDF_TEST(window_types_registered)
{
	static const struct {
		const char *name;
		uint32_t kind;
	} types[] = { { "exact", DDF_KIND_EXACT },
		      { "shf", DDF_KIND_SHF },
		      { "cshf", DDF_KIND_CSHF },
		      { "queue", DDF_KIND_QUEUE } };
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(types); i++) {
		const struct ddf_filter_type *ty =
			ddf_filter_type_by_name(types[i].name);

		DDF_ASSERT(t, ty);
		ddf_test_expect_type(t, ty, types[i].kind);
	}
}

DDF_TEST(window_lookup_does_not_modify)
{
	static const uint32_t kinds[] = { DDF_KIND_EXACT, DDF_KIND_SHF,
					  DDF_KIND_CSHF, DDF_KIND_QUEUE };
	uint64_t seed = 17;
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(kinds); i++) {
		struct ddf_params p = { .kind = kinds[i], .window = 64 };
		struct ddf_test_made m;
		unsigned char *copy;
		uint64_t diff;

		if (kinds[i] != DDF_KIND_EXACT)
			p.fp_bits = 11;
		if (kinds[i] == DDF_KIND_QUEUE) {
			p.inner_kind = DDF_KIND_SHF;
			p.subfilters = 4;
		}
		m = ddf_test_make(t, &p, 0);
		DDF_ASSERT(t, m.f);
		copy = ddf_test_alloc(t, m.size);
		DDF_ASSERT(t, copy);
		diff = ddf_test_lookup_changes(&m, copy, &seed, 100, 500);
		DDF_EXPECT_MSG(t, !diff, "%s: lookup changed %llu bytes",
			       ddf_kind_name(kinds[i]),
			       (unsigned long long)diff);
	}
}

/* Refused params with the reason given; a few accepted at the edges. */
DDF_TEST(window_bad_params)
{
	static const struct ddf_test_bad_params cases[] = {
		{ "exact: no window", { .kind = DDF_KIND_EXACT }, DDF_EINVAL },
		{ "exact: fp_bits",
		  { .kind = DDF_KIND_EXACT, .window = 10, .fp_bits = 8 },
		  DDF_EINVAL },
		{ "exact: rows",
		  { .kind = DDF_KIND_EXACT, .window = 10, .m = 8 },
		  DDF_EINVAL },
		{ "exact: k", { .kind = DDF_KIND_EXACT, .window = 10, .k = 2 },
		  DDF_EINVAL },
		{ "exact: subfilters",
		  { .kind = DDF_KIND_EXACT, .window = 10, .subfilters = 2 },
		  DDF_EINVAL },
		{ "exact: 32-bit ring positions",
		  { .kind = DDF_KIND_EXACT, .window = 1ull << 32 },
		  DDF_EFBIG },
		{ "exact: memory limit",
		  { .kind = DDF_KIND_EXACT, .window = 1ull << 31 },
		  DDF_EFBIG },
		{ "exact: window above DDF_MAX_WINDOW",
		  { .kind = DDF_KIND_EXACT, .window = DDF_MAX_WINDOW + 1 },
		  DDF_ERANGE },
		{ "exact: unknown flag",
		  { .kind = DDF_KIND_EXACT, .window = 10, .flags = 0x80 },
		  DDF_EINVAL },
		{ "exact: time window too short",
		  { .kind = DDF_KIND_EXACT,
		    .window = 10,
		    .flags = DDF_PF_TIME,
		    .window_ns = 10 },
		  DDF_ERANGE },
		{ "shf: no fp_bits", { .kind = DDF_KIND_SHF, .window = 10 },
		  DDF_EINVAL },
		{ "shf: fp_bits 65",
		  { .kind = DDF_KIND_SHF, .window = 10, .fp_bits = 65 },
		  DDF_ERANGE },
		{ "shf: no window", { .kind = DDF_KIND_SHF, .fp_bits = 8 },
		  DDF_EINVAL },
		{ "shf: m (the paper's M goes through ddf_shf_bits)",
		  { .kind = DDF_KIND_SHF,
		    .window = 10,
		    .fp_bits = 8,
		    .m = 1000 },
		  DDF_EINVAL },
		{ "shf: 32-bit ring positions",
		  { .kind = DDF_KIND_SHF,
		    .window = 1ull << 32,
		    .fp_bits = 8 },
		  DDF_EFBIG },
		{ "shf: memory limit",
		  { .kind = DDF_KIND_SHF,
		    .window = (1ull << 32) - 1,
		    .fp_bits = 64,
		    .flags = DDF_PF_TIME,
		    .window_ns = 1000000 },
		  DDF_EFBIG },
		{ "cshf: time mode",
		  { .kind = DDF_KIND_CSHF,
		    .window = 10,
		    .fp_bits = 8,
		    .flags = DDF_PF_TIME,
		    .window_ns = 1000000 },
		  DDF_EINVAL },
		{ "cshf: window above the scan cap",
		  { .kind = DDF_KIND_CSHF,
		    .window = (1ull << 16) + 1,
		    .fp_bits = 8 },
		  DDF_ERANGE },
		{ "cshf: window at the scan cap",
		  { .kind = DDF_KIND_CSHF, .window = 1ull << 16, .fp_bits = 8 },
		  0 },
		{ "shf: window above CSHF's cap",
		  { .kind = DDF_KIND_SHF,
		    .window = (1ull << 16) + 1,
		    .fp_bits = 8 },
		  0 },
		{ "cshf: block_bits",
		  { .kind = DDF_KIND_CSHF,
		    .window = 10,
		    .fp_bits = 8,
		    .block_bits = 64 },
		  DDF_EINVAL },
		{ "queue: no inner kind",
		  { .kind = DDF_KIND_QUEUE, .window = 100, .subfilters = 4 },
		  DDF_EINVAL },
		{ "queue: unknown inner kind",
		  { .kind = DDF_KIND_QUEUE,
		    .inner_kind = 200,
		    .window = 100,
		    .subfilters = 4 },
		  DDF_EINVAL },
		{ "queue: a queue of queues",
		  { .kind = DDF_KIND_QUEUE,
		    .inner_kind = DDF_KIND_QUEUE,
		    .window = 100,
		    .subfilters = 4 },
		  DDF_EINVAL },
		{ "queue: no subfilters",
		  { .kind = DDF_KIND_QUEUE,
		    .inner_kind = DDF_KIND_EXACT,
		    .window = 100 },
		  DDF_ERANGE },
		{ "queue: 257 subfilters",
		  { .kind = DDF_KIND_QUEUE,
		    .inner_kind = DDF_KIND_EXACT,
		    .window = 1000,
		    .subfilters = 257 },
		  DDF_ERANGE },
		{ "queue: window below L",
		  { .kind = DDF_KIND_QUEUE,
		    .inner_kind = DDF_KIND_EXACT,
		    .window = 3,
		    .subfilters = 4 },
		  DDF_EINVAL },
		{ "queue: time mode",
		  { .kind = DDF_KIND_QUEUE,
		    .inner_kind = DDF_KIND_EXACT,
		    .window = 100,
		    .subfilters = 4,
		    .flags = DDF_PF_TIME,
		    .window_ns = 1000000 },
		  DDF_EINVAL },
		{ "queue: the inner kind refuses (SHF without fp_bits)",
		  { .kind = DDF_KIND_QUEUE,
		    .inner_kind = DDF_KIND_SHF,
		    .window = 100,
		    .subfilters = 4 },
		  DDF_EINVAL },
		{ "queue: memory limit",
		  { .kind = DDF_KIND_QUEUE,
		    .inner_kind = DDF_KIND_EXACT,
		    .window = 256ull << 26,
		    .subfilters = 256 },
		  DDF_EFBIG },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_params p = cases[i].p;
		const char *why = NULL;
		int err = ddf_params_resolve(&p, &why);

		DDF_EXPECT_MSG(t, err == cases[i].err,
			       "%s: error %d, expected %d", cases[i].what, err,
			       cases[i].err);
		DDF_EXPECT_MSG(t, !err || (why && why[0]),
			       "%s: no reason given", cases[i].what);
	}
}

/*
 * A kind's init writes every byte of its memory and ddf_filter_init() the
 * room to align it: the kernel hands over memory it did not zero. A filter
 * of each kind built over junk, at an address off a cache line, equals
 * byte for byte the one built over zeros in the same place, and the byte
 * after the memory is left alone.
 */
DDF_TEST(init_writes_every_byte)
{
	static const struct ddf_params cases[] = {
		{ .kind = DDF_KIND_APBF, .k = 4, .l = 3, .window = 1000 },
		{ .kind = DDF_KIND_APBBF, .k = 3, .l = 5, .window = 1000 },
		{ .kind = DDF_KIND_APBBF, .flags = DDF_PF_TIME, .k = 2, .l = 3,
		  .window = 1000, .window_ns = 100000 },
		{ .kind = DDF_KIND_QHT, .k = 4, .fp_bits = 16, .m = 100 },
		{ .kind = DDF_KIND_QHTD, .k = 4, .fp_bits = 16, .m = 100 },
		{ .kind = DDF_KIND_QQHTD, .k = 4, .fp_bits = 16, .m = 100 },
		{ .kind = DDF_KIND_SQF, .k = 2, .fp_bits = 8, .cell_bits = 10,
		  .m = 128, .rng_seed = 1 },
		{ .kind = DDF_KIND_SBF, .m = 1000, .cell_bits = 3, .k = 3,
		  .decrements = 10, .rng_seed = 1 },
		{ .kind = DDF_KIND_A2, .window = 1000, .m = 4096, .k = 3 },
		{ .kind = DDF_KIND_BDBF, .window = 1000, .m = 4096, .k = 3,
		  .cell_bits = 4 },
		{ .kind = DDF_KIND_CUCKOO, .m = 64, .k = 4, .fp_bits = 8,
		  .rng_seed = 1 },
		{ .kind = DDF_KIND_RSBF, .k = 2, .m = 4096, .rng_seed = 1 },
		{ .kind = DDF_KIND_BSBF, .k = 2, .m = 4096, .rng_seed = 1 },
		{ .kind = DDF_KIND_BSBFSD, .k = 2, .m = 4096, .rng_seed = 1 },
		{ .kind = DDF_KIND_RLBSBF, .k = 2, .m = 4096, .rng_seed = 1 },
		{ .kind = DDF_KIND_SHF, .window = 100, .fp_bits = 20 },
		{ .kind = DDF_KIND_SHF, .flags = DDF_PF_TIME, .window = 100,
		  .window_ns = 100000, .fp_bits = 20 },
		{ .kind = DDF_KIND_CSHF, .window = 100, .fp_bits = 20 },
		{ .kind = DDF_KIND_EXACT, .window = 100 },
		{ .kind = DDF_KIND_EXACT, .flags = DDF_PF_TIME, .window = 100,
		  .window_ns = 100000 },
		{ .kind = DDF_KIND_QUEUE, .inner_kind = DDF_KIND_EXACT,
		  .window = 100, .subfilters = 3 },
		{ .kind = DDF_KIND_QUEUE, .inner_kind = DDF_KIND_SHF,
		  .window = 100, .subfilters = 3, .fp_bits = 20 },
		{ .kind = DDF_KIND_QUEUE, .inner_kind = DDF_KIND_QHT,
		  .window = 200, .subfilters = 4, .k = 4, .fp_bits = 16,
		  .m = 100 },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
		struct ddf_params p = cases[i];
		const char *name = ddf_kind_name(p.kind), *why = NULL;
		uint64_t size;
		char *mem, *junk, *base;

		DDF_ASSERT_MSG(t, !ddf_params_resolve(&p, &why), "%s: %s", name,
			       why ? why : "-");
		size = ddf_filter_memsize(&p);
		mem = ddf_test_alloc(t, size + 9);
		junk = ddf_test_alloc(t, size);
		DDF_ASSERT(t, size && mem && junk);
		base = mem + 8; /* 56 bytes to the next cache line */
		memset(base, 0xa5, size + 1);
		DDF_ASSERT_MSG(t, ddf_filter_init(base, size, &p, 1000), "%s",
			       name);
		memcpy(junk, base, size);
		memset(base, 0, size);
		DDF_ASSERT(t, ddf_filter_init(base, size, &p, 1000));
		DDF_EXPECT_MSG(t, !memcmp(junk, base, size),
			       "%s (case %u): a byte init did not write", name,
			       i);
		DDF_EXPECT_EQ(t, (unsigned char)base[size], 0xa5);
	}
}

static ddf_case_t ddf_window_cases[] = {
	DDF_CASE(window_types_registered),
	DDF_CASE(exact_matches_reference),
	DDF_CASE(exact_duplicates_enter_window),
	DDF_CASE(window_time_mode),
	DDF_CASE(shf_no_false_negatives),
	DDF_CASE(shf_short_hash_bits),
	DDF_CASE(cshf_equals_shf),
	DDF_CASE(queue_rotation_drops_oldest),
	DDF_CASE(queue_single_subfilter),
	DDF_CASE(queue_over_kinds),
	DDF_CASE(queue_resolve),
	DDF_CASE(window_lookup_does_not_modify),
	DDF_CASE(window_bad_params),
	DDF_CASE(init_writes_every_byte),
	DDF_CASES_END,
};

DDF_SUITE(ddf_window, ddf_window_cases);
