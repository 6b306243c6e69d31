// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing of the Streaming Quotient Filter (userspace only: floating point).
 *
 * Asymptotic false-positive rate (QHT paper, sections 4.1 and 4.1.1): a
 * saturated row holds k distinct fingerprints, so FPR ~ k * c, with c the
 * probability that two random keys share a fingerprint. The r' low bits
 * agree with probability 2^-r'; the weights then agree when the other
 * n = r - r' bits have equal weights: binom(2n, n) / 4^n. So
 *   c = 2^-r' * binom(2n, n) / 4^n                  (exact; k = 1: FPR = c)
 * The paper approximates binom(2r, r) / 4^r by 1 / sqrt(pi r) and gets
 *   FPR ~ k / (2^r' * sqrt(pi * r))                 (ddf_sqf_fpr_paper)
 * which treats the r' bits and the weight of all r bits as independent.
 * For the benchmark shape (k = 1, r = 2, r' = 1) the exact value is 1/4,
 * what the paper's Table 4 measures, against 0.1995 from the approximation.
 */
#include "ddf_size.h"

#define SQF_PI 3.14159265358979323846

static uint32_t sqf_wbits(uint32_t r)
{
	uint32_t b = 0;

	while (b < 32 && (1ull << b) <= r)
		b++;
	return b;
}

/* binom(2n, n) / 4^n, as a product: no overflow for any n <= 64 */
static double sqf_central(uint32_t n)
{
	double x = 1;
	uint32_t i;

	for (i = 1; i <= n; i++)
		x *= (double)(n + i) / (4.0 * i);
	return x;
}

static double sqf_fpr_of(uint32_t k, uint32_t r, uint32_t rp)
{
	double c;

	if (!k || rp < 1 || rp >= r)
		return 1;
	c = ddf_pow(2, -(double)rp) * sqf_central(r - rp);
	return k * c < 1 ? k * c : 1;
}

/* r' of resolved params */
static uint32_t sqf_rp(const struct ddf_params *p)
{
	uint32_t wb = sqf_wbits(p->fp_bits);

	return p->cell_bits > wb ? p->cell_bits - wb : 0;
}

double ddf_sqf_fpr(const struct ddf_params *p)
{
	if (p->kind != DDF_KIND_SQF)
		return 1;
	return sqf_fpr_of(p->k, p->fp_bits, sqf_rp(p));
}

double ddf_sqf_fpr_paper(const struct ddf_params *p)
{
	double x;

	if (p->kind != DDF_KIND_SQF || !p->fp_bits || !sqf_rp(p))
		return 1;
	x = p->k * ddf_pow(2, -(double)sqf_rp(p)) /
	    ddf_sqrt(SQF_PI * p->fp_bits);
	return x < 1 ? x : 1;
}

/*
 * The shape (k, r, r'). As for QHT (section 4.5), at a given asymptotic
 * rate the filter that holds the most fingerprints saturates last, so the
 * rule is: the most cells per 64-bit word, k * floor(64 / (k * sigma)),
 * then the lowest rate. Fields the request fixes are kept.
 */
static int sqf_shape(const struct ddf_size_req *req, struct ddf_params *out,
		     const char **why)
{
	uint32_t k, r, rp, best_cells = 0;
	double best_fpr = 2;

	if (!(req->fpr >= 0 && req->fpr <= 1)) {
		*why = "the target fpr must be in (0, 1]";
		return DDF_ERANGE;
	}
	if (req->fpr == 0 && !(req->k && req->fp_bits)) {
		*why = "SQF sizing needs a target fpr, or both k and fp_bits";
		return DDF_EINVAL;
	}
	for (k = req->k ? req->k : 1; k <= (req->k ? req->k : 21); k++) {
		for (r = req->fp_bits ? req->fp_bits : 2;
		     r <= (req->fp_bits ? req->fp_bits : 64); r++) {
			for (rp = 1; rp < r; rp++) {
				uint32_t sigma = rp + sqf_wbits(r), cells;
				double fpr = sqf_fpr_of(k, r, rp);

				if ((uint64_t)k * sigma > 64)
					break;
				if (req->fpr > 0 && fpr > req->fpr)
					continue;
				cells = k * (64 / (k * sigma));
				if (cells > best_cells ||
				    (cells == best_cells && fpr < best_fpr)) {
					best_cells = cells;
					best_fpr = fpr;
					out->k = k;
					out->fp_bits = r;
					out->cell_bits = sigma;
				}
			}
		}
	}
	if (!best_cells) {
		*why = "no SQF shape with k * sigma <= 64 reaches the fpr";
		return DDF_ERANGE;
	}
	return 0;
}

int ddf_sqf_size(const struct ddf_filter_type *t,
		 const struct ddf_size_req *req, struct ddf_params *out,
		 struct ddf_size_report *rep, const char **why)
{
	const char *dummy;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (!t || t->kind != req->kind || req->kind != DDF_KIND_SQF) {
		*why = "not the SQF filter type";
		return DDF_EINVAL;
	}
	ddf_size_copy_given(req, out);
	err = sqf_shape(req, out, why);
	if (err)
		return err;
	if (req->bytes) {
		struct ddf_params probe = *out;

		/* the largest power of two rows that fits the budget */
		probe.m = 1;
		probe.window = 0;
		if (ddf_params_resolve_type(t, &probe, why))
			return DDF_EINVAL;
		if (ddf_filter_memsize_type(t, &probe) > req->bytes) {
			*why = "the memory budget does not hold one row";
			return DDF_ERANGE;
		}
		while (probe.m < (1ull << 62)) {
			probe.m <<= 1;
			if (!ddf_filter_memsize_type(t, &probe) ||
			    ddf_filter_memsize_type(t, &probe) > req->bytes)
				break;
			out->m = probe.m;
		}
		if (!out->m)
			out->m = 1;
	} else if (!req->window) {
		*why = "SQF sizing needs a memory budget (bytes) or a window";
		return DDF_EINVAL;
	}
	err = ddf_params_resolve_type(t, out, why);
	if (err)
		return err;
	if (rep) {
		rep->fpr = ddf_sqf_fpr(out);
		rep->bytes = ddf_filter_memsize_type(t, out);
		rep->window = out->window;
	}
	return 0;
}
