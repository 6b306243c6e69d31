// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing of A2 (userspace only: floating point).
 *
 * A buffer of m bits that has seen t elements of a stream of distinct keys
 * has a fraction x(t) = 1 - e^(-k t / m) of its bits set and answers a
 * foreign key with probability f = x^k. An element a1 reports falsely is
 * not inserted and does not count towards the capacity c, though a1 keeps
 * filling with the stream as if it were (its bits are all set already).
 * So a1 takes t_c > c elements to fill, where
 *   c = integral over [0, t_c] of (1 - x(u)^k) du = (m / k) sum_j x^j / j,
 * the sum over j = 1 .. k at x = x(t_c) (substitute x = x(u)). Beyond
 * c >= (m / k) H_k (H_k the harmonic number) a1 never fills: it reports
 * everything and the filter stops aging. With X = x(t_c):
 *   worst case, just before a swap (a1 and a2 full): 1 - (1 - X^k)^2
 *   mean over a cycle: a1 falsely reports the (t_c - c) / t_c of the
 *   elements it skipped, so 1 - (1 - X^k) c / t_c
 * A query checks a1 and a2; their false positives are independent. The
 * first formula is ddf_a2_fpr(), used for sizing (the QHT paper's
 * benchmark targets 0.1 on the window); the second ddf_a2_fpr_mean().
 * Counting every stream element (ignoring the skips) would give
 * 1 - (1 - (1 - e^(-k c / m))^k)^2, about 4% low at a target of 0.1.
 *
 * For a target: for each k, the fewest whole cache lines per buffer whose
 * worst case meets it; the k needing the least memory wins. For a budget:
 * the largest buffers that fit, and the k with the lowest worst case.
 */
#include "ddf_size.h"

/* x(t_c), or a value >= 1 when a1 never takes c insertions */
static double a2_fill(uint64_t m, uint32_t k, uint64_t c)
{
	double target = (double)c * k / m, lo = 0, hi = 1, x, g, p;
	uint32_t i, j;

	if (!m || !k)
		return 1;
	for (g = 0, j = 1; j <= k; j++)
		g += 1.0 / j;
	if (target >= g)
		return 1;
	for (i = 0; i < 100; i++) {
		x = (lo + hi) / 2;
		for (g = 0, p = 1, j = 1; j <= k; j++) {
			p *= x;
			g += p / j;
		}
		if (g < target)
			lo = x;
		else
			hi = x;
	}
	return (lo + hi) / 2;
}

static double a2_fpr_of(uint64_t m, uint32_t k, uint64_t c)
{
	double x = a2_fill(m, k, c), f;

	if (x >= 1)
		return 1;
	f = ddf_pow(x, k);
	return 1 - (1 - f) * (1 - f);
}

double ddf_a2_fpr(const struct ddf_params *p)
{
	if (p->kind != DDF_KIND_A2 || !p->window)
		return 1;
	return a2_fpr_of(p->m, p->k, p->window);
}

double ddf_a2_fpr_mean(const struct ddf_params *p)
{
	double x, tc;

	if (p->kind != DDF_KIND_A2 || !p->window)
		return 1;
	x = a2_fill(p->m, p->k, p->window);
	if (x >= 1)
		return 1;
	tc = -(double)p->m / p->k * ddf_log(1 - x);
	return 1 - (1 - ddf_pow(x, p->k)) * p->window / tc;
}

/* stream elements a1 takes to fill: t_c (infinite: 0) */
double ddf_a2_cycle(const struct ddf_params *p)
{
	double x;

	if (p->kind != DDF_KIND_A2 || !p->window)
		return 0;
	x = a2_fill(p->m, p->k, p->window);
	return x >= 1 ? 0 : -(double)p->m / p->k * ddf_log(1 - x);
}

/* bits of a buffer of w words of 64 bits */
#define A2_LINE_BITS 512ull

static int a2_shape_for_fpr(const struct ddf_size_req *req,
			    struct ddf_params *out, const char **why)
{
	uint32_t k, best_k = 0;
	uint64_t best_lines = 0;

	for (k = req->k ? req->k : 1; k <= (req->k ? req->k : DDF_MAX_K);
	     k++) {
		uint64_t lo = 0, hi = 1, mid;

		/* the smallest number of lines meeting the target */
		while (a2_fpr_of(hi * A2_LINE_BITS, k, req->window) >
		       req->fpr) {
			hi *= 2;
			if (hi > (1ull << 34))
				break;
		}
		if (hi > (1ull << 34))
			continue;
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (a2_fpr_of(mid * A2_LINE_BITS, k, req->window) <=
			    req->fpr)
				hi = mid;
			else
				lo = mid;
		}
		if (!best_k || hi < best_lines) {
			best_k = k;
			best_lines = hi;
		}
	}
	if (!best_k) {
		*why = "A2: no shape within the memory limit reaches the fpr";
		return DDF_ERANGE;
	}
	out->k = best_k;
	out->m = best_lines * A2_LINE_BITS;
	return 0;
}

int ddf_a2_size(const struct ddf_filter_type *t,
		const struct ddf_size_req *req, struct ddf_params *out,
		struct ddf_size_report *rep, const char **why)
{
	const char *dummy;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (!t || t->kind != req->kind || req->kind != DDF_KIND_A2) {
		*why = "not the A2 filter type";
		return DDF_EINVAL;
	}
	ddf_size_copy_given(req, out);
	out->fp_bits = req->fp_bits;
	if (!req->window) {
		*why = "A2 sizing needs a window: the insertions per buffer";
		return DDF_EINVAL;
	}
	if (req->k > DDF_MAX_K) {
		*why = "A2: at most 64 hash functions (k)";
		return DDF_ERANGE;
	}
	if (req->bytes) {
		struct ddf_params probe = *out;
		uint64_t fixed, lines;
		double best = 2;
		uint32_t k;

		probe.m = A2_LINE_BITS;
		probe.k = 1;
		fixed = ddf_filter_memsize_type(t, &probe);
		if (!fixed || req->bytes < fixed) {
			*why = "the memory budget does not hold two buffers of a cache line";
			return DDF_ERANGE;
		}
		fixed -= 2 * A2_LINE_BITS / 8;
		lines = (req->bytes - fixed) / (2 * A2_LINE_BITS / 8);
		out->m = lines * A2_LINE_BITS;
		for (k = req->k ? req->k : 1;
		     k <= (req->k ? req->k : DDF_MAX_K); k++) {
			double x = a2_fpr_of(out->m, k, req->window);

			if (x < best) {
				best = x;
				out->k = k;
			}
		}
		if (req->fpr > 0 && best > req->fpr) {
			*why = "the memory budget misses the target fpr";
			return DDF_ERANGE;
		}
	} else if (req->fpr > 0 && req->fpr < 1) {
		err = a2_shape_for_fpr(req, out, why);
		if (err)
			return err;
	} else {
		*why = "A2 sizing needs a target fpr in (0, 1) or a memory budget";
		return DDF_EINVAL;
	}
	err = ddf_params_resolve_type(t, out, why);
	if (err)
		return err;
	if (rep) {
		rep->fpr = ddf_a2_fpr(out);
		rep->bytes = ddf_filter_memsize_type(t, out);
		rep->window = out->window;
	}
	return 0;
}
