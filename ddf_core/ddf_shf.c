// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Short Hash Filter (SHF, Algorithm 1) and Compact Short Hash Filter
 * (CSHF), from "Approaching Optimal Duplicate Detection in a Sliding
 * Window" (Geraud-Stewart, Lombard-Platet, Naccache), section 3.2.
 *
 * Both keep a FIFO ring of the short hashes of the last w insertions: the
 * low h bits (params.fp_bits) of h2, packed h bits apart. SHF adds the
 * counted dictionary of those short hashes (ddf_dict.h), so lookup and
 * insertion take constant time; CSHF has the ring only and scans it.
 * Every insertion enters the ring, duplicate or not (as in the exact
 * filter, ddf_exact.c), and the answer is DUPLICATE iff an equal short
 * hash is among the previous w insertions: no false negatives, and a
 * false positive when an unseen key's short hash meets one of w others,
 * 1 - (1 - 2^-h)^w (Theorem 3 with the paper's h = M/(2w) - log2(w)/2
 * for SHF and h = M/w for CSHF; ddf_shf_bits() derives h from M).
 * With equal w and h, SHF and CSHF give the same answers.
 *
 * Time mode (SHF only): as the exact filter's, an equal short hash must
 * also have been inserted at most window_ns before now; the dictionary
 * points at the newest occurrence, whose timestamp decides. CSHF refuses
 * it: a timestamp per entry would multiply its memory, which is its point.
 *
 * Concurrency: a FIFO step spans the ring and dictionary slots, so steps
 * and lookups serialise on a busy bit (ddf_dict_lock). SHF holds it for
 * O(1) work in expectation; CSHF for one scan of its ring, which is why
 * resolve caps its window at CSHF_MAX_WINDOW.
 */
#include "ddf_dict.h"

/*
 * A scan costs about 1 ns per entry, under the busy bit and, in the
 * kernel, with bottom halves off: 2^16 entries keep it near 60 us. (The
 * paper's CSHF w_max is about 60000 at M = 10^6 bits.)
 */
#define CSHF_MAX_WINDOW (1ull << 16)

struct ddf_shf {
	struct ddf_filter hdr;
	uint64_t w;
	uint64_t window_ns; /* SHF time mode; 0 in count mode */
	uint64_t mask; /* the low h bits */
	uint32_t h;
	uint32_t compact; /* CSHF: no dictionary */
	uint64_t *ring; /* w entries of h bits */
	uint64_t *ts; /* time mode: insertion time of each ring entry */
	struct ddf_dict dict; /* SHF only */
	/* written under the busy bit only */
	DDF_CACHE_ALIGNED ddf_aword lock;
	uint64_t head; /* next ring position */
	ddf_aword inserts; /* read by stats without the lock */
	ddf_aword keys; /* SHF: distinct short hashes in the window */
};

#define SHF_HDR_BYTES ddf_align_up(sizeof(struct ddf_shf), DDF_CACHELINE)

static inline struct ddf_shf *to_shf(const struct ddf_filter *f)
{
	return (struct ddf_shf *)f;
}

static inline uint64_t shf_short(const struct ddf_shf *s,
				 const struct ddf_hash *h)
{
	return h->h2 & s->mask;
}

/* Ring entry i: bits [i h, (i + 1) h), possibly across two words. */
static inline uint64_t shf_get(const struct ddf_shf *s, uint64_t i)
{
	uint64_t bit = i * s->h;
	const uint64_t *r = s->ring + (bit >> 6);
	uint32_t o = bit & 63;
	uint64_t v = r[0] >> o;

	if (o + s->h > 64)
		v |= r[1] << (64 - o);
	return v & s->mask;
}

static inline void shf_set(struct ddf_shf *s, uint64_t i, uint64_t v)
{
	uint64_t bit = i * s->h;
	uint64_t *r = s->ring + (bit >> 6);
	uint32_t o = bit & 63;

	r[0] = (r[0] & ~(s->mask << o)) | (v << o);
	if (o + s->h > 64)
		r[1] = (r[1] & ~(s->mask >> (64 - o))) | (v >> (64 - o));
}

static uint64_t shf_hash_of(uint64_t v)
{
	return ddf_fmix64(v); /* spreads short hashes over the whole table */
}

