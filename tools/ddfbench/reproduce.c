// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* vasprintf */
/*
 * ddfbench reproduce: the command line, the list of tables, and the table
 * helper. Rows are kept until the table ends so that Markdown and JSON come
 * out of the same data and the verdict line can lead the JSON object.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "reproduce.h"

static const struct rp_table rp_tables[] = {
	{ "apbf-table1", "APBF paper Table 1: Bloom filter k, bits per element, fp, accesses",
	  rp_apbf_table1 },
	{ "apbf-table2", "APBF Table 2: fp (recursion F), eff, false-query accesses, measured fp",
	  rp_apbf_table2 },
	{ "apbbf-table3", "APBBF Table 3: blocked fp, APBF (kb, lb) fp, capacity, accesses, measured fp",
	  rp_apbbf_table3 },
	{ "apbbf-table4", "APBBF Table 4: bits per element of four APBBFs (SWAMP for information)",
	  rp_apbbf_table4 },
	{ "qht-table1", "QHT Table 1: FPR, FNR, FPR+FNR for S = 4 .. 64 at ~65,536 bits",
	  rp_qht_table1 },
	{ "qht-table5", "QHT/QQHTD Table 5, artificial stream: FPR+FNR for k = 2 .. 16",
	  rp_qht_table5 },
	{ "shf-wmax", "SHF/CSHF w_max linear fits (0.0233M+186, 0.0627M+443), FP measured at w_max",
	  rp_shf_wmax },
	{ "bsbf-tables", "BSBF/BSBFSD/RLBSBF Tables 1-3: FPR, FNR for k = 1 .. 5, scaled stream",
	  rp_bsbf_tables },
	{ "bsbf-tables4-9", "BSBF paper Tables 4-9: SBF, RSBF, BSBF, BSBFSD, RLBSBF at k = 2, 64-512 MB, scaled",
	  rp_bsbf_tables4_9 },
	{ "qht-table2", "QHT Tables 2/4, artificial streams: six filters' FPR, FNR, scaled",
	  rp_qht_table2 },
	{ "qht-table3", "QHT Table 3: time of one Stream at 1 Mb for seven filters, their order",
	  rp_qht_table3 },
	{ "queue-fig5", "Queuing filters Figure 5: QHT, SQF, Cuckoo queues against the window",
	  rp_queue_fig5 },
	{ "queue-fig6", "Queuing QHT Figure 6: error rate against L per window, the best L moves",
	  rp_queue_fig6 },
};

#define RP_NTABLES (sizeof(rp_tables) / sizeof(rp_tables[0]))

static double rp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t rp_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Cache-line aligned memory, so the filter starts at the allocation and
 * free() takes the filter pointer back.
 */
struct ddf_filter *rp_filter(struct ddf_params *p)
{
	const char *why = NULL;
	uint64_t sz;
	void *mem;

	if (ddf_params_resolve(p, &why)) {
		fprintf(stderr, "ddfbench: %s: %s\n", ddf_kind_name(p->kind),
			why ? why : "invalid parameters");
		exit(1);
	}
	sz = ddf_filter_memsize(p);
	mem = aligned_alloc(DDF_CACHELINE, ddf_align_up(sz, DDF_CACHELINE));
	if (!mem || !ddf_filter_init(mem, sz, p, 0)) {
		fprintf(stderr, "ddfbench: cannot build a %llu-byte filter\n",
			(unsigned long long)sz);
		exit(1);
	}
	return mem;
}

void rp_filter_free(struct ddf_filter *f)
{
	free(f);
}

static void *rp_xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "ddfbench: out of memory\n");
		exit(1);
	}
	return p;
}

static char *rp_vfmt(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0) {
		fprintf(stderr, "ddfbench: out of memory\n");
		exit(1);
	}
	return s;
}

/* labels are kept with the notes' storage and freed by rp_end() */
static char **rp_pool;
static int rp_npool;

const char *rp_fmt(struct rp *r, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = rp_vfmt(fmt, ap);
	va_end(ap);
	rp_pool = rp_xrealloc(rp_pool, (rp_npool + 1) * sizeof(*rp_pool));
	rp_pool[rp_npool++] = s;
	return s;
}

void rp_note(struct rp *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r->notes = rp_xrealloc(r->notes, (r->nnotes + 1) * sizeof(*r->notes));
	r->notes[r->nnotes++] = rp_vfmt(fmt, ap);
	va_end(ap);
}

static const char *rp_title, *rp_source;
/* --json-out FILE: the JSON beside the Markdown of the same run */
static FILE *rp_json_out;

void rp_begin(struct rp *r, const char *title, const char *source)
{
	rp_title = title;
	rp_source = source;
	r->t0 = rp_now();
}

static bool rp_judge(const struct rp_row *w)
{
	double d = fabs(w->ddf - w->ref);

	switch (w->mode) {
	case RP_ABS:
	case RP_SIGMA:
		return d <= w->tol;
	case RP_REL:
		return d <= w->tol * fabs(w->ref);
	case RP_TREND:
		return w->ddf == 1;
	default:
		return true;
	}
}

