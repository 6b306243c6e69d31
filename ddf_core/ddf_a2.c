// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A2: aging Bloom filter with two active buffers (Yoon, IEEE TKDE 22(1),
 * 2010).
 *
 * Two Bloom filters of m bits and k hash functions: a1, the active one,
 * and a2, the previous one. For each element:
 *   - found in a1: a duplicate, nothing changes;
 *   - found in a2 only: a duplicate, and copied into a1 (copy-on-find), so
 *     an element seen again survives the next swap;
 *   - found in neither: unseen, inserted into a1.
 * When a1 has taken its capacity of insertions (new elements and copies),
 * a2 is dropped, a1 becomes a2 and an empty filter becomes a1. An element
 * therefore stays for at least `capacity` insertions into a1, so for at
 * least `capacity` elements of the stream: the guaranteed window. Stream
 * elements found in a1 insert nothing and do not age the filter.
 *
 * Parameters: window = the capacity of a buffer, m bits per buffer, k. The
 * swap counts insertions: there is no time mode.
 *
 * lookup() only reads (no copy); insert() is test_and_insert(): the update
 * depends on the answer.
 *
 * Concurrency: bits are set with atomic ORs. One word, state, holds the
 * generation (whose parity names a1) and a1's insertion count; an insertion
 * takes its place in a1 with a compare-and-swap on it, and the insertion
 * that fills a1 also sets the BUSY bit. That CPU clears the old a2 (m / 64
 * word stores, the bounded work held under BUSY), then publishes the next
 * generation, which clears BUSY; other inserting CPUs spin meanwhile. A
 * CPU that read the state before a swap may set its bits in the filter
 * that just became a2: a duplicate copy at worst, or bits cleared with the
 * old a2, a false negative; no write leaves the two buffers.
 */
#include "ddf_filter.h"
#include "ddf_hash.h"

#define A2_BUSY (1ull << 63)
#define A2_GEN_SHIFT 41 /* count <= DDF_MAX_WINDOW = 2^40 */
#define A2_COUNT_MASK ((1ull << A2_GEN_SHIFT) - 1)
#define A2_GEN_MASK ((1ull << (63 - A2_GEN_SHIFT)) - 1)

struct ddf_a2 {
	struct ddf_filter hdr;
	uint64_t m; /* bits per buffer */
	uint64_t words; /* words per buffer, whole cache lines */
	uint64_t cap; /* insertions into a1 before a swap */
	uint32_t k;
	/* the hot word, on a cache line of its own */
	DDF_CACHE_ALIGNED ddf_aword state; /* BUSY | gen << 41 | count */
	ddf_aword swaps; /* written by the swapping CPU only */
};

#define A2_HDR_BYTES ddf_align_up(sizeof(struct ddf_a2), DDF_CACHELINE)
#define A2_MAX_WORDS ((DDF_MAX_BYTES - A2_HDR_BYTES) / 2 / sizeof(ddf_aword))

static inline struct ddf_a2 *to_a2(const struct ddf_filter *f)
{
	return (struct ddf_a2 *)f;
}

static inline uint64_t a2_words(uint64_t m)
{
	return ddf_align_up((m + 63) / 64, DDF_CACHELINE / sizeof(ddf_aword));
}

static inline ddf_aword *a2_buf(const struct ddf_a2 *a, uint64_t gen,
				bool active)
{
	ddf_aword *b = (ddf_aword *)((char *)a + A2_HDR_BYTES);

	return b + ((gen & 1) ^ !active) * a->words;
}

static inline uint64_t a2_gen(uint64_t s)
{
	return (s >> A2_GEN_SHIFT) & A2_GEN_MASK;
}

static bool a2_has(const struct ddf_a2 *a, const ddf_aword *b,
		   const struct ddf_hash *h)
{
	uint32_t i;

	for (i = 0; i < a->k; i++) {
		uint64_t bit = ddf_reduce(ddf_hash_nth(h, i), a->m);

		if (!(ddf_aword_read(&b[bit / 64]) & (1ull << (bit % 64))))
			return false;
	}
	return true;
}

static void a2_set(const struct ddf_a2 *a, ddf_aword *b,
		   const struct ddf_hash *h)
{
	uint32_t i;

	for (i = 0; i < a->k; i++) {
		uint64_t bit = ddf_reduce(ddf_hash_nth(h, i), a->m);

		ddf_aword_or(&b[bit / 64], 1ull << (bit % 64));
	}
}

static bool a2_lookup(struct ddf_filter *f, const struct ddf_hash *h,
		      uint64_t now)
{
	const struct ddf_a2 *a = to_a2(f);
	uint64_t g = a2_gen(ddf_aword_read_acquire(&a->state));

	return a2_has(a, a2_buf(a, g, true), h) ||
	       a2_has(a, a2_buf(a, g, false), h);
}