static uint64_t shf_hash_at(const void *ctx, uint32_t pos)
{
	return shf_hash_of(shf_get(ctx, pos));
}

static bool shf_eq(const void *ctx, uint32_t pos, const void *key)
{
	return shf_get(ctx, pos) == *(const uint64_t *)key;
}

/* CSHF: a scan of the filled part of the ring. */
static bool cshf_has(const struct ddf_shf *s, uint64_t v)
{
	uint64_t n = ddf_aword_read(&s->inserts), i;

	if (n > s->w)
		n = s->w;
	for (i = 0; i < n; i++)
		if (shf_get(s, i) == v)
			return true;
	return false;
}

/* Under the lock: is short hash v among the last w insertions? */
static bool shf_has(const struct ddf_shf *s, uint64_t v, uint64_t now)
{
	const uint64_t *d;
	uint64_t t;

	if (s->compact)
		return cshf_has(s, v);
	d = ddf_dict_find(&s->dict, shf_hash_of(v), s, shf_eq, &v);
	if (!d)
		return false;
	if (!s->ts)
		return true;
	/* a CPU with a slightly older clock may see t > now: recent */
	t = s->ts[ddf_dict_pos(*d)];
	return now <= t || now - t <= s->window_ns;
}

/* Under the lock: one FIFO step (Algorithm 1, INSERT). */
static void shf_push(struct ddf_shf *s, uint64_t v, uint64_t now)
{
	uint64_t pos = s->head, n = ddf_aword_read(&s->inserts);

	if (!s->compact) {
		uint64_t keys = ddf_aword_read(&s->keys);

		if (n >= s->w) {
			uint64_t old = shf_get(s, pos);

			keys -= ddf_dict_drop(&s->dict, shf_hash_of(old), s,
					      shf_eq, shf_hash_at, &old);
		}
		if (!ddf_dict_find(&s->dict, shf_hash_of(v), s, shf_eq, &v))
			keys++;
		shf_set(s, pos, v);
		ddf_dict_add(&s->dict, shf_hash_of(v), s, shf_eq, &v,
			     (uint32_t)pos);
		ddf_aword_set(&s->keys, keys);
	} else {
		shf_set(s, pos, v);
	}
	if (s->ts)
		s->ts[pos] = now;
	s->head = pos + 1 == s->w ? 0 : pos + 1;
	ddf_aword_set(&s->inserts, n + 1);
}

static bool shf_lookup(struct ddf_filter *f, const struct ddf_hash *h,
		       uint64_t now)
{
	struct ddf_shf *s = to_shf(f);
	bool dup;

	ddf_dict_lock(&s->lock);
	dup = shf_has(s, shf_short(s, h), now);
	ddf_dict_unlock(&s->lock);
	return dup;
}

static bool shf_test_and_insert(struct ddf_filter *f, const struct ddf_hash *h,
				uint64_t now)
{
	struct ddf_shf *s = to_shf(f);
	uint64_t v = shf_short(s, h);
	bool dup;

	ddf_dict_lock(&s->lock);
	dup = shf_has(s, v, now);
	shf_push(s, v, now);
	ddf_dict_unlock(&s->lock);
	return dup;
}

static void shf_insert(struct ddf_filter *f, const struct ddf_hash *h,
		       uint64_t now)
{
	struct ddf_shf *s = to_shf(f);

	ddf_dict_lock(&s->lock);
	shf_push(s, shf_short(s, h), now);
	ddf_dict_unlock(&s->lock);
}

static uint64_t shf_ring_words(uint64_t w, uint32_t h)
{
	return (w * h + 63) / 64;
}

/* Bytes of a filter (0 if w or h is out of range). */
static uint64_t shf_bytes(const struct ddf_params *p)
{
	bool compact = p->kind == DDF_KIND_CSHF;
	uint64_t w = p->window, bytes;

	if (!w || w > (compact ? CSHF_MAX_WINDOW : DDF_DICT_MAX_POS) ||
	    !p->fp_bits || p->fp_bits > 64)
		return 0;
	bytes = SHF_HDR_BYTES + shf_ring_words(w, p->fp_bits) * 8;
	if (!compact)
		bytes += ddf_dict_slots(w) * sizeof(uint64_t);
	if (p->flags & DDF_PF_TIME)
		bytes += w * sizeof(uint64_t);
	return bytes;
}

