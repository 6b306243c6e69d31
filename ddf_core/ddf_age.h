/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Generations for age-partitioned filters (APBF, APBBF): a circular buffer
 * of k + l segments plus one spare, and the shifts between generations.
 *
 * Logical segment i (0 = newest) of generation G lives in physical segment
 * (i - G) mod nseg, so one published counter G describes the whole mapping
 * and a shift is "G + 1". An element always writes the segments of its own
 * generation (its ticket in count mode, its timestamp in time mode), so a
 * CPU that races with a shift still stores the element where it belongs.
 *
 * A shift must not clear a whole segment at once. We keep one spare
 * segment (memory cost: 1/(k+l) of the filter): during generation G the
 * spare (logical k+l, the segment dropped by the last shift) is cleared a
 * chunk at a time by the inserts of G, so the next shift only renames it.
 * Clearing chunks and shifts serialise on a busy bit; a shift finishes any
 * part of the spare the inserts did not clear (time mode with less traffic
 * than expected, or contention). After an idle gap of n generations a
 * time-based filter performs min(n, nseg) shifts, or clears every segment
 * once when n >= nseg: the cost of a gap is bounded by the filter size and
 * can be taken off the packet path by calling advance() from a timer.
 */
#ifndef DDF_AGE_H
#define DDF_AGE_H

#include "ddf_filter.h"

#define DDF_AGE_BUSY (1ull << 63)

struct ddf_age {
	uint32_t k, l, nseg; /* nseg = k + l + 1 */
	uint32_t time_mode;
	uint64_t seg_bits; /* bits in use per segment */
	uint64_t seg_words; /* 64-bit words per segment, multiple of 8 */
	uint64_t g; /* elements per generation (expected, in time mode) */
	uint64_t gen_ns; /* time mode: length of a generation */
	uint64_t t0; /* time mode: start of generation 0 */
	uint64_t chunk; /* spare words cleared per insert */
	ddf_aword *words; /* nseg * seg_words */
	/* hot words, each on its own cache line */
	ddf_aword gen DDF_CACHE_ALIGNED; /* published generation */
	ddf_aword count DDF_CACHE_ALIGNED; /* count mode: insertion tickets */
	ddf_aword clear DDF_CACHE_ALIGNED; /* BUSY | spare words cleared */
};

/* Words per segment for seg_bits bits: whole cache lines. */
static inline uint64_t ddf_age_seg_words(uint64_t seg_bits)
{
	return ddf_align_up((seg_bits + 63) / 64, 8);
}






static inline uint64_t ddf_age_gen(const struct ddf_age *a)
{
	return ddf_aword_read_acquire(&a->gen);
}

/* Physical index of logical segment 0 in generation G. */
static inline uint32_t ddf_age_base(const struct ddf_age *a, uint64_t G)
{
	uint32_t r = (uint32_t)ddf_mod64(G, a->nseg);

	return r ? a->nseg - r : 0;
}

static inline uint32_t ddf_age_phys(const struct ddf_age *a, uint32_t base,
				    uint32_t i)
{
	uint32_t j = base + i;

	return j >= a->nseg ? j - a->nseg : j;
}

static inline ddf_aword *ddf_age_seg(const struct ddf_age *a, uint32_t phys)
{
	return a->words + (uint64_t)phys * a->seg_words;
}

static inline void ddf_age_init(struct ddf_age *a, const struct ddf_params *p, uint64_t g,
		  uint64_t seg_bits, ddf_aword *words, uint64_t now)
{
	uint64_t seg_words = ddf_age_seg_words(seg_bits);
	uint64_t per_insert;

	memset(a, 0, sizeof(*a));
	a->k = p->k;
	a->l = p->l;
	a->nseg = p->k + p->l + 1;
	a->time_mode = !!(p->flags & DDF_PF_TIME);
	a->seg_bits = seg_bits;
	a->seg_words = seg_words;
	a->g = g ? g : 1;
	a->words = words;
	/* enough per insert to finish the spare within one generation */
	per_insert = ddf_div64(seg_words + a->g - 1, a->g);
	if (a->time_mode) {
		/* the rate is only an estimate: clear twice as fast */
		per_insert *= 2;
		a->gen_ns = ddf_div64(p->window_ns + p->l - 1, p->l);
		a->t0 = now;
	}
	a->chunk = per_insert ? per_insert : 1;
	/* a fresh filter's spare is already clean */
	ddf_aword_set(&a->clear, seg_words);
}

static inline uint64_t ddf_age_view(const struct ddf_age *a, uint64_t now)
{
	if (!a->time_mode)
		return ddf_age_gen(a);
	if (now <= a->t0)
		return 0;
	return ddf_div64(now - a->t0, a->gen_ns);
}

static inline uint64_t ddf_age_ticket(struct ddf_age *a, uint64_t now)
{
	if (a->time_mode)
		return ddf_age_view(a, now);
	return ddf_div64(ddf_aword_fetch_add(&a->count, 1), a->g);
}

static inline void ddf_age_zero(ddf_aword *w, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i++)
		ddf_aword_set(&w[i], 0);
}

