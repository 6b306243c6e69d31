/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Sizing and analytic error rates. These use floating point: userspace
 * (ddfctl, ddfbench, tests) sizes a filter and hands resolved integer
 * parameters to the kernel, which never needs this file. The files named
 * ddf_size*.c are therefore left out of the kernel build.
 *
 * The same request sizes the same filter on every CPU and compiler: each
 * operation rounds on its own (every build compiles with -ffp-contract=off,
 * as a fused multiply-add would round a * b + c once and move a shape's
 * boundary by an ulp; tests/core/fp_contract.sh checks the flag is in
 * force) and the only functions are ddf_math.h's, not libm's, whose last
 * bit may differ between hosts. GCC ignores #pragma STDC FP_CONTRACT,
 * hence the flag.
 */
#ifndef DDF_SIZE_H
#define DDF_SIZE_H

#include "ddf_filter.h"
#include "ddf_math.h"

/*
 * How apbf and apbbf choose among the shapes meeting a target rate
 * (ddf_size_apbf.c, docs/tuning.md). 0 is the least memory, so a request
 * that names no tune sizes as before; ddfctl and ddfbench ask for speed.
 */
enum ddf_tune {
	DDF_TUNE_MEMORY, /* the fewest bytes */
	DDF_TUNE_SPEED, /* within 2x those: fewest lines + atomics, lines */
};

struct ddf_size_req {
	uint32_t kind;
	uint32_t flags; /* DDF_PF_TIME */
	uint64_t window; /* elements (count) or elements per window (time) */
	uint64_t window_ns;
	double fpr; /* target false-positive rate, 0 if bytes given */
	uint64_t bytes; /* memory budget, 0 if fpr given */
	/* optional fixed shape (0 = choose) */
	uint32_t k, l, block_bits, block_hashes, fp_bits;
	uint32_t cpus; /* APBF/APBBF: params.cpus, kept through the search */
	uint32_t tune; /* APBF/APBBF with a target rate: enum ddf_tune */
};

struct ddf_size_report {
	double fpr; /* analytic false-positive rate of the chosen params */
	double fpr_paper; /* APBF: the paper's Table 2 model (linear fills) */
	double accesses_false; /* APBF/APBBF: expected accesses, query false */
	uint64_t bytes; /* ddf_filter_memsize() of the result */
	uint64_t window; /* guaranteed window in elements (count mode) */
	uint32_t lines; /* APBF/APBBF: ddf_apbf_lines() */
	uint32_t atomics; /* APBF/APBBF: ddf_apbf_atomics() */
};

/*
 * What every sizing function copies from the request as given, for
 * resolve() to judge: the kind, the window and the shape fields no kind's
 * sizing chooses. Each copies the others it takes itself.
 */
static inline void ddf_size_copy_given(const struct ddf_size_req *req,
				       struct ddf_params *out)
{
	out->kind = req->kind;
	out->flags = req->flags;
	out->window = req->window;
	out->window_ns = req->window_ns;
	out->l = req->l;
	out->block_bits = req->block_bits;
	out->block_hashes = req->block_hashes;
}

/*
 * Each sizing file stands alone (it references nothing outside itself), so
 * the filter type comes in as a pointer and the dispatch is inline here.
 */
int ddf_apbf_size(const struct ddf_filter_type *t,
		  const struct ddf_size_req *req, struct ddf_params *out,
		  struct ddf_size_report *rep, const char **why);
int ddf_qht_size(const struct ddf_filter_type *t,
		 const struct ddf_size_req *req, struct ddf_params *out,
		 const char **why);

/* APBF/APBBF analytics (ddf_size_apbf.c) */
/* worst case in the window (just before a shift), exact fill model */
double ddf_apbf_fpr(const struct ddf_params *p);
/* F(k, l, 0, 0) over fill ratios r[0 .. k+l-1] (paper 5.3) */
double ddf_apbf_F(uint32_t k, uint32_t l, const double *r);
/* A(k, l, 0, 0, 0, l) / (1 - F): expected accesses of a false query (5.4) */
double ddf_apbf_A_false(uint32_t k, uint32_t l, const double *r);
/*
 * Expected fill ratios of logical segments 0 .. k+l-1 when segment i holds
 * n[i] elements; n = NULL means just before a shift. For APBF: linear = the
 * paper's Table 2 model r_i = (i+1)/2k, else the exact 1 - (1 - 1/m)^n.
 * For APBBF: the false-positive rate of each blocked segment.
 */
void ddf_apbf_fills(const struct ddf_params *p, const double *n, double *r,
		    bool linear);
