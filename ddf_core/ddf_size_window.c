// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing and analytic false-positive rates of the window filters (exact,
 * SHF, CSHF) and of the queuing construction, from "Approaching Optimal
 * Duplicate Detection in a Sliding Window" (Geraud-Stewart, Lombard-Platet,
 * Naccache). Userspace only: floating point.
 *
 * SHF and CSHF with h-bit short hashes over a window w answer DUPLICATE for
 * an unseen key iff its short hash meets one of the w others:
 *   FP = 1 - (1 - 2^-h)^w.
 * Theorem 3 is this with the paper's hash sizes for a memory of M bits,
 *   SHF  h = M/(2w) - log2(w)/2   FP = 1 - (1 - sqrt(w 2^(-M/w)))^w
 *   CSHF h = M/w                  FP = 1 - (1 - 2^(-M/w))^w
 * and Algorithm 1 floors h to whole bits (ddf_shf_bits). The paper's M is
 * a model (2wh + w log2 w bits for SHF); the real filter stores its
 * dictionary as 64-bit slots at load factor <= 1/2 and reports its bytes.
 *
 * Queuing construction, Theorem 5: after m insertions, L subfilters of
 * which L - 1 hold c insertions and the newest m mod c,
 *   FP_Q = 1 - (1 - FP_F(c))^(L-1) (1 - FP_F(m mod c)),
 * and its average over a rotation (Theorem 7) replaces the last factor by
 * the mean of 1 - FP_F(l), l = 0 .. c-1. FP_F(n), the rate of a subfilter
 * after n distinct insertions, is modelled for inner kinds exact (0),
 * SHF/CSHF (the formula above over min(n, w)) and the QHT family: a row of
 * k cells receives each insertion with probability 1/N and gains a cell
 * with probability a(o) given o filled cells (QHT stores a fingerprint
 * only if absent: a(o) = 1 - o/S; QHTD and QQHTD always: a(o) = 1), and an
 * unseen key matches with probability o/S (QHT, distinct fingerprints) or
 * about 1 - (1 - 1/S)^o. The row's distribution is that Markov chain after
 * n steps, computed by doubling. Other inner kinds have no model here: the
 * functions return -1 (ddf_window_fpr: 1, no bound).
 */
#include "ddf_size.h"

/* 1 - e^-t for t >= 0 without cancellation */
static double ws_one_minus_exp_neg(double t)
{
	if (t < 1e-5)
		return t - t * t / 2 + t * t * t / 6;
	return 1 - ddf_exp(-t);
}

/* -log(1 - x) for 0 <= x < 1 */
static double ws_neg_log1m(double x)
{
	if (x < 1e-5)
		return x + x * x / 2 + x * x * x / 3;
	return -ddf_log(1 - x);
}

/* 1 - (1 - x)^n */
static double ws_hit(double x, double n)
{
	if (x >= 1)
		return n > 0 ? 1 : 0;
	if (x <= 0 || n <= 0)
		return 0;
	return ws_one_minus_exp_neg(n * ws_neg_log1m(x));
}

static double ws_log2(double x)
{
	return ddf_log(x) / DDF_LN2;
}

double ddf_shf_fpr_bits(uint32_t h, double w)
{
	if (!h)
		return w > 0 ? 1 : 0;
	return ws_hit(ddf_ldexp_int(1.0, -(int)(h > 1000 ? 1000 : h)), w);
}

/* The paper's (real-valued) short hash size for memory M bits. */
static double ws_paper_bits(uint32_t kind, double M, double w)
{
	if (kind == DDF_KIND_CSHF)
		return M / w;
	return M / (2 * w) - ws_log2(w) / 2;
}

double ddf_shf_fpr_paper(uint32_t kind, double M, double w)
{
	double h;

	if (!(w > 0))
		return 0;
	h = ws_paper_bits(kind, M, w);
	if (h <= 0)
		return 1;
	return ws_hit(ddf_exp(-h * DDF_LN2), w);
}