/* Spin for the busy bit; holders keep it for one bounded chunk. */
static inline uint64_t ddf_age_lock(struct ddf_age *a)
{
	uint64_t c = ddf_aword_read(&a->clear);

	for (;;) {
		if (!(c & DDF_AGE_BUSY) &&
		    ddf_aword_try_cmpxchg(&a->clear, &c, c | DDF_AGE_BUSY))
			return c;
		ddf_cpu_relax();
		c = ddf_aword_read(&a->clear);
	}
}

static inline uint64_t ddf_age_sync(struct ddf_age *a, uint64_t target)
{
	uint64_t cur = ddf_age_lock(a);
	uint64_t G = ddf_aword_read(&a->gen);

	if (target > G && target - G >= a->nseg) {
		/* everything expired: one pass over the filter */
		ddf_age_zero(a->words, 0, (uint64_t)a->nseg * a->seg_words);
		G = target;
		ddf_aword_set_release(&a->gen, G);
		cur = a->seg_words;
	}
	while (G < target) {
		uint32_t sp = ddf_age_phys(a, ddf_age_base(a, G), a->k + a->l);

		ddf_age_zero(ddf_age_seg(a, sp), cur, a->seg_words);
		/* the spare becomes segment 0; the oldest becomes the spare */
		G++;
		ddf_aword_set_release(&a->gen, G);
		cur = 0;
	}
	ddf_aword_set_release(&a->clear, cur);
	return G;
}

static inline void ddf_age_clear_some(struct ddf_age *a)
{
	uint64_t c = ddf_aword_read(&a->clear);
	uint64_t end;
	uint32_t sp;

	if (DDF_LIKELY(c & DDF_AGE_BUSY) || c >= a->seg_words)
		return;
	if (!ddf_aword_try_cmpxchg(&a->clear, &c, c | DDF_AGE_BUSY))
		return;
	/* the generation cannot move while we hold the busy bit */
	sp = ddf_age_phys(a, ddf_age_base(a, ddf_aword_read(&a->gen)),
			  a->k + a->l);
	end = c + a->chunk;
	if (end > a->seg_words)
		end = a->seg_words;
	ddf_age_zero(ddf_age_seg(a, sp), c, end);
	ddf_aword_set_release(&a->clear, end);
}

static inline uint32_t ddf_popcount64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

static inline uint64_t ddf_age_segment_bits(const struct ddf_age *a,
					    uint32_t i)
{
	uint32_t ph = ddf_age_phys(a, ddf_age_base(a, ddf_age_gen(a)), i);
	const ddf_aword *w = ddf_age_seg(a, ph);
	uint64_t set = 0;

	for (uint64_t j = 0; j < a->seg_words; j++)
		set += ddf_popcount64(ddf_aword_read(&w[j]));
	return set;
}

static inline void ddf_age_stats(const struct ddf_age *a, struct ddf_stats *st)
{
	uint64_t G = ddf_age_gen(a), set = ddf_age_segment_bits(a, a->k - 1);

	st->generation = G;
	st->gen_size = a->g;
	if (a->time_mode) {
		st->window_ns = a->gen_ns * a->l;
	} else {
		st->window = a->g * a->l;
		st->inserts = ddf_aword_read(&a->count);
	}
	st->fill_ppm = (uint32_t)ddf_div64(set * 1000000ull, a->seg_bits);
}

/* An insert's prologue: its generation, shifting and clearing as needed. */
static inline uint64_t ddf_age_begin_insert(struct ddf_age *a, uint64_t now)
{
	uint64_t gn = ddf_age_ticket(a, now);

	if (ddf_age_gen(a) < gn)
		ddf_age_sync(a, gn);
	ddf_age_clear_some(a);
	return gn;
}





/*
 * The paper's Algorithm 1 (section 5.4): look for k consecutive matching
 * segments among logical 0 .. k+l-1, starting at l and jumping k back on a
 * miss. d > 0 views the filter d generations later than G without shifting
 * it: logical segments below d are then empty. match() gets the logical
 * index in generation G and the physical segment.
 */
static inline bool ddf_age_query(const struct ddf_age *a, uint64_t G,
				 uint64_t d, const void *ctx,
				 bool (*match)(const void *ctx, uint32_t i,
					       uint32_t phys))
{
	uint32_t base = ddf_age_base(a, G);
	int i = (int)a->l;
	uint32_t p = 0, c = 0;

	if (d >= (uint64_t)a->k + a->l)
		return false;
	while (i >= 0) {
		if ((uint64_t)i >= d &&
		    match(ctx, (uint32_t)(i - d),
			  ddf_age_phys(a, base, (uint32_t)(i - d)))) {
			c++;
			i++;
			if (p + c == a->k)
				return true;
		} else {
			i -= (int)a->k;
			p = c;
			c = 0;
		}
	}
	return false;
}

/* Generation a lookup at now should use, and how far ahead it looks. */
static inline uint64_t ddf_age_lookup_gen(const struct ddf_age *a,
					  uint64_t now, uint64_t *d)
{
	uint64_t G = ddf_age_gen(a), v = ddf_age_view(a, now);

	*d = v > G ? v - G : 0;
	return G;
}
#endif /* DDF_AGE_H */
