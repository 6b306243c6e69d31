// SPDX-License-Identifier: GPL-2.0
/*
 * ddfbench: size a filter, measure its accuracy on a synthetic stream, and
 * measure its speed beside the memory system's own limits, all with the
 * same ddf_core the kernel module runs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_size.h"
#include "reproduce.h"

struct opts {
	const char *filter;
	uint64_t window, inserts, probes, memory, seed;
	double fpr;
	uint32_t k, l, B, b, s;
	int json, thp, all;
};

static int use_thp;

/*
 * Large buffers: the filter and the buffers it is compared with come from
 * the same kind of pages, 4 KiB by default (as vmalloc gives the kernel),
 * transparent huge pages with --thp.
 */
static void *big_alloc(uint64_t bytes)
{
	uint64_t align = use_thp ? 2u << 20 : 64;
	void *p = aligned_alloc(align, (bytes + align - 1) & ~(align - 1));

	if (p && use_thp)
		madvise(p, (bytes + align - 1) & ~(align - 1), MADV_HUGEPAGE);
	return p;
}

static void usage(FILE *o)
{
	fprintf(o,
		"usage: ddfbench COMMAND [options]\n"
		"  size      --filter F --window W (--fpr P | --memory BYTES)\n"
		"            chosen parameters, bytes and analytic fp rate\n"
		"  accuracy  --filter F --window W (--fpr P | --k K --l L)\n"
		"            --inserts N --probes Q [--seed S]\n"
		"            stream N distinct keys, probe Q never-inserted ones\n"
		"  accuracy  --all [--window W] [--json]\n"
		"            every filter sized for W (default 16384) at several\n"
		"            targets or budgets: fp rate and window misses\n"
		"  speed     --filter F --memory BYTES\n"
		"            ns per test-and-insert beside ns per dependent read\n"
		"  speed     --all [--memory BYTES] [--json]\n"
		"            every filter at 1 MiB and 64 MiB (APBBF, QQHTD also\n"
		"            256 MiB), sized at fpr 1e-3, beside the memory limits\n"
		"  reproduce TABLE|list|all [--json] [--quick] [--json-out FILE]\n"
		"            a paper's table: its values beside ddf's, verdicts\n"
		"options: --json  --block-bits 64|512 --block-hashes 4|8\n"
		"         --thp (speed: transparent huge pages for all buffers)\n"
		"         --fp-bits S (qht family)\n"
		"filters: apbf apbbf qht qhtd qqhtd sqf sbf a2 bdbf cuckoo rsbf bsbf\n"
		"         bsbfsd rlbsbf shf cshf exact queue\n");
}

static uint64_t num(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0) {
		fprintf(stderr, "ddfbench: %s: not a number: %s\n", what, s);
		exit(2);
	}
	switch (*end) {
	case 'k': case 'K': v *= 1e3; break;
	case 'M': v *= 1 << 20; break;
	case 'G': v *= 1 << 30; break;
	case 'm': v *= 1e6; break;
	case 0: break;
	default:
		fprintf(stderr, "ddfbench: %s: bad suffix in %s\n", what, s);
		exit(2);
	}
	return (uint64_t)v;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Kinds that never report a key of the last `window` insertions as unseen;
 * the others forget at random and their window is only a size.
 */
static bool kind_has_window(uint32_t kind)
{
	switch (kind) {
	case DDF_KIND_APBF: case DDF_KIND_APBBF: case DDF_KIND_EXACT:
	case DDF_KIND_SHF: case DDF_KIND_CSHF: case DDF_KIND_BDBF:
	case DDF_KIND_A2: case DDF_KIND_QUEUE:
		return true;
	default:
		return false;
	}
}

/* Kinds whose analytic rate is the limit on an endless stream. */
static bool kind_asymptotic(uint32_t kind)
{
	return kind == DDF_KIND_QHT || kind == DDF_KIND_QHTD ||
	       kind == DDF_KIND_QQHTD || kind == DDF_KIND_SQF ||
	       kind == DDF_KIND_SBF || kind == DDF_KIND_CUCKOO ||
	       kind == DDF_KIND_RSBF || kind == DDF_KIND_BSBF ||
	       kind == DDF_KIND_BSBFSD || kind == DDF_KIND_RLBSBF;
}

