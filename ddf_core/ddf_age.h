/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Generations for age-partitioned filters (APBF, APBBF): a circular buffer
 * of k + l segments plus one spare, and the shifts between generations.
 *
 * Logical segment i (0 = newest) of generation G lives in physical segment
 * (i - G) mod nseg, so one published word (G and that base index) describes
 * the whole mapping and a shift is "G + 1, base - 1". An element always
 * writes the segments of its own generation (its ticket in count mode, its
 * timestamp in time mode), so a CPU that races with a shift still stores
 * the element where it belongs. A ticket so late that its generation has
 * left the window writes nothing (count mode); a timestamp older than the
 * window as the newest caller sees it (time mode: timestamps of different
 * CPUs lag each other) is written into the oldest live segments, so it
 * stays findable for one more generation. A writer stalled between the
 * check and its writes may leave stray bits in a recycled segment: false
 * positives, never false negatives.
 *
 * Time windows are guaranteed against the newest timestamp any caller has
 * passed: a key inserted with timestamp t is found by lookups up to
 * t + window as long as no caller's clock runs more than one generation
 * (window / l) ahead of the inserting caller's.
 *
 * Count windows and CPUs. An insert takes a ticket; ticket t belongs to
 * generation t / g. With params.cpus = C > 1 and generations large enough,
 * each CPU with a slot (its id from ddf_env_slot() below the slot table)
 * reserves B tickets at once with one atomic add and spends them one per
 * insert, so the shared counter is written once per B inserts; a slot's
 * clearing share of the spare is done at the same time. Other CPUs take
 * single tickets. An insert takes its ticket, then reads the generation:
 * a ticket whose generation has already been shifted out of segment 0
 * (another CPU ran ahead) is written into the current generation, so an
 * element is always as young as its ticket or younger.
 *
 * The order of a window. An insert is placed, and a lookup sees the
 * filter, by one read of the published generation: the read in
 * ddf_age_begin_insert(), or, for an insert that shifts, its read under
 * the busy bit. "The last N inserts" counts inserts in the order of those
 * reads. A copy looked up after its original was placed is missed only
 * if a shift to the original's generation + l + 1 was published before
 * the copy's read, which takes a ticket l * g + 1 past the original's
 * generation; of the tickets in between, those not spent by inserts read
 * between the two are at most:
 *  - 1 spent by an insert holding the busy bit across the original's read;
 *  - C - 1 taken by other CPUs that had not read yet when the copy did
 *    (however long a CPU stalls there: an interrupt, a preempted vCPU);
 *  - B - 1 per slot, reserved and not yet spent.
 * The slack S = slots * (B - 1) + 2 * (C - 1) covers them (C > 1; S = 0
 * with one CPU, when no other insert can be under way). C - 2 of it is
 * spare for that order, and makes the window hold in the order of the
 * first reads too: there, up to C - 1 other inserts can read before the
 * original and shift after it, unless the copy is itself the insert that
 * shifts and others shift past it while it waits for the busy bit. So:
 *  - a key is found for at least l * g - S later inserts, the window;
 *  - a generation holds at most g + S elements (its own tickets, and the
 *    older ones under way or held in slots when it began), its capacity.
 * Sizing picks g and the segments for both (ddf_age_window()), so the
 * window reported is guaranteed and the analytic false-positive rate holds
 * at full capacity. B is at most 64 and at most cap / (64 C), so the
 * slots' part costs at most 1/64 of the memory, the rest 2 (C - 1)
 * elements a generation. C must count every CPU that can insert at once:
 * the kernel uses all its CPUs. Time windows shift by the clock: batching
 * there only groups the clearing work, and the window is unchanged.
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
/* the published word: G << DDF_AGE_BASE_BITS | base, nseg <= 321 */
#define DDF_AGE_BASE_BITS 9
#define DDF_AGE_BASE_MASK ((1u << DDF_AGE_BASE_BITS) - 1)
#define DDF_AGE_MAX_GEN ((1ull << (64 - DDF_AGE_BASE_BITS)) - 1)
#define DDF_AGE_MAX_BATCH 64

