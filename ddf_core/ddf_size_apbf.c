// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * APBF/APBBF analytics and sizing: the paper's false-positive recursion F
 * (section 5.3), the expected accesses of a query that returns false (5.4),
 * fill models, and the search for the cheapest (k, l) meeting a target.
 * Floating point: userspace only.
 */
#include "ddf_apbf.h"
#include "ddf_size.h"

double ddf_apbf_F(uint32_t k, uint32_t l, const double *r)
{
	double nxt[DDF_MAX_K + 1], cur[DDF_MAX_K + 1];

	if (k < 1 || k > DDF_MAX_K)
		return 1.0;
	/* F(a, k + l): 1 if a == k, else 0 (i > l + a) */
	for (uint32_t a = 0; a <= k; a++)
		nxt[a] = a == k;
	for (int i = (int)(k + l) - 1; i >= 0; i--) {
		for (uint32_t a = 0; a <= k; a++) {
			if (a == k)
				cur[a] = 1.0;
			else if ((uint32_t)i > l + a)
				cur[a] = 0.0;
			else
				cur[a] = r[i] * nxt[a + 1] +
					 (1.0 - r[i]) * nxt[0];
		}
		memcpy(nxt, cur, sizeof(double) * (k + 1));
	}
	return nxt[0];
}

/*
 * The paper's A(k, l, p, c, a, i) walks Algorithm 1 state by state. A query
 * is a sequence of runs: a run starts at slice s with p matches carried
 * over, matches c < k - p slices and misses the next one, and the next run
 * starts at s + c - k with p = c. Runs always start further left, so the
 * expectations over (s, p) fill in increasing s without recursion:
 * pf = P(query false from here), ef = E[accesses from here; false].
 */
double ddf_apbf_A_false(uint32_t k, uint32_t l, const double *r)
{
	if (k < 1 || k > DDF_MAX_K || l > DDF_MAX_L)
		return 0.0;

	double pf[l + 1][k], ef[l + 1][k]; /* at most 263 KiB of stack */

	for (uint32_t s = 0; s <= l; s++) {
		for (uint32_t p = 0; p < k; p++) {
			double reach = 1.0, P = 0.0, E = 0.0;

			for (uint32_t c = 0; c < k - p; c++) {
				double miss = reach * (1.0 - r[s + c]);
				int nx = (int)(s + c) - (int)k;
				double npf = nx < 0 ? 1.0 : pf[nx][c];
				double nef = nx < 0 ? 0.0 : ef[nx][c];

				P += miss * npf;
				E += miss * ((c + 1) * npf + nef);
				reach *= r[s + c];
			}
			pf[s][p] = P;
			ef[s][p] = E;
		}
	}
	return pf[l][0] > 0.0 ? ef[l][0] / pf[l][0] : 0.0;
}

uint64_t ddf_apbf_gen_size(const struct ddf_params *p)
{
	const struct ddf_apbbf_shape *s;

	if (p->kind == DDF_KIND_APBF)
		return ddf_apbf_gen(p->m, p->k);
	s = ddf_apbbf_shape(p->block_bits, p->block_hashes);
	return s ? ddf_apbbf_gen(p->m, p->k, s) : 0;
}

double ddf_apbbf_segment_fpr(uint64_t blocks, uint32_t B, uint32_t b,
			     double n)
{
	/* block load ~ Poisson(n / blocks); a part of B/b bits has one bit */
	double lam = n / (double)blocks, q = 1.0 - (double)b / B;
	double pr = ddf_exp(-lam), sum = 0.0, ql = 1.0;
	uint32_t top = (uint32_t)(lam + 12.0 * ddf_sqrt(lam) + 40.0);

	for (uint32_t load = 0; load <= top; load++) {
		sum += pr * ddf_powu(1.0 - ql, b);
		ql *= q;
		pr *= lam / (load + 1);
	}
	return sum;
}

