// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The exact window filter of Theorem 1 (Geraud-Stewart, Lombard-Platet,
 * Naccache, "Approaching Optimal Duplicate Detection in a Sliding Window"):
 * a FIFO ring of the last w keys and a counted dictionary of them.
 *
 * Semantics (count mode): the i-th call of test_and_insert (or insert)
 * enters the window whatever the answer, duplicate or not, and the i-th
 * test_and_insert answers DUPLICATE if and only if a key equal to its own
 * is among the previous w insertions, i - w .. i - 1. So is editcap -D:
 * every packet's hash enters its ring, kept or not, but its ring of
 * <dup window> entries includes the current packet, so editcap -D N
 * compares with the previous N - 1 packets: it is this filter with
 * w = N - 1 (editcap(1): "-D 101" removes duplicates "seen within the
 * prior 100 frames").
 *
 * A key is its full 128-bit hash (struct ddf_hash), so the filter is exact
 * up to a collision of that hash: about 2^-128 per pair of distinct keys
 * (w * 2^-128 per answer), with keyed SipHash against chosen inputs.
 *
 * Time mode: the ring still holds the last w insertions (w: the most
 * elements expected within window_ns) with their times, and an answer is
 * DUPLICATE iff an equal key is among the last w insertions AND was
 * inserted at most window_ns before now. The dictionary points at each
 * key's newest occurrence, so one timestamp decides; nothing has to expire
 * on time. Above w elements per window_ns the oldest are forgotten early:
 * false negatives, never false positives.
 *
 * Concurrency: a step spans the ring, a timestamp and several dictionary
 * slots, so lookups and steps serialise on a busy bit (ddf_dict_lock). The
 * work under it is one probe and one FIFO step: O(1) in expectation at a
 * load factor of at most 1/2.
 */
#include "ddf_dict.h"

struct ddf_exact {
	struct ddf_filter hdr;
	uint64_t w;
	uint64_t window_ns; /* time mode; 0 in count mode */
	struct ddf_hash *ring;
	uint64_t *ts; /* time mode: insertion time of each ring entry */
	struct ddf_dict dict;
	/* written under the busy bit only */
	DDF_CACHE_ALIGNED ddf_aword lock;
	uint64_t head; /* next ring position */
	ddf_aword inserts; /* read by stats without the lock */
	ddf_aword keys; /* distinct keys in the window */
};

#define EXACT_HDR_BYTES ddf_align_up(sizeof(struct ddf_exact), DDF_CACHELINE)

static inline struct ddf_exact *to_exact(const struct ddf_filter *f)
{
	return (struct ddf_exact *)f;
}

static uint64_t exact_hash_at(const void *ctx, uint32_t pos)
{
	return ((const struct ddf_exact *)ctx)->ring[pos].h1;
}

static bool exact_eq(const void *ctx, uint32_t pos, const void *key)
{
	const struct ddf_hash *a = &((const struct ddf_exact *)ctx)->ring[pos];
	const struct ddf_hash *b = key;

	return a->h1 == b->h1 && a->h2 == b->h2;
}

/* Under the lock: is h among the last w insertions (and recent enough)? */
static bool exact_has(const struct ddf_exact *x, const struct ddf_hash *h,
		      uint64_t now)
{
	const uint64_t *s = ddf_dict_find(&x->dict, h->h1, x, exact_eq, h);
	uint64_t t;

	if (!s)
		return false;
	if (!x->ts)
		return true;
	/* a CPU with a slightly older clock may see t > now: recent */
	t = x->ts[ddf_dict_pos(*s)];
	return now <= t || now - t <= x->window_ns;
}

/* Under the lock: one FIFO step, the oldest entry out once w are in. */
static void exact_push(struct ddf_exact *x, const struct ddf_hash *h,
		       uint64_t now)
{
	uint64_t pos = x->head, n = ddf_aword_read(&x->inserts);
	uint64_t keys = ddf_aword_read(&x->keys);

	if (n >= x->w)
		keys -= ddf_dict_drop(&x->dict, x->ring[pos].h1, x, exact_eq,
				      exact_hash_at, &x->ring[pos]);
	x->ring[pos] = *h;
	if (x->ts)
		x->ts[pos] = now;
	if (!ddf_dict_find(&x->dict, h->h1, x, exact_eq, h))
		keys++;
	ddf_dict_add(&x->dict, h->h1, x, exact_eq, h, (uint32_t)pos);
	x->head = pos + 1 == x->w ? 0 : pos + 1;
	ddf_aword_set(&x->inserts, n + 1);
	ddf_aword_set(&x->keys, keys);
}

static bool exact_lookup(struct ddf_filter *f, const struct ddf_hash *h,
			 uint64_t now)
{
	struct ddf_exact *x = to_exact(f);
	bool dup;

	ddf_dict_lock(&x->lock);
	dup = exact_has(x, h, now);
	ddf_dict_unlock(&x->lock);
	return dup;
}

/* Detect, then enter the window whatever the answer (editcap -D's rule). */
static bool exact_test_and_insert(struct ddf_filter *f,
				  const struct ddf_hash *h, uint64_t now)
{
	struct ddf_exact *x = to_exact(f);
	bool dup;

	ddf_dict_lock(&x->lock);
	dup = exact_has(x, h, now);
	exact_push(x, h, now);
	ddf_dict_unlock(&x->lock);
	return dup;
}

static void exact_insert(struct ddf_filter *f, const struct ddf_hash *h,
			 uint64_t now)
{
	struct ddf_exact *x = to_exact(f);

	ddf_dict_lock(&x->lock);
	exact_push(x, h, now);
	ddf_dict_unlock(&x->lock);
}

/* Bytes of a filter of window w (0 if w is out of range). */
static uint64_t exact_bytes(uint64_t w, bool time_mode)
{
	if (!w || w > DDF_DICT_MAX_POS)
		return 0;
	return EXACT_HDR_BYTES + w * sizeof(struct ddf_hash) +
	       (time_mode ? w * sizeof(uint64_t) : 0) +
	       ddf_dict_slots(w) * sizeof(uint64_t);
}

static int exact_resolve(struct ddf_params *p, const char **why)
{
	uint64_t bytes;

	if (p->k || p->l || p->m || p->block_bits || p->block_hashes ||
	    p->fp_bits || p->cell_bits || p->decrements || p->inner_kind ||
	    p->subfilters) {
		*why = "the exact filter takes a window only, no other size or shape";
		return DDF_EINVAL;
	}
	if (!p->window) {
		*why = "the exact filter needs a window: insertions to compare with";
		return DDF_EINVAL;
	}
	if (p->window > DDF_DICT_MAX_POS) {
		*why = "exact window above 2^32 - 1: the dictionary holds 32-bit positions";
		return DDF_EFBIG;
	}
	bytes = exact_bytes(p->window, p->flags & DDF_PF_TIME);
	if (bytes > DDF_MAX_BYTES) {
		*why = "the exact filter would exceed the memory limit";
		return DDF_EFBIG;
	}
	return 0;
}

static uint64_t exact_memsize(const struct ddf_params *p)
{
	uint64_t bytes = exact_bytes(p->window, p->flags & DDF_PF_TIME);

	return bytes <= DDF_MAX_BYTES ? bytes : 0;
}

static struct ddf_filter *exact_init(void *mem, const struct ddf_params *p,
				     uint64_t now)
{
	struct ddf_exact *x = mem;
	char *next = (char *)mem + EXACT_HDR_BYTES;
	uint64_t w = p->window;
	bool time_mode = p->flags & DDF_PF_TIME;

	/*
	 * All of it zeroed, as every kind does (the dictionary by
	 * ddf_dict_init()): callers hand over memory they did not clear.
	 */
	memset(x, 0, EXACT_HDR_BYTES + w * sizeof(struct ddf_hash) +
			     (time_mode ? w * sizeof(uint64_t) : 0));
	x->w = w;
	x->ring = (struct ddf_hash *)next;
	next += w * sizeof(struct ddf_hash);
	if (time_mode) {
		x->window_ns = p->window_ns;
		x->ts = (uint64_t *)next;
		next += w * sizeof(uint64_t);
	}
	ddf_dict_init(&x->dict, (uint64_t *)next, ddf_dict_slots(w));
	return &x->hdr;
}

static void exact_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	const struct ddf_exact *x = to_exact(f);
	uint64_t n = ddf_aword_read(&x->inserts);

	if (x->ts)
		st->window_ns = x->window_ns;
	else
		st->window = x->w;
	st->inserts = n;
	st->slots = x->dict.mask + 1;
	st->used = ddf_aword_read(&x->keys);
	st->fill_ppm = (uint32_t)ddf_div64((n < x->w ? n : x->w) * 1000000,
					   x->w);
}

const struct ddf_filter_type ddf_exact_type = {
	.name = "exact",
	.kind = DDF_KIND_EXACT,
	.resolve = exact_resolve,
	.memsize = exact_memsize,
	.init = exact_init,
	.lookup = exact_lookup,
	.insert = exact_insert,
	.test_and_insert = exact_test_and_insert,
	.advance = NULL,
	.stats = exact_stats,
};