static const struct ddf_filter_type *kind_of(const struct opts *o)
{
	const struct ddf_filter_type *t;

	if (!o->filter) {
		fprintf(stderr, "ddfbench: --filter is required\n");
		exit(2);
	}
	t = ddf_filter_type_by_name(o->filter);
	if (!t) {
		fprintf(stderr, "ddfbench: unknown filter '%s'\n", o->filter);
		exit(2);
	}
	return t;
}

/* Parameters from the options: sizing, or the shape given explicitly. */
static void params_of(const struct opts *o, struct ddf_params *p,
		      struct ddf_size_report *rep)
{
	const struct ddf_filter_type *t = kind_of(o);
	struct ddf_size_req req = {
		.kind = t->kind, .window = o->window, .fpr = o->fpr,
		.bytes = o->memory, .k = o->k, .l = o->l,
		.block_bits = o->B, .block_hashes = o->b, .fp_bits = o->s,
	};
	const char *why = NULL;
	int err;

	memset(rep, 0, sizeof(*rep));
	if (o->k && (o->l || t->kind >= DDF_KIND_QHT) && !o->fpr &&
	    !o->memory) {
		*p = (struct ddf_params){ .kind = t->kind, .window = o->window,
					  .k = o->k, .l = o->l,
					  .block_bits = o->B,
					  .block_hashes = o->b,
					  .fp_bits = o->s };
		err = ddf_params_resolve(p, &why);
		if (!err) {
			rep->fpr = ddf_fpr_analytic(p);
			rep->bytes = ddf_filter_memsize(p);
			rep->window = p->window;
		}
	} else {
		err = ddf_size(&req, p, rep, &why);
	}
	if (err) {
		fprintf(stderr, "ddfbench: %s: %s\n", t->name,
			why ? why : "invalid parameters");
		exit(2);
	}
}

static void print_params(FILE *f, const struct ddf_params *p)
{
	fprintf(f,
		"{\"k\": %u, \"l\": %u, \"m\": %llu, \"block_bits\": %u, "
		"\"block_hashes\": %u, \"fp_bits\": %u, \"window\": %llu}",
		p->k, p->l, (unsigned long long)p->m, p->block_bits,
		p->block_hashes, p->fp_bits, (unsigned long long)p->window);
}

static int cmd_size(const struct opts *o)
{
	struct ddf_size_report rep;
	struct ddf_params p;

	params_of(o, &p, &rep);
	if (o->json) {
		printf("{\"filter\": \"%s\", \"params\": ", o->filter);
		print_params(stdout, &p);
		printf(", \"bytes\": %llu, \"fpr_analytic\": %.9g, "
		       "\"bits_per_element\": %.3f}\n",
		       (unsigned long long)rep.bytes, rep.fpr,
		       p.window ? rep.bytes * 8.0 / p.window : 0.0);
		return 0;
	}
	printf("filter      %s\n", o->filter);
	printf("shape       k=%u l=%u m=%llu", p.k, p.l,
	       (unsigned long long)p.m);
	if (p.block_bits)
		printf(" B=%u b=%u", p.block_bits, p.block_hashes);
	if (p.fp_bits)
		printf(" s=%u", p.fp_bits);
	printf("\nwindow      %llu elements%s\n", (unsigned long long)p.window,
	       kind_has_window(p.kind) ? "" : " (approximate: no guarantee)");
	printf("memory      %llu bytes (%.2f bits per element)\n",
	       (unsigned long long)rep.bytes,
	       p.window ? rep.bytes * 8.0 / p.window : 0.0);
	printf("fp rate     %.3g analytic%s\n", rep.fpr,
	       kind_asymptotic(p.kind) ? " (asymptotic)" :
					" (worst case inside the window)");
	if (rep.accesses_false)
		printf("accesses    %.2f per query answering no\n",
		       rep.accesses_false);
	return 0;
}

static struct ddf_filter *build(const struct ddf_params *p)
{
	uint64_t sz = ddf_filter_memsize(p);
	void *mem = big_alloc(sz);
	struct ddf_filter *f = mem ? ddf_filter_init(mem, sz, p, 0) : NULL;