void ddf_apbf_fills(const struct ddf_params *p, const double *n, double *r,
		    bool linear)
{
	uint64_t g = ddf_apbf_gen_size(p);

	for (uint32_t i = 0; i < p->k + p->l; i++) {
		uint32_t gens = i < p->k ? i + 1 : p->k;
		double ni = n ? n[i] : (double)gens * g;

		/* full segments (k generations each) share one load: one sum */
		if (!n && i > p->k)
			r[i] = r[p->k];
		else if (p->kind == DDF_KIND_APBBF)
			r[i] = ddf_apbbf_segment_fpr(p->m, p->block_bits,
						     p->block_hashes, ni);
		else if (linear)
			r[i] = ni / (2.0 * p->k * g);
		else
			r[i] = 1.0 - ddf_exp(ni * ddf_log(1.0 - 1.0 / p->m));
	}
}

double ddf_apbf_fpr(const struct ddf_params *p)
{
	double r[DDF_MAX_K + DDF_MAX_L];

	ddf_apbf_fills(p, NULL, r, false);
	return ddf_apbf_F(p->k, p->l, r);
}

static void ddf_apbf_report(const struct ddf_filter_type *t,
			    const struct ddf_params *p,
			    struct ddf_size_report *rep)
{
	double r[DDF_MAX_K + DDF_MAX_L];

	ddf_apbf_fills(p, NULL, r, false);
	rep->fpr = ddf_apbf_F(p->k, p->l, r);
	rep->accesses_false = ddf_apbf_A_false(p->k, p->l, r);
	ddf_apbf_fills(p, NULL, r, true);
	rep->fpr_paper = ddf_apbf_F(p->k, p->l, r);
	rep->bytes = ddf_filter_memsize_type(t, p);
	rep->window = p->flags & DDF_PF_TIME ? 0 : p->window;
	rep->lines = ddf_apbf_lines(p);
	rep->atomics = ddf_apbf_atomics(p);
}

uint32_t ddf_apbf_lines(const struct ddf_params *p)
{
	return p->k ? p->k + p->l / p->k : 0;
}

uint32_t ddf_apbf_atomics(const struct ddf_params *p)
{
	if (p->kind == DDF_KIND_APBBF && p->block_bits == 512)
		return p->k * p->block_hashes;
	return p->k;
}

/*
 * What a search keeps: the best shape so far, and why none was found. A
 * speed search ranks (lines + atomics, lines, bytes, rate) within bound
 * bytes; the others rank (bytes, rate) meeting the target, or the rate
 * alone within a byte budget.
 */
struct ddf_apbf_best {
	bool found, speed;
	uint64_t bound;
	double fpr;
	uint64_t bytes;
	uint32_t lines, atomics;
	struct ddf_params p;
	int err;
	const char *why;
};

/* -1, 0, 1: a before, level with, after b */
static int ddf_cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static void ddf_apbf_try(const struct ddf_filter_type *t,
			 const struct ddf_size_req *req, struct ddf_params *p,
			 struct ddf_apbf_best *best)
{
	uint32_t lines = ddf_apbf_lines(p), atomics = ddf_apbf_atomics(p);
	const char *w;
	uint64_t bytes;
	double fpr;
	int e, c = 0;

	/* the rank a speed search puts first needs no resolve */
	if (best->speed && best->found) {
		c = ddf_cmp_u64(lines + atomics, best->lines + best->atomics);
		if (!c)
			c = ddf_cmp_u64(lines, best->lines);
		if (c > 0)
			return;
	}
	e = ddf_params_resolve_type(t, p, &w);
	if (e) {
		best->err = e;
		best->why = w;
		return;
	}
	bytes = ddf_filter_memsize_type(t, p);
	if (best->speed) {
		if (bytes > best->bound ||
		    (best->found && !c && bytes > best->bytes))
			return;
		fpr = ddf_apbf_fpr(p);
		if (fpr > req->fpr || (best->found && !c &&
				       bytes == best->bytes && fpr >= best->fpr))
			return;
	} else if (req->bytes) {
		if (bytes > req->bytes)
			return;
		fpr = ddf_apbf_fpr(p);
		if ((req->fpr > 0 && fpr > req->fpr) || fpr >= best->fpr)
			return;
	} else {
		/* larger than the best found: its rate is moot */
		if (bytes > best->bytes)
			return;
		fpr = ddf_apbf_fpr(p);
		if (fpr > req->fpr ||
		    (bytes == best->bytes && fpr >= best->fpr))
			return;
	}
	best->found = true;
	best->fpr = fpr;
	best->bytes = bytes;
	best->lines = lines;
	best->atomics = atomics;
	best->p = *p;
}