uint32_t ddf_shf_bits(uint32_t kind, double M, uint64_t w)
{
	double h;

	if (!w || !(M > 0))
		return 0;
	/* a hair above: M/(2w) - log2(w)/2 is often a whole number */
	h = ws_paper_bits(kind, M, (double)w) + 1e-9;
	if (h < 1)
		return 0;
	return h >= 64 ? 64 : (uint32_t)h;
}

/*
 * The window at which Theorem 3's FP reaches 1/2 for M bits. FP rises
 * with w (fewer bits per hash, more hashes to meet), so bisect log w
 * between 1 and M, where FP is 1 (SHF: h < 0; CSHF: 1 - 2^-M).
 */
double ddf_shf_wmax(uint32_t kind, double M)
{
	double lo = 0, hi, mid;
	int i;

	if (!(M > 1))
		return 1;
	hi = ddf_log(M);
	if (ddf_shf_fpr_paper(kind, M, 1) >= 0.5)
		return 1;
	for (i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (ddf_shf_fpr_paper(kind, M, ddf_exp(mid)) < 0.5)
			lo = mid;
		else
			hi = mid;
	}
	return ddf_exp((lo + hi) / 2);
}

/* The QHT row model: upper bidiagonal chains of at most k + 1 states. */
#define WS_MAXD (DDF_MAX_K + 1)

struct ws_mat {
	double a[WS_MAXD][WS_MAXD];
};

struct ws_chain {
	uint32_t d; /* states 0 .. d - 1 */
	double stay[WS_MAXD], up[WS_MAXD]; /* per filter insertion */
	double fp[WS_MAXD]; /* FP of a lookup given the state */
};

/* c = a b, upper triangular (c may not alias a or b) */
static void ws_mul(const struct ws_chain *ch, const struct ws_mat *a,
		   const struct ws_mat *b, struct ws_mat *c)
{
	uint32_t i, j, l;

	for (i = 0; i < ch->d; i++)
		for (j = 0; j < ch->d; j++) {
			double s = 0;

			for (l = i; l <= j; l++)
				s += a->a[i][l] * b->a[l][j];
			c->a[i][j] = s;
		}
}

/* c = a T */
static void ws_mul_step(const struct ws_chain *ch, const struct ws_mat *a,
			struct ws_mat *c)
{
	uint32_t i, j;

	for (i = 0; i < ch->d; i++)
		for (j = 0; j < ch->d; j++)
			c->a[i][j] = a->a[i][j] * ch->stay[j] +
				     (j ? a->a[i][j - 1] * ch->up[j - 1] : 0);
}

/*
 * From state 0: *fp_n = E[fp] after n insertions and, if sum is given,
 * *sum = sum of E[fp] after l insertions, l = 0 .. n - 1. Doubling on
 * P = T^m and S = T^0 + .. + T^(m-1), from the top bit of n.
 */
static void ws_chain_run(const struct ws_chain *ch, uint64_t n, double *fp_n,
			 double *sum)
{
	static const struct ws_mat zero;
	struct ws_mat P = zero, S = zero, t1, t2;
	uint32_t i, j;
	int b;

	for (i = 0; i < ch->d; i++)
		P.a[i][i] = 1;
	for (b = 63; b >= 0; b--) {
		if (!(n >> b))
			continue;
		/* m -> 2m: S += P S, P = P P */
		ws_mul(ch, &P, &S, &t1);
		ws_mul(ch, &P, &P, &t2);
		for (i = 0; i < ch->d; i++)
			for (j = 0; j < ch->d; j++)
				S.a[i][j] += t1.a[i][j];
		P = t2;
		if ((n >> b) & 1) {
			/* m -> m + 1: S += P, P = P T */
			for (i = 0; i < ch->d; i++)
				for (j = 0; j < ch->d; j++)
					S.a[i][j] += P.a[i][j];
			ws_mul_step(ch, &P, &t1);
			P = t1;
		}
	}
	*fp_n = 0;
	if (sum)
		*sum = 0;
	for (j = 0; j < ch->d; j++) {
		*fp_n += P.a[0][j] * ch->fp[j];
		if (sum)
			*sum += S.a[0][j] * ch->fp[j];
	}
}

