// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The interleaved APBBF layout (ddf_apbbf_il.h, ddfbench --layout
 * interleaved): no false negatives inside the window, count and time
 * based; a key's blocks within one group of adjacent words; the spare's
 * clearing through the layout reaches every word of the filter.
 */
#include "ddf_apbbf_il.h"
#include "ddf_test_user.h"

static struct ddf_filter *make_il(ddf_test_t *t, struct ddf_params *p,
				  uint64_t now)
{
	const char *why;
	uint64_t size;
	void *mem;

	if (ddf_params_resolve(p, &why))
		return NULL;
	size = ddf_apbbf_il_memsize(p);
	/* the same memory as the paper's layout */
	if (size != ddf_filter_memsize(p))
		return NULL;
	mem = ddf_test_alloc(t, size);
	return mem ? ddf_apbbf_il_init(mem, size, p, now) : NULL;
}

static struct ddf_hash key(uint64_t seed, uint64_t i)
{
	return ddf_test_key_at(seed ^ (i * 0x9e3779b97f4a7c15ull));
}

/* The segments' words: the last nseg * seg_words before the align pad. */
static const uint64_t *words_of(const struct ddf_filter *f, uint64_t *n)
{
	const struct ddf_params *p = &f->params;
	uint64_t seg = (p->m * p->block_bits + 63) / 64;

	seg = (seg + 7) & ~7ull;
	*n = (uint64_t)(p->k + p->l + 1) * seg;
	return (const uint64_t *)((const char *)f + f->bytes - DDF_CACHELINE) -
	       *n;
}

/*
 * As the paper's layout is checked (test_apbf.c): 10 windows of distinct
 * keys, the oldest key of the window looked up after every
 * test-and-insert, all w keys at every generation boundary.
 */
static uint64_t count_misses(ddf_test_t *t, uint32_t k, uint32_t l,
			     uint32_t B, uint64_t window)
{
	struct ddf_params p = { .kind = DDF_KIND_APBBF, .k = k, .l = l,
				.block_bits = B, .block_hashes = 8,
				.window = window };
	struct ddf_filter *f = make_il(t, &p, 0);
	uint64_t w, misses = 0;
	struct ddf_stats st;

	if (!f)
		return ~0ull;
	ddf_filter_stats(f, &st);
	w = st.window;
	for (uint64_t i = 0; i < 10 * w; i++) {
		struct ddf_hash h = key(k * 7 + l, i), o;

		ddf_filter_test_and_insert(f, &h, 0);
		o = key(k * 7 + l, i + 1 > w ? i + 1 - w : 0);
		misses += !ddf_filter_lookup(f, &o, 0);
		if (i % st.gen_size != st.gen_size - 1)
			continue;
		for (uint64_t j = i + 1 > w ? i + 1 - w : 0; j <= i; j++) {
			struct ddf_hash q = key(k * 7 + l, j);

			misses += !ddf_filter_lookup(f, &q, 0);
		}
	}
	return misses;
}

DDF_TEST(il_count_no_false_negatives)
{
	/* the default tuning's shapes at 1e-3 and 1e-6, and 512-bit blocks */
	DDF_EXPECT_EQ(t, count_misses(t, 2, 3, 64, 3000), 0);
	DDF_EXPECT_EQ(t, count_misses(t, 4, 7, 64, 5000), 0);
	DDF_EXPECT_EQ(t, count_misses(t, 3, 8, 512, 5000), 0);
}

/* Time windows with idle gaps of up to three windows. */
DDF_TEST(il_time_no_false_negatives)
{
	enum { N = 20000, RING = 4096 };
	uint64_t win = 1000000, now = 5000, rng = 42, times[RING];
	struct ddf_params p = { .kind = DDF_KIND_APBBF, .flags = DDF_PF_TIME,
				.k = 2, .l = 3, .block_bits = 64,
				.block_hashes = 8, .window = 2000,
				.window_ns = win };
	struct ddf_filter *f = make_il(t, &p, now);
	uint64_t misses = 0;

	DDF_ASSERT(t, f);
	for (uint64_t i = 0; i < N; i++) {
		uint64_t r = ddf_test_rand(&rng);
		struct ddf_hash h = key(99, i);

		now += (r % 100 == 0) ? (r >> 40) % (3 * win) : (r >> 40) % 2000;
		ddf_filter_test_and_insert(f, &h, now);
		times[i % RING] = now;
		if (i % 512 && i != N - 1)
			continue;
		for (uint64_t j = i >= RING ? i - RING + 1 : 0; j <= i; j++) {
			struct ddf_hash q = key(99, j);

			if (now - times[j % RING] <= win)
				misses += !ddf_filter_lookup(f, &q, now);
		}
	}
	DDF_EXPECT_EQ(t, misses, 0);
}

