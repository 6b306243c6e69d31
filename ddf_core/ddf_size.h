/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Sizing and analytic error rates. These use floating point: userspace
 * (ddfctl, ddfbench, tests) sizes a filter and hands resolved integer
 * parameters to the kernel, which never needs this file. The files named
 * ddf_size*.c and ddf_math.c are therefore left out of the kernel build.
 */
#ifndef DDF_SIZE_H
#define DDF_SIZE_H

#include "ddf_filter.h"

struct ddf_size_req {
	uint32_t kind;
	uint32_t flags; /* DDF_PF_TIME */
	uint64_t window; /* elements (count) or elements per window (time) */
	uint64_t window_ns;
	double fpr; /* target false-positive rate, 0 if bytes given */
	uint64_t bytes; /* memory budget, 0 if fpr given */
	/* optional fixed shape (0 = choose) */
	uint32_t k, l, block_bits, block_hashes, fp_bits;
};

struct ddf_size_report {
	double fpr; /* analytic false-positive rate of the chosen params */
	double fpr_paper; /* APBF: the paper's Table 2 model (linear fills) */
	double accesses_false; /* APBF/APBBF: expected accesses, query false */
	uint64_t bytes; /* ddf_filter_memsize() of the result */
	uint64_t window; /* guaranteed window in elements (count mode) */
};

/*
 * Choose parameters for req: the smallest memory meeting req->fpr, or the
 * lowest false-positive rate fitting req->bytes. out is resolved on success.
 */
int ddf_size(const struct ddf_size_req *req, struct ddf_params *out,
	     struct ddf_size_report *rep, const char **why);

/* Analytic false-positive rate of resolved params (worst case in window). */
double ddf_fpr_analytic(const struct ddf_params *p);

/* QHT family (ddf_size_qht.c) */
int ddf_qht_size(const struct ddf_size_req *req, struct ddf_params *out,
		 const char **why);
double ddf_qht_fpr(const struct ddf_params *p); /* asymptotic, paper 4.1/5.1 */

/* APBF/APBBF analytics (ddf_size_apbf.c) */
/* F(k, l, 0, 0) over fill ratios r[0 .. k+l-1] (paper 5.3) */
double ddf_apbf_F(uint32_t k, uint32_t l, const double *r);
/* A(k, l, 0, 0, 0, l) / (1 - F): expected accesses of a false query (5.4) */
double ddf_apbf_A_false(uint32_t k, uint32_t l, const double *r);
/* expected fills just before a shift (worst case), exact or paper-linear */
void ddf_apbf_fills(const struct ddf_params *p, double *r, bool linear);
void ddf_apbbf_fills(const struct ddf_params *p, double *r);
/* the false-positive rate of one blocked segment holding n elements */
double ddf_apbbf_segment_fpr(uint64_t blocks, uint32_t B, uint32_t b,
			     double n);

/* Elementary functions, freestanding (ddf_math.c). */
double ddf_exp(double x);
double ddf_log(double x);
double ddf_pow(double x, double y);
double ddf_sqrt(double x);

#endif /* DDF_SIZE_H */
