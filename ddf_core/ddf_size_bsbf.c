// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing and analytic false-positive rates of RSBF, BSBF, BSBFSD and
 * RLBSBF (userspace only: floating point).
 *
 * The paper sizes by memory: Algorithms 1 to 4 take the memory M and a
 * target FPR_t, "compute the value of k from FPR_t" and split M into k
 * Bloom filters of M / k bits. So does ddf_bsbf_size(): the budget gives
 * s, the target (if any) gives k, else k = 2 as in the paper's
 * comparisons (section 6.3).
 *
 * The analytic rate. The paper's recurrences for X, the probability that
 * an arriving element finds its k bits set ((3.27), (3.28), (4.3), (4.5),
 * (5.2)), converge to X = 1 (Theorem 3.1, Lemma 1): they let the arriving
 * element set a bit with probability (1 - X) / s whether that bit is
 * already set or not. Its own Table 1 shows BSBF's FPR settling near 35%
 * for k = 2, not near 100%. We count instead the bits that change: per
 * part with load q (the share of set bits) a distinct element turns a 0
 * into a 1 with probability 1 - q, and an insertion, which happens with
 * probability 1 - q^k, resets a set bit with probability R(q):
 *
 *   dq/dt = (1 - q) - R(q) (1 - q^k),   t = elements / s
 *   R(q) = q (BSBF), q / k (BSBFSD), q^2 (RLBSBF, reset with
 *          probability q, of a set bit with probability q)
 *
 * and an element never seen before is a false positive with probability
 * q^k. RSBF: q = 1 - (1 - 1/s)^n up to n = s (phase 1), then the BSBF
 * drift thinned by the insertion probability s / n, i.e. the same
 * equation in ln t (phase 2), and q frozen from s / n < p* on, where each
 * insertion swaps a 0 for a 1 in each part it changes (phase 3).
 *
 * The steady state is the root of (1 - q) = R(q) (1 - q^k) in (0, 1):
 * q^k = 0.382 for BSBF with k = 2, 0.161 (k = 3), 0.072 (k = 4), 0.034
 * (k = 5), against 35.5%, 15.3%, 6.95% and 3.28% in Table 1 at 8 MB, the
 * column where the stream is 15 times the memory; RLBSBF: 0.570 (k = 2),
 * 0.318 (k = 3), 0.181 (k = 4) against Table 3's 52.9%, 30.2% and 17.4%.
 * BSBFSD has no root below 1 (R(1) k = 1): its load creeps to 1, so its
 * FPR on an endless stream of distinct elements tends to 1 (Table 2 at
 * 8 MB: 76% to 85%); so do BSBF and RLBSBF with k = 1.
 */
#include "ddf_size.h"

static bool bsbf_kind(uint32_t kind)
{
	return kind == DDF_KIND_RSBF || kind == DDF_KIND_BSBF ||
	       kind == DDF_KIND_BSBFSD || kind == DDF_KIND_RLBSBF;
}

static double bsbf_powi(double q, uint32_t k)
{
	double r = 1;

	while (k--)
		r *= q;
	return r;
}

/* Share of insertions that reset a set bit of a part with load q. */
static double bsbf_reset(uint32_t kind, uint32_t k, double q)
{
	if (kind == DDF_KIND_BSBFSD)
		return q / k;
	if (kind == DDF_KIND_RLBSBF)
		return q * q;
	return q; /* BSBF, RSBF phase 2 */
}

static double bsbf_drift(uint32_t kind, uint32_t k, double q)
{
	return (1 - q) - bsbf_reset(kind, k, q) * (1 - bsbf_powi(q, k));
}

/*
 * dq/dx = drift(q) from x0 to x1 (fourth-order Runge-Kutta). The drift
 * slows down as q settles, so steps grow with x when x is time.
 */
static double bsbf_integrate(uint32_t kind, uint32_t k, double q, double x0,
			     double x1, bool grow)
{
	double x = x0;

	while (x < x1) {
		double h = grow ? 0.01 * (1 + x) : 0.001;
		double a, b, c, d;

		if (h > x1 - x)
			h = x1 - x;
		a = bsbf_drift(kind, k, q);
		b = bsbf_drift(kind, k, q + h / 2 * a);
		c = bsbf_drift(kind, k, q + h / 2 * b);
		d = bsbf_drift(kind, k, q + h * c);
		q += h / 6 * (a + 2 * b + 2 * c + d);
		if (q > 1)
			q = 1;
		x += h;
	}
	return q;
}

static double bsbf_p_star(const struct ddf_params *p)
{
	/* 0.03 (section 6) when not resolved yet */
	return p->p_star ? p->p_star / 4294967296.0 : 0.03;
}

