/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ddfbench reproduce: each published table is one function that computes
 * or measures ddf's value for every cell it can and hands it, beside the
 * paper's printed value, to the table helper (reproduce.c), which prints
 * Markdown or JSON and keeps the verdict. Only the papers' numbers are
 * constants; every ddf number is computed or measured at run time.
 */
#ifndef DDFBENCH_REPRODUCE_H
#define DDFBENCH_REPRODUCE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include "ddf_filter.h"

/* how a row is judged */
enum rp_tol {
	RP_ABS,		/* |ddf - ref| <= tol */
	RP_REL,		/* |ddf - ref| <= tol * |ref| */
	RP_SIGMA,	/* |ddf - ref| <= tol, tol = n standard errors */
	RP_INFO,	/* no verdict: the paper has no such value */
	RP_ERRATUM,	/* the paper's value is a misprint (see note) */
	RP_PAPER,	/* the paper's value is inconsistent (tol_why says
			 * why); a ddf row beside it keeps a verdict */
	RP_TREND,	/* a yes/no claim: ddf = 1 holds, 0 does not */
};

struct rp_row {
	const char *row;	/* which row of the paper, "k=4 l=3" */
	const char *what;	/* the quantity */
	double paper;		/* NAN: the paper prints none */
	double ddf;
	/*
	 * What ddf is judged against: the paper's value unless ref_what is
	 * set (a measurement is judged against ddf's analytic value, and the
	 * paper's printed number shown beside it).
	 */
	double ref;
	const char *ref_what;
	enum rp_tol mode;
	double tol;
	const char *tol_why;	/* NULL or a few words: why this tolerance */
};

struct rp {
	bool quick, json;
	const char *name;
	/* filled by the helper */
	int ok, fail, erratum, paper, info;
	int nrows, cap;
	struct rp_row *rows;
	char **notes;
	int nnotes;
	double t0;
};

struct rp_table {
	const char *name;
	const char *what;	/* one line for "reproduce list" */
	void (*run)(struct rp *r);
};

void rp_begin(struct rp *r, const char *title, const char *source);
/* a row judged against the paper's value */
void rp_cmp(struct rp *r, const char *row, const char *what, double paper,
	    double ddf, enum rp_tol mode, double tol, const char *tol_why);
/* a measurement judged against ddf's own reference value */
void rp_meas(struct rp *r, const char *row, const char *what, double paper,
	     double meas, double ref, const char *ref_what, double tol,
	     const char *tol_why);
void rp_note(struct rp *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* prints the table; returns 0 if no row failed */
int rp_end(struct rp *r);
/* a label such as "k=4 l=3" that lives until the table is printed */
const char *rp_fmt(struct rp *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* shared by the experiments */
uint64_t rp_rand(uint64_t *s);
struct ddf_filter *rp_filter(struct ddf_params *p);
void rp_filter_free(struct ddf_filter *f);

void rp_apbf_table1(struct rp *r);
void rp_apbf_table2(struct rp *r);
void rp_apbbf_table3(struct rp *r);
void rp_apbbf_table4(struct rp *r);
void rp_qht_table1(struct rp *r);
void rp_qht_table5(struct rp *r);
void rp_shf_wmax(struct rp *r);
void rp_bsbf_tables(struct rp *r);
void rp_bsbf_tables4_9(struct rp *r);
void rp_qht_table2(struct rp *r);
void rp_qht_table3(struct rp *r);
void rp_queue_fig5(struct rp *r);
void rp_queue_fig6(struct rp *r);

int ddf_reproduce_main(int argc, char **argv);

#endif /* DDFBENCH_REPRODUCE_H */
