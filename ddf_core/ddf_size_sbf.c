// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing of the Stable Bloom Filter (userspace only: floating point).
 *
 * Deng and Rafiei show that the probability of a cell being zero converges
 * to (1 / (1 + 1 / (P (1/K - 1/m))))^Max on a stream of distinct elements,
 * so the stable false-positive rate is
 *   FPS = (1 - (1 / (1 + 1 / (P (1/K - 1/m))))^Max)^K
 * (the bound of the QHT paper's footnote 12; duplicates leave more zeros
 * and so a lower rate). Solving for P gives the decrements for a target:
 *   P = 1 / ((1 / (1 - FPS^(1/K))^(1/Max) - 1) (1/K - 1/m))
 * rounded up, so the rate is at most the target. The rate hardly depends
 * on m: memory buys remembering longer (a cell set to Max survives about
 * Max * m / P insertions), not a lower rate.
 *
 * The QHT paper's benchmark: d = 2 bits per cell, K = 2, target 0.02. A
 * size request has no field for d, so sizing always uses d = 2.
 */
#include "ddf_size.h"

#define SBF_SIZE_D 2
#define SBF_SIZE_K 2
#define SBF_SIZE_FPR 0.02

static double sbf_fps(uint32_t K, uint32_t d, uint64_t P, uint64_t m)
{
	double x, zero;

	if (!K || !d || !m)
		return 1;
	x = P * (1.0 / K - 1.0 / m);
	if (!(x > 0))
		return 1;
	zero = ddf_pow(1 / (1 + 1 / x), ddf_pow(2, d) - 1);
	return ddf_pow(1 - zero, K);
}

double ddf_sbf_fpr(const struct ddf_params *p)
{
	if (p->kind != DDF_KIND_SBF)
		return 1;
	return sbf_fps(p->k, p->cell_bits, p->decrements, p->m);
}

uint64_t ddf_sbf_decrements(uint32_t K, uint32_t d, uint64_t m, double fpr)
{
	double zero, y, x, P;

	if (!K || !d || !m || !(fpr > 0 && fpr < 1) || 1.0 / K - 1.0 / m <= 0)
		return 0;
	zero = 1 - ddf_pow(fpr, 1.0 / K);
	y = 1 / ddf_pow(zero, 1 / (ddf_pow(2, d) - 1)) - 1;
	x = 1.0 / K - 1.0 / m;
	P = 1 / (y * x);
	if (!(P < 4e9))
		return 0;
	/* ceil, then step over any rounding in the powers */
	{
		uint64_t n = (uint64_t)P + ((double)(uint64_t)P < P);

		if (!n)
			n = 1;
		while (sbf_fps(K, d, n, m) > fpr && n < 4000000000ull)
			n++;
		return n;
	}
}

int ddf_sbf_size(const struct ddf_filter_type *t,
		 const struct ddf_size_req *req, struct ddf_params *out,
		 struct ddf_size_report *rep, const char **why)
{
	struct ddf_params probe;
	const char *dummy;
	uint64_t fixed, cpw;
	double fpr;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (!t || t->kind != req->kind || req->kind != DDF_KIND_SBF) {
		*why = "not the SBF filter type";
		return DDF_EINVAL;
	}
	ddf_size_copy_given(req, out);
	out->fp_bits = req->fp_bits;
	out->k = req->k ? req->k : SBF_SIZE_K;
	out->cell_bits = SBF_SIZE_D;
	fpr = req->fpr ? req->fpr : SBF_SIZE_FPR;
	if (!(fpr > 0 && fpr < 1)) {
		*why = "the target fpr must be in (0, 1)";
		return DDF_ERANGE;
	}
	if (!req->bytes) {
		*why = "SBF sizing needs a memory budget (bytes): its rate does not depend on memory";
		return DDF_EINVAL;
	}
	/* what the caller's memory holds besides the cells */
	probe = *out;
	probe.window = 0;
	probe.m = 1;
	probe.decrements = 1;
	fixed = ddf_filter_memsize_type(t, &probe) - sizeof(uint64_t);
	if (req->bytes < fixed + sizeof(uint64_t)) {
		*why = "the memory budget does not hold one word of cells";
		return DDF_ERANGE;
	}
	cpw = 64 / SBF_SIZE_D;
	out->m = (req->bytes - fixed) / sizeof(uint64_t) * cpw;
	out->decrements = (uint32_t)ddf_sbf_decrements(out->k, SBF_SIZE_D,
						       out->m, fpr);
	if (!out->decrements || out->decrements > 65536) {
		*why = "no number of decrements (P <= 65536) reaches the fpr";
		return DDF_ERANGE;
	}
	err = ddf_params_resolve_type(t, out, why);
	if (err)
		return err;
	if (rep) {
		rep->fpr = ddf_sbf_fpr(out);
		rep->bytes = ddf_filter_memsize_type(t, out);
		rep->window = 0;
	}
	return 0;
}