/*
 * The layout itself: one key's bits in a fresh filter lie within one
 * group (nseg 64-bit blocks, 12 at k=4 l=7: 96 bytes, so at most 2
 * lines), in k distinct words.
 */
DDF_TEST(il_key_in_one_group)
{
	struct ddf_params p = { .kind = DDF_KIND_APBBF, .k = 4, .l = 7,
				.block_bits = 64, .block_hashes = 8,
				.window = 100000 };
	uint64_t n, gw = 12;

	for (uint64_t s = 0; s < 20; s++) {
		struct ddf_filter *f = make_il(t, &p, 0);
		struct ddf_hash h = key(5, s);
		uint64_t lo = ~0ull, hi = 0, set = 0;
		const uint64_t *w;

		DDF_ASSERT(t, f);
		w = words_of(f, &n);
		ddf_filter_insert(f, &h, 0);
		for (uint64_t i = 0; i < n; i++) {
			if (!w[i])
				continue;
			set++;
			lo = i < lo ? i : lo;
			hi = i;
		}
		DDF_EXPECT_EQ(t, set, 4);
		DDF_EXPECT_MSG(t, lo / gw == hi / gw,
			       "key %llu: words %llu..%llu in two groups",
			       (unsigned long long)s, (unsigned long long)lo,
			       (unsigned long long)hi);
		DDF_EXPECT(t, ddf_filter_lookup(f, &h, 0));
	}
}

/*
 * Fill a time-mode filter, then let one generation pass at a time with
 * no inserts: each shift clears the spare through the layout, so after
 * k + l + 1 of them every word of the segments is zero. A word the
 * layout's clearing misses (or one cleared twice while another is
 * skipped) stays set.
 */
DDF_TEST(il_clearing_reaches_every_word)
{
	static const uint32_t shapes[][3] = { { 2, 3, 64 }, { 4, 7, 64 },
					      { 3, 5, 512 } };

	for (unsigned int s = 0; s < 3; s++) {
		uint64_t win = 1000000, gen, now = 1, n, left = 0, full = 0;
		struct ddf_params p = { .kind = DDF_KIND_APBBF,
					.flags = DDF_PF_TIME,
					.k = shapes[s][0], .l = shapes[s][1],
					.block_bits = shapes[s][2],
					.block_hashes = 8, .window = 3000,
					.window_ns = win };
		struct ddf_filter *f = make_il(t, &p, now);
		const uint64_t *w;
		struct ddf_hash q = key(11, 0);

		DDF_ASSERT(t, f);
		w = words_of(f, &n);
		gen = (win + p.l - 1) / p.l;
		/* l generations of 4 windows each: every segment well filled */
		for (uint64_t i = 0; i < 4 * 3000 * (uint64_t)p.l; i++) {
			struct ddf_hash h = key(11, i);

			now += gen / (4 * 3000);
			ddf_filter_insert(f, &h, now);
		}
		for (uint64_t i = 0; i < n; i++)
			full += w[i] != 0;
		DDF_EXPECT_MSG(t, full > n / 2, "shape %u: %llu of %llu set", s,
			       (unsigned long long)full, (unsigned long long)n);
		for (uint32_t g = 0; g <= p.k + p.l; g++) {
			now += gen;
			ddf_filter_advance(f, now);
		}
		for (uint64_t i = 0; i < n; i++)
			left += w[i] != 0;
		DDF_EXPECT_MSG(t, !left, "shape %u: %llu words left set", s,
			       (unsigned long long)left);
		DDF_EXPECT(t, !ddf_filter_lookup(f, &q, now));
	}
}

static ddf_case_t cases[] = {
	DDF_CASE(il_count_no_false_negatives),
	DDF_CASE(il_time_no_false_negatives), DDF_CASE(il_key_in_one_group),
	DDF_CASE(il_clearing_reaches_every_word), DDF_CASES_END
};

DDF_SUITE(ddf_apbbf_interleaved, cases);