/*
 * Pause points for the interleaving tests (tests/core), compiled into test
 * builds only: between taking a ticket and reading the generation, after
 * that read, and after a shifting insert's read under the busy bit.
 */
enum { DDF_AGE_AT_TICKET, DDF_AGE_AT_READ, DDF_AGE_AT_LOCKED_READ };
struct ddf_age;
#ifdef DDF_AGE_PAUSE_POINTS
void ddf_age_pause(const struct ddf_age *a, int where);
#else
static inline void ddf_age_pause(const struct ddf_age *a, int where)
{
}
#endif

/* One CPU's tickets [next, end) and inserts since its last clearing share. */
struct ddf_age_slot {
	ddf_aword next, end, pend;
} DDF_CACHE_ALIGNED;

struct ddf_age {
	uint32_t k, l, nseg; /* nseg = k + l + 1 */
	uint32_t time_mode;
	uint64_t seg_bits; /* bits in use per segment */
	uint64_t seg_words; /* 64-bit words per segment, multiple of 8 */
	uint64_t g; /* elements per generation (expected, in time mode) */
	uint64_t gen_ns; /* time mode: length of a generation */
	uint64_t t0; /* time mode: start of generation 0 */
	uint64_t chunk; /* spare words cleared per insert */
	uint32_t nslots; /* CPUs with a slot (0: no batching) */
	uint32_t batch; /* B, tickets a slot reserves at once */
	uint64_t slack; /* S (count mode), see top */
	ddf_aword *words; /* nseg * seg_words */
	struct ddf_age_slot *slots; /* nslots, after the words */
	/* hot words, each on its own cache line */
	DDF_CACHE_ALIGNED ddf_aword gen; /* G << BASE_BITS | base(G) */
	DDF_CACHE_ALIGNED ddf_aword count; /* count mode: insertion tickets */
	DDF_CACHE_ALIGNED ddf_aword clear; /* BUSY | spare words cleared */
};

/* A generation and the physical index of its logical segment 0. */
struct ddf_age_at {
	uint64_t G;
	uint32_t base;
};

/* Words per segment for seg_bits bits: whole cache lines. */
static inline uint64_t ddf_age_seg_words(uint64_t seg_bits)
{
	return ddf_align_up((seg_bits + 63) / 64, 8);
}

/* B for a generation capacity cap: 1 (no batching) unless cpus > 1. */
static inline uint32_t ddf_age_batch(const struct ddf_params *p, uint64_t cap)
{
	uint64_t b;

	if (p->cpus <= 1)
		return 1;
	b = ddf_div64(cap, 64ull * p->cpus);
	if (b > DDF_AGE_MAX_BATCH)
		b = DDF_AGE_MAX_BATCH;
	return b ? (uint32_t)b : 1;
}

/* Slots a filter of capacity cap carries (0: every CPU shares tickets). */
static inline uint32_t ddf_age_nslots(const struct ddf_params *p,
				      uint64_t cap)
{
	if (ddf_age_batch(p, cap) <= 1)
		return 0;
	return p->cpus < DDF_MAX_SLOTS ? p->cpus : DDF_MAX_SLOTS;
}

static inline uint64_t ddf_age_slot_bytes(const struct ddf_params *p,
					  uint64_t cap)
{
	return (uint64_t)ddf_age_nslots(p, cap) * sizeof(struct ddf_age_slot);
}

/* S: tickets slots hold unspent, and inserts under way (see top). */
static inline uint64_t ddf_age_slack(const struct ddf_params *p, uint64_t cap)
{
	if ((p->flags & DDF_PF_TIME) || p->cpus <= 1)
		return 0;
	return (uint64_t)ddf_age_nslots(p, cap) * (ddf_age_batch(p, cap) - 1) +
	       2ull * (p->cpus - 1);
}

/*
 * The count window guaranteed by a generation capacity cap: generations
 * of g = cap - S tickets, l of them, less S (see top). 0 when S leaves
 * no room.
 */
static inline uint64_t ddf_age_window_of(uint64_t g, uint32_t l, uint64_t s)
{
	return g * l > s ? g * l - s : 0;
}

