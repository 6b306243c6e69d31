// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Age-Partitioned Blocked Bloom Filter (section 6): each of the k + l + 1
 * segments is a blocked Bloom filter of nb blocks of B bits; a block is a
 * partitioned Bloom filter of b parts of B/b bits. One 64-bit hash per
 * physical segment picks the block, its product with an odd constant the b
 * bits (multiply-shift, ddf_apbbf_pos(); 64/8: ddf_apbbf_mask64_8()), so
 * an insert touches k cache lines and a query 2-4 on average. Segment p's
 * hash is h1 + p * h2, plain double hashing (ddf_hash_dh()), as the paper
 * suggests (5.1): an add and a multiply where a 64-bit mix per segment
 * cost a dozen more instructions, with the measured rates of the reproduce
 * tables and of ddfbench accuracy unchanged.
 *
 * Generation size: the paper's Table 3 lists the capacity of an APBBF as
 * 1 - b/2B of the APBF with the same memory; that is the g for which a
 * block part of B/b bits reaches fill 1/2 exactly:
 *   g = floor(nb * ln2 / (k * -ln(1 - b/B)))
 * and with it the analytic rates (ddf_size_apbf.c) reproduce Table 3.
 */
#ifdef DDF_APBBF_INTERLEAVED
/* the registry's ddf_apbbf_test_and_insert() is the paper layout's */
#define ddf_apbbf_test_and_insert ddf_apbbf_il_test_and_insert
#include "ddf_filter.h"
/* the age code reaches a segment's words through the layout (below) */
struct ddf_age;
static DDF_ALWAYS_INLINE int64_t ddf_apbbf_il_off(const struct ddf_age *a,
						  uint32_t phys, uint64_t j);
static void ddf_apbbf_il_zero(const struct ddf_age *a, uint32_t phys,
			      uint64_t from, uint64_t to);
#define DDF_AGE_SEG_OFF ddf_apbbf_il_off
#define DDF_AGE_ZERO_SEG ddf_apbbf_il_zero
#endif
#include "ddf_age.h"
#include "ddf_apbf.h"
#include "ddf_hash.h"

#define DDF_APBBF_CACHE 32 /* logical segments whose hash a probe keeps */

struct ddf_apbbf {
	struct ddf_filter hdr;
	uint64_t nb; /* blocks per segment */
	uint32_t wpb; /* words per block */
	uint32_t b; /* bits per block per insert */
	uint32_t shape; /* 0: 64/4, 1: 64/8, 2: 512/4, 3: 512/8 */
	uint32_t fetched; /* bit i: a probe's prefetch caches segment i */
	struct ddf_age age;
};

/*
 * A probe's scratch state: for each logical segment the prefetch hashed,
 * the key's block and its ddf_apbbf_bits() word, so the query and the
 * insert that use them compute neither again. Only have is set up per
 * call: y[i] and seg[i] are read only after bit i of have is set, so the
 * arrays are never cleared (an initialiser, or the kernel's stack auto-
 * initialisation, would zero them on every packet: DDF_NOINIT). The
 * segments a prefetch caches depend on k and l only: it sets have to the
 * filter's mask.
 */
struct ddf_apbbf_probe {
	const struct ddf_apbbf *f;
	const struct ddf_hash *h;
	uint32_t base; /* the view's: logical i is ddf_age_phys(base, i) */
	uint32_t have; /* bit i: y[i] and seg[i] hold logical segment i's */
	uint64_t y[DDF_APBBF_CACHE];
	struct { /* a struct only so that checkpatch reads the pointer type */
		ddf_aword *blk;
	} seg[DDF_APBBF_CACHE];
};

static inline void ddf_apbbf_probe_init(struct ddf_apbbf_probe *pr,
					const struct ddf_apbbf *f,
					const struct ddf_hash *h, uint32_t base)
{
	pr->f = f;
	pr->h = h;
	pr->base = base;
	pr->have = 0;
}

static uint64_t ddf_apbbf_words(const struct ddf_params *p)
{
	return (uint64_t)(p->k + p->l + 1) *
	       ddf_age_seg_words(p->m * p->block_bits);
}