/* false-positive rate of one blocked segment holding n elements */
double ddf_apbbf_segment_fpr(uint64_t blocks, uint32_t B, uint32_t b,
			     double n);
/*
 * Cache lines a test-and-insert of a new key reads or writes: the k
 * blocks (bits) an insert writes and the probes of a query that match
 * nothing, segments l, l - k, ... down to one of those k: k + l / k. These
 * are the lines apbbf's prefetch issues at once.
 */
uint32_t ddf_apbf_lines(const struct ddf_params *p);
/* words an insert of a new key may OR atomically: k, or k b (512-bit) */
uint32_t ddf_apbf_atomics(const struct ddf_params *p);
/* elements per generation of resolved APBF/APBBF params */
uint64_t ddf_apbf_gen_size(const struct ddf_params *p);

/* QHT family (ddf_size_qht.c): asymptotic FPR, paper 4.1 and 5.1 */
double ddf_qht_fpr(const struct ddf_params *p);

/* SQF (ddf_size_sqf.c): asymptotic FPR, k * binom(2n, n) / (2^r' 4^n) */
int ddf_sqf_size(const struct ddf_filter_type *t,
		 const struct ddf_size_req *req, struct ddf_params *out,
		 struct ddf_size_report *rep, const char **why);
double ddf_sqf_fpr(const struct ddf_params *p);
/* the paper's approximation, k / (2^r' sqrt(pi r)) (section 4.1.1) */
double ddf_sqf_fpr_paper(const struct ddf_params *p);

/*
 * RSBF, BSBF, BSBFSD, RLBSBF (ddf_size_bsbf.c): sized by memory, k from the
 * target fpr. Per-part load after n distinct elements, its limit, and the
 * limit's false-positive rate q^k (a stream of distinct elements).
 */
int ddf_bsbf_size(const struct ddf_filter_type *t,
		  const struct ddf_size_req *req, struct ddf_params *out,
		  struct ddf_size_report *rep, const char **why);
double ddf_bsbf_fill(const struct ddf_params *p, double n);
double ddf_bsbf_steady_fill(const struct ddf_params *p);
double ddf_bsbf_fpr(const struct ddf_params *p);

/* SBF (ddf_size_sbf.c): the stable rate of Deng and Rafiei, and its P */
int ddf_sbf_size(const struct ddf_filter_type *t,
		 const struct ddf_size_req *req, struct ddf_params *out,
		 struct ddf_size_report *rep, const char **why);
double ddf_sbf_fpr(const struct ddf_params *p);
/* the smallest P whose stable rate is at most fpr (0: none) */
uint64_t ddf_sbf_decrements(uint32_t K, uint32_t d, uint64_t m, double fpr);

/* A2 (ddf_size_a2.c): worst case (before a swap) and mean over a cycle */
int ddf_a2_size(const struct ddf_filter_type *t,
		const struct ddf_size_req *req, struct ddf_params *out,
		struct ddf_size_report *rep, const char **why);
double ddf_a2_fpr(const struct ddf_params *p);
double ddf_a2_fpr_mean(const struct ddf_params *p);
/* stream elements (distinct) between two swaps; 0: a1 never fills */
double ddf_a2_cycle(const struct ddf_params *p);

/* b_DBF (ddf_size_bdbf.c): worst case (1 - a^(C d))^k, and the mean */
int ddf_bdbf_size(const struct ddf_filter_type *t,
		  const struct ddf_size_req *req, struct ddf_params *out,
		  struct ddf_size_report *rep, const char **why);
double ddf_bdbf_fpr(const struct ddf_params *p);
double ddf_bdbf_fpr_mean(const struct ddf_params *p);
/* elements per block, ceil((W - 1) / (2^c - 2)) (0: bad cell_bits) */
uint64_t ddf_bdbf_block(uint64_t window, uint32_t cell_bits);

/* cuckoo filter for streams (ddf_size_cuckoo.c): 2b / (2^f - 1) */
int ddf_cuckoo_size(const struct ddf_filter_type *t,
		    const struct ddf_size_req *req, struct ddf_params *out,
		    struct ddf_size_report *rep, const char **why);
double ddf_cuckoo_fpr(const struct ddf_params *p);

/*
 * Window filters (ddf_size_window.c): exact, SHF, CSHF and the queuing
 * construction of "Approaching Optimal Duplicate Detection in a Sliding
 * Window". ddf_window_size() sizes exact, SHF and CSHF (a size request has
 * no fields for a queue's inner kind and L).
 */
int ddf_window_size(const struct ddf_filter_type *t,
		    const struct ddf_size_req *req, struct ddf_params *out,
		    struct ddf_size_report *rep, const char **why);