static inline uint64_t ddf_age_window(const struct ddf_params *p, uint64_t cap)
{
	uint64_t s = ddf_age_slack(p, cap);

	return cap > s ? ddf_age_window_of(cap - s, p->l, s) : 0;
}

static inline struct ddf_age_at ddf_age_load(const struct ddf_age *a)
{
	uint64_t w = ddf_aword_read_acquire(&a->gen);
	struct ddf_age_at at = { w >> DDF_AGE_BASE_BITS,
				 (uint32_t)(w & DDF_AGE_BASE_MASK) };

	return at;
}

static inline void ddf_age_publish(struct ddf_age *a, struct ddf_age_at at)
{
	ddf_aword_set_release(&a->gen,
			      at.G << DDF_AGE_BASE_BITS | (uint64_t)at.base);
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

/*
 * Generation of position x (a ticket, or ns since t0) for generations of
 * `len`; nearly always G itself, which a multiply tells without dividing.
 */
static inline uint64_t ddf_age_gen_of(uint64_t x, uint64_t len, uint64_t G)
{
	uint64_t lo = G * len;

	if (DDF_LIKELY(x >= lo && x - lo < len))
		return G;
	return ddf_div64(x, len);
}

/* The generation time `now` falls in (time mode). */
static inline uint64_t ddf_age_time_gen(const struct ddf_age *a, uint64_t now,
					uint64_t G)
{
	uint64_t gn = ddf_age_gen_of(now > a->t0 ? now - a->t0 : 0, a->gen_ns,
				     G);

	/* the published word holds 55 bits of generation: decades at 40 ns */
	return gn < DDF_AGE_MAX_GEN ? gn : DDF_AGE_MAX_GEN;
}

/* cap: a generation's capacity; the slots follow the nseg segments. */
static inline void ddf_age_init(struct ddf_age *a, const struct ddf_params *p,
				uint64_t cap, uint64_t seg_bits,
				ddf_aword *words, uint64_t now)
{
	uint64_t seg_words = ddf_age_seg_words(seg_bits);
	uint64_t s = ddf_age_slack(p, cap);
	uint64_t g = cap > s ? cap - s : 1;
	uint64_t per_insert;

	memset(a, 0, sizeof(*a));
	a->k = p->k;
	a->l = p->l;
	a->nseg = p->k + p->l + 1;
	a->time_mode = !!(p->flags & DDF_PF_TIME);
	a->seg_bits = seg_bits;
	a->seg_words = seg_words;
	a->g = g;
	a->slack = s;
	a->words = words;
	a->nslots = ddf_age_nslots(p, cap);
	a->batch = a->nslots ? ddf_age_batch(p, cap) : 1;
	a->slots = (struct ddf_age_slot *)(words + a->nseg * seg_words);
	/*
	 * Finish the spare within the first quarter of a generation (time
	 * mode: the rate is only an estimate), a cache line at least, so that
	 * most inserts find it clean and skip the busy bit altogether.
	 */
	per_insert = ddf_div64(4 * seg_words + a->g - 1, a->g);
	if (a->time_mode)
		a->gen_ns = ddf_div64(p->window_ns + p->l - 1, p->l);
	a->t0 = now;
	a->chunk = per_insert > 8 ? per_insert : 8;
	/* a fresh filter's spare is already clean */
	ddf_aword_set(&a->clear, seg_words);
}

static inline void ddf_age_zero(ddf_aword *w, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i++)
		ddf_aword_set(&w[i], 0);
}

/*
 * Where word j of physical segment phys is, from ddf_age_seg(a, phys), and
 * zeroing words [from, to) of it: one array per segment. A layout that
 * places the segments otherwise (the interleaved experiment of
 * ddf_apbbf_il.c, userspace only) defines both before including this
 * file; the clearing cursor still counts a segment's words.
 */
#ifndef DDF_AGE_SEG_OFF
static inline uint64_t ddf_age_seg_off(const struct ddf_age *a,
				       uint32_t phys, uint64_t j)
{
	return j;
}

static inline void ddf_age_zero_seg(const struct ddf_age *a, uint32_t phys,
				    uint64_t from, uint64_t to)
{
	ddf_age_zero(ddf_age_seg(a, phys), from, to);
}