static void rp_add(struct rp *r, const struct rp_row *w)
{
	if (r->nrows == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 32;
		r->rows = rp_xrealloc(r->rows, r->cap * sizeof(*r->rows));
	}
	r->rows[r->nrows++] = *w;
	if (w->mode == RP_INFO)
		r->info++;
	else if (w->mode == RP_ERRATUM)
		r->erratum++;
	else if (w->mode == RP_PAPER)
		r->paper++;
	else if (rp_judge(w))
		r->ok++;
	else
		r->fail++;
}

void rp_cmp(struct rp *r, const char *row, const char *what, double paper,
	    double ddf, enum rp_tol mode, double tol, const char *tol_why)
{
	struct rp_row w = { row, what, paper, ddf, paper, NULL, mode, tol,
			    tol_why };

	if (isnan(paper) && mode != RP_TREND)
		w.mode = RP_INFO;
	rp_add(r, &w);
}

void rp_meas(struct rp *r, const char *row, const char *what, double paper,
	     double meas, double ref, const char *ref_what, double tol,
	     const char *tol_why)
{
	struct rp_row w = { row, what, paper, meas, ref, ref_what, RP_SIGMA,
			    tol, tol_why };

	rp_add(r, &w);
}

static const char *rp_verdict(const struct rp_row *w)
{
	switch (w->mode) {
	case RP_INFO:
		return "info";
	case RP_ERRATUM:
		return "erratum";
	case RP_PAPER:
		return "paper";
	default:
		return rp_judge(w) ? "ok" : "FAIL";
	}
}

/* the tolerance in words, as printed in both formats */
static void rp_tol_text(const struct rp_row *w, char *b, size_t n)
{
	int o = 0;

	switch (w->mode) {
	case RP_ABS:
		o = snprintf(b, n, "abs %.3g", w->tol);
		break;
	case RP_REL:
		o = snprintf(b, n, "rel %.3g%%", w->tol * 100);
		break;
	case RP_SIGMA:
		o = snprintf(b, n, "within %.3g of %s %.6g", w->tol,
			     w->ref_what, w->ref);
		break;
	case RP_TREND:
		o = snprintf(b, n, "claim holds");
		break;
	case RP_ERRATUM:
		o = snprintf(b, n, "paper misprint");
		break;
	case RP_PAPER:
		o = snprintf(b, n, "paper's value disputed");
		break;
	default:
		o = snprintf(b, n, "-");
		break;
	}
	if (w->tol_why && o >= 0 && (size_t)o < n)
		snprintf(b + o, n - o, " (%s)", w->tol_why);
}

static void rp_num(char *b, size_t n, double x, bool sign)
{
	if (isnan(x))
		snprintf(b, n, "-");
	else
		snprintf(b, n, sign ? "%+.4g" : "%.6g", x);
}

static void rp_json_str(FILE *o, const char *s)
{
	putc('"', o);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			putc('\\', o);
		putc(*s, o);
	}
	putc('"', o);
}

static void rp_json_num(FILE *o, const char *key, double x)
{
	fprintf(o, ", \"%s\": ", key);
	if (isnan(x))
		fprintf(o, "null");
	else
		fprintf(o, "%.9g", x);
}

static void rp_print_json(FILE *o, const struct rp *r, double secs)
{
	char tol[256];

	fprintf(o, "{\"table\": ");
	rp_json_str(o, r->name);
	fprintf(o, ", \"title\": ");
	rp_json_str(o, rp_title);
	fprintf(o, ", \"source\": ");
	rp_json_str(o, rp_source);
	fprintf(o, ", \"quick\": %s, \"verdict\": \"%s\", \"ok\": %d, "
	       "\"fail\": %d, \"erratum\": %d, \"paper\": %d, "
	       "\"info\": %d, \"seconds\": %.2f, \"rows\": [",
	       r->quick ? "true" : "false", r->fail ? "FAIL" : "PASS", r->ok,
	       r->fail, r->erratum, r->paper, r->info, secs);
	for (int i = 0; i < r->nrows; i++) {
		const struct rp_row *w = &r->rows[i];

		rp_tol_text(w, tol, sizeof(tol));
		fprintf(o, "%s\n  {\"row\": ", i ? "," : "");
		rp_json_str(o, w->row);
		fprintf(o, ", \"quantity\": ");
		rp_json_str(o, w->what);
		rp_json_num(o, "paper", w->paper);
		rp_json_num(o, "ddf", w->ddf);
		rp_json_num(o, "diff", w->ddf - w->paper);
		rp_json_num(o, "reference", w->ref);
		fprintf(o, ", \"tolerance\": ");
		rp_json_str(o, tol);
		fprintf(o, ", \"verdict\": \"%s\"}", rp_verdict(w));
	}
	fprintf(o, "], \"notes\": [");
	for (int i = 0; i < r->nnotes; i++) {
		fprintf(o, "%s\n  ", i ? "," : "");
		rp_json_str(o, r->notes[i]);
	}
	fprintf(o, "]}\n");
}

