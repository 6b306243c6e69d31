/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ddfbench: what its commands share (ddfbench.c) and the speed commands
 * (speed.c).
 */
#ifndef DDFBENCH_H
#define DDFBENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "ddf_filter.h"
#include "ddf_size.h"

struct opts {
	const char *filter;
	uint64_t window, inserts, probes, memory, seed;
	double fpr;
	uint32_t k, l, B, b, s;
	uint32_t threads;
	uint32_t cpus; /* apbf, apbbf: params.cpus, ticket slots */
	uint32_t tune; /* apbf, apbbf: enum ddf_tune, speed unless told */
	int layout; /* apbbf: 0 the paper's, 1 interleaved (ddf_apbbf_il.h) */
	uint32_t ahead; /* speed, apbbf: prefetch key i + ahead's blocks first */
	int json, thp, all;
};

extern int use_thp;

void *big_alloc(uint64_t bytes);
double now_s(void);
/* qsort() order of doubles (speed.c) */
int cmp_double(const void *a, const void *b);
uint64_t rnd(uint64_t *s);
bool kind_has_window(uint32_t kind);
const struct ddf_filter_type *kind_of(const struct opts *o);
void params_of(const struct opts *o, struct ddf_params *p,
	       struct ddf_size_report *rep);
void print_params(FILE *f, const struct ddf_params *p);
struct ddf_filter *build(const struct ddf_params *p);
struct ddf_filter *build_layout(const struct ddf_params *p, int layout);

int cmd_speed(const struct opts *o);
void speed_threads(const struct opts *o, const struct ddf_params *p,
		   struct ddf_filter *f);
int cmd_speed_all(const struct opts *o);

#endif /* DDFBENCH_H */
