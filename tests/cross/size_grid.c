// SPDX-License-Identifier: GPL-2.0
/*
 * ddf_size_grid: the shapes the core's sizing gives, for comparing CPUs
 * byte for byte (tests/cross/size.sh).
 *
 *   ddf_size_grid requests     the requests, one a line in ddfctl's size
 *                              words: every kind `ddfctl size` takes (all
 *                              but the queue, given by its shape) over a
 *                              grid of windows, rates and budgets that are
 *                              not round, and the two neighbouring rates
 *                              (adjacent doubles) of the shape boundary
 *                              found by search below each grid rate
 *   ddf_size_grid size         sizes each request line of stdin as
 *                              `ddfctl size` does (ddf_size, then
 *                              ddf_params_resolve, memsize and the analytic
 *                              rate) and prints it with every parameter
 *                              and every rate in hex (%a): exact
 *
 * A boundary rate is where the last bit of the sizing arithmetic decides
 * the shape: a CPU that rounds one operation differently (a fused
 * multiply-add) sizes another filter there.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddf_filter.h"
#include "ddf_registry.h"
#include "ddf_size.h"

struct shape {
	int err;
	struct ddf_params p;
	struct ddf_size_report rep;
	const char *why;
};

static void size_req(const struct ddf_size_req *req, struct shape *s)
{
	memset(s, 0, sizeof(*s));
	s->err = ddf_size(req, &s->p, &s->rep, &s->why);
	if (!s->err)
		s->err = ddf_params_resolve(&s->p, &s->why);
}

static bool same_shape(const struct shape *a, const struct shape *b)
{
	if (a->err || b->err)
		return a->err == b->err;
	return !memcmp(&a->p, &b->p, sizeof(a->p));
}

static double next_down(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	u--;
	memcpy(&x, &u, sizeof(x));
	return x;
}

/* tag: "grid" or "edge" (a boundary's rate), then ddfctl's size words */
static void print_req(const char *tag, const struct ddf_size_req *r)
{
	printf("%s filter %s", tag, ddf_kind_name(r->kind));
	if (r->window_ns)
		printf(" window %llu/%lluus", (unsigned long long)r->window,
		       (unsigned long long)(r->window_ns / 1000));
	else if (r->window)
		printf(" window %llu", (unsigned long long)r->window);
	if (r->bytes)
		printf(" memory %llu", (unsigned long long)r->bytes);
	if (r->fpr)
		printf(" fpr %.17g", r->fpr);
	if (r->kind == DDF_KIND_APBF || r->kind == DDF_KIND_APBBF) {
		printf(" cpus %u", r->cpus);
		if (!r->bytes)
			printf(" tune %s",
			       r->tune == DDF_TUNE_SPEED ? "speed" : "memory");
	}
	printf("\n");
}

/* the boundary's two rates: req's shape at hi, another one just below */
static void print_edge(struct ddf_size_req req, double hi)
{
	req.fpr = hi;
	print_req("edge", &req);
	req.fpr = next_down(hi);
	print_req("edge", &req);
}

/*
 * The boundary below req's rate. Most kinds take the first shape whose
 * analytic rate meets the target, so that rate is the boundary; otherwise
 * halve the rate until the shape changes (down to 2^-12 of it), then
 * bisect the doubles between (positive doubles order as their bits) down
 * to two neighbours of different shapes.
 */
static void print_boundary(struct ddf_size_req req)
{
	struct shape top, s;
	double hi = req.fpr, lo = hi, t;
	uint64_t ulo, uhi;
	int i;

	size_req(&req, &top);
	t = top.rep.fpr;
	if (!top.err && t > 0 && t <= hi) {
		req.fpr = t;
		size_req(&req, &s);
		if (same_shape(&s, &top)) {
			req.fpr = next_down(t);
			size_req(&req, &s);
			if (!same_shape(&s, &top)) {
				print_edge(req, t);
				return;
			}
		}
	}
	for (i = 0; i < 12; i++) {
		req.fpr = lo /= 2;
		size_req(&req, &s);
		if (!same_shape(&s, &top))
			break;
	}
	if (i == 12)
		return; /* the rate does not shape this kind */
	memcpy(&ulo, &lo, sizeof(ulo));
	memcpy(&uhi, &hi, sizeof(uhi));
	while (uhi - ulo > 1) {
		uint64_t mid = ulo + (uhi - ulo) / 2;

		memcpy(&req.fpr, &mid, sizeof(mid));
		size_req(&req, &s);
		if (same_shape(&s, &top))
			uhi = mid;
		else
			ulo = mid;
	}
	memcpy(&hi, &uhi, sizeof(hi));
	print_edge(req, hi);
}

/* Not round: a prime and an odd window, odd mantissas, odd budgets */
static const uint64_t windows[] = { 1009, 77777 };
static const double rates[] = { 0.0731, 1.913e-4, 4.07e-7, 2.31e-10 };
static const uint64_t budgets[] = { 3001, 1048573 };
/* and a time window: 4999 packets in 3 ms */
#define TIME_N 4999
#define TIME_NS 3000000ull

/* req at each rate (and tune), with the boundary below it */
static void requests_rates(struct ddf_size_req req)
{
	bool aged = req.kind == DDF_KIND_APBF || req.kind == DDF_KIND_APBBF;
	unsigned int ntunes = aged ? 2 : 1;

	for (unsigned int r = 0; r < DDF_ARRAY_SIZE(rates); r++)
		for (unsigned int t = 0; t < ntunes; t++) {
			req.fpr = rates[r];
			req.tune = t ? DDF_TUNE_MEMORY : DDF_TUNE_SPEED;
			print_req("grid", &req);
			print_boundary(req);
		}
}

