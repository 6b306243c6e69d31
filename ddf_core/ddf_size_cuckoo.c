// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing of the cuckoo filter for streams (userspace only: floating
 * point).
 *
 * Asymptotic false-positive rate. A fingerprint phi of a key whose
 * buckets are i1, i2 can only sit in i1 or i2 as a fingerprint whose own
 * pair is (i1, i2): relocation moves it between the two. An insertion
 * finding phi there stores nothing, so the pair holds phi at most once,
 * and with S = 2^f - 1 equally likely non-zero fingerprints over the 2b
 * entries of a saturated pair:
 *   FPR = 2b / S           (capped at 1)
 * the same argument as QHT's k / S (Theorem 4.1), with 2b entries. Fan et
 * al.'s bound for a table at load alpha is 1 - (1 - 1/2^f)^(2b alpha); the
 * QHT paper's cuckoo filter (b = 1, f = 3) gives 2/7 = 0.2857, the 28.3 to
 * 28.55 % of its Table 4.
 *
 * The shape follows the QHT rule (section 4.5): the most entries per 64-bit
 * word, then the lowest rate. Memory: the largest power of two of buckets
 * that fits the budget, or buckets for the window.
 */
#include "ddf_size.h"

static double cuckoo_fpr_of(uint32_t b, uint32_t f)
{
	double S;

	if (!b || !f || (uint64_t)b * f > 64)
		return 1;
	S = f >= 64 ? 18446744073709551615.0 : (double)((1ull << f) - 1);
	return 2.0 * b / S < 1 ? 2.0 * b / S : 1;
}

double ddf_cuckoo_fpr(const struct ddf_params *p)
{
	if (p->kind != DDF_KIND_CUCKOO)
		return 1;
	return cuckoo_fpr_of(p->k, p->fp_bits);
}

static int cuckoo_shape(const struct ddf_size_req *req, struct ddf_params *out,
			const char **why)
{
	uint32_t b, f, best = 0;
	double best_fpr = 2;

	if (!(req->fpr >= 0 && req->fpr <= 1)) {
		*why = "the target fpr must be in (0, 1]";
		return DDF_ERANGE;
	}
	if (req->fpr == 0 && !(req->k && req->fp_bits)) {
		*why = "cuckoo sizing needs a target fpr, or both k and fp_bits";
		return DDF_EINVAL;
	}
	for (b = req->k ? req->k : 1; b <= (req->k ? req->k : 64); b++)
		for (f = req->fp_bits ? req->fp_bits : 1;
		     f <= (req->fp_bits ? req->fp_bits : 64); f++) {
			double x = cuckoo_fpr_of(b, f);
			uint32_t per;

			if ((uint64_t)b * f > 64)
				break;
			if (req->fpr > 0 && x > req->fpr)
				continue;
			per = b * (64 / (b * f));
			if (per > best || (per == best && x < best_fpr)) {
				best = per;
				best_fpr = x;
				out->k = b;
				out->fp_bits = f;
			}
		}
	if (!best) {
		*why = "no cuckoo shape with k * fp_bits <= 64 reaches the fpr";
		return DDF_ERANGE;
	}
	return 0;
}

int ddf_cuckoo_size(const struct ddf_filter_type *t,
		    const struct ddf_size_req *req, struct ddf_params *out,
		    struct ddf_size_report *rep, const char **why)
{
	const char *dummy;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (!t || t->kind != req->kind || req->kind != DDF_KIND_CUCKOO) {
		*why = "not the cuckoo filter type";
		return DDF_EINVAL;
	}
	ddf_size_copy_given(req, out);
	err = cuckoo_shape(req, out, why);
	if (err)
		return err;
	if (req->bytes) {
		struct ddf_params probe = *out;

		probe.m = 1;
		probe.window = 0;
		if (ddf_params_resolve_type(t, &probe, why))
			return DDF_EINVAL;
		if (ddf_filter_memsize_type(t, &probe) > req->bytes) {
			*why = "the memory budget does not hold one bucket";
			return DDF_ERANGE;
		}
		out->m = 1;
		while (probe.m < (1ull << 62)) {
			probe.m <<= 1;
			if (!ddf_filter_memsize_type(t, &probe) ||
			    ddf_filter_memsize_type(t, &probe) > req->bytes)
				break;
			out->m = probe.m;
		}
	} else if (!req->window) {
		*why = "cuckoo sizing needs a memory budget (bytes) or a window";
		return DDF_EINVAL;
	}
	err = ddf_params_resolve_type(t, out, why);
	if (err)
		return err;
	if (rep) {
		rep->fpr = ddf_cuckoo_fpr(out);
		rep->bytes = ddf_filter_memsize_type(t, out);
		rep->window = out->window;
	}
	return 0;
}