static void rp_print_md(const struct rp *r, double secs)
{
	char p[32], d[32], x[32], tol[256];

	printf("## %s: %s\n\nSource: %s%s\n\n", r->name, rp_title, rp_source,
	       r->quick ? " (--quick)" : "");
	printf("| row | quantity | paper | ddf | diff | tolerance | verdict |\n");
	printf("|---|---|---:|---:|---:|---|---|\n");
	for (int i = 0; i < r->nrows; i++) {
		const struct rp_row *w = &r->rows[i];

		rp_num(p, sizeof(p), w->paper, false);
		if (w->mode == RP_TREND)
			snprintf(d, sizeof(d), "%s", w->ddf == 1 ? "yes" : "no");
		else
			rp_num(d, sizeof(d), w->ddf, false);
		rp_num(x, sizeof(x), w->ddf - w->paper, true);
		rp_tol_text(w, tol, sizeof(tol));
		printf("| %s | %s | %s | %s | %s | %s | %s |\n", w->row,
		       w->what, p, d, x, tol, rp_verdict(w));
	}
	if (r->nnotes)
		printf("\nNotes:\n");
	for (int i = 0; i < r->nnotes; i++)
		printf("- %s\n", r->notes[i]);
	printf("\nverdict %s: %s (%d ok, %d fail, %d erratum, %d paper, %d info) in %.1f s\n\n",
	       r->name, r->fail ? "FAIL" : "PASS", r->ok, r->fail, r->erratum,
	       r->paper, r->info, secs);
}

int rp_end(struct rp *r)
{
	double secs = rp_now() - r->t0;
	int fail = r->fail;

	if (r->json)
		rp_print_json(stdout, r, secs);
	else
		rp_print_md(r, secs);
	if (rp_json_out) {
		rp_print_json(rp_json_out, r, secs);
		fflush(rp_json_out);
	}
	fflush(stdout);
	for (int i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	for (int i = 0; i < rp_npool; i++)
		free(rp_pool[i]);
	free(r->notes);
	free(r->rows);
	free(rp_pool);
	rp_pool = NULL;
	rp_npool = 0;
	return fail ? 1 : 0;
}

static int rp_run(const struct rp_table *t, bool quick, bool json)
{
	struct rp r = { .quick = quick, .json = json, .name = t->name };

	t->run(&r);
	return rp_end(&r);
}

static void rp_usage(FILE *o)
{
	fprintf(o, "usage: ddfbench reproduce TABLE|list|all [--json] [--quick] [--json-out FILE]\n");
}

static int rp_list(void)
{
	for (size_t i = 0; i < RP_NTABLES; i++)
		printf("%-15s %s\n", rp_tables[i].name, rp_tables[i].what);
	return 0;
}

static int rp_all(bool quick, bool json)
{
	int bad = 0;

	if (json)
		printf("[\n");
	if (rp_json_out)
		fprintf(rp_json_out, "[\n");
	for (size_t i = 0; i < RP_NTABLES; i++) {
		if (json && i)
			printf(",\n");
		if (rp_json_out && i)
			fprintf(rp_json_out, ",\n");
		bad |= rp_run(&rp_tables[i], quick, json);
	}
	if (json)
		printf("]\n");
	if (rp_json_out)
		fprintf(rp_json_out, "]\n");
	return bad;
}

/*
 * argv[0] is the first word after "reproduce". An option the command does
 * not read (any for list) is an error, never ignored.
 */
int ddf_reproduce_main(int argc, char **argv)
{
	const char *name = NULL, *json_out = NULL, *opt = NULL;
	const struct rp_table *t = NULL;
	bool quick = false, json = false;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = true;
			opt = argv[i];
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
			opt = argv[i];
		} else if (!strcmp(argv[i], "--json-out")) {
			if (i + 1 == argc) {
				fprintf(stderr, "ddfbench reproduce: --json-out needs a file\n");
				return 2;
			}
			opt = argv[i];
			json_out = argv[++i];
		} else if (!strcmp(argv[i], "--help") ||
			   !strcmp(argv[i], "-h")) {
			rp_usage(stdout);
			return 0;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "ddfbench reproduce: %s is not an option of reproduce\n",
				argv[i]);
			return 2;
		} else if (name) {
			fprintf(stderr, "ddfbench reproduce: unexpected argument '%s'\n",
				argv[i]);
			return 2;
		} else {
			name = argv[i];
		}
	}
	if (!name) {
		rp_usage(stderr);
		return 2;
	}
	if (!strcmp(name, "list")) {
		if (opt) {
			fprintf(stderr, "ddfbench reproduce: %s is not an option of reproduce list\n",
				opt);
			return 2;
		}
		return rp_list();
	}
	for (size_t i = 0; i < RP_NTABLES; i++)
		if (!strcmp(name, rp_tables[i].name))
			t = &rp_tables[i];
	if (!t && strcmp(name, "all")) {
		fprintf(stderr, "ddfbench: no table '%s' (ddfbench reproduce list)\n",
			name);
		return 2;
	}
	if (json_out) {
		rp_json_out = fopen(json_out, "w");
		if (!rp_json_out) {
			perror(json_out);
			return 2;
		}
	}
	return t ? rp_run(t, quick, json) : rp_all(quick, json);
}