	if (!f) {
		fprintf(stderr, "ddfbench: cannot allocate %llu bytes\n",
			(unsigned long long)sz);
		exit(1);
	}
	return f;
}

static void key_hash(struct ddf_hash *h, const struct ddf_sipkey *sk,
		     uint64_t x)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(x >> (8 * i));
	ddf_hash_key(h, DDF_HASH_SIP13, sk, b, sizeof(b));
}

/*
 * Keys 0 .. N-1 are inserted in order; probe keys carry bit 63 so they are
 * never inserted. Probes are spread over the stream after the first window.
 * A false negative is a key of the last w inserts not reported present
 * (the oldest such key is checked after every insert).
 */
static int cmd_accuracy(const struct opts *o)
{
	struct ddf_size_report rep;
	struct ddf_sipkey sk = { o->seed, o->seed ^ 0x5bd1e995ull };
	struct ddf_params p;
	struct ddf_filter *f;
	struct ddf_stats st;
	uint64_t fn = 0, hits = 0, probed = 0, w, every, pk = 1ull << 63;

	if (!o->inserts || !o->probes) {
		fprintf(stderr, "ddfbench: accuracy needs --inserts and --probes\n");
		return 2;
	}
	params_of(o, &p, &rep);
	f = build(&p);
	ddf_filter_stats(f, &st);
	w = p.window;
	every = o->inserts > w ? (o->inserts - w) / o->probes : 0;
	for (uint64_t i = 0; i < o->inserts; i++) {
		struct ddf_hash h;

		key_hash(&h, &sk, i);
		ddf_filter_insert(f, &h, 0);
		key_hash(&h, &sk, i + 1 > w ? i + 1 - w : 0);
		fn += !ddf_filter_lookup(f, &h, 0);
		if (i >= w && every && (i - w) % every == 0 &&
		    probed < o->probes) {
			key_hash(&h, &sk, pk++);
			hits += ddf_filter_lookup(f, &h, 0);
			probed++;
		}
	}
	for (; probed < o->probes; probed++) {
		struct ddf_hash h;

		key_hash(&h, &sk, pk++);
		hits += ddf_filter_lookup(f, &h, 0);
	}
	if (o->json) {
		printf("{\"filter\": \"%s\", \"params\": ", o->filter);
		print_params(stdout, &p);
		printf(", \"bytes\": %llu, \"fpr_analytic\": %.9g, "
		       "\"fpr_measured\": %.9g, \"false_negatives\": %llu, "
		       "\"inserts\": %llu, \"probes\": %llu}\n",
		       (unsigned long long)rep.bytes, rep.fpr,
		       (double)hits / probed, (unsigned long long)fn,
		       (unsigned long long)o->inserts,
		       (unsigned long long)probed);
	} else {
		printf("filter %s k=%u l=%u m=%llu window %llu, %llu bytes\n",
		       o->filter, p.k, p.l, (unsigned long long)p.m,
		       (unsigned long long)w, (unsigned long long)rep.bytes);
		printf("fp rate measured %.6g over %llu probes (analytic %.6g%s)\n",
		       (double)hits / probed, (unsigned long long)probed,
		       rep.fpr,
		       kind_asymptotic(p.kind) ? ", asymptotic" : ", worst case");
		printf("false negatives inside the window: %llu of %llu checks\n",
		       (unsigned long long)fn,
		       (unsigned long long)o->inserts);
	}
	return 0;
}

/*
 * accuracy --all: error against memory for every kind, as ddf sizes it
 * for a window W. Kinds sized by a target rate get the targets 1e-1 ..
 * 1e-5 (windowed kinds then guarantee the window; the fingerprint tables
 * only size by it); kinds sized by a budget (SBF, the bsbf family) get
 * 2 .. 32 bits per window element. Each point: 8 W distinct keys; after
 * every insertion past the first window the key inserted W - 1 earlier
 * is looked up (a false negative of the window), and never-inserted keys
 * are probed in between (false positives), up to ACC_PROBES of them or
 * ACC_SECONDS of probing (CSHF scans its window per query).
 */
#define ACC_PROBES (1u << 20)
#define ACC_SECONDS 3.0

struct acc_res {
	double fpr, fnr;
	uint64_t probes, checks;
};

