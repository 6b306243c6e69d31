// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Streaming Quotient Filter (Dutta, Narang, Bera), as section 2.4 of the
 * Quotient Hash Tables paper restates it.
 *
 * 2^q rows of k cells of sigma = r' + ceil(log2(r + 1)) bits. For a key:
 *   row          the q most significant bits of h1 (ddf_reduce(h1, 2^q))
 *   remainder    h^r, the r least significant bits of h2
 *   fingerprint  s = h^r' || w: the r' least significant bits of h^r (the
 *                paper's footnote 6), then the Hamming weight w of h^r in
 *                the low ceil(log2(r + 1)) bits
 * A fingerprint already in the row is a duplicate and nothing is stored;
 * otherwise s goes into the first empty cell, or into a random cell (drawn
 * from the filter's PRNG) when the row is full.
 *
 * Parameters: m = 2^q rows, k cells per row, fp_bits = r, cell_bits =
 * sigma, so r' = sigma - ceil(log2(r + 1)) (cell_bits 0: r' = r / 2, the
 * SQF paper's choice).
 *
 * The empty cell (the paper's bottom symbol) is the code no key can
 * produce, as footnote 16 suggests: r' ones with weight 0 (the weight is at
 * least the r' ones it includes). A cell stores s XOR that code, so a zeroed
 * table is empty and every real fingerprint, 0 included, has a cell value.
 * This needs r' >= 1.
 *
 * Several rows share a 64-bit word (64 / (k * sigma) of them), so a row
 * still changes with one compare-and-swap while the table takes about
 * 2^q * k * sigma bits, the paper's M.
 */
#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_rng.h"

struct ddf_sqf {
	struct ddf_filter hdr;
	struct ddf_rng rng;
	uint64_t rows;
	uint64_t words;
	uint64_t rpw_magic; /* ceil(2^64 / rpw), see sqf_word() */
	uint64_t cell_mask; /* the low sigma bits */
	uint64_t row_mask; /* the low k * sigma bits */
	uint64_t empty; /* the impossible fingerprint, r' ones || 0 */
	uint32_t k, r, rp, wbits, sigma, rpw;
};

#define SQF_HDR_BYTES ddf_align_up(sizeof(struct ddf_sqf), DDF_CACHELINE)

static inline struct ddf_sqf *to_sqf(const struct ddf_filter *f)
{
	return (struct ddf_sqf *)f;
}

static inline uint64_t sqf_mask(uint64_t bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/* ceil(log2(r + 1)): the bits that hold a weight in [0, r]. */
static inline uint32_t sqf_weight_bits(uint32_t r)
{
	uint32_t b = 0;

	while (b < 32 && (1ull << b) <= r)
		b++;
	return b;
}

static inline uint32_t sqf_popcount(uint64_t x)
{
	/* no __builtin_popcountll: it may call into libgcc */
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

static inline uint64_t sqf_words(uint64_t rows, uint32_t rpw)
{
	return ddf_div64(rows + rpw - 1, rpw);
}

/*
 * row / rpw as a multiply: exact while row * (ceil(2^64 / rpw) * rpw -
 * 2^64) < 2^64, i.e. for every row below 2^58 when rpw <= 64.
 */
static inline uint64_t sqf_word(const struct ddf_sqf *q, uint64_t row)
{
	return q->rpw == 1 ? row : ddf_mulhi64(row, q->rpw_magic);
}

/* The stored value of h's fingerprint: never 0, the empty cell. */
static inline uint64_t sqf_cell_value(const struct ddf_sqf *q, uint64_t h2)
{
	uint64_t rem = h2 & sqf_mask(q->r);
	uint64_t s = (rem & sqf_mask(q->rp)) << q->wbits | sqf_popcount(rem);

	return s ^ q->empty;
}

static inline uint64_t sqf_cell(const struct ddf_sqf *q, uint64_t row,
				uint32_t i)
{
	return (row >> (i * q->sigma)) & q->cell_mask;
}

static bool sqf_row_has(const struct ddf_sqf *q, uint64_t row, uint64_t v)
{
	uint32_t i;

	for (i = 0; i < q->k; i++)
		if (sqf_cell(q, row, i) == v)
			return true;
	return false;
}

/* The word holding h's row, and the row's shift inside it. */
static inline ddf_aword *sqf_locate(const struct ddf_sqf *q,
				    const struct ddf_hash *h, uint32_t *shift)
{
	ddf_aword *words = (ddf_aword *)((char *)q + SQF_HDR_BYTES);
	uint64_t row = ddf_reduce(h->h1, q->rows);
	uint64_t w = sqf_word(q, row);

	*shift = (uint32_t)(row - w * q->rpw) * q->k * q->sigma;
	return &words[w];
}

static bool sqf_lookup(struct ddf_filter *f, const struct ddf_hash *h,
		       uint64_t now)
{
	const struct ddf_sqf *q = to_sqf(f);
	uint32_t shift;
	ddf_aword *w = sqf_locate(q, h, &shift);

	return sqf_row_has(q, (ddf_aword_read(w) >> shift) & q->row_mask,
			   sqf_cell_value(q, h->h2));
}

/*
 * Detect, then store: the decision is taken again on the word each failed
 * compare-and-swap returns, so two CPUs streaming the same key cannot both
 * store it. The victim of a full row is drawn once per call.
 */
static bool sqf_test_and_insert(struct ddf_filter *f, const struct ddf_hash *h,
				uint64_t now)
{
	struct ddf_sqf *q = to_sqf(f);
	uint64_t v = sqf_cell_value(q, h->h2);
	uint32_t shift, i, victim = q->k;
	ddf_aword *w = sqf_locate(q, h, &shift);
	uint64_t old = ddf_aword_read(w), row, new;

	do {
		row = (old >> shift) & q->row_mask;
		if (sqf_row_has(q, row, v))
			return true;
		for (i = 0; i < q->k; i++)
			if (!sqf_cell(q, row, i))
				break;
		if (i == q->k) {
			if (victim == q->k)
				victim = q->k == 1 ? 0 :
					(uint32_t)ddf_rng_below(&q->rng, q->k);
			i = victim;
		}
		row = (row & ~(q->cell_mask << (i * q->sigma))) |
		      v << (i * q->sigma);
		new = (old & ~(q->row_mask << shift)) | row << shift;
	} while (!ddf_aword_try_cmpxchg(w, &old, new));
	return false;
}

/* The update depends on the detection, as in QHT: one path for both. */
static void sqf_insert(struct ddf_filter *f, const struct ddf_hash *h,
		       uint64_t now)
{
	sqf_test_and_insert(f, h, now);
}

/* Rows fitting the memory cap for a shape. */
static uint64_t sqf_max_rows(uint32_t rpw)
{
	return ((DDF_MAX_BYTES - SQF_HDR_BYTES) / sizeof(ddf_aword)) * rpw;
}

static int sqf_resolve(struct ddf_params *p, const char **why)
{
	uint32_t wb, rpw;
	uint64_t need;

	if (p->flags & DDF_PF_TIME) {
		*why = "SQF has no time aging: use count mode";
		return DDF_EINVAL;
	}
	if (p->l || p->block_bits || p->block_hashes || p->decrements ||
	    p->inner_kind || p->subfilters) {
		*why = "SQF takes m, k, fp_bits (r), cell_bits and rng_seed";
		return DDF_EINVAL;
	}
	if (!p->k || !p->fp_bits) {
		*why = "SQF needs k and fp_bits (r): ddf_sqf_size() picks them";
		return DDF_EINVAL;
	}
	if (p->fp_bits < 2 || p->fp_bits > 64) {
		*why = "SQF remainder bits r (fp_bits) must be in [2, 64]";
		return DDF_ERANGE;
	}
	wb = sqf_weight_bits(p->fp_bits);
	if (!p->cell_bits)
		p->cell_bits = p->fp_bits / 2 + wb;
	if (p->cell_bits <= wb || p->cell_bits - wb >= p->fp_bits) {
		*why = "SQF cell_bits must be r' + ceil(log2(r + 1)), 0 < r' < r";
		return DDF_ERANGE;
	}
	if ((uint64_t)p->k * p->cell_bits > 64) {
		*why = "k * cell_bits must be at most 64: a row is in one word";
		return DDF_ERANGE;
	}
	rpw = 64 / (p->k * p->cell_bits);
	if (!p->m) {
		if (!p->window) {
			*why = "SQF needs rows (m, a power of two) or a window";
			return DDF_EINVAL;
		}
		/* 2^q rows of k cells hold at least window fingerprints */
		need = ddf_div64(p->window + p->k - 1, p->k);
		p->m = 1;
		while (p->m < need)
			p->m <<= 1;
	}
	if (p->m & (p->m - 1)) {
		*why = "SQF rows (m) must be a power of two: 2^q";
		return DDF_EINVAL;
	}
	if (p->m > sqf_max_rows(rpw)) {
		*why = "too many rows: the table would exceed the memory limit";
		return DDF_EFBIG;
	}
	/* for reports: the cells, about what the filter remembers */
	if (!p->window)
		p->window = p->m * p->k;
	return 0;
}

static uint64_t sqf_memsize(const struct ddf_params *p)
{
	uint32_t rpw;

	if (!p->m || !p->k || !p->cell_bits ||
	    (uint64_t)p->k * p->cell_bits > 64)
		return 0;
	rpw = 64 / (p->k * p->cell_bits);
	if (p->m > sqf_max_rows(rpw))
		return 0;
	return SQF_HDR_BYTES + sqf_words(p->m, rpw) * sizeof(ddf_aword);
}

static struct ddf_filter *sqf_init(void *mem, const struct ddf_params *p,
				   uint64_t now)
{
	struct ddf_sqf *q = mem;

	memset(mem, 0, sqf_memsize(p));
	ddf_rng_init(&q->rng, p->rng_seed);
	q->k = p->k;
	q->r = p->fp_bits;
	q->wbits = sqf_weight_bits(p->fp_bits);
	q->sigma = p->cell_bits;
	q->rp = q->sigma - q->wbits;
	q->rpw = 64 / (q->k * q->sigma);
	q->rpw_magic = q->rpw == 1 ? 0 : ddf_div64(~0ull, q->rpw) + 1;
	q->rows = p->m;
	q->words = sqf_words(p->m, q->rpw);
	q->cell_mask = sqf_mask(q->sigma);
	q->row_mask = sqf_mask((uint64_t)q->k * q->sigma);
	q->empty = sqf_mask(q->rp) << q->wbits;
	return &q->hdr;
}

/* A scan of the whole table: for reporting, not for the packet path. */
static void sqf_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	const struct ddf_sqf *q = to_sqf(f);
	const ddf_aword *words =
		(const ddf_aword *)((const char *)q + SQF_HDR_BYTES);
	uint64_t r, used = 0;
	uint32_t i;

	for (r = 0; r < q->rows; r++) {
		uint64_t w = sqf_word(q, r);
		uint32_t shift = (uint32_t)(r - w * q->rpw) * q->k * q->sigma;
		uint64_t row = (ddf_aword_read(&words[w]) >> shift) &
			       q->row_mask;

		for (i = 0; row && i < q->k; i++)
			used += sqf_cell(q, row, i) != 0;
	}
	st->slots = q->rows * q->k;
	st->used = used;
	st->fill_ppm = (uint32_t)ddf_div64(used * 1000000, st->slots);
}

const struct ddf_filter_type ddf_sqf_type = {
	.name = "sqf",
	.kind = DDF_KIND_SQF,
	.flags = DDF_TF_RANDOM,
	.resolve = sqf_resolve,
	.memsize = sqf_memsize,
	.init = sqf_init,
	.lookup = sqf_lookup,
	.insert = sqf_insert,
	.test_and_insert = sqf_test_and_insert,
	.advance = NULL,
	.stats = sqf_stats,
};