static int shf_resolve(struct ddf_params *p, const char **why)
{
	bool compact = p->kind == DDF_KIND_CSHF;

	if (p->k || p->l || p->m || p->block_bits || p->block_hashes ||
	    p->cell_bits || p->decrements || p->inner_kind || p->subfilters) {
		*why = "SHF takes a window and fp_bits only (ddf_shf_bits() maps M to h)";
		return DDF_EINVAL;
	}
	if (compact && (p->flags & DDF_PF_TIME)) {
		*why = "CSHF has no time mode: timestamps would multiply its memory";
		return DDF_EINVAL;
	}
	if (!p->window) {
		*why = "SHF needs a window: how many insertions to compare with";
		return DDF_EINVAL;
	}
	if (!p->fp_bits) {
		*why = "SHF needs fp_bits, the short hash size h: see ddf_shf_bits()";
		return DDF_EINVAL;
	}
	if (p->fp_bits > 64) {
		*why = "fp_bits is at most 64: short hashes come from the 64-bit h2";
		return DDF_ERANGE;
	}
	if (compact && p->window > CSHF_MAX_WINDOW) {
		*why = "CSHF scans its window under a lock: at most 65536, use SHF above";
		return DDF_ERANGE;
	}
	if (p->window > DDF_DICT_MAX_POS) {
		*why = "SHF window above 2^32 - 1: the dictionary holds 32-bit positions";
		return DDF_EFBIG;
	}
	if (shf_bytes(p) > DDF_MAX_BYTES) {
		*why = "the SHF would exceed the memory limit";
		return DDF_EFBIG;
	}
	return 0;
}

static uint64_t shf_memsize(const struct ddf_params *p)
{
	uint64_t bytes = shf_bytes(p);

	return bytes <= DDF_MAX_BYTES ? bytes : 0;
}

static struct ddf_filter *shf_init(void *mem, const struct ddf_params *p,
				   uint64_t now)
{
	struct ddf_shf *s = mem;
	char *next = (char *)mem + SHF_HDR_BYTES;
	uint64_t w = p->window, words = shf_ring_words(w, p->fp_bits);
	bool time_mode = p->flags & DDF_PF_TIME;

	/*
	 * All of it zeroed, as every kind does (the dictionary by
	 * ddf_dict_init()): callers hand over memory they did not clear.
	 */
	memset(s, 0, SHF_HDR_BYTES + words * 8 +
			     (time_mode ? w * sizeof(uint64_t) : 0));
	s->w = w;
	s->h = p->fp_bits;
	s->mask = p->fp_bits >= 64 ? ~0ull : (1ull << p->fp_bits) - 1;
	s->compact = p->kind == DDF_KIND_CSHF;
	s->ring = (uint64_t *)next;
	next += words * 8;
	if (time_mode) {
		s->window_ns = p->window_ns;
		s->ts = (uint64_t *)next;
		next += w * sizeof(uint64_t);
	}
	if (!s->compact)
		ddf_dict_init(&s->dict, (uint64_t *)next, ddf_dict_slots(w));
	return &s->hdr;
}

static void shf_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	const struct ddf_shf *s = to_shf(f);
	uint64_t n = ddf_aword_read(&s->inserts);
	uint64_t filled = n < s->w ? n : s->w;

	if (s->ts)
		st->window_ns = s->window_ns;
	else
		st->window = s->w;
	st->inserts = n;
	if (s->compact) {
		st->slots = s->w;
		st->used = filled;
	} else {
		st->slots = s->dict.mask + 1;
		st->used = ddf_aword_read(&s->keys);
	}
	st->fill_ppm = (uint32_t)ddf_div64(filled * 1000000, s->w);
}

#define SHF_TYPE(ident, tname, tkind)                   \
	const struct ddf_filter_type ident = {          \
		.name = tname,                          \
		.kind = tkind,                          \
		.resolve = shf_resolve,                 \
		.memsize = shf_memsize,                 \
		.init = shf_init,                       \
		.lookup = shf_lookup,                   \
		.insert = shf_insert,                   \
		.test_and_insert = shf_test_and_insert, \
		.advance = NULL,                        \
		.stats = shf_stats,                     \
	}

SHF_TYPE(ddf_shf_type, "shf", DDF_KIND_SHF);
SHF_TYPE(ddf_cshf_type, "cshf", DDF_KIND_CSHF);