static void acc_measure(struct ddf_filter *f, uint64_t w, uint64_t n,
			uint64_t seed, struct acc_res *r)
{
	uint64_t ks = seed, ps = seed ^ 0x5bd1e995ull, hits = 0, fn = 0;
	uint64_t per = ACC_PROBES / (n - w + 1) + 1, lag = seed;
	double t0 = now_s();
	bool slow = false;

	memset(r, 0, sizeof(*r));
	for (uint64_t i = 0; i < n; i++) {
		struct ddf_hash h = { rnd(&ks), rnd(&ks) };

		ddf_filter_insert(f, &h, 0);
		if (i + 1 < w)
			continue;
		/* the oldest key of the window: the lagging generator */
		h = (struct ddf_hash){ rnd(&lag), rnd(&lag) };
		fn += !ddf_filter_lookup(f, &h, 0);
		r->checks++;
		for (uint64_t j = 0; j < per && r->probes < ACC_PROBES &&
				     !slow; j++) {
			h = (struct ddf_hash){ rnd(&ps) | 1ull << 63,
					       rnd(&ps) };
			hits += ddf_filter_lookup(f, &h, 0);
			r->probes++;
			if (!(r->probes & 1023) && now_s() - t0 > ACC_SECONDS)
				slow = true;
		}
	}
	r->fpr = r->probes ? (double)hits / r->probes : 0;
	r->fnr = r->checks ? (double)fn / r->checks : 0;
}

static bool acc_all_params(uint32_t kind, uint64_t w, unsigned int i,
			   struct ddf_params *p, double *target)
{
	static const double fprs[] = { 1e-1, 1e-2, 1e-3, 1e-4, 1e-5 };
	static const uint32_t bpe[] = { 2, 4, 8, 16, 32 };
	struct ddf_size_req req = { .kind = kind, .window = w };
	const char *why = NULL;

	*target = 0;
	switch (kind) {
	case DDF_KIND_QUEUE:
		/*
		 * L = 4 QHT subfilters of k = 4, s = 16, with 1/2 .. 8
		 * slots per insertion: the queue guarantees (L - 1) c, so
		 * c = w / 3
		 */
		*p = (struct ddf_params){ .kind = kind,
					  .inner_kind = DDF_KIND_QHT,
					  .subfilters = 4, .k = 4,
					  .fp_bits = 16,
					  .window = 4 * ((w + 2) / 3) };
		p->m = ((w + 2) / 3 << i) / 8;
		return !ddf_params_resolve(p, &why);
	case DDF_KIND_SBF: case DDF_KIND_RSBF: case DDF_KIND_BSBF:
	case DDF_KIND_BSBFSD: case DDF_KIND_RLBSBF:
		req.window = 0;
		req.bytes = w * bpe[i] / 8;
		return !ddf_size(&req, p, NULL, &why);
	default:
		req.fpr = *target = fprs[i];
		return !ddf_size(&req, p, NULL, &why);
	}
}