/* a kind with a window: sized by each rate, then by each budget */
static void requests_window(struct ddf_size_req req, uint64_t n, uint64_t ns)
{
	req.window = n;
	req.window_ns = ns;
	req.flags = ns ? DDF_PF_TIME : 0;
	requests_rates(req);
	req.fpr = 0;
	for (unsigned int b = 0; b < DDF_ARRAY_SIZE(budgets); b++) {
		req.bytes = budgets[b];
		print_req("grid", &req);
	}
}

/* a kind without one: each budget, the rate its target (ddf_size.h) */
static void requests_windowless(struct ddf_size_req req)
{
	for (unsigned int b = 0; b < DDF_ARRAY_SIZE(budgets); b++) {
		req.bytes = budgets[b];
		requests_rates(req);
	}
}

static void requests(void)
{
	const struct ddf_filter_type *t;

	for (unsigned int i = 0; (t = ddf_filter_type_at(i)); i++) {
		struct ddf_size_req req = { .kind = t->kind, .cpus = 3 };

		if (t->kind == DDF_KIND_QUEUE)
			continue; /* given by its shape: nothing sizes it */
		if (t->kind == DDF_KIND_SBF ||
		    (t->kind >= DDF_KIND_RSBF && t->kind <= DDF_KIND_RLBSBF)) {
			requests_windowless(req);
			continue;
		}
		for (unsigned int w = 0; w < DDF_ARRAY_SIZE(windows); w++)
			requests_window(req, windows[w], 0);
		requests_window(req, TIME_N, TIME_NS);
	}
}

/* A line of print_req()'s words back into a request; false if not one. */
static bool parse_req(char *line, struct ddf_size_req *req)
{
	char *save, *kw, *arg, *end;

	memset(req, 0, sizeof(*req));
	req->tune = DDF_TUNE_SPEED;
	kw = strtok_r(line, " ", &save);
	if (!kw || (strcmp(kw, "grid") && strcmp(kw, "edge")))
		return false;
	for (kw = strtok_r(NULL, " ", &save); kw;
	     kw = strtok_r(NULL, " ", &save)) {
		const struct ddf_filter_type *t;

		arg = strtok_r(NULL, " ", &save);
		if (!arg)
			return false;
		errno = 0;
		if (!strcmp(kw, "filter")) {
			t = ddf_filter_type_by_name(arg);
			if (!t)
				return false;
			req->kind = t->kind;
		} else if (!strcmp(kw, "window")) {
			req->window = strtoull(arg, &end, 10);
			if (*end == '/') {
				req->window_ns =
					strtoull(end + 1, &end, 10) * 1000;
				req->flags = DDF_PF_TIME;
				if (strcmp(end, "us"))
					return false;
			} else if (*end) {
				return false;
			}
		} else if (!strcmp(kw, "memory")) {
			req->bytes = strtoull(arg, &end, 10);
			if (*end)
				return false;
		} else if (!strcmp(kw, "fpr")) {
			req->fpr = strtod(arg, &end);
			if (*end)
				return false;
		} else if (!strcmp(kw, "cpus")) {
			req->cpus = (uint32_t)strtoul(arg, &end, 10);
			if (*end)
				return false;
		} else if (!strcmp(kw, "tune")) {
			req->tune = strcmp(arg, "memory") ? DDF_TUNE_SPEED :
							    DDF_TUNE_MEMORY;
		} else {
			return false;
		}
		if (errno)
			return false;
	}
	/* ddfctl's default target for a window sized by neither */
	if (req->window && !req->fpr && !req->bytes)
		req->fpr = 1e-6;
	return req->kind || req->window;
}

static int size_lines(void)
{
	char line[512], words[512];
	unsigned long n = 0;

	while (fgets(line, sizeof(line), stdin)) {
		struct ddf_size_req req;
		const struct ddf_params *p;
		struct shape s;

		line[strcspn(line, "\n")] = 0;
		memcpy(words, line, sizeof(words));
		if (!parse_req(words, &req)) {
			fprintf(stderr, "ddf_size_grid: not a request: %s\n",
				line);
			return 2;
		}
		size_req(&req, &s);
		n++;
		printf("%s:", line);
		if (s.err) {
			printf(" error %d: %s\n", s.err, s.why ? s.why : "");
			continue;
		}
		p = &s.p;
		printf(" k=%u l=%u m=%llu", p->k, p->l,
		       (unsigned long long)p->m);
		printf(" B=%u b=%u s=%u", p->block_bits, p->block_hashes,
		       p->fp_bits);
		printf(" d=%u P=%u p*=%u", p->cell_bits, p->decrements,
		       p->p_star);
		printf(" cpus=%u window=%llu bytes=%llu", p->cpus,
		       (unsigned long long)p->window,
		       (unsigned long long)ddf_filter_memsize(p));
		printf(" fpr=%a paper=%a accesses=%a", s.rep.fpr,
		       s.rep.fpr_paper, s.rep.accesses_false);
		printf(" lines=%u atomics=%u analytic=%a\n", s.rep.lines,
		       s.rep.atomics, ddf_fpr_analytic(p));
	}
	return n ? 0 : 2;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "requests")) {
		requests();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "size"))
		return size_lines();
	fprintf(stderr, "usage: ddf_size_grid requests | size <REQUESTS\n");
	return 2;
}
