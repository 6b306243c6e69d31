// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing of the QHT family (userspace only: floating point).
 *
 * The asymptotic false-positive rate, with S = 2^s - 1 non-zero
 * fingerprints (0 marks an empty cell):
 *   QHT          k / S               (section 4.1, Theorem 4.1)
 *   QHTD, QQHTD  1 - (1 - 1/S)^k     (section 5.1)
 * The asymptotic false-negative rate is 1 minus it (section 4.3): once the
 * filter saturates, a lower target drops fewer packets wrongly but lets
 * more duplicates through.
 */
#include "ddf_size.h"

static double qht_fp_values(uint32_t s)
{
	return s >= 64 ? 18446744073709551615.0 : (double)((1ull << s) - 1);
}

static double qht_fpr_of(uint32_t kind, uint32_t k, uint32_t s)
{
	double x, q, pw = 1, sum = 0;
	uint32_t i;

	if (!k || !s || (uint64_t)k * s > 64)
		return 1;
	x = 1 / qht_fp_values(s);
	if (kind == DDF_KIND_QHT)
		return k * x < 1 ? k * x : 1; /* a row holds at most S values */
	/*
	 * 1 - (1 - x)^k written as x * sum (1 - x)^i, i < k: no cancellation
	 * when x is tiny (the result tends to k * x, not to 0).
	 */
	q = 1 - x;
	for (i = 0; i < k; i++) {
		sum += pw;
		pw *= q;
	}
	return x * sum;
}

double ddf_qht_fpr(const struct ddf_params *p)
{
	if (p->kind != DDF_KIND_QHT && p->kind != DDF_KIND_QHTD &&
	    p->kind != DDF_KIND_QQHTD)
		return 1;
	return qht_fpr_of(p->kind, p->k, p->fp_bits);
}

/*
 * The shape (k, s): the largest k whose FPR meets the target, then the
 * largest s that still fits the 64-bit row.
 *
 * Why (section 4.5): before saturation FP_m = k/S (1 - [1 - 1/(kN)]^m),
 * so at a given asymptotic FPR, the more slots k * N, the later the filter
 * saturates and the lower both error rates on a finite stream. The paper
 * fixes M = N k log2(S) and so minimises S; here a row is one 64-bit word
 * whatever (k, s), the budget fixes N = bytes / 8, and the slots grow with
 * k alone. Bits of the word that k leaves over go to s, which lowers the
 * FPR below the target at no cost in memory.
 */
static int qht_shape(const struct ddf_size_req *req, struct ddf_params *out,
		     const char **why)
{
	uint32_t k, s, kmin = req->k ? req->k : 1;

	if (req->k && req->fp_bits) {
		out->k = req->k;
		out->fp_bits = req->fp_bits;
		if (req->fpr > 0 &&
		    qht_fpr_of(req->kind, req->k, req->fp_bits) > req->fpr) {
			*why = "the given k and fp_bits miss the target fpr";
			return DDF_ERANGE;
		}
		return 0; /* resolve checks the shape itself */
	}
	if (req->fpr == 0) {
		*why = "QHT sizing needs a target fpr, or both k and fp_bits";
		return DDF_EINVAL;
	}
	if (!(req->fpr > 0 && req->fpr <= 1)) {
		*why = "the target fpr must be in (0, 1]";
		return DDF_ERANGE;
	}
	for (k = req->k ? req->k : 64; k >= kmin; k--) {
		s = req->fp_bits ? req->fp_bits : 64 / k;
		if (s && (uint64_t)k * s <= 64 &&
		    qht_fpr_of(req->kind, k, s) <= req->fpr) {
			out->k = k;
			out->fp_bits = s;
			return 0;
		}
	}
	*why = "no k, fp_bits with k * fp_bits <= 64 reach the fpr";
	return DDF_ERANGE;
}

int ddf_qht_size(const struct ddf_filter_type *t,
		 const struct ddf_size_req *req, struct ddf_params *out,
		 const char **why)
{
	struct ddf_params probe = { .kind = req->kind, .m = 1 };
	const char *dummy;
	uint64_t fixed;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (!t || t->kind != req->kind ||
	    (req->kind != DDF_KIND_QHT && req->kind != DDF_KIND_QHTD &&
	     req->kind != DDF_KIND_QQHTD)) {
		*why = "not a QHT-family filter type";
		return DDF_EINVAL;
	}
	ddf_size_copy_given(req, out);
	err = qht_shape(req, out, why);
	if (err)
		return err;
	if (req->bytes) {
		/* what the caller's memory holds besides the rows */
		fixed = ddf_filter_memsize_type(t, &probe) - sizeof(uint64_t);
		if (req->bytes < fixed + sizeof(uint64_t)) {
			*why = "the memory budget does not hold one row";
			return DDF_ERANGE;
		}
		out->m = (req->bytes - fixed) / sizeof(uint64_t);
	} else if (!req->window) {
		*why = "QHT sizing needs a memory budget (bytes) or a window";
		return DDF_EINVAL;
	}
	/* with m == 0, resolve derives the rows from the window */
	return ddf_params_resolve_type(t, out, why);
}
