// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Quotient Hash Tables (Geraud, Lombard-Platet, Naccache): QHT (Algorithm 1),
 * QHT with Duplicates (QHTD, section 5.1) and Queued QHTD (QQHTD,
 * Algorithm 2).
 *
 * N rows of k fingerprints of s bits. A row is one 64-bit word (k * s <= 64)
 * so that it changes with a single compare-and-swap; cell i holds bits
 * [i * s, (i + 1) * s). 0 marks an empty cell, so fingerprints are non-zero
 * and S = 2^s - 1 of them exist (section 3.2, option 3).
 *
 * Which hash bits go where:
 *   row         ddf_reduce(h1, N)
 *   fingerprint the low s bits of h2, re-derived while zero
 *   victim      the high 32 bits of h2 (QHT/QHTD with a full row; k >= 2
 *               implies s <= 32, so these bits are not in the fingerprint)
 *
 * These filters have no window: they forget by eviction only. A QQHTD row
 * is a FIFO queue, so it remembers about N * k recent elements, with no
 * hard guarantee (a burst into one row evicts early).
 */
#include "ddf_filter.h"
#include "ddf_hash.h"

struct ddf_qht {
	struct ddf_filter hdr;
	uint64_t rows;
	uint64_t fp_mask; /* the low s bits */
	uint64_t row_mask; /* the low k * s bits */
	uint32_t k, s;
	uint32_t kind;
};

/* The rows start on the cache line after the header. */
#define QHT_HDR_BYTES ddf_align_up(sizeof(struct ddf_qht), DDF_CACHELINE)
#define QHT_MAX_ROWS ((DDF_MAX_BYTES - QHT_HDR_BYTES) / sizeof(ddf_aword))

/*
 * Attempts at re-deriving a zero fingerprint. Each succeeds with
 * probability 1 - 2^-s >= 1/2, so the fallback below is never reached in
 * practice; it only bounds the loop on the packet path.
 */
#define QHT_FP_TRIES 64

static inline struct ddf_qht *to_qht(const struct ddf_filter *f)
{
	return (struct ddf_qht *)f;
}

static inline ddf_aword *qht_row(const struct ddf_qht *q,
				 const struct ddf_hash *h)
{
	ddf_aword *rows = (ddf_aword *)((char *)q + QHT_HDR_BYTES);

	return &rows[ddf_reduce(h->h1, q->rows)];
}