/* The segments, then the ticket slots (ddf_age.h). */
static uint64_t ddf_apbbf_bytes(const struct ddf_params *p,
				const struct ddf_apbbf_shape *s)
{
	return ddf_apbbf_words(p) * 8 +
	       ddf_age_slot_bytes(p, ddf_apbbf_gen(p->m, p->k, s));
}

static uint64_t ddf_apbbf_window(const struct ddf_params *p,
				 const struct ddf_apbbf_shape *s)
{
	uint64_t cap = ddf_apbbf_gen(p->m, p->k, s);

	return cap ? ddf_age_window(p, cap) : 0;
}

static int ddf_apbbf_resolve(struct ddf_params *p, const char **why)
{
	const struct ddf_apbbf_shape *s;

	if (p->k < 1 || p->k > DDF_MAX_K || p->l < 1 || p->l > DDF_MAX_L) {
		*why = "k must be 1..64 and l 1..256";
		return DDF_ERANGE;
	}
	if (p->fp_bits) {
		*why = "fingerprint size does not apply to apbbf";
		return DDF_EINVAL;
	}
	if (!p->block_bits && !p->block_hashes) {
		p->block_bits = 512;
		p->block_hashes = 8;
	}
	s = ddf_apbbf_shape(p->block_bits, p->block_hashes);
	if (!s) {
		*why = "apbbf block must be 64 or 512 bits with 4 or 8 bits set";
		return DDF_EINVAL;
	}
	if (!p->m) {
		uint64_t need, slack;

		if (!p->window) {
			*why = "give a window or the number of blocks m";
			return DDF_EINVAL;
		}
		need = ddf_div64(p->window + p->l - 1, p->l);
		/* the slack of batched tickets (ddf_age.h) grows with cap */
		slack = ddf_age_slack(p, need);
		need = ddf_div64(p->window + slack + p->l - 1, p->l) + slack;
		p->m = ddf_mul_shr32(need * p->k, s->inv_c_q32);
		if (!p->m)
			p->m = 1;
		while (p->m * p->block_bits <= DDF_APBBF_MAX_SEG_BITS &&
		       ddf_apbbf_window(p, s) < p->window)
			p->m++;
	}
	if (p->m > DDF_APBBF_MAX_SEG_BITS / p->block_bits) {
		*why = "apbbf segment larger than 2^36 bits";
		return DDF_ERANGE;
	}
	if (!ddf_apbbf_gen(p->m, p->k, s)) {
		*why = "apbbf segment too small for one element per generation";
		return DDF_ERANGE;
	}
	if (!(p->flags & DDF_PF_TIME) && !ddf_apbbf_window(p, s)) {
		*why = "apbbf too small for the inserts its CPUs can have under way";
		return DDF_ERANGE;
	}
	if (ddf_apbbf_bytes(p, s) > DDF_MAX_BYTES) {
		*why = "apbbf larger than the memory cap";
		return DDF_EFBIG;
	}
	p->window = ddf_apbbf_window(p, s);
	return 0;
}

static uint64_t ddf_apbbf_memsize(const struct ddf_params *p)
{
	return ddf_align_up(sizeof(struct ddf_apbbf), DDF_CACHELINE) +
	       ddf_apbbf_bytes(p, ddf_apbbf_shape(p->block_bits,
						   p->block_hashes));
}

/* The segments ddf_apbbf_prefetch() caches, as a mask of have. */
static uint32_t ddf_apbbf_fetched(uint32_t k, uint32_t l)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < DDF_APBBF_CACHE; i++)
		if (i < k || (i <= l && (l - i) % k == 0))
			m |= 1u << i;
	return m;
}

static struct ddf_filter *ddf_apbbf_init(void *mem,
					 const struct ddf_params *p,
					 uint64_t now)
{
	const struct ddf_apbbf_shape *s =
		ddf_apbbf_shape(p->block_bits, p->block_hashes);
	struct ddf_apbbf *f = mem;
	ddf_aword *words = (ddf_aword *)((char *)mem +
		ddf_align_up(sizeof(*f), DDF_CACHELINE));

	memset(mem, 0, ddf_apbbf_memsize(p));
	f->nb = p->m;
	f->wpb = p->block_bits / 64;
	f->b = p->block_hashes;
	f->shape = (p->block_bits == 512) * 2 + (p->block_hashes == 8);
	f->fetched = ddf_apbbf_fetched(p->k, p->l);
	ddf_age_init(&f->age, p, ddf_apbbf_gen(p->m, p->k, s),
		     p->m * p->block_bits, words, now);
	return &f->hdr;
}