static bool ws_qht_chain(const struct ddf_params *p, struct ws_chain *ch)
{
	double S, N = (double)p->m;
	uint32_t o;

	if (!p->k || p->k > DDF_MAX_K || !p->fp_bits || p->fp_bits > 64 ||
	    !p->m)
		return false;
	S = p->fp_bits >= 64 ? 18446744073709551615.0 :
			       (double)((1ull << p->fp_bits) - 1);
	ch->d = p->k + 1;
	for (o = 0; o < ch->d; o++) {
		double a = p->kind == DDF_KIND_QHT ? 1 - o / S : 1;

		if (a < 0 || o == p->k)
			a = 0;
		ch->up[o] = a / N;
		ch->stay[o] = 1 - a / N;
		ch->fp[o] = p->kind == DDF_KIND_QHT ? (o < S ? o / S : 1) :
						      ws_hit(1 / S, o);
	}
	return true;
}

/*
 * FP_F(n) of the filter of resolved params p after n distinct insertions
 * and, if sum is given, the sum of FP_F(l), l = 0 .. n-1. -1: no model.
 */
static double ws_fp_after(const struct ddf_params *p, uint64_t n, double *sum)
{
	struct ws_chain ch;
	double fp, a, x;
	uint64_t w = p->window, n1;

	switch (p->kind) {
	case DDF_KIND_EXACT:
		if (sum)
			*sum = 0;
		return 0;
	case DDF_KIND_SHF:
	case DDF_KIND_CSHF:
		if (!p->fp_bits || p->fp_bits > 64 || !w)
			return -1;
		/* FP(l) = 1 - q^min(l, w), q = 1 - 2^-h = e^-a */
		x = ddf_ldexp_int(1.0, -(int)p->fp_bits);
		a = ws_neg_log1m(x);
		if (sum) {
			n1 = n < w + 1 ? n : w + 1; /* l < n1: rising part */
			*sum = (double)n1 - ws_one_minus_exp_neg(a * n1) /
						    ws_one_minus_exp_neg(a);
			if (n > n1)
				*sum += (double)(n - n1) * ddf_shf_fpr_bits(
								   p->fp_bits,
								   (double)w);
		}
		return ddf_shf_fpr_bits(p->fp_bits, (double)(n < w ? n : w));
	case DDF_KIND_QHT:
	case DDF_KIND_QHTD:
	case DDF_KIND_QQHTD:
		if (!ws_qht_chain(p, &ch))
			return -1;
		ws_chain_run(&ch, n, &fp, sum);
		return fp;
	default:
		return -1;
	}
}

double ddf_window_fp_after(const struct ddf_params *p, uint64_t n)
{
	return ws_fp_after(p, n, NULL);
}

/* The queue's subfilters as resolve left them: kind and window c. */
static bool ws_queue_inner(const struct ddf_params *p, struct ddf_params *ip,
			   uint64_t *c)
{
	if (p->kind != DDF_KIND_QUEUE || !p->subfilters || !p->window)
		return false;
	*c = (p->window + p->subfilters - 1) / p->subfilters;
	*ip = *p;
	ip->kind = p->inner_kind;
	ip->window = *c;
	ip->inner_kind = 0;
	ip->subfilters = 0;
	return true;
}

/* 1 - (1 - a)^(L - 1) (1 - b) */
static double ws_queue_combine(double a, double b, uint32_t L)
{
	if (a >= 1 && L > 1)
		return 1;
	if (b >= 1)
		return 1;
	return ws_one_minus_exp_neg((L - 1) * ws_neg_log1m(a) +
				    ws_neg_log1m(b));
}

double ddf_queue_fpr_at(const struct ddf_params *p, uint64_t phase)
{
	struct ddf_params ip;
	double full, part;
	uint64_t c;

	if (!ws_queue_inner(p, &ip, &c))
		return -1;
	full = ws_fp_after(&ip, c, NULL);
	part = ws_fp_after(&ip, phase % c, NULL);
	if (full < 0 || part < 0)
		return -1;
	return ws_queue_combine(full, part, p->subfilters);
}