static inline uint64_t qht_mask(uint64_t bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/*
 * Option 3 of section 3.2: a zero fingerprint is recomputed, as the low s
 * bits of ddf_fmix64(h2 + i) for i = 1, 2, ..., until it is not zero. This
 * keeps the S = 2^s - 1 values equiprobable (option 2, mapping 0 to 1,
 * would double the weight of fingerprint 1).
 */
static inline uint64_t qht_fingerprint(const struct ddf_qht *q, uint64_t h2)
{
	uint64_t fp = h2 & q->fp_mask;
	uint64_t i;

	for (i = 1; DDF_UNLIKELY(!fp) && i <= QHT_FP_TRIES; i++)
		fp = ddf_fmix64(h2 + i) & q->fp_mask;
	return fp ? fp : 1;
}

static inline uint64_t qht_cell(const struct ddf_qht *q, uint64_t row,
				uint32_t i)
{
	return (row >> (i * q->s)) & q->fp_mask;
}

/* fp is never 0, so empty cells never match. */
static bool qht_row_has(const struct ddf_qht *q, uint64_t row, uint64_t fp)
{
	uint32_t i;

	for (i = 0; i < q->k; i++)
		if (qht_cell(q, row, i) == fp)
			return true;
	return false;
}

/* The row after storing fp: the update of Algorithm 1 or 2. */
static uint64_t qht_row_put(const struct ddf_qht *q, uint64_t row, uint64_t fp,
			    uint64_t h2)
{
	uint32_t i;

	if (q->k == 1)
		return fp;
	if (q->kind == DDF_KIND_QQHTD)
		/* the newest lives in cell 0; the oldest falls off the top */
		return ((row << q->s) | fp) & q->row_mask;
	for (i = 0; i < q->k; i++)
		if (!qht_cell(q, row, i))
			break;
	if (i == q->k)
		/* a "random" cell, from bits the row and fingerprint skip */
		i = (uint32_t)(((h2 >> 32) * q->k) >> 32);
	return (row & ~(q->fp_mask << (i * q->s))) | (fp << (i * q->s));
}

static bool qht_lookup(struct ddf_filter *f, const struct ddf_hash *h,
		       uint64_t now)
{
	const struct ddf_qht *q = to_qht(f);

	return qht_row_has(q, ddf_aword_read(qht_row(q, h)),
			   qht_fingerprint(q, h->h2));
}

/*
 * Detect and update in one step. The decision is recomputed from the row
 * each compare-and-swap returns, so two CPUs streaming the same element
 * into a QHT cannot both store it and both answer UNSEEN.
 */
bool ddf_qht_test_and_insert(struct ddf_filter *f, const struct ddf_hash *h,
			     uint64_t now)
{
	const struct ddf_qht *q = to_qht(f);
	ddf_aword *w = qht_row(q, h);
	uint64_t fp = qht_fingerprint(q, h->h2);
	uint64_t old = ddf_aword_read(w), new;
	bool dup;

	do {
		dup = qht_row_has(q, old, fp);
		if (dup && q->kind == DDF_KIND_QHT)
			return true; /* Algorithm 1 stores nothing */
		new = qht_row_put(q, old, fp, h->h2);
		if (new == old)
			break;
	} while (!ddf_aword_try_cmpxchg(w, &old, new));
	return dup;
}

/*
 * Update only. In a QHT the update depends on the detection (a fingerprint
 * already in the row is not stored twice), so both paths are the same.
 */
static void qht_insert(struct ddf_filter *f, const struct ddf_hash *h,
		       uint64_t now)
{
	ddf_qht_test_and_insert(f, h, now);
}

static int qht_resolve(struct ddf_params *p, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	if (p->flags & DDF_PF_TIME) {
		*why = "QHT filters have no time aging: use count mode";
		return DDF_EINVAL;
	}
	if (p->l || p->block_bits || p->block_hashes) {
		*why = "l and block_* are APBF/APBBF parameters, not QHT";
		return DDF_EINVAL;
	}
	if (!p->k || !p->fp_bits) {
		*why = "QHT needs k and fp_bits: ddf_qht_size() picks them";
		return DDF_EINVAL;
	}
	if ((uint64_t)p->k * p->fp_bits > 64) {
		*why = "k * fp_bits must be at most 64: a row is one word";
		return DDF_ERANGE;
	}
	if (!p->m) {
		if (!p->window) {
			*why = "QHT filters need rows (m) or a window";
			return DDF_EINVAL;
		}
		/*
		 * rows * k slots hold about window elements; a QQHTD keeps
		 * roughly the last rows * k, with no hard guarantee.
		 */
		p->m = ddf_div64(p->window + p->k - 1, p->k);
	}
	if (p->m > QHT_MAX_ROWS) {
		*why = "too many rows: the table would exceed the memory limit";
		return DDF_EFBIG;
	}
	/* for reports: the slots, what a QQHTD roughly remembers */
	if (!p->window)
		p->window = p->m * p->k;
	return 0;
}

static uint64_t qht_memsize(const struct ddf_params *p)
{
	if (!p->m || p->m > QHT_MAX_ROWS)
		return 0;
	return QHT_HDR_BYTES + p->m * sizeof(ddf_aword);
}

static struct ddf_filter *qht_init(void *mem, const struct ddf_params *p,
				   uint64_t now)
{
	struct ddf_qht *q = mem;

	memset(mem, 0, qht_memsize(p));
	q->rows = p->m;
	q->k = p->k;
	q->s = p->fp_bits;
	q->kind = p->kind;
	q->fp_mask = qht_mask(p->fp_bits);
	q->row_mask = qht_mask((uint64_t)p->k * p->fp_bits);
	return &q->hdr;
}

/* A scan of the whole table: for reporting, not for the packet path. */
static void qht_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	const struct ddf_qht *q = to_qht(f);
	const ddf_aword *rows =
		(const ddf_aword *)((const char *)q + QHT_HDR_BYTES);
	uint64_t r, used = 0;
	uint32_t i;

	for (r = 0; r < q->rows; r++) {
		uint64_t row = ddf_aword_read(&rows[r]);

		for (i = 0; row && i < q->k; i++)
			used += qht_cell(q, row, i) != 0;
	}
	st->slots = q->rows * q->k;
	st->used = used;
	st->fill_ppm = (uint32_t)ddf_div64(used * 1000000, st->slots);
}

#define QHT_TYPE(ident, tname, tkind)                   \
	const struct ddf_filter_type ident = {          \
		.name = tname,                          \
		.kind = tkind,                          \
		.resolve = qht_resolve,                 \
		.memsize = qht_memsize,                 \
		.init = qht_init,                       \
		.lookup = qht_lookup,                   \
		.insert = qht_insert,                   \
		.test_and_insert = ddf_qht_test_and_insert, \
		.advance = NULL,                        \
		.stats = qht_stats,                     \
	}

QHT_TYPE(ddf_qht_type, "qht", DDF_KIND_QHT);
QHT_TYPE(ddf_qhtd_type, "qhtd", DDF_KIND_QHTD);
QHT_TYPE(ddf_qqhtd_type, "qqhtd", DDF_KIND_QQHTD);