#ifndef DDF_APBBF_INTERLEAVED
/* The key's block in segment phys; z: the segment's hash, h: the key's. */
static inline ddf_aword *ddf_apbbf_block(const struct ddf_apbbf *f,
					 const struct ddf_hash *h,
					 uint64_t z, uint32_t phys)
{
	return ddf_age_seg(&f->age, phys) + ddf_reduce(z, f->nb) * f->wpb;
}
#else
/*
 * The interleaved layout (an experiment, userspace only: ddf_apbbf_il.c).
 * The paper's layout keeps each segment an array of its own, so a new
 * key reads one cache line per segment it probes and writes (3 at k=2
 * l=3, 5 at k=4 l=7 with 64-bit blocks): one DRAM miss each once the
 * filter outgrows the caches. Here block j of every segment sits in
 * group j, the nseg blocks side by side (nseg * B bits, 48 bytes at
 * nseg = 6 and 64-bit blocks, 96 at nseg = 12), and a key picks one group
 * for all segments from h1 alone (its segment-0 hash: the block the
 * paper's layout gives it in physical segment 0), so a test-and-insert
 * touches the one or two adjacent lines of that group. Each segment
 * keeps its own hash z for the bits inside its block, so a key's bits
 * still differ from segment to segment; what the layout gives up is the
 * independence of the blocks' loads, since the keys that share a key's
 * group in one segment share it in all of them: the false-positive rate
 * rises above the analytic one (docs/tuning.md measures by how much).
 *
 * Groups are packed, not padded to whole lines, so that the memory is
 * the paper's layout's to the byte: word j of segment phys moves to
 * group j / wpb; the words a segment's size rounds up to a line
 * (seg_words - nb * wpb, never used by a key) go after the groups, so
 * the mapping is a permutation of the same array. The spare segment is
 * cleared through it a chunk of words per insert as before (ddf_age.h),
 * now one block per group, strided: the same words per insert, each
 * 64-bit block of a chunk in a line of its own.
 */
static inline ddf_aword *ddf_apbbf_block(const struct ddf_apbbf *f,
					 const struct ddf_hash *h,
					 uint64_t z, uint32_t phys)
{
	return f->age.words +
	       (ddf_reduce(h->h1, f->nb) * f->age.nseg + phys) * f->wpb;
}

static DDF_ALWAYS_INLINE uint64_t ddf_apbbf_il_word(const struct ddf_age *a,
						    uint32_t phys, uint64_t j)
{
	const struct ddf_apbbf *f = (const struct ddf_apbbf *)
		((const char *)a - __builtin_offsetof(struct ddf_apbbf, age));
	uint64_t used = f->nb * f->wpb, gw = (uint64_t)a->nseg * f->wpb;

	if (j < used)
		return (j / f->wpb) * gw + (uint64_t)phys * f->wpb +
		       j % f->wpb;
	return f->nb * gw + phys * (a->seg_words - used) + (j - used);
}

/* word j of segment phys from ddf_age_seg(a, phys), as ddf_age.h asks */
static DDF_ALWAYS_INLINE int64_t ddf_apbbf_il_off(const struct ddf_age *a,
						  uint32_t phys, uint64_t j)
{
	return (int64_t)ddf_apbbf_il_word(a, phys, j) -
	       (int64_t)(phys * a->seg_words);
}

/* one division per call, not per word: the chunk is an insert's share */
static void ddf_apbbf_il_zero(const struct ddf_age *a, uint32_t phys,
			      uint64_t from, uint64_t to)
{
	const struct ddf_apbbf *f = (const struct ddf_apbbf *)
		((const char *)a - __builtin_offsetof(struct ddf_apbbf, age));
	uint64_t used = f->nb * f->wpb, gw = (uint64_t)a->nseg * f->wpb;
	uint64_t j = from, end = to < used ? to : used;

	if (j < end) {
		uint64_t blk = j / f->wpb, o = j % f->wpb;
		ddf_aword *w = a->words + blk * gw + (uint64_t)phys * f->wpb;

		for (; j < end; j++) {
			ddf_aword_set(&w[o], 0);
			if (++o == f->wpb) {
				o = 0;
				w += gw;
			}
		}
	}
	for (; j < to; j++)
		ddf_aword_set(&a->words[ddf_apbbf_il_word(a, phys, j)], 0);
}
#endif