/*
 * Search (k, l) (and the block shape for APBBF, unless given). l is kept
 * within 4k + 8: larger l buys little memory and costs query accesses and
 * slack (paper, end of 5.5).
 */
static void ddf_apbf_search(const struct ddf_filter_type *t,
			    const struct ddf_size_req *req,
			    struct ddf_apbf_best *best)
{
	static const uint32_t shapes[][2] = {
		{ 512, 8 }, { 512, 4 }, { 64, 8 }, { 64, 4 }
	};
	bool blocked = req->kind == DDF_KIND_APBBF;
	uint32_t kmax = blocked ? 8 : 32, nshape = blocked ? 4 : 1;

	for (uint32_t si = 0; si < nshape; si++) {
		uint32_t B = shapes[si][0], b = shapes[si][1];

		if (blocked && req->block_bits &&
		    (req->block_bits != B || (req->block_hashes &&
					      req->block_hashes != b)))
			continue;
		for (uint32_t k = 1; k <= kmax; k++) {
			if (req->k && k != req->k)
				continue;
			for (uint32_t l = 1; l <= 4 * k + 8 && l <= DDF_MAX_L;
			     l++) {
				struct ddf_params p = { 0 };

				if (req->l && l != req->l)
					continue;
				p.kind = req->kind;
				p.flags = req->flags;
				p.window = req->window;
				p.window_ns = req->window_ns;
				p.cpus = req->cpus;
				p.k = k;
				p.l = l;
				if (blocked) {
					p.block_bits = B;
					p.block_hashes = b;
				}
				ddf_apbf_try(t, req, &p, best);
			}
		}
	}
}

/*
 * With a target rate, the fewest bytes meeting it (tune memory), or among
 * the shapes meeting it within twice those bytes, the fewest cache lines
 * plus atomic words per new key, then the fewest lines, then the fewest
 * bytes (tune speed). A locked OR costs about what a line does that the
 * prefetch overlaps with the others: docs/tuning.md has the measurements.
 * With a byte budget, the lowest rate fitting it.
 */
int ddf_apbf_size(const struct ddf_filter_type *t,
		  const struct ddf_size_req *req, struct ddf_params *out,
		  struct ddf_size_report *rep, const char **why)
{
	struct ddf_apbf_best best = {
		.fpr = 2.0, .bytes = ~0ull, .err = DDF_ERANGE,
		.why = "no apbf shape meets the target",
	};

	if (!req->window) {
		*why = "a window (or, for time windows, the packets per window) is needed";
		return DDF_EINVAL;
	}
	if ((req->fpr <= 0.0 || req->fpr >= 1.0) && !req->bytes) {
		*why = "give a target false-positive rate in (0, 1) or a memory size";
		return DDF_EINVAL;
	}
	if (req->tune > DDF_TUNE_SPEED) {
		*why = "tune must be speed or memory";
		return DDF_EINVAL;
	}
	ddf_apbf_search(t, req, &best);
	if (best.found && !req->bytes && req->tune == DDF_TUNE_SPEED) {
		struct ddf_apbf_best fast = best;

		fast.speed = true;
		fast.found = false;
		fast.bound = 2 * best.bytes;
		ddf_apbf_search(t, req, &fast);
		if (fast.found) /* the least-memory shape is one candidate */
			best = fast;
	}
	if (!best.found) {
		*why = req->bytes && best.err == DDF_ERANGE ?
			"the memory budget is too small for this window and rate" :
			best.why;
		return best.err;
	}
	*out = best.p;
	ddf_apbf_report(t, out, rep);
	return 0;
}
