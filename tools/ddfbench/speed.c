// SPDX-License-Identifier: GPL-2.0
/*
 * ddfbench speed: ns per test-and-insert of a filter beside the memory
 * system's own limits (a dependent read, random lines) measured in the
 * same run over buffers of the same size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ddf_apbbf_il.h"
#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_size.h"
#include "ddfbench.h"

/* ns per dependent load: a random cyclic permutation of the lines */
static double chase(uint64_t bytes, uint64_t steps)
{
	uint64_t n = bytes / 64, s = 7, *buf = big_alloc(n * 64);
	uint64_t *perm = malloc(n * sizeof(*perm)), at = 0;
	double t0;

	for (uint64_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = rnd(&s) % (i + 1), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (uint64_t i = 0; i < n; i++)
		buf[perm[i] * 8] = perm[(i + 1) % n] * 8;
	free(perm);
	t0 = now_s();
	for (uint64_t i = 0; i < steps; i++)
		at = buf[at];
	t0 = now_s() - t0;
	if (at == 1)
		puts("");
	free(buf);
	return t0 * 1e9 / steps;
}

/* ns to touch `lines` random cache lines (independent loads) per op */
static double touch(uint64_t bytes, uint32_t lines, uint64_t ops)
{
	uint64_t n = bytes / 64, s = 9, sum = 0;
	uint64_t *buf = big_alloc(n * 64);
	double t0;

	memset(buf, 1, n * 64);
	t0 = now_s();
	for (uint64_t i = 0; i < ops; i++)
		for (uint32_t j = 0; j < lines; j++)
			sum += buf[ddf_reduce(rnd(&s), n) * 8];
	t0 = now_s() - t0;
	if (sum == 3)
		puts("");
	free(buf);
	return t0 * 1e9 / ops;
}

/* --prefetch-ahead D: apbbf's blocks of key i + D first, in its layout */
static uint32_t speed_ahead;
static void (*speed_prefetch)(const struct ddf_filter *f,
			      const struct ddf_hash *h);

/*
 * One timing: test_and_insert over `n` precomputed distinct hashes (read
 * sequentially), stopping early once `budget` seconds have passed so that
 * a slow filter (a saturated cuckoo table kicks 500 times) still ends.
 */
static double time_ops(struct ddf_filter *f, struct ddf_hash *hs, uint64_t n,
		       double budget, uint64_t *done, uint64_t *dups)
{
	double t0 = now_s(), t = 0;
	uint64_t i = 0;

	while (i < n) {
		uint64_t end = i + 16384 < n ? i + 16384 : n;

		for (; i < end; i++) {
			if (speed_ahead && i + speed_ahead < n)
				speed_prefetch(f, &hs[i + speed_ahead]);
			*dups += ddf_filter_test_and_insert(f, &hs[i], 0);
		}
		t = now_s() - t0;
		if (t > budget)
			break;
	}
	*done = i;
	return t * 1e9 / i;
}

struct speed_res {
	double ns;		/* median ns per test-and-insert */
	double dup_rate;	/* duplicates reported (false positives) */
	uint64_t ops;		/* timed operations, all rounds */
	uint64_t warm;		/* distinct keys inserted before timing */
	double warm_s;
	bool steady;		/* the warm-up reached the window (or m) */
};

#define SPEED_ROUNDS 3
#define SPEED_OPS (4u << 20)
#define SPEED_WARM_SECONDS 8.0

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * apbf and apbbf as the kernel runs them: sized for the machine's CPUs
 * (nf_ddf_parse.c: at least nr_cpu_ids), each CPU inserting through its
 * own ticket slot, one shared atomic add per batch (ddf_age.h). Speed's
 * one thread is such a CPU, slot 0 (speed_slot0()); --cpus C sizes for C
 * instead, and --cpus 1 gives the shared ticket of every insert.
 */
static uint32_t speed_cpus(const struct opts *o, uint32_t kind)
{
	long n;

	if (o->cpus || (kind != DDF_KIND_APBF && kind != DDF_KIND_APBBF))
		return o->cpus;
	n = sysconf(_SC_NPROCESSORS_CONF);
	return n < 1 ? 1 : n > DDF_MAX_CPUS ? DDF_MAX_CPUS : (uint32_t)n;
}

static uint32_t speed_slot0(void)
{
	return 0;
}

/*
 * Steady state first: distinct keys up to the window (windowless kinds:
 * one per cell, m), at most SPEED_WARM_SECONDS of them; then
 * SPEED_ROUNDS timings of fresh distinct keys, the median kept.
 */
static void speed_measure(struct ddf_filter *f, const struct ddf_params *p,
			  uint64_t *seed, struct speed_res *r)
{
	uint64_t want = p->window ? p->window + p->window / 8 : p->m;
	struct ddf_hash *hs = malloc(SPEED_OPS * sizeof(*hs));
	double ns[SPEED_ROUNDS], t0 = now_s();
	uint64_t dups = 0;

	if (!hs) {
		fprintf(stderr, "ddfbench: out of memory\n");
		exit(1);
	}
	memset(r, 0, sizeof(*r));
	ddf_env_slot_fn = speed_slot0; /* the one thread is CPU 0 */
	while (r->warm < want) {
		for (int j = 0; j < 4096 && r->warm < want; j++, r->warm++) {
			struct ddf_hash h = { rnd(seed), rnd(seed) };

			ddf_filter_insert(f, &h, 0);
		}
		if (now_s() - t0 > SPEED_WARM_SECONDS)
			break;
	}
	r->warm_s = now_s() - t0;
	r->steady = r->warm >= want;
	for (int k = 0; k < SPEED_ROUNDS; k++) {
		uint64_t done;

		for (uint64_t i = 0; i < SPEED_OPS; i++)
			hs[i] = (struct ddf_hash){ rnd(seed), rnd(seed) };
		ns[k] = time_ops(f, hs, SPEED_OPS, 0.5, &done, &dups);
		r->ops += done;
	}
	qsort(ns, SPEED_ROUNDS, sizeof(ns[0]), cmp_double);
	r->ns = ns[SPEED_ROUNDS / 2];
	r->dup_rate = (double)dups / r->ops;
	free(hs);
}

static void siphash_costs(double sip[3])
{
	static const uint32_t klens[] = { 16, 40, 64 };
	struct ddf_sipkey sk = { 1, 2 };
	uint64_t ops = 2000000;
	uint8_t key[64];

	for (int i = 0; i < 64; i++)
		key[i] = (uint8_t)i;
	for (int j = 0; j < 3; j++) {
		struct ddf_hash h;
		uint64_t acc = 0;
		double t0 = now_s();

		for (uint64_t i = 0; i < ops; i++) {
			key[0] = (uint8_t)i;
			ddf_hash_key(&h, DDF_HASH_SIP13, &sk, key, klens[j]);
			acc += h.h1;
		}
		sip[j] = (now_s() - t0) * 1e9 / ops;
		if (acc == 7)
			puts("");
	}
}

/*
 * How speed sizes a filter: as ddfctl would for a memory budget at a
 * target false-positive rate (--fpr, one in a thousand by default), with
 * the shape options (--k, --l, --block-bits, --block-hashes, --fp-bits)
 * fixed when given. Windowed kinds get the largest window whose filter
 * fits the budget; dictionaries that cannot use it all (CSHF scans at most
 * 65536 elements) report the bytes they use. Windowless kinds take the
 * budget (the bsbf family: at --fpr if given, else k = 2). With --window,
 * speed sizes the filter as ddfbench size does instead.
 */
#define SPEED_FPR 1e-3

static struct ddf_size_req speed_req(const struct opts *o, uint32_t kind)
{
	return (struct ddf_size_req){
		.kind = kind, .fpr = o->fpr ? o->fpr : SPEED_FPR,
		.k = o->k, .l = o->l, .block_bits = o->B,
		.block_hashes = o->b, .fp_bits = o->s,
		.cpus = speed_cpus(o, kind), .tune = o->tune,
	};
}

static bool speed_fit(struct ddf_size_req req, uint64_t window,
		      uint64_t budget, struct ddf_params *p)
{
	struct ddf_size_report rep;
	const char *why = NULL;

	req.window = window;
	return !ddf_size(&req, p, &rep, &why) && rep.bytes <= budget;
}

static bool speed_window(const struct ddf_size_req *req, uint64_t budget,
			 struct ddf_params *p)
{
	uint64_t lo = 0, hi = 1024;
	struct ddf_params q;

	/* the largest fitting window, by doubling then bisection */
	while (speed_fit(*req, hi, budget, &q) && hi < (1ull << 40)) {
		lo = hi;
		*p = q;
		hi *= 2;
	}
	if (!lo)
		return false;
	while (hi - lo > lo / 256 + 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (speed_fit(*req, mid, budget, &q)) {
			lo = mid;
			*p = q;
		} else {
			hi = mid;
		}
	}
	return true;
}

/* *target: the fp rate the sizing aimed at, 0 if the budget alone chose */
static bool speed_budget_params(const struct opts *o, uint32_t kind,
				uint64_t budget, struct ddf_params *p,
				double *target, const char **why)
{
	struct ddf_size_req req = speed_req(o, kind);

	*why = NULL;
	req.bytes = budget;
	*target = req.fpr;
	switch (kind) {
	case DDF_KIND_APBF: case DDF_KIND_APBBF: case DDF_KIND_A2:
	case DDF_KIND_BDBF: case DDF_KIND_EXACT: case DDF_KIND_SHF:
	case DDF_KIND_CSHF:
		req.bytes = 0;
		if (speed_window(&req, budget, p))
			return true;
		*why = "no window fits the budget";
		return false;
	case DDF_KIND_QUEUE:
		/* L = 4 QHT subfilters (k = 4, s = 16), one slot per insertion */
		*target = 0;
		*p = (struct ddf_params){ .kind = kind,
					  .inner_kind = DDF_KIND_QHT,
					  .subfilters = 4, .k = 4,
					  .fp_bits = 16,
					  .m = budget / 4 / 8 - 16 };
		p->window = p->m * p->k * p->subfilters;
		return !ddf_params_resolve(p, why);
	case DDF_KIND_RSBF: case DDF_KIND_BSBF: case DDF_KIND_BSBFSD:
	case DDF_KIND_RLBSBF:
		req.fpr = *target = o->fpr;
		/* fall through */
	default:
		return !ddf_size(&req, p, NULL, why);
	}
}

/*
 * A shape option the sizing did not keep (a kind without that field, or
 * the queue's fixed construction) is an error, not a silent change.
 */
static bool speed_kept(const struct opts *o, const struct ddf_params *p,
		       const char *name)
{
	static const char *const opt[] = { "--k", "--l", "--block-bits",
					   "--block-hashes", "--fp-bits" };
	const uint32_t want[] = { o->k, o->l, o->B, o->b, o->s };
	const uint32_t got[] = { p->k, p->l, p->block_bits, p->block_hashes,
				 p->fp_bits };

	for (unsigned int i = 0; i < 5; i++) {
		if (want[i] && want[i] != got[i]) {
			fprintf(stderr,
				"ddfbench speed: %s: %s %u not kept (sized %u)\n",
				name, opt[i], want[i], got[i]);
			return false;
		}
	}
	return true;
}

/*
 * The filter of speed: from the budget (--memory) or as size sizes it;
 * the fp rate it was sized for, 0 if a budget or a shape alone chose.
 */
static double speed_params(const struct opts *o, struct ddf_params *p)
{
	const struct ddf_filter_type *t = kind_of(o);
	struct ddf_size_report rep;
	double target = 0;
	const char *why;

	if (o->window) {
		struct opts q = *o;
		bool shape = q.k && (q.l || t->kind >= DDF_KIND_QHT);

		/* as params_of: a target, a budget or a whole shape */
		if (!q.fpr && !q.memory && !shape)
			q.fpr = SPEED_FPR;
		params_of(&q, p, &rep);
		target = q.fpr;
	} else if (!o->memory) {
		fprintf(stderr,
			"ddfbench speed: give --memory BYTES or --window W (or --all)\n");
		exit(2);
	} else if (!speed_budget_params(o, t->kind, o->memory, p, &target,
					&why)) {
		fprintf(stderr, "ddfbench speed: %s at %llu bytes: %s\n",
			t->name, (unsigned long long)o->memory,
			why ? why : "cannot size");
		exit(2);
	}
	if (!speed_kept(o, p, t->name))
		exit(2);
	return target;
}

/* "tune": "..", of apbf and apbbf (speed sizes them by a rate) */
static void print_tune(const struct opts *o, const struct ddf_params *p)
{
	if (p->kind == DDF_KIND_APBF || p->kind == DDF_KIND_APBBF)
		printf("\"tune\": \"%s\", ",
		       o->tune == DDF_TUNE_SPEED ? "speed" : "memory");
}

/* k=.. l=.. m=.. and the fields the kind has. */
static void print_shape(const struct ddf_params *p)
{
	printf("k=%u l=%u m=%llu", p->k, p->l, (unsigned long long)p->m);
	if (p->block_bits)
		printf(" B=%u b=%u", p->block_bits, p->block_hashes);
	if (p->fp_bits)
		printf(" s=%u", p->fp_bits);
	if (p->cell_bits)
		printf(" c=%u", p->cell_bits);
	if (p->cpus)
		printf(" cpus=%u", p->cpus);
}

int cmd_speed(const struct opts *o)
{
	struct ddf_params p;
	struct ddf_filter *f;
	struct speed_res r;
	uint64_t s = 3, ops = 2000000;
	double sip[3], dep, rl, fpr, target;
	uint32_t lines;

	target = speed_params(o, &p);
	f = build_layout(&p, o->layout);
	speed_ahead = o->ahead;
	speed_prefetch = o->layout ? ddf_apbbf_il_prefetch :
				     ddf_apbbf_paper_prefetch;
	fpr = ddf_fpr_analytic(&p);
	speed_measure(f, &p, &s, &r);
	/* the memory system's limits over a buffer of the filter's size */
	dep = chase(f->bytes, ops);
	/* apbbf: the lines its prefetch issues for a new key (ddf_size.h) */
	lines = p.kind == DDF_KIND_APBBF ? ddf_apbf_lines(&p) :
		p.kind == DDF_KIND_APBF ? p.k + 2 : 1;
	rl = touch(f->bytes, lines, ops);
	siphash_costs(sip);
	if (o->json) {
		printf("{\"filter\": \"%s\", ", o->filter);
		if (o->layout)
			printf("\"layout\": \"interleaved\", ");
		if (o->ahead)
			printf("\"prefetch_ahead\": %u, ", o->ahead);
		print_tune(o, &p);
		printf("\"params\": ");
		print_params(stdout, &p);
		printf(", \"bytes\": %llu, \"fpr_target\": %g, "
		       "\"fpr_analytic\": %.6g, \"thp\": %d, "
		       "\"ns_per_op\": %.2f, \"ns_per_dependent_read\": %.2f, "
		       "\"lines_per_op\": %u, \"ns_per_random_lines\": %.2f, "
		       "\"ns_siphash13_16\": %.2f, \"ns_siphash13_40\": %.2f, "
		       "\"ns_siphash13_64\": %.2f, \"dup_rate\": %.3g, "
		       "\"warm_inserts\": %llu, \"steady\": %s",
		       (unsigned long long)f->bytes, target, fpr, use_thp,
		       r.ns, dep, lines, rl, sip[0], sip[1], sip[2],
		       r.dup_rate, (unsigned long long)r.warm,
		       r.steady ? "true" : "false");
	} else {
		printf("filter %s, %llu bytes, ", o->filter,
		       (unsigned long long)f->bytes);
		print_shape(&p);
		if (p.kind == DDF_KIND_APBF || p.kind == DDF_KIND_APBBF)
			printf(" (tune %s)", o->tune == DDF_TUNE_SPEED ?
			       "speed" : "memory");
		if (o->layout)
			printf(" layout interleaved");
		if (o->ahead)
			printf(" prefetch-ahead %u", o->ahead);
		printf("\n");
		if (p.window)
			printf("window %llu elements%s, ",
			       (unsigned long long)p.window,
			       kind_has_window(p.kind) ? "" :
			       " (approximate: no guarantee)");
		printf("fp rate %.3g analytic", fpr);
		if (target)
			printf(" (sized for %g)", target);
		printf("%s\n", r.steady ? "" :
		       "; warm-up stopped by its time limit before the window");
		printf("test-and-insert       %8.2f ns/op\n", r.ns);
		printf("dependent read        %8.2f ns   (ratio %.2f)\n", dep,
		       r.ns / dep);
		printf("%2u random lines       %8.2f ns   (ratio %.2f)\n", lines,
		       rl, r.ns / rl);
		printf("siphash-1-3 16/40/64B %.1f / %.1f / %.1f ns per key\n",
		       sip[0], sip[1], sip[2]);
	}
	if (o->threads)
		speed_threads(o, &p, f);
	if (o->json)
		printf("}\n");
	free(f);
	return 0;
}

static void print_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

int cmd_speed_all(const struct opts *o)
{
	static const uint64_t def_sizes[] = { 1u << 20, 64u << 20, 256u << 20 };
	uint64_t sizes[3], seed = 3, ops = 2000000;
	double dep[3], rl[3], sip[3], t0 = now_s();
	double fpr = o->fpr ? o->fpr : SPEED_FPR;
	const struct ddf_filter_type *t;
	unsigned int ns = 0;
	bool first = true;

	if (o->memory)
		sizes[ns++] = o->memory;
	else
		for (unsigned int i = 0; i < 3; i++)
			sizes[ns++] = def_sizes[i];
	/* the memory system's limits, in the same run */
	for (unsigned int i = 0; i < ns; i++) {
		dep[i] = chase(sizes[i], ops);
		rl[i] = touch(sizes[i], 1, ops);
	}
	siphash_costs(sip);
	if (o->json) {
		printf("{\"thp\": %d, \"fpr_target\": %g, "
		       "\"ns_siphash13_16\": %.2f, \"ns_siphash13_40\": %.2f, "
		       "\"ns_siphash13_64\": %.2f, \"sizes\": [",
		       use_thp, fpr, sip[0], sip[1], sip[2]);
		for (unsigned int i = 0; i < ns; i++)
			printf("%s{\"bytes\": %llu, \"ns_dependent_read\": %.2f, "
			       "\"ns_random_line\": %.2f}", i ? ", " : "",
			       (unsigned long long)sizes[i], dep[i], rl[i]);
		printf("],\n \"filters\": [");
	} else {
		printf("# ddfbench speed --all\n\n");
		printf("Filters sized as ddfctl sizes them for the budget at a false-positive rate of %g (windowed kinds: the largest window that fits); ns per test-and-insert of a new key, hashes precomputed (SipHash-1-3 of a 16/40/64-byte key: %.1f/%.1f/%.1f ns more); median of %d rounds after a warm-up to the window.\n\n",
		       fpr, sip[0], sip[1], sip[2], SPEED_ROUNDS);
		printf("| budget | dependent read ns | random line ns |\n|---:|---:|---:|\n");
		for (unsigned int i = 0; i < ns; i++)
			printf("| %llu MiB | %.1f | %.1f |\n",
			       (unsigned long long)(sizes[i] >> 20), dep[i],
			       rl[i]);
		printf("\n| filter | budget | bytes | shape | window | fpr | ns/op | / dependent read | warm-up |\n");
		printf("|---|---:|---:|---|---:|---:|---:|---:|---|\n");
	}
	for (unsigned int ki = 0; (t = ddf_filter_type_at(ki)); ki++) {
		for (unsigned int i = 0; i < ns; i++) {
			struct ddf_params p;
			struct ddf_filter *f;
			struct speed_res r;
			const char *why;
			double target;

			/* the largest budget for the two filters of the paper's scale */
			if (!o->memory && i == 2 && t->kind != DDF_KIND_APBBF &&
			    t->kind != DDF_KIND_QQHTD)
				continue;
			if (!speed_budget_params(o, t->kind, sizes[i], &p,
						 &target, &why)) {
				fprintf(stderr, "ddfbench: speed: %s at %llu bytes: %s\n",
					t->name, (unsigned long long)sizes[i],
					why ? why : "cannot size");
				continue;
			}
			f = build(&p);
			speed_measure(f, &p, &seed, &r);
			if (o->json) {
				printf("%s\n  {\"filter\": ", first ? "" : ",");
				print_json_str(t->name);
				printf(", ");
				print_tune(o, &p);
				printf("\"budget\": %llu, \"bytes\": %llu, \"params\": ",
				       (unsigned long long)sizes[i],
				       (unsigned long long)f->bytes);
				print_params(stdout, &p);
				printf(", \"fpr_analytic\": %.6g, \"ns_per_op\": %.2f, "
				       "\"ns_dependent_read\": %.2f, "
				       "\"ns_random_line\": %.2f, \"ops\": %llu, "
				       "\"warm_inserts\": %llu, \"steady\": %s, "
				       "\"dup_rate\": %.4g}",
				       ddf_fpr_analytic(&p), r.ns, dep[i], rl[i],
				       (unsigned long long)r.ops,
				       (unsigned long long)r.warm,
				       r.steady ? "true" : "false", r.dup_rate);
			} else {
				printf("| %s | %llu MiB | %llu | ", t->name,
				       (unsigned long long)(sizes[i] >> 20),
				       (unsigned long long)f->bytes);
				print_shape(&p);
				printf(" | %llu | %.2g | %.1f | %.2f | %s |\n",
				       (unsigned long long)p.window,
				       ddf_fpr_analytic(&p), r.ns, r.ns / dep[i],
				       r.steady ? "window" :
				       "partial (time cap)");
			}
			fflush(stdout);
			first = false;
			free(f);
		}
	}
	if (o->json)
		printf("],\n \"seconds\": %.1f}\n", now_s() - t0);
	else
		printf("\n%.0f s in all\n", now_s() - t0);
	return 0;
}