/* exact 0; SHF/CSHF 1 - (1 - 2^-h)^w; queue Theorem 5 before a rotation */
double ddf_window_fpr(const struct ddf_params *p);
/* 1 - (1 - 2^-h)^w: h-bit short hashes over a window of w */
double ddf_shf_fpr_bits(uint32_t h, double w);
/* Theorem 3: SHF or CSHF false-positive probability for M bits, window w */
double ddf_shf_fpr_paper(uint32_t kind, double M, double w);
/* Algorithm 1's h for M bits: floor(M/(2w) - log2(w)/2), CSHF floor(M/w) */
uint32_t ddf_shf_bits(uint32_t kind, double M, uint64_t w);
/* w_max: the window where Theorem 3's FP reaches 1/2 for M bits */
double ddf_shf_wmax(uint32_t kind, double M);
/* FP of a filter after n distinct insertions (exact, SHF, QHT); -1: none */
double ddf_window_fp_after(const struct ddf_params *p, uint64_t n);
/* queue: Theorem 5 with m mod c = phase, Theorem 7 (average); -1: none */
double ddf_queue_fpr_at(const struct ddf_params *p, uint64_t phase);
double ddf_queue_fpr_avg(const struct ddf_params *p);

/*
 * Choose parameters for req: the smallest memory meeting req->fpr, or the
 * lowest false-positive rate fitting req->bytes. out is resolved on success.
 */
static inline int ddf_size(const struct ddf_size_req *req,
			   struct ddf_params *out, struct ddf_size_report *rep,
			   const char **why)
{
	const struct ddf_filter_type *t = ddf_filter_type_by_kind(req->kind);
	struct ddf_size_report dummy;
	int err;

	if (!rep)
		rep = &dummy;
	memset(rep, 0, sizeof(*rep));
	if (!t) {
		*why = "unknown filter kind";
		return DDF_EINVAL;
	}
	if (req->kind == DDF_KIND_APBF || req->kind == DDF_KIND_APBBF)
		return ddf_apbf_size(t, req, out, rep, why);
	if (req->kind == DDF_KIND_SQF)
		return ddf_sqf_size(t, req, out, rep, why);
	if (req->kind >= DDF_KIND_RSBF && req->kind <= DDF_KIND_RLBSBF)
		return ddf_bsbf_size(t, req, out, rep, why);
	if (req->kind == DDF_KIND_SBF)
		return ddf_sbf_size(t, req, out, rep, why);
	if (req->kind == DDF_KIND_A2)
		return ddf_a2_size(t, req, out, rep, why);
	if (req->kind == DDF_KIND_BDBF)
		return ddf_bdbf_size(t, req, out, rep, why);
	if (req->kind == DDF_KIND_CUCKOO)
		return ddf_cuckoo_size(t, req, out, rep, why);
	if (req->kind == DDF_KIND_EXACT || req->kind == DDF_KIND_SHF ||
	    req->kind == DDF_KIND_CSHF || req->kind == DDF_KIND_QUEUE)
		return ddf_window_size(t, req, out, rep, why);
	err = ddf_qht_size(t, req, out, why);
	if (!err) {
		rep->fpr = ddf_qht_fpr(out);
		rep->bytes = ddf_filter_memsize_type(t, out);
		rep->window = out->window;
	}
	return err;
}

/* Analytic false-positive rate of resolved params. */
static inline double ddf_fpr_analytic(const struct ddf_params *p)
{
	if (p->kind == DDF_KIND_APBF || p->kind == DDF_KIND_APBBF)
		return ddf_apbf_fpr(p);
	if (p->kind == DDF_KIND_SQF)
		return ddf_sqf_fpr(p);
	if (p->kind >= DDF_KIND_RSBF && p->kind <= DDF_KIND_RLBSBF)
		return ddf_bsbf_fpr(p);
	if (p->kind == DDF_KIND_SBF)
		return ddf_sbf_fpr(p);
	if (p->kind == DDF_KIND_A2)
		return ddf_a2_fpr(p);
	if (p->kind == DDF_KIND_BDBF)
		return ddf_bdbf_fpr(p);
	if (p->kind == DDF_KIND_CUCKOO)
		return ddf_cuckoo_fpr(p);
	if (p->kind == DDF_KIND_EXACT || p->kind == DDF_KIND_SHF ||
	    p->kind == DDF_KIND_CSHF || p->kind == DDF_KIND_QUEUE)
		return ddf_window_fpr(p);
	return ddf_qht_fpr(p);
}

#endif /* DDF_SIZE_H */