/*
 * The b bit positions of a key in its block, by multiply-shift: y is the
 * segment hash z times an odd constant, and part i of B/b bits takes the
 * i-th log2(B/b)-bit field from the top of y. The block index is z's top
 * bits (ddf_reduce()); y's top bits mix in all of z's lower bits through
 * the product's carries, so they do not track the block. One multiply per
 * segment where a second 64-bit mix cost a dozen instructions. B and b
 * are constants in every caller below, and the loops over the b bits
 * carry an unroll pragma (GCC keeps them loops at -O2, with a variable
 * shift per bit): straight shifts and masks.
 */
static DDF_ALWAYS_INLINE uint32_t ddf_apbbf_pos(uint64_t y, uint32_t i,
						uint32_t B, uint32_t b)
{
	uint32_t part = B / b, shift = part == 8 ? 3 : part == 16 ? 4 :
				       part == 64 ? 6 : 7;

	return i * part + (uint32_t)(y >> (64 - (i + 1) * shift)) % part;
}

/*
 * A 64-bit block with 8 bits set, the shape tune speed picks, takes its
 * positions another way than ddf_apbbf_pos(), without a shift per bit:
 * part i is byte i, and its bit is v = the bits 7, 6, 5 of y's byte i
 * (v's bits 0, 1, 2). Each of v's bits, spread over its byte, selects one
 * half of the byte's positions (0x55 or 0xaa, 0x33 or 0xcc, 0x0f or 0xf0):
 * the three halves meet in bit v alone. Fifteen operations for all eight
 * parts, where the shifts took about thirty; the apbbf_measured_fp check
 * (check-core) and ddfbench accuracy measure the same rates as before.
 * A byte's top bits, not its low ones: y's low byte depends on z's low
 * byte alone, its top three bits on all eight, and the block index on
 * z's top bits, so the positions stay independent of the block.
 */
static DDF_ALWAYS_INLINE uint64_t ddf_apbbf_mask64_8(uint64_t y)
{
	const uint64_t one = 0x0101010101010101ull;
	uint64_t a = (y >> 7 & one) * 0xff, b = (y >> 6 & one) * 0xff,
		 c = (y >> 5 & one) * 0xff;

	return (0x5555555555555555ull ^ a) & (0x3333333333333333ull ^ b) &
	       (0x0f0f0f0f0f0f0f0full ^ c);
}

/*
 * The word ddf_apbbf_op() takes for a key in a segment, from the
 * segment's hash z: the bits hash, or for 64/8 already the mask, so that
 * a probe's prefetch computes it once for the query and the insert.
 */
static DDF_ALWAYS_INLINE uint64_t ddf_apbbf_bits(uint64_t z, uint32_t B,
						 uint32_t b)
{
	uint64_t y = z * 0x9e3779b97f4a7c15ull;

	return B == 64 && b == 8 ? ddf_apbbf_mask64_8(y) : y;
}

/*
 * All b bits of the key set in its block? (op 0), or set them (op 1);
 * y: ddf_apbbf_bits(). B = 64: one mask, one word. B = 512: each part is
 * one word (b = 8) or a pair of words (b = 4); the test is branch-free so
 * the loads of the words overlap. Setting reads each word once and pays a
 * locked OR only for a missing bit; its result is unused, so it does not
 * test first.
 */