/* Under BUSY: the old a2 becomes the empty a1 of generation g + 1. */
static void a2_swap(struct ddf_a2 *a, uint64_t g)
{
	ddf_aword *b = a2_buf(a, g, false);
	uint64_t i;

	for (i = 0; i < a->words; i++)
		ddf_aword_set(&b[i], 0);
	ddf_aword_set(&a->swaps, ddf_aword_read(&a->swaps) + 1);
	ddf_aword_set_release(&a->state, ((g + 1) & A2_GEN_MASK)
						 << A2_GEN_SHIFT);
}

static bool a2_test_and_insert(struct ddf_filter *f, const struct ddf_hash *h,
			       uint64_t now)
{
	struct ddf_a2 *a = to_a2(f);
	uint64_t s = ddf_aword_read_acquire(&a->state), g, n;
	bool in2;

	for (;;) {
		if (DDF_UNLIKELY(s & A2_BUSY)) {
			ddf_cpu_relax();
			s = ddf_aword_read_acquire(&a->state);
			continue;
		}
		g = a2_gen(s);
		if (a2_has(a, a2_buf(a, g, true), h))
			return true;
		in2 = a2_has(a, a2_buf(a, g, false), h);
		/* take a place in a1; the last place also takes BUSY */
		n = (s & A2_COUNT_MASK) + 1;
		if (ddf_aword_try_cmpxchg(&a->state, &s,
					  (s + 1) | (n >= a->cap ? A2_BUSY : 0)))
			break;
	}
	a2_set(a, a2_buf(a, g, true), h);
	if (n >= a->cap)
		a2_swap(a, g);
	return in2;
}

static void a2_insert(struct ddf_filter *f, const struct ddf_hash *h,
		      uint64_t now)
{
	a2_test_and_insert(f, h, now);
}

static int a2_resolve(struct ddf_params *p, const char **why)
{
	if (p->flags & DDF_PF_TIME) {
		*why = "A2 swaps after a count of insertions: time windows are not implemented";
		return DDF_EINVAL;
	}
	if (p->l || p->block_bits || p->block_hashes || p->fp_bits ||
	    p->cell_bits || p->decrements || p->inner_kind ||
	    p->subfilters || p->rng_seed) {
		*why = "A2 takes window, m and k only";
		return DDF_EINVAL;
	}
	if (!p->window) {
		*why = "A2 needs a window: the insertions each buffer takes";
		return DDF_EINVAL;
	}
	if (!p->m || !p->k) {
		*why = "A2 needs m (bits per buffer) and k: ddf_a2_size() picks them";
		return DDF_EINVAL;
	}
	if (p->k > DDF_MAX_K) {
		*why = "A2: at most 64 hash functions (k)";
		return DDF_ERANGE;
	}
	if (p->m > A2_MAX_WORDS * 64) {
		*why = "too many bits: the buffers would exceed the memory limit";
		return DDF_EFBIG;
	}
	return 0;
}

static uint64_t a2_memsize(const struct ddf_params *p)
{
	if (!p->m || p->m > A2_MAX_WORDS * 64)
		return 0;
	return A2_HDR_BYTES + 2 * a2_words(p->m) * sizeof(ddf_aword);
}

static struct ddf_filter *a2_init(void *mem, const struct ddf_params *p,
				  uint64_t now)
{
	struct ddf_a2 *a = mem;

	memset(mem, 0, a2_memsize(p));
	a->m = p->m;
	a->words = a2_words(p->m);
	a->cap = p->window;
	a->k = p->k;
	return &a->hdr;
}

static uint64_t a2_popcount(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (x * 0x0101010101010101ull) >> 56;
}

/* A scan of a1: for reporting, not for the packet path. */
static void a2_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	const struct ddf_a2 *a = to_a2(f);
	uint64_t s = ddf_aword_read_acquire(&a->state), i, set = 0;
	const ddf_aword *b = a2_buf(a, a2_gen(s), true);

	for (i = 0; i < a->words; i++)
		set += a2_popcount(ddf_aword_read(&b[i]));
	st->window = a->cap;
	st->gen_size = a->cap;
	st->generation = ddf_aword_read(&a->swaps);
	st->inserts = st->generation * a->cap + (s & A2_COUNT_MASK);
	st->slots = a->m;
	st->used = set;
	st->fill_ppm = (uint32_t)ddf_div64(set * 1000000, a->m);
}

const struct ddf_filter_type ddf_a2_type = {
	.name = "a2",
	.kind = DDF_KIND_A2,
	.resolve = a2_resolve,
	.memsize = a2_memsize,
	.init = a2_init,
	.lookup = a2_lookup,
	.insert = a2_insert,
	.test_and_insert = a2_test_and_insert,
	.advance = NULL,
	.stats = a2_stats,
};