#define DDF_AGE_SEG_OFF ddf_age_seg_off
#define DDF_AGE_ZERO_SEG ddf_age_zero_seg
#endif

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

/* Make the published generation at least target; returns it. */
static inline struct ddf_age_at ddf_age_sync(struct ddf_age *a,
					     uint64_t target)
{
	uint64_t cur = ddf_age_lock(a);
	struct ddf_age_at at = ddf_age_load(a);

	ddf_age_pause(a, DDF_AGE_AT_LOCKED_READ);
	if (target > at.G && target - at.G >= a->nseg) {
		/* everything expired: one pass over the filter */
		uint32_t r = (uint32_t)ddf_mod64(target, a->nseg);

		ddf_age_zero(a->words, 0, (uint64_t)a->nseg * a->seg_words);
		at.G = target;
		at.base = r ? a->nseg - r : 0;
		ddf_age_publish(a, at);
		cur = a->seg_words;
	}
	while (at.G < target) {
		uint32_t sp = ddf_age_phys(a, at.base, a->k + a->l);

		DDF_AGE_ZERO_SEG(a, sp, cur, a->seg_words);
		/* the spare becomes segment 0; the oldest becomes the spare */
		at.G++;
		at.base = sp;
		ddf_age_publish(a, at);
		cur = 0;
	}
	ddf_aword_set_release(&a->clear, cur);
	return at;
}

/* Clear n inserts' chunks of the spare, if nobody else is doing it. */
static inline void ddf_age_clear_some(struct ddf_age *a, uint64_t n)
{
	uint64_t c = ddf_aword_read(&a->clear);
	uint64_t end;
	uint32_t sp;

	if (DDF_LIKELY(c >= a->seg_words)) /* clean, or busy (bit 63) */
		return;
	if (!ddf_aword_try_cmpxchg(&a->clear, &c, c | DDF_AGE_BUSY))
		return;
	/* the generation cannot move while we hold the busy bit */
	sp = ddf_age_phys(a, ddf_age_load(a).base, a->k + a->l);
	end = c + a->chunk * n;
	if (end > a->seg_words)
		end = a->seg_words;
	DDF_AGE_ZERO_SEG(a, sp, c, end);
	ddf_aword_set_release(&a->clear, end);
}

/*
 * A ticket (count mode), and in *n the inserts whose share of the spare's
 * clearing the caller does next (both modes): from the caller's slot, one
 * shared write per batch, else one per insert. Only the slot's CPU writes
 * its slot; stats read it.
 */
static inline uint64_t ddf_age_take(struct ddf_age *a, uint64_t *n)
{
	uint32_t id = ddf_env_slot();
	struct ddf_age_slot *s;
	uint64_t t;

	*n = 1;
	if (id >= a->nslots)
		return a->time_mode ? 0 : ddf_aword_fetch_add(&a->count, 1);
	s = &a->slots[id];
	if (a->time_mode) {
		t = ddf_aword_read(&s->pend) + 1;
		if (t == a->batch)
			t = 0;
		ddf_aword_set(&s->pend, t);
		*n = t ? 0 : a->batch;
		return 0;
	}
	t = ddf_aword_read(&s->next);
	*n = 0;
	if (DDF_UNLIKELY(t == ddf_aword_read(&s->end))) {
		t = ddf_aword_fetch_add(&a->count, a->batch);
		ddf_aword_set(&s->end, t + a->batch);
		*n = a->batch;
	}
	ddf_aword_set(&s->next, t + 1);
	return t;
}

/*
 * An insert's prologue: shift and clear as needed, then give the segments
 * the element goes to (*ins) and the current view (*cur). Count mode: the
 * ticket's generation, or the current one if that has moved on (see top).
 * Time mode: the timestamp's generation; a lagging one goes to the oldest
 * live segments instead.
 */
static DDF_ALWAYS_INLINE void
ddf_age_begin_insert(struct ddf_age *a, uint64_t now, struct ddf_age_at *ins,
		     struct ddf_age_at *cur)
{
	/* the ticket first: a shift published before it is seen below */
	uint64_t n, t = ddf_age_take(a, &n);
	struct ddf_age_at at;
	uint64_t gn, d;