static DDF_ALWAYS_INLINE bool ddf_apbbf_op(ddf_aword *w, uint64_t y,
					   uint32_t B, uint32_t b, int set)
{
	uint64_t ok = 1;

	if (B == 64) {
		uint64_t m = 0, v = ddf_aword_read(w);

		if (b == 8)
			m = y; /* the mask: ddf_apbbf_bits() */
		else
#pragma GCC unroll 8
			for (uint32_t i = 0; i < b; i++)
				m |= 1ull << ddf_apbbf_pos(y, i, B, b);
		/* skip the locked OR when the bits are already there */
		if ((v & m) == m)
			return true;
		if (set)
			ddf_aword_or(w, m);
		return false;
	}
	if (set) {
#pragma GCC unroll 8
		for (uint32_t i = 0; i < b; i++) {
			uint32_t pos = ddf_apbbf_pos(y, i, B, b);
			uint64_t bit = 1ull << (pos & 63);

			if (!(ddf_aword_read(&w[pos >> 6]) & bit))
				ddf_aword_or(&w[pos >> 6], bit);
		}
		return false;
	}
#pragma GCC unroll 8
	for (uint32_t i = 0; i < b; i++) {
		uint32_t pos = ddf_apbbf_pos(y, i, B, b);

		ok &= ddf_aword_read(&w[pos >> 6]) >> (pos & 63);
	}
	return ok & 1;
}

/* Test (set 0) or set (set 1) a key's bits in segment phys; z: its hash. */
static DDF_ALWAYS_INLINE bool ddf_apbbf_seg(const struct ddf_apbbf *f,
					    const struct ddf_hash *h,
					    uint64_t z, uint32_t phys,
					    uint32_t B, uint32_t b, int set)
{
	return ddf_apbbf_op(ddf_apbbf_block(f, h, z, phys),
			    ddf_apbbf_bits(z, B, b), B, b, set);
}

static DDF_ALWAYS_INLINE bool ddf_apbbf_cached(const struct ddf_apbbf_probe *pr,
					       uint32_t i)
{
	return i < DDF_APBBF_CACHE && (pr->have >> i & 1);
}

/*
 * Test or set logical segment i, from pr's cache if there; else its
 * physical segment is worked out here, not by the caller, so that a
 * cached segment costs none of it.
 */
static DDF_ALWAYS_INLINE bool ddf_apbbf_probe_seg(const struct ddf_apbbf_probe *pr,
						  uint32_t i, uint32_t B,
						  uint32_t b, int set)
{
	uint32_t ph;

	if (ddf_apbbf_cached(pr, i))
		return ddf_apbbf_op(pr->seg[i].blk, pr->y[i], B, b, set);
	ph = ddf_age_phys(&pr->f->age, pr->base, i);
	return ddf_apbbf_seg(pr->f, pr->h, ddf_hash_dh(pr->h, ph), ph, B, b,
			     set);
}

/* pr caches hashes of the segments of base's generation, or is NULL. */
static DDF_ALWAYS_INLINE void ddf_apbbf_set(struct ddf_apbbf *f,
					    const struct ddf_hash *h,
					    uint32_t base,
					    const struct ddf_apbbf_probe *pr,
					    uint32_t B, uint32_t b)
{
	/* a local: the bits' stores would make the compiler reload f->age.k */
	uint32_t i = 0, k = f->age.k;

	/* the prefetch cached every segment an insert writes, up to 32 */
	if (pr)
		for (; i < k && i < DDF_APBBF_CACHE; i++)
			ddf_apbbf_op(pr->seg[i].blk, pr->y[i], B, b, 1);
	for (; i < k; i++) {
		uint32_t ph = ddf_age_phys(&f->age, base, i);

		ddf_apbbf_seg(f, h, ddf_hash_dh(h, ph), ph, B, b, 1);
	}
}

/*
 * What the prefetch reads of the filter and the key, once per probe: held
 * in locals, where the compiler would reload each field for every segment
 * (the probe's stores may alias the filter's words as far as it knows).
 */
struct ddf_apbbf_fetcher {
	ddf_aword *words;
	uint64_t seg_words, nb, h1, h2;
	uint32_t wpb, nseg, base;
};

/* ddf_apbbf_block(ddf_age_phys(base, i)); the segment's hash in *z. */
static DDF_ALWAYS_INLINE ddf_aword *
ddf_apbbf_fetch(const struct ddf_apbbf_probe *pr,
		const struct ddf_apbbf_fetcher *c, uint32_t i, uint64_t *z)
{
	uint32_t j = c->base + i, ph = j >= c->nseg ? j - c->nseg : j;
	ddf_aword *blk;

	*z = c->h1 + ph * c->h2;
#ifndef DDF_APBBF_INTERLEAVED
	/* the paper's layout's ddf_apbbf_block(), from the copies in c */
	blk = c->words + ph * c->seg_words + ddf_reduce(*z, c->nb) * c->wpb;
#else
	blk = ddf_apbbf_block(pr->f, pr->h, *z, ph);
#endif
	ddf_prefetch_w(blk);
	return blk;
}

