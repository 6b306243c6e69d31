// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing of the block decaying Bloom filter (userspace only: floating
 * point).
 *
 * Counters of c bits (C = 2^c - 1) over blocks of d = ceil((W - 1) /
 * (C - 1)) elements. A counter that an arrival finds non-zero was set by
 * one of the last L elements, where L = (C - 1) d + delta and delta in
 * 1 .. d is how long ago the counter's slice was last decremented. On a
 * stream of distinct elements a counter is thus non-zero with probability
 * 1 - a^L, a = (1 - 1/m)^k, and a foreign key is reported when its k
 * counters are:
 *   worst case (every delta = d, L = C d):   (1 - a^(C d))^k
 *   mean (delta uniform over 1 .. d, the counters' phases):
 *     (1 - a^((C - 1) d) * a (1 - a^d) / ((1 - a) d))^k
 * The worst case is ddf_bdbf_fpr() and drives sizing; the mean is what a
 * long stream measures. Both count a slack element, one that left the
 * window at most C d - W elements ago but is still reported, as a false
 * positive of the sliding window only if it is foreign to the key.
 *
 * For a budget: every counter width c in 2 .. 16 and every k; the lowest
 * worst case wins. For a target: the fewest words meeting it.
 */
#include "ddf_size.h"

static uint64_t bdbf_d(uint64_t W, uint32_t c)
{
	uint64_t C1 = (1ull << c) - 2;

	return W > 1 ? (W - 2 + C1) / C1 : 1;
}

static double bdbf_fpr_of(uint64_t m, uint32_t k, uint32_t c, uint64_t W,
			  bool mean)
{
	double a, C = (double)((1ull << c) - 1), d = (double)bdbf_d(W, c), s;

	if (!m || !k || c < 2 || c > 32 || !W)
		return 1;
	a = ddf_pow(1 - 1.0 / m, k);
	if (!mean)
		return ddf_pow(1 - ddf_pow(a, C * d), k);
	s = ddf_pow(a, (C - 1) * d) * a * (1 - ddf_pow(a, d)) /
	    ((1 - a) * d);
	return ddf_pow(1 - s, k);
}

double ddf_bdbf_fpr(const struct ddf_params *p)
{
	if (p->kind != DDF_KIND_BDBF)
		return 1;
	return bdbf_fpr_of(p->m, p->k, p->cell_bits, p->window, false);
}

double ddf_bdbf_fpr_mean(const struct ddf_params *p)
{
	if (p->kind != DDF_KIND_BDBF)
		return 1;
	return bdbf_fpr_of(p->m, p->k, p->cell_bits, p->window, true);
}

uint64_t ddf_bdbf_block(uint64_t window, uint32_t cell_bits)
{
	return cell_bits >= 2 && cell_bits <= 32 ? bdbf_d(window, cell_bits) :
						   0;
}

int ddf_bdbf_size(const struct ddf_filter_type *t,
		  const struct ddf_size_req *req, struct ddf_params *out,
		  struct ddf_size_report *rep, const char **why)
{
	uint32_t c, k, kmin = req->k ? req->k : 1;
	uint32_t kmax = req->k ? req->k : DDF_MAX_K;
	struct ddf_params probe;
	double best = 2;
	uint64_t fixed, best_words = 0;
	const char *dummy;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (!t || t->kind != req->kind || req->kind != DDF_KIND_BDBF) {
		*why = "not the b_DBF filter type";
		return DDF_EINVAL;
	}
	ddf_size_copy_given(req, out);
	out->fp_bits = req->fp_bits;
	if (!req->window) {
		*why = "b_DBF sizing needs a window";
		return DDF_EINVAL;
	}
	if (req->k > DDF_MAX_K) {
		*why = "b_DBF: at most 64 hash functions (k)";
		return DDF_ERANGE;
	}
	probe = (struct ddf_params){ .kind = DDF_KIND_BDBF, .m = 1, .k = 1,
				     .cell_bits = 2, .window = 1 };
	fixed = ddf_filter_memsize_type(t, &probe) - sizeof(uint64_t);
	if (req->bytes) {
		uint64_t words;

		if (req->bytes < fixed + sizeof(uint64_t)) {
			*why = "the memory budget does not hold one word of counters";
			return DDF_ERANGE;
		}
		words = (req->bytes - fixed) / sizeof(uint64_t);
		for (c = 2; c <= 16; c++)
			for (k = kmin; k <= kmax; k++) {
				uint64_t m = words * (64 / c);
				double x = bdbf_fpr_of(m, k, c, req->window,
						       false);

				if (x < best) {
					best = x;
					out->m = m;
					out->k = k;
					out->cell_bits = c;
				}
			}
		if (req->fpr > 0 && best > req->fpr) {
			*why = "the memory budget misses the target fpr";
			return DDF_ERANGE;
		}
	} else if (req->fpr > 0 && req->fpr < 1) {
		for (c = 2; c <= 16; c++)
			for (k = kmin; k <= kmax; k++) {
				uint64_t lo = 0, hi = 1, mid, cpw = 64 / c;

				while (bdbf_fpr_of(hi * cpw, k, c, req->window,
						   false) > req->fpr &&
				       hi < (1ull << 34))
					hi *= 2;
				if (hi >= (1ull << 34))
					continue;
				while (hi - lo > 1) {
					mid = lo + (hi - lo) / 2;
					if (bdbf_fpr_of(mid * cpw, k, c,
							req->window, false) <=
					    req->fpr)
						hi = mid;
					else
						lo = mid;
				}
				if (!best_words || hi < best_words) {
					best_words = hi;
					out->m = hi * cpw;
					out->k = k;
					out->cell_bits = c;
				}
			}
		if (!best_words) {
			*why = "b_DBF: no shape within the memory limit reaches the fpr";
			return DDF_ERANGE;
		}
	} else {
		*why = "b_DBF sizing needs a target fpr in (0, 1) or a memory budget";
		return DDF_EINVAL;
	}
	err = ddf_params_resolve_type(t, out, why);
	if (err)
		return err;
	if (rep) {
		rep->fpr = ddf_bdbf_fpr(out);
		rep->bytes = ddf_filter_memsize_type(t, out);
		rep->window = out->window;
	}
	return 0;
}