double ddf_bsbf_fill(const struct ddf_params *p, double n)
{
	double s = (double)p->m, t, q;
	uint32_t k = p->k ? p->k : 2;

	if (!bsbf_kind(p->kind) || !p->m || k > DDF_MAX_K || !(n > 0))
		return 0;
	t = n / s;
	if (p->kind != DDF_KIND_RSBF)
		return bsbf_integrate(p->kind, k, 0, 0, t, true);
	/* phase 1: n <= s elements, all inserted, nothing reset */
	q = 1 - ddf_exp((n < s ? n : s) * ddf_log(1 - 1 / s));
	if (n <= s)
		return q;
	/* phase 2 in ln t, up to the position where s / n < p* */
	if (t > 1 / bsbf_p_star(p))
		t = 1 / bsbf_p_star(p);
	return bsbf_integrate(DDF_KIND_BSBF, k, q, 0, ddf_log(t), false);
}

double ddf_bsbf_steady_fill(const struct ddf_params *p)
{
	double lo = 0, hi = 1;
	uint32_t k = p->k ? p->k : 2, i;

	if (!bsbf_kind(p->kind) || k > DDF_MAX_K)
		return 1;
	if (p->kind == DDF_KIND_RSBF) {
		/* phase 1 ends at 1 - (1 - 1/s)^s, 1 - 1/e for large s */
		double q = p->m ? 1 - ddf_exp(p->m * ddf_log(1 - 1.0 / p->m)) :
				  1 - ddf_exp(-1);

		return bsbf_integrate(DDF_KIND_BSBF, k, q, 0,
				      -ddf_log(bsbf_p_star(p)), false);
	}
	/* (1 - q) = R(q) (1 - q^k), divided by 1 - q: decreasing in q */
	if (bsbf_reset(p->kind, k, 1) * k <= 1)
		return 1;
	for (i = 0; i < 200; i++) {
		double q = (lo + hi) / 2, sum = 0, pw = 1;
		uint32_t j;

		for (j = 0; j < k; j++) {
			sum += pw;
			pw *= q;
		}
		if (1 - bsbf_reset(p->kind, k, q) * sum > 0)
			lo = q;
		else
			hi = q;
	}
	return (lo + hi) / 2;
}

double ddf_bsbf_fpr(const struct ddf_params *p)
{
	if (!bsbf_kind(p->kind))
		return 1;
	return bsbf_powi(ddf_bsbf_steady_fill(p), p->k ? p->k : 2);
}

int ddf_bsbf_size(const struct ddf_filter_type *t,
		  const struct ddf_size_req *req, struct ddf_params *out,
		  struct ddf_size_report *rep, const char **why)
{
	struct ddf_params probe;
	const char *dummy;
	uint64_t fixed, words;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (!t || t->kind != req->kind || !bsbf_kind(req->kind)) {
		*why = "not an RSBF/BSBF-family filter type";
		return DDF_EINVAL;
	}
	ddf_size_copy_given(req, out);
	out->window = 0; /* the family forgets at random: no window */
	out->fp_bits = req->fp_bits;
	if (!req->bytes) {
		*why = "these filters are sized by memory: give bytes (a target fpr only chooses k)";
		return DDF_EINVAL;
	}
	if (req->fpr < 0 || req->fpr > 1) {
		*why = "the target fpr must be in (0, 1]";
		return DDF_ERANGE;
	}
	out->k = req->k ? req->k : DDF_MAX_K + 1;
	if (!req->k && req->fpr == 0) {
		out->k = 2; /* section 6.3 */
	} else if (!req->k) {
		/* the smallest k meeting the target: FNR grows with k */
		for (out->k = 1; out->k <= DDF_MAX_K; out->k++)
			if (ddf_bsbf_fpr(out) <= req->fpr)
				break;
	}
	if (out->k > DDF_MAX_K) {
		*why = req->k ? "k, the number of Bloom filters, must be 1..64" :
				"no k reaches the target fpr (BSBFSD's tends to 1 on a long stream)";
		return DDF_ERANGE;
	}
	if (req->k && req->fpr > 0 && ddf_bsbf_fpr(out) > req->fpr) {
		*why = "the given k misses the target fpr";
		return DDF_ERANGE;
	}
	/* what the caller's memory holds besides the parts */
	probe = *out;
	probe.m = 64;
	fixed = ddf_filter_memsize_type(t, &probe);
	if (!fixed) {
		*why = "k parts do not fit the memory limit";
		return DDF_EFBIG;
	}
	fixed -= (uint64_t)out->k * 8;
	words = req->bytes > fixed ? (req->bytes - fixed) / 8 / out->k : 0;
	if (!words) {
		*why = "the memory budget does not hold one word per part";
		return DDF_ERANGE;
	}
	out->m = words * 64;
	err = ddf_params_resolve_type(t, out, why);
	if (err)
		return err;
	if (rep) {
		rep->fpr = ddf_bsbf_fpr(out);
		rep->bytes = ddf_filter_memsize_type(t, out);
		rep->window = 0;
	}
	return 0;
}