/*
 * Issue the loads of the blocks a test-and-insert touches for a new key
 * before using any, so that their cache misses overlap instead of
 * queueing: the query's first probes (segments l, l - k, ..., down to 0 in
 * Algorithm 1, the whole path of a key not in the filter) and the k
 * segments an insert writes. Hashing every segment instead would cost more
 * than the misses it hides; a key that matches pays for the few segments
 * after a probe as it goes. The segments below 32, f->fetched, are cached
 * in the probe, walked as the set bits of that mask; those past it (a
 * large k or l) only fetched.
 */
static DDF_ALWAYS_INLINE void ddf_apbbf_prefetch(struct ddf_apbbf_probe *pr,
						 uint32_t B, uint32_t b)
{
	const struct ddf_apbbf *f = pr->f;
	const struct ddf_apbbf_fetcher c = {
		.words = f->age.words, .seg_words = f->age.seg_words,
		.nb = f->nb, .h1 = pr->h->h1, .h2 = pr->h->h2 | 1,
		.wpb = f->wpb, .nseg = f->age.nseg, .base = pr->base,
	};
	uint32_t m, i, k = f->age.k, l = f->age.l;
	uint64_t z;

	for (m = f->fetched; m; m &= m - 1) {
		i = (uint32_t)__builtin_ctz(m);
		pr->seg[i].blk = ddf_apbbf_fetch(pr, &c, i, &z);
		pr->y[i] = ddf_apbbf_bits(z, B, b);
	}
	if (DDF_UNLIKELY(l >= DDF_APBBF_CACHE || k > DDF_APBBF_CACHE)) {
		for (i = l; i >= k && i >= DDF_APBBF_CACHE; i -= k)
			ddf_apbbf_fetch(pr, &c, i, &z);
		for (i = DDF_APBBF_CACHE; i < k; i++)
			ddf_apbbf_fetch(pr, &c, i, &z);
	}
	pr->have = f->fetched;
}

/*
 * One match() per block shape, each with B and b constant, so the query
 * loop of each shape's operations below compiles to straight code with
 * the segment test inlined (always: GCC otherwise calls it per segment):
 * the shape is dispatched once per packet. phys, the query's, is left
 * unused (ddf_apbbf_probe_seg()), and the compiler drops it.
 */
#define DDF_APBBF_MATCH(B, b)						\
static DDF_ALWAYS_INLINE bool						\
ddf_apbbf_match_##B##_##b(const void *ctx, uint32_t i, uint32_t phys)	\
{									\
	const struct ddf_apbbf_probe *pr = ctx;				\
									\
	(void)phys;							\
	return ddf_apbbf_probe_seg(pr, i, B, b, 0);			\
}
DDF_APBBF_MATCH(64, 4)
DDF_APBBF_MATCH(64, 8)
DDF_APBBF_MATCH(512, 4)
DDF_APBBF_MATCH(512, 8)

static DDF_ALWAYS_INLINE bool ddf_apbbf_query(const struct ddf_apbbf *f,
					      struct ddf_age_at at, uint64_t d,
					      const struct ddf_apbbf_probe *pr)
{
	switch (f->shape) {
	case 0:
		return ddf_age_query(&f->age, at, d, pr, ddf_apbbf_match_64_4);
	case 1:
		return ddf_age_query(&f->age, at, d, pr, ddf_apbbf_match_64_8);
	case 2:
		return ddf_age_query(&f->age, at, d, pr,
				     ddf_apbbf_match_512_4);
	default:
		return ddf_age_query(&f->age, at, d, pr,
				     ddf_apbbf_match_512_8);
	}
}

