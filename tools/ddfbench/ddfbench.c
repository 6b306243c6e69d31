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
	int json, thp;
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
		"  speed     --filter F --memory BYTES\n"
		"            ns per test-and-insert beside ns per dependent read\n"
		"  reproduce TABLE|list|all [--json] [--quick]\n"
		"            a paper's table: its values beside ddf's, verdicts\n"
		"options: --json  --block-bits 64|512 --block-hashes 4|8\n"
		"         --thp (speed: transparent huge pages for all buffers)\n"
		"         --fp-bits S (qht family)\n"
		"filters: apbf apbbf qht qhtd qqhtd\n");
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

static int cmd_speed(const struct opts *o)
{
	struct ddf_sipkey sk = { 1, 2 };
	struct ddf_params p;
	struct ddf_filter *f;
	uint64_t ops = 2000000, s = 3, dups = 0;
	struct ddf_hash *hs = malloc(ops * sizeof(*hs));
	static const uint32_t klens[] = { 16, 40, 64 };
	double sip[3], t0, ns, dep, rl;
	uint32_t lines;
	uint8_t key[64];

	if (!o->memory) {
		fprintf(stderr, "ddfbench: speed needs --memory BYTES\n");
		return 2;
	}
	speed_params(o, &p);
	f = build(&p);
	/* warm the filter to steady state with a first pass */
	for (uint64_t i = 0; i < ops / 2; i++) {
		struct ddf_hash h = { rnd(&s), rnd(&s) };

		ddf_filter_insert(f, &h, 0);
	}
	for (uint64_t i = 0; i < ops; i++)
		hs[i] = (struct ddf_hash){ rnd(&s), rnd(&s) };
	/* the filter part: hashes precomputed (read sequentially) */
	t0 = now_s();
	for (uint64_t i = 0; i < ops; i++)
		dups += ddf_filter_test_and_insert(f, &hs[i], 0);
	ns = (now_s() - t0) * 1e9 / ops;
	dep = chase(o->memory, ops);
	lines = p.kind == DDF_KIND_APBBF ? p.k + p.l :
		p.kind == DDF_KIND_APBF ? p.k + 2 : 1;
	rl = touch(o->memory, lines, ops);
	for (int i = 0; i < 64; i++)
		key[i] = (uint8_t)i;
	for (int j = 0; j < 3; j++) {
		struct ddf_hash h;
		uint64_t acc = 0;

		t0 = now_s();
		for (uint64_t i = 0; i < ops; i++) {
			key[0] = (uint8_t)i;
			ddf_hash_key(&h, DDF_HASH_SIP13, &sk, key, klens[j]);
			acc += h.h1;
		}
		sip[j] = (now_s() - t0) * 1e9 / ops;
		if (acc == 7)
			puts("");
	}
	if (o->json) {
		printf("{\"filter\": \"%s\", \"params\": ", o->filter);
		print_params(stdout, &p);
		printf(", \"bytes\": %llu, \"thp\": %d, \"ns_per_op\": %.2f, "
		       "\"ns_per_dependent_read\": %.2f, "
		       "\"lines_per_op\": %u, \"ns_per_random_lines\": %.2f, "
		       "\"ns_siphash13_16\": %.2f, \"ns_siphash13_40\": %.2f, "
		       "\"ns_siphash13_64\": %.2f, \"dup_rate\": %.3g}\n",
		       (unsigned long long)f->bytes, use_thp, ns, dep, lines, rl,
		       sip[0], sip[1], sip[2], (double)dups / ops);
	} else {
		printf("filter %s, %llu bytes (k=%u l=%u m=%llu)\n", o->filter,
		       (unsigned long long)f->bytes, p.k, p.l,
		       (unsigned long long)p.m);
		printf("test-and-insert       %8.2f ns/op\n", ns);
		printf("dependent read        %8.2f ns   (ratio %.2f)\n", dep,
		       ns / dep);
		printf("%2u random lines       %8.2f ns   (ratio %.2f)\n", lines,
		       rl, ns / rl);
		printf("siphash-1-3 16/40/64B %.1f / %.1f / %.1f ns per key\n",
		       sip[0], sip[1], sip[2]);
	}
	free(hs);
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
		{ "thp", 0, 0, 'T' },
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
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!strcmp(cmd, "size"))
		return cmd_size(&o);
	if (!strcmp(cmd, "accuracy"))
		return cmd_accuracy(&o);
	if (!strcmp(cmd, "speed"))
		return cmd_speed(&o);
	fprintf(stderr, "ddfbench: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