	ddf_age_pause(a, DDF_AGE_AT_TICKET);
	at = ddf_age_load(a);
	ddf_age_pause(a, DDF_AGE_AT_READ);
	if (a->time_mode)
		gn = ddf_age_time_gen(a, now, at.G);
	else
		gn = ddf_age_gen_of(t, a->g, at.G);
	if (DDF_UNLIKELY(gn > at.G))
		at = ddf_age_sync(a, gn);
	if (n)
		ddf_age_clear_some(a, n);
	*cur = at;
	d = gn < at.G ? at.G - gn : 0;
	if (!a->time_mode)
		d = 0;
	else if (DDF_UNLIKELY(d > a->l))
		d = a->l;
	ins->G = at.G - d;
	ins->base = ddf_age_phys(a, at.base, (uint32_t)d);
}

/* The view of a lookup at now: the current generation, d ahead of it. */
static inline struct ddf_age_at ddf_age_lookup_at(const struct ddf_age *a,
						  uint64_t now, uint64_t *d)
{
	struct ddf_age_at at = ddf_age_load(a);
	uint64_t v = a->time_mode ? ddf_age_time_gen(a, now, at.G) : at.G;

	*d = v > at.G ? v - at.G : 0;
	return at;
}

/* Time mode: perform the shifts due at now (e.g. from a timer). */
static inline void ddf_age_advance(struct ddf_age *a, uint64_t now)
{
	struct ddf_age_at at = ddf_age_load(a);

	if (a->time_mode) {
		uint64_t v = ddf_age_time_gen(a, now, at.G);

		if (v > at.G)
			ddf_age_sync(a, v);
	}
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
	uint32_t ph = ddf_age_phys(a, ddf_age_load(a).base, i);
	const ddf_aword *w = ddf_age_seg(a, ph);
	uint64_t set = 0;

	for (uint64_t j = 0; j < a->seg_words; j++)
		set += ddf_popcount64(ddf_aword_read(&w[DDF_AGE_SEG_OFF(a, ph,
									 j)]));
	return set;
}

/* Stats common to APBF and APBBF; fill is that of logical segment k-1. */
static inline void ddf_age_stats(const struct ddf_age *a, struct ddf_stats *st)
{
	uint64_t set = ddf_age_segment_bits(a, a->k - 1);

	st->generation = ddf_age_load(a).G;
	st->gen_size = a->g;
	if (a->time_mode) {
		st->window_ns = a->gen_ns * a->l;
	} else {
		uint64_t held = 0;

		/* tickets reserved by slots and not spent are no inserts */
		for (uint32_t i = 0; i < a->nslots; i++) {
			uint64_t e = ddf_aword_read(&a->slots[i].end);
			uint64_t n = ddf_aword_read(&a->slots[i].next);

			held += e > n ? e - n : 0; /* n > e: a batch meanwhile */
		}
		st->window = ddf_age_window_of(a->g, a->l, a->slack);
		st->inserts = ddf_aword_read(&a->count) - held;
	}
	st->fill_ppm = (uint32_t)ddf_div64(set * 1000000ull, a->seg_bits);
}

/*
 * The paper's Algorithm 1 (section 5.4): look for k consecutive matching
 * segments among logical 0 .. k+l-1, starting at l and jumping k back on a
 * miss. d > 0 views the filter d generations later than `at` without
 * shifting it: logical segments below d are then empty. match() gets the
 * logical index in `at` and the physical segment; always inlined, so that
 * a constant match() inlines into the loop.
 */
static DDF_ALWAYS_INLINE bool ddf_age_query(const struct ddf_age *a,
				 struct ddf_age_at at, uint64_t d,
				 const void *ctx,
				 bool (*match)(const void *ctx, uint32_t i,
					       uint32_t phys))
{
	int i = (int)a->l;
	uint32_t p = 0, c = 0;

	if (d >= (uint64_t)a->k + a->l)
		return false;
	while (i >= 0) {
		if ((uint64_t)i >= d &&
		    match(ctx, (uint32_t)(i - d),
			  ddf_age_phys(a, at.base, (uint32_t)(i - d)))) {
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

#endif /* DDF_AGE_H */