static bool ddf_apbbf_lookup(struct ddf_filter *hdr, const struct ddf_hash *h,
			     uint64_t now)
{
	struct ddf_apbbf *f = (struct ddf_apbbf *)hdr;
	struct ddf_apbbf_probe pr DDF_NOINIT;
	uint64_t d;
	struct ddf_age_at at = ddf_age_lookup_at(&f->age, now, &d);

	ddf_apbbf_probe_init(&pr, f, h, at.base);
	return ddf_apbbf_query(f, at, d, &pr);
}

static void ddf_apbbf_insert(struct ddf_filter *hdr, const struct ddf_hash *h,
			     uint64_t now)
{
	struct ddf_apbbf *f = (struct ddf_apbbf *)hdr;
	struct ddf_age_at ins, cur;

	ddf_age_begin_insert(&f->age, now, &ins, &cur);
	switch (f->shape) {
	case 0:
		ddf_apbbf_set(f, h, ins.base, NULL, 64, 4);
		break;
	case 1:
		ddf_apbbf_set(f, h, ins.base, NULL, 64, 8);
		break;
	case 2:
		ddf_apbbf_set(f, h, ins.base, NULL, 512, 4);
		break;
	default:
		ddf_apbbf_set(f, h, ins.base, NULL, 512, 8);
	}
}

static DDF_ALWAYS_INLINE bool
ddf_apbbf_tai(struct ddf_apbbf *f, const struct ddf_hash *h, uint64_t now,
	      uint32_t B, uint32_t b,
	      bool (*match)(const void *ctx, uint32_t i, uint32_t phys))
{
	struct ddf_apbbf_probe pr DDF_NOINIT;
	struct ddf_age_at ins, cur;
	bool dup;

	ddf_age_begin_insert(&f->age, now, &ins, &cur);
	ddf_apbbf_probe_init(&pr, f, h, cur.base);
	ddf_apbbf_prefetch(&pr, B, b);
	dup = ddf_age_query(&f->age, cur, 0, &pr, match);
	/* the cached blocks are those of the current generation's segments */
	ddf_apbbf_set(f, h, ins.base, ins.G == cur.G ? &pr : NULL, B, b);
	return dup;
}

bool ddf_apbbf_test_and_insert(struct ddf_filter *hdr, const struct ddf_hash *h,
			       uint64_t now)
{
	struct ddf_apbbf *f = (struct ddf_apbbf *)hdr;

	switch (f->shape) {
	case 0:
		return ddf_apbbf_tai(f, h, now, 64, 4, ddf_apbbf_match_64_4);
	case 1:
		return ddf_apbbf_tai(f, h, now, 64, 8, ddf_apbbf_match_64_8);
	case 2:
		return ddf_apbbf_tai(f, h, now, 512, 4,
				     ddf_apbbf_match_512_4);
	default:
		return ddf_apbbf_tai(f, h, now, 512, 8,
				     ddf_apbbf_match_512_8);
	}
}

static void ddf_apbbf_advance(struct ddf_filter *hdr, uint64_t now)
{
	ddf_age_advance(&((struct ddf_apbbf *)hdr)->age, now);
}

static void ddf_apbbf_stats(const struct ddf_filter *hdr,
			    struct ddf_stats *st)
{
	const struct ddf_apbbf *f = (const struct ddf_apbbf *)hdr;

	ddf_age_stats(&f->age, st);
}

static uint64_t ddf_apbbf_segment_bits(const struct ddf_filter *hdr, uint32_t i)
{
	return ddf_age_segment_bits(&((const struct ddf_apbbf *)hdr)->age, i);
}

#ifndef DDF_APBBF_INTERLEAVED
const struct ddf_filter_type ddf_apbbf_type = {
	.name = "apbbf",
#else
/* not in the registry: ddf_apbbf_il_init() builds one (ddf_apbbf_il.h) */
const struct ddf_filter_type ddf_apbbf_il_type = {
	.name = "apbbf-interleaved",
#endif
	.kind = DDF_KIND_APBBF,
	.resolve = ddf_apbbf_resolve,
	.memsize = ddf_apbbf_memsize,
	.init = ddf_apbbf_init,
	.lookup = ddf_apbbf_lookup,
	.insert = ddf_apbbf_insert,
	.test_and_insert = ddf_apbbf_test_and_insert,
	.advance = ddf_apbbf_advance,
	.stats = ddf_apbbf_stats,
	.segment_bits = ddf_apbbf_segment_bits,
};