double ddf_queue_fpr_avg(const struct ddf_params *p)
{
	struct ddf_params ip;
	double full, sum;
	uint64_t c;

	if (!ws_queue_inner(p, &ip, &c))
		return -1;
	full = ws_fp_after(&ip, c, &sum);
	if (full < 0)
		return -1;
	return ws_queue_combine(full, sum / (double)c, p->subfilters);
}

double ddf_window_fpr(const struct ddf_params *p)
{
	uint64_t c;
	double fp;

	switch (p->kind) {
	case DDF_KIND_EXACT:
		return 0;
	case DDF_KIND_SHF:
	case DDF_KIND_CSHF:
		return ddf_shf_fpr_bits(p->fp_bits, (double)p->window);
	case DDF_KIND_QUEUE:
		if (!p->subfilters || !p->window)
			return 1;
		/* the worst point: just before a rotation */
		c = (p->window + p->subfilters - 1) / p->subfilters;
		fp = ddf_queue_fpr_at(p, c - 1);
		return fp < 0 ? 1 : fp;
	default:
		return 1;
	}
}

/* SHF/CSHF: the short hash size for the request. */
static int ws_shf_bits_for(const struct ddf_filter_type *t,
			   const struct ddf_size_req *req,
			   struct ddf_params *out, const char **why)
{
	uint32_t h;

	if (req->fp_bits) {
		out->fp_bits = req->fp_bits;
		if (req->fpr > 0 &&
		    ddf_shf_fpr_bits(req->fp_bits, (double)req->window) >
			    req->fpr) {
			*why = "the given fp_bits miss the target fpr";
			return DDF_ERANGE;
		}
		return 0;
	}
	if (req->fpr != 0) {
		if (!(req->fpr > 0 && req->fpr <= 1)) {
			*why = "the target fpr must be in (0, 1]";
			return DDF_ERANGE;
		}
		for (h = 1; h <= 64; h++)
			if (ddf_shf_fpr_bits(h, (double)req->window) <=
			    req->fpr) {
				out->fp_bits = h;
				return 0;
			}
		*why = "64-bit short hashes miss the target fpr for this window";
		return DDF_ERANGE;
	}
	if (req->bytes) {
		/* the most bits whose filter fits the budget */
		for (h = 64; h >= 1; h--) {
			out->fp_bits = h;
			if (t->memsize(out) && t->memsize(out) <= req->bytes)
				return 0;
		}
		*why = "the memory budget is below a 1-bit SHF of this window";
		return DDF_ERANGE;
	}
	*why = "SHF sizing needs a target fpr, a budget (bytes) or fp_bits";
	return DDF_EINVAL;
}

int ddf_window_size(const struct ddf_filter_type *t,
		    const struct ddf_size_req *req, struct ddf_params *out,
		    struct ddf_size_report *rep, const char **why)
{
	const char *dummy;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (!t || t->kind != req->kind) {
		*why = "the filter type does not match the requested kind";
		return DDF_EINVAL;
	}
	if (req->kind == DDF_KIND_QUEUE) {
		*why = "size a queue by resolving params with inner_kind and subfilters";
		return DDF_EINVAL;
	}
	if (req->kind != DDF_KIND_EXACT && req->kind != DDF_KIND_SHF &&
	    req->kind != DDF_KIND_CSHF) {
		*why = "not a window filter type";
		return DDF_EINVAL;
	}
	ddf_size_copy_given(req, out);
	out->k = req->k;
	if (!req->window) {
		*why = "window filters need a window";
		return DDF_EINVAL;
	}
	if (req->kind == DDF_KIND_EXACT) {
		out->fp_bits = req->fp_bits; /* resolve refuses it */
	} else {
		err = ws_shf_bits_for(t, req, out, why);
		if (err)
			return err;
	}
	err = ddf_params_resolve_type(t, out, why);
	if (err)
		return err;
	rep->bytes = ddf_filter_memsize_type(t, out);
	if (req->bytes && rep->bytes > req->bytes) {
		*why = "the window does not fit the memory budget";
		return DDF_ERANGE;
	}
	rep->fpr = ddf_window_fpr(out);
	rep->window = out->window;
	return 0;
}