static int cmd_accuracy_all(const struct opts *o)
{
	uint64_t w = o->window ? o->window : 1u << 14, seed = o->seed;
	const struct ddf_filter_type *t;
	double t0 = now_s();
	bool first = true;

	if (o->json)
		printf("{\"window\": %llu, \"points\": [",
		       (unsigned long long)w);
	else
		printf("| filter | target fpr | bytes | bits per window element | shape | fpr analytic | fpr measured | probes | window false negatives |\n|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
	for (unsigned int ki = 0; (t = ddf_filter_type_at(ki)); ki++) {
		for (unsigned int i = 0; i < 5; i++) {
			struct ddf_params p;
			struct ddf_filter *f;
			struct acc_res r;
			double target;

			if (!acc_all_params(t->kind, w, i, &p, &target))
				continue;
			f = build(&p);
			acc_measure(f, w, 8 * w, seed + ki * 8 + i, &r);
			if (o->json) {
				printf("%s\n  {\"filter\": \"%s\", \"target_fpr\": %g, "
				       "\"bytes\": %llu, \"bits_per_element\": %.3f, "
				       "\"params\": ",
				       first ? "" : ",", t->name, target,
				       (unsigned long long)f->bytes,
				       f->bytes * 8.0 / w);
				print_params(stdout, &p);
				printf(", \"windowed\": %s, \"fpr_analytic\": %.6g, "
				       "\"fpr_measured\": %.6g, \"probes\": %llu, "
				       "\"fn_rate\": %.6g, \"checks\": %llu}",
				       kind_has_window(p.kind) ? "true" : "false",
				       ddf_fpr_analytic(&p), r.fpr,
				       (unsigned long long)r.probes, r.fnr,
				       (unsigned long long)r.checks);
			} else {
				printf("| %s | %g | %llu | %.2f | k=%u l=%u m=%llu s=%u c=%u | %.3g | %.3g | %llu | %.3g |\n",
				       t->name, target,
				       (unsigned long long)f->bytes,
				       f->bytes * 8.0 / w, p.k, p.l,
				       (unsigned long long)p.m, p.fp_bits,
				       p.cell_bits, ddf_fpr_analytic(&p), r.fpr,
				       (unsigned long long)r.probes, r.fnr);
			}
			fflush(stdout);
			first = false;
			free(f);
		}
	}
	if (o->json)
		printf("],\n \"seconds\": %.1f}\n", now_s() - t0);
	return 0;
}

/* Parameters filling about `memory` bytes with a typical shape. */
static void speed_params(const struct opts *o, struct ddf_params *p)
{
	const struct ddf_filter_type *t = kind_of(o);
	const char *why = NULL;
	uint64_t bytes = o->memory;

	*p = (struct ddf_params){ .kind = t->kind };
	switch (t->kind) {
	case DDF_KIND_APBF:
		p->k = o->k ? o->k : 10;
		p->l = o->l ? o->l : 7;
		p->m = bytes * 8 / (p->k + p->l + 1);
		break;
	case DDF_KIND_APBBF:
		p->k = o->k ? o->k : 3;
		p->l = o->l ? o->l : 5;
		p->block_bits = o->B ? o->B : 512;
		p->block_hashes = o->b ? o->b : 8;
		p->m = bytes * 8 / (p->k + p->l + 1) / p->block_bits;
		break;
	case DDF_KIND_QHT:
	case DDF_KIND_QHTD:
	case DDF_KIND_QQHTD:
		p->k = o->k ? o->k : 4;
		p->fp_bits = o->s ? o->s : 16;
		p->m = bytes / 8;
		break;
	default: {
		/* the other kinds size themselves from a budget */
		struct ddf_size_req req = { .kind = t->kind, .bytes = bytes,
					    .fpr = o->fpr ? o->fpr : 0.01,
					    .window = o->window ? o->window :
						      kind_has_window(t->kind) ?
								  bytes / 64 : 0 };

		if (ddf_size(&req, p, NULL, &why)) {
			fprintf(stderr, "ddfbench: %s: %s\n", t->name, why);
			exit(2);
		}
		return;
	}
	}
	if (ddf_params_resolve(p, &why)) {
		fprintf(stderr, "ddfbench: %s\n", why);
		exit(2);
	}
}

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

		for (; i < end; i++)
			*dups += ddf_filter_test_and_insert(f, &hs[i], 0);
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
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

static int cmd_speed(const struct opts *o)
{
	struct ddf_params p;
	struct ddf_filter *f;
	struct speed_res r;
	uint64_t s = 3, ops = 2000000;
	double sip[3], dep, rl;
	uint32_t lines;

	if (!o->memory) {
		fprintf(stderr, "ddfbench: speed needs --memory BYTES (or --all)\n");
		return 2;
	}
	speed_params(o, &p);
	f = build(&p);
	speed_measure(f, &p, &s, &r);
	dep = chase(o->memory, ops);
	lines = p.kind == DDF_KIND_APBBF ? p.k + p.l :
		p.kind == DDF_KIND_APBF ? p.k + 2 : 1;
	rl = touch(o->memory, lines, ops);
	siphash_costs(sip);
	if (o->json) {
		printf("{\"filter\": \"%s\", \"params\": ", o->filter);
		print_params(stdout, &p);
		printf(", \"bytes\": %llu, \"thp\": %d, \"ns_per_op\": %.2f, "
		       "\"ns_per_dependent_read\": %.2f, "
		       "\"lines_per_op\": %u, \"ns_per_random_lines\": %.2f, "
		       "\"ns_siphash13_16\": %.2f, \"ns_siphash13_40\": %.2f, "
		       "\"ns_siphash13_64\": %.2f, \"dup_rate\": %.3g}\n",
		       (unsigned long long)f->bytes, use_thp, r.ns, dep, lines,
		       rl, sip[0], sip[1], sip[2], r.dup_rate);
	} else {
		printf("filter %s, %llu bytes (k=%u l=%u m=%llu)\n", o->filter,
		       (unsigned long long)f->bytes, p.k, p.l,
		       (unsigned long long)p.m);
		printf("test-and-insert       %8.2f ns/op\n", r.ns);
		printf("dependent read        %8.2f ns   (ratio %.2f)\n", dep,
		       r.ns / dep);
		printf("%2u random lines       %8.2f ns   (ratio %.2f)\n", lines,
		       rl, r.ns / rl);
		printf("siphash-1-3 16/40/64B %.1f / %.1f / %.1f ns per key\n",
		       sip[0], sip[1], sip[2]);
	}
	free(f);
	return 0;
}

/*
 * speed --all: every filter kind as ddfctl would size it for a memory
 * budget at one false positive in a thousand. Windowed kinds get the
 * largest window whose filter fits the budget; dictionaries that cannot
 * use it all (CSHF scans at most 65536 elements) report the bytes they
 * use. Windowless kinds take the budget (the bsbf family: k = 2).
 */
#define SPEED_FPR 1e-3

static bool speed_fit(uint32_t kind, uint64_t window, uint64_t budget,
		      struct ddf_params *p)
{
	struct ddf_size_req req = { .kind = kind, .window = window,
				    .fpr = SPEED_FPR };
	struct ddf_size_report rep;
	const char *why = NULL;

	return !ddf_size(&req, p, &rep, &why) && rep.bytes <= budget;
}

static bool speed_window(uint32_t kind, uint64_t budget, struct ddf_params *p)
{
	uint64_t lo = 0, hi = 1024;
	struct ddf_params q;

	/* the largest fitting window, by doubling then bisection */
	while (speed_fit(kind, hi, budget, &q) && hi < (1ull << 40)) {
		lo = hi;
		*p = q;
		hi *= 2;
	}
	if (!lo)
		return false;
	while (hi - lo > lo / 256 + 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (speed_fit(kind, mid, budget, &q)) {
			lo = mid;
			*p = q;
		} else {
			hi = mid;
		}
	}
	return true;
}

static bool speed_all_params(uint32_t kind, uint64_t budget,
			     struct ddf_params *p, const char **why)
{
	struct ddf_size_req req = { .kind = kind, .bytes = budget,
				    .fpr = SPEED_FPR };

	*why = NULL;
	switch (kind) {
	case DDF_KIND_APBF: case DDF_KIND_APBBF: case DDF_KIND_A2:
	case DDF_KIND_BDBF: case DDF_KIND_EXACT: case DDF_KIND_SHF:
	case DDF_KIND_CSHF:
		if (speed_window(kind, budget, p))
			return true;
		*why = "no window fits the budget";
		return false;
	case DDF_KIND_QUEUE:
		/* L = 4 QHT subfilters (k = 4, s = 16), one slot per insertion */
		*p = (struct ddf_params){ .kind = kind,
					  .inner_kind = DDF_KIND_QHT,
					  .subfilters = 4, .k = 4,
					  .fp_bits = 16,
					  .m = budget / 4 / 8 - 16 };
		p->window = p->m * p->k * p->subfilters;
		return !ddf_params_resolve(p, why);
	case DDF_KIND_RSBF: case DDF_KIND_BSBF: case DDF_KIND_BSBFSD:
	case DDF_KIND_RLBSBF:
		req.fpr = 0;
		/* fall through */
	default:
		return !ddf_size(&req, p, NULL, why);
	}
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

static int cmd_speed_all(const struct opts *o)
{
	static const uint64_t def_sizes[] = { 1u << 20, 64u << 20, 256u << 20 };
	uint64_t sizes[3], seed = 3, ops = 2000000;
	double dep[3], rl[3], sip[3], t0 = now_s();
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
		       use_thp, SPEED_FPR, sip[0], sip[1], sip[2]);
		for (unsigned int i = 0; i < ns; i++)
			printf("%s{\"bytes\": %llu, \"ns_dependent_read\": %.2f, "
			       "\"ns_random_line\": %.2f}", i ? ", " : "",
			       (unsigned long long)sizes[i], dep[i], rl[i]);
		printf("],\n \"filters\": [");
	} else {
		printf("# ddfbench speed --all\n\n");
		printf("Filters sized as ddfctl sizes them for the budget at a false-positive rate of %g (windowed kinds: the largest window that fits); ns per test-and-insert of a new key, hashes precomputed (SipHash-1-3 of a 16/40/64-byte key: %.1f/%.1f/%.1f ns more); median of %d rounds after a warm-up to the window.\n\n",
		       SPEED_FPR, sip[0], sip[1], sip[2], SPEED_ROUNDS);
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

			/* the largest budget for the two filters of the paper's scale */
			if (!o->memory && i == 2 && t->kind != DDF_KIND_APBBF &&
			    t->kind != DDF_KIND_QQHTD)
				continue;
			if (!speed_all_params(t->kind, sizes[i], &p, &why)) {
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
				printf(", \"budget\": %llu, \"bytes\": %llu, \"params\": ",
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
				printf("| %s | %llu MiB | %llu | k=%u l=%u m=%llu",
				       t->name,
				       (unsigned long long)(sizes[i] >> 20),
				       (unsigned long long)f->bytes, p.k, p.l,
				       (unsigned long long)p.m);
				if (p.block_bits)
					printf(" B=%u b=%u", p.block_bits,
					       p.block_hashes);
				if (p.fp_bits)
					printf(" s=%u", p.fp_bits);
				if (p.cell_bits)
					printf(" c=%u", p.cell_bits);
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

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "filter", 1, 0, 'f' }, { "window", 1, 0, 'w' },
		{ "fpr", 1, 0, 'p' },	 { "memory", 1, 0, 'M' },
		{ "k", 1, 0, 'k' },	 { "l", 1, 0, 'l' },
		{ "inserts", 1, 0, 'n' }, { "probes", 1, 0, 'q' },
		{ "seed", 1, 0, 's' },	 { "json", 0, 0, 'j' },
		{ "block-bits", 1, 0, 'B' }, { "block-hashes", 1, 0, 'b' },
		{ "fp-bits", 1, 0, 'S' }, { "help", 0, 0, 'h' },
		{ "thp", 0, 0, 'T' },	 { "all", 0, 0, 'A' },
		{ 0, 0, 0, 0 }
	};
	struct opts o = { .seed = 1 };
	const char *cmd;
	int c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	/* reproduce has its own small command line */
	if (!strcmp(cmd, "reproduce"))
		return ddf_reproduce_main(argc - 2, argv + 2);
	optind = 2;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'f': o.filter = optarg; break;
		case 'w': o.window = num(optarg, "--window"); break;
		case 'p': o.fpr = strtod(optarg, NULL); break;
		case 'M': o.memory = num(optarg, "--memory"); break;
		case 'k': o.k = (uint32_t)num(optarg, "--k"); break;
		case 'l': o.l = (uint32_t)num(optarg, "--l"); break;
		case 'n': o.inserts = num(optarg, "--inserts"); break;
		case 'q': o.probes = num(optarg, "--probes"); break;
		case 's': o.seed = num(optarg, "--seed"); break;
		case 'j': o.json = 1; break;
		case 'B': o.B = (uint32_t)num(optarg, "--block-bits"); break;
		case 'b': o.b = (uint32_t)num(optarg, "--block-hashes"); break;
		case 'S': o.s = (uint32_t)num(optarg, "--fp-bits"); break;
		case 'T': use_thp = 1; break;
		case 'A': o.all = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!strcmp(cmd, "size"))
		return cmd_size(&o);
	if (!strcmp(cmd, "accuracy"))
		return o.all ? cmd_accuracy_all(&o) : cmd_accuracy(&o);
	if (!strcmp(cmd, "speed"))
		return o.all ? cmd_speed_all(&o) : cmd_speed(&o);
	fprintf(stderr, "ddfbench: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
