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
#include "ddf_apbbf_il.h"
#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_size.h"
#include "ddfbench.h"
#include "reproduce.h"

int use_thp;

/*
 * Large buffers: the filter and the buffers it is compared with come from
 * the same kind of pages, 4 KiB by default (as vmalloc gives the kernel),
 * transparent huge pages with --thp.
 */
void *big_alloc(uint64_t bytes)
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
		"  accuracy  --all [--window W] [--seed S] [--json]\n"
		"            every filter sized for W (default 16384) at several\n"
		"            targets or budgets: fp rate and window misses\n"
		"  speed     --filter F (--memory BYTES | --window W) [--fpr P]\n"
		"            ns per test-and-insert beside ns per dependent read;\n"
		"            sized at fpr P (1e-3): the largest window in BYTES,\n"
		"            or as size sizes it for W; prints the shape it used\n"
		"            --threads N: then Mops/s of 1, 2, 4 .. N threads on\n"
		"            one shared filter, and the scaling over one thread\n"
		"  speed     --all [--memory BYTES] [--fpr P] [--json]\n"
		"            every filter at 1 MiB and 64 MiB (APBBF, QQHTD also\n"
		"            256 MiB), sized at fpr P (1e-3), beside the memory\n"
		"            limits\n"
		"  reproduce TABLE|list|all [--json] [--quick] [--json-out FILE]\n"
		"            a paper's table: its values beside ddf's, verdicts\n"
		"options: --json  --block-bits 64|512 --block-hashes 4|8\n"
		"         --thp (speed: transparent huge pages for all buffers)\n"
		"         --fp-bits S (qht family); --cpus C (apbf, apbbf: CPUs\n"
		"         inserting at once, in batches of tickets; speed\n"
		"         sizes for this machine's CPUs as the kernel does, its\n"
		"         thread inserting as one of them; --threads N gives\n"
		"         each thread a slot: C = N);\n"
		"         --tune speed|memory (apbf, apbbf sized by --fpr:\n"
		"         speed, the default, as ddfctl: fewest cache lines\n"
		"         plus atomic words per new key within 2x the least\n"
		"         memory; memory: the\n"
		"         least memory); size, accuracy and speed\n"
		"         take --k K --l L and these to fix the shape; an option\n"
		"         a command does not read is an error\n"
		"         --layout paper|interleaved (accuracy, speed of apbbf:\n"
		"         an experiment: the blocks of all segments that a key\n"
		"         uses side by side, same memory; paper by default)\n"
		"         --prefetch-ahead D (speed, apbbf: fetch the blocks\n"
		"         of the key D operations ahead first, in the layout)\n"
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
	case 'k':
	case 'K':
		v *= 1e3;
		break;
	case 'M':
		v *= 1 << 20;
		break;
	case 'G':
		v *= 1 << 30;
		break;
	case 'm':
		v *= 1e6;
		break;
	case 0:
		break;
	default:
		fprintf(stderr, "ddfbench: %s: bad suffix in %s\n", what, s);
		exit(2);
	}
	return (uint64_t)v;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t rnd(uint64_t *s)
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
bool kind_has_window(uint32_t kind)
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

const struct ddf_filter_type *kind_of(const struct opts *o)
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
void params_of(const struct opts *o, struct ddf_params *p,
		      struct ddf_size_report *rep)
{
	const struct ddf_filter_type *t = kind_of(o);
	struct ddf_size_req req = {
		.kind = t->kind, .window = o->window, .fpr = o->fpr,
		.bytes = o->memory, .k = o->k, .l = o->l,
		.block_bits = o->B, .block_hashes = o->b, .fp_bits = o->s,
		.cpus = o->cpus, .tune = o->tune,
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
					  .fp_bits = o->s, .cpus = o->cpus };
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

void print_params(FILE *f, const struct ddf_params *p)
{
	fprintf(f,
		"{\"k\": %u, \"l\": %u, \"m\": %llu, \"block_bits\": %u, "
		"\"block_hashes\": %u, \"fp_bits\": %u, \"cpus\": %u, "
		"\"window\": %llu}",
		p->k, p->l, (unsigned long long)p->m, p->block_bits,
		p->block_hashes, p->fp_bits, p->cpus,
		(unsigned long long)p->window);
}

static int cmd_size(const struct opts *o)
{
	struct ddf_size_report rep;
	struct ddf_params p;

	params_of(o, &p, &rep);
	/* as ddfctl size: the tune of apbf/apbbf sized by a target rate */
	bool tuned = (p.kind == DDF_KIND_APBF || p.kind == DDF_KIND_APBBF) &&
		     rep.lines && o->fpr && !o->memory;

	if (o->json) {
		printf("{\"filter\": \"%s\", ", o->filter);
		if (tuned)
			printf("\"tune\": \"%s\", ",
			       o->tune == DDF_TUNE_SPEED ? "speed" : "memory");
		printf("\"params\": ");
		print_params(stdout, &p);
		if (tuned)
			printf(", \"lines_per_new_key\": %u, "
			       "\"atomics_per_new_key\": %u",
			       rep.lines, rep.atomics);
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
	if (p.cpus)
		printf(" cpus=%u", p.cpus);
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
	if (tuned)
		printf("new key     %u cache lines, %u atomic words (tune %s)\n",
		       rep.lines, rep.atomics,
		       o->tune == DDF_TUNE_SPEED ? "speed" : "memory");
	return 0;
}

struct ddf_filter *build(const struct ddf_params *p)
{
	return build_layout(p, 0);
}

/* layout 1: apbbf with its segments interleaved (ddf_apbbf_il.h) */
struct ddf_filter *build_layout(const struct ddf_params *p, int layout)
{
	uint64_t sz = layout ? ddf_apbbf_il_memsize(p) : ddf_filter_memsize(p);
	void *mem = big_alloc(sz);
	struct ddf_filter *f = !mem ? NULL : layout ?
		ddf_apbbf_il_init(mem, sz, p, 0) : ddf_filter_init(mem, sz, p, 0);

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
	f = build_layout(&p, o->layout);
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
		printf("{\"filter\": \"%s\", ", o->filter);
		if (o->layout)
			printf("\"layout\": \"interleaved\", ");
		printf("\"params\": ");
		print_params(stdout, &p);
		printf(", \"bytes\": %llu, \"fpr_analytic\": %.9g, "
		       "\"fpr_measured\": %.9g, \"false_negatives\": %llu, "
		       "\"inserts\": %llu, \"probes\": %llu}\n",
		       (unsigned long long)rep.bytes, rep.fpr,
		       (double)hits / probed, (unsigned long long)fn,
		       (unsigned long long)o->inserts,
		       (unsigned long long)probed);
	} else {
		printf("filter %s%s k=%u l=%u m=%llu window %llu, %llu bytes\n",
		       o->filter, o->layout ? " (layout interleaved)" : "",
		       p.k, p.l, (unsigned long long)p.m,
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

/* The options; a command refuses those it does not read (cmd_opts). */
enum {
	OPT_FILTER, OPT_WINDOW, OPT_FPR, OPT_MEMORY, OPT_K, OPT_L,
	OPT_INSERTS, OPT_PROBES, OPT_SEED, OPT_JSON, OPT_BLOCK_BITS,
	OPT_BLOCK_HASHES, OPT_FP_BITS, OPT_THP, OPT_ALL, OPT_HELP,
	OPT_THREADS, OPT_CPUS, OPT_TUNE, OPT_LAYOUT, OPT_AHEAD,
};

#define OPT(x) (1u << OPT_##x)
#define OPT_VAL 256 /* getopt_long returns OPT_VAL + OPT_* */

static const struct option long_opts[] = {
	[OPT_FILTER] = { "filter", 1, 0, OPT_VAL + OPT_FILTER },
	[OPT_WINDOW] = { "window", 1, 0, OPT_VAL + OPT_WINDOW },
	[OPT_FPR] = { "fpr", 1, 0, OPT_VAL + OPT_FPR },
	[OPT_MEMORY] = { "memory", 1, 0, OPT_VAL + OPT_MEMORY },
	[OPT_K] = { "k", 1, 0, OPT_VAL + OPT_K },
	[OPT_L] = { "l", 1, 0, OPT_VAL + OPT_L },
	[OPT_INSERTS] = { "inserts", 1, 0, OPT_VAL + OPT_INSERTS },
	[OPT_PROBES] = { "probes", 1, 0, OPT_VAL + OPT_PROBES },
	[OPT_SEED] = { "seed", 1, 0, OPT_VAL + OPT_SEED },
	[OPT_JSON] = { "json", 0, 0, OPT_VAL + OPT_JSON },
	[OPT_BLOCK_BITS] = { "block-bits", 1, 0, OPT_VAL + OPT_BLOCK_BITS },
	[OPT_BLOCK_HASHES] = { "block-hashes", 1, 0,
			       OPT_VAL + OPT_BLOCK_HASHES },
	[OPT_FP_BITS] = { "fp-bits", 1, 0, OPT_VAL + OPT_FP_BITS },
	[OPT_THP] = { "thp", 0, 0, OPT_VAL + OPT_THP },
	[OPT_ALL] = { "all", 0, 0, OPT_VAL + OPT_ALL },
	[OPT_HELP] = { "help", 0, 0, OPT_VAL + OPT_HELP },
	[OPT_THREADS] = { "threads", 1, 0, OPT_VAL + OPT_THREADS },
	[OPT_CPUS] = { "cpus", 1, 0, OPT_VAL + OPT_CPUS },
	[OPT_TUNE] = { "tune", 1, 0, OPT_VAL + OPT_TUNE },
	[OPT_LAYOUT] = { "layout", 1, 0, OPT_VAL + OPT_LAYOUT },
	[OPT_AHEAD] = { "prefetch-ahead", 1, 0, OPT_VAL + OPT_AHEAD },
	{ 0, 0, 0, 0 }
};

/* The filter's shape, as size and the single-filter commands take it. */
#define OPTS_SHAPE (OPT(FILTER) | OPT(WINDOW) | OPT(FPR) | OPT(MEMORY) | \
		    OPT(K) | OPT(L) | OPT(BLOCK_BITS) | OPT(BLOCK_HASHES) | \
		    OPT(FP_BITS) | OPT(CPUS) | OPT(TUNE) | OPT(JSON))

/* What each command reads: any other option is an error, never ignored. */
static const struct cmd_opts {
	const char *cmd;
	bool all;
	uint32_t opts;
} cmd_opts[] = {
	{ "size", false, OPTS_SHAPE },
	{ "accuracy", false, OPTS_SHAPE | OPT(INSERTS) | OPT(PROBES) |
			     OPT(SEED) | OPT(LAYOUT) },
	{ "accuracy", true, OPT(ALL) | OPT(WINDOW) | OPT(SEED) | OPT(JSON) },
	{ "speed", false, OPTS_SHAPE | OPT(THP) | OPT(THREADS) |
			  OPT(LAYOUT) | OPT(AHEAD) },
	{ "speed", true, OPT(ALL) | OPT(MEMORY) | OPT(FPR) | OPT(JSON) |
			 OPT(THP) | OPT(TUNE) },
};

/* 0, or 2 after naming the first option given that cmd does not read. */
static int check_opts(const char *cmd, bool all, uint32_t seen)
{
	for (size_t i = 0; i < sizeof(cmd_opts) / sizeof(cmd_opts[0]); i++) {
		const struct cmd_opts *c = &cmd_opts[i];
		uint32_t bad = seen & ~c->opts & ~OPT(ALL);

		if (strcmp(c->cmd, cmd) || c->all != all)
			continue;
		for (unsigned int j = 0; bad; j++) {
			if (!(bad >> j & 1))
				continue;
			fprintf(stderr, "ddfbench %s: --%s is not an option of %s%s\n",
				cmd, long_opts[j].name, cmd,
				all ? " --all" : "");
			return 2;
		}
		return 0;
	}
	if (all) {
		fprintf(stderr, "ddfbench %s: --all is not an option of %s\n",
			cmd, cmd);
		return 2;
	}
	return 0;
}

/* A target false-positive rate: strictly between 0 and 1. */
static double fpr_arg(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0 && v < 1)) {
		fprintf(stderr, "ddfbench: --fpr: not a rate in (0, 1): %s\n",
			s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct opts o = { .seed = 1, .tune = DDF_TUNE_SPEED };
	uint32_t seen = 0;
	const char *cmd;
	int c, rc;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	/* reproduce has its own small command line */
	if (!strcmp(cmd, "reproduce"))
		return ddf_reproduce_main(argc - 2, argv + 2);
	if (strcmp(cmd, "size") && strcmp(cmd, "accuracy") &&
	    strcmp(cmd, "speed")) {
		fprintf(stderr, "ddfbench: unknown command '%s'\n", cmd);
		usage(stderr);
		return 2;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		if (c < OPT_VAL) {
			usage(stderr);
			return 2;
		}
		c -= OPT_VAL;
		seen |= 1u << c;
		switch (c) {
		case OPT_FILTER:
			o.filter = optarg;
			break;
		case OPT_WINDOW:
			o.window = num(optarg, "--window");
			break;
		case OPT_FPR:
			o.fpr = fpr_arg(optarg);
			break;
		case OPT_MEMORY:
			o.memory = num(optarg, "--memory");
			break;
		case OPT_K:
			o.k = (uint32_t)num(optarg, "--k");
			break;
		case OPT_L:
			o.l = (uint32_t)num(optarg, "--l");
			break;
		case OPT_INSERTS:
			o.inserts = num(optarg, "--inserts");
			break;
		case OPT_PROBES:
			o.probes = num(optarg, "--probes");
			break;
		case OPT_SEED:
			o.seed = num(optarg, "--seed");
			break;
		case OPT_JSON:
			o.json = 1;
			break;
		case OPT_BLOCK_BITS:
			o.B = (uint32_t)num(optarg, "--block-bits");
			break;
		case OPT_BLOCK_HASHES:
			o.b = (uint32_t)num(optarg, "--block-hashes");
			break;
		case OPT_FP_BITS:
			o.s = (uint32_t)num(optarg, "--fp-bits");
			break;
		case OPT_THP:
			use_thp = 1;
			break;
		case OPT_ALL:
			o.all = 1;
			break;
		case OPT_THREADS:
			o.threads = (uint32_t)num(optarg, "--threads");
			if (o.threads < 1 || o.threads > 1024) {
				fprintf(stderr, "ddfbench: --threads: 1 to 1024\n");
				return 2;
			}
			break;
		case OPT_CPUS:
			o.cpus = (uint32_t)num(optarg, "--cpus");
			if (o.cpus < 1 || o.cpus > DDF_MAX_CPUS) {
				fprintf(stderr, "ddfbench: --cpus: 1 to %u\n",
					DDF_MAX_CPUS);
				return 2;
			}
			break;
		case OPT_TUNE:
			if (!strcmp(optarg, "speed")) {
				o.tune = DDF_TUNE_SPEED;
			} else if (!strcmp(optarg, "memory")) {
				o.tune = DDF_TUNE_MEMORY;
			} else {
				fprintf(stderr, "ddfbench: --tune: speed or memory, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case OPT_LAYOUT:
			if (!strcmp(optarg, "paper")) {
				o.layout = 0;
			} else if (!strcmp(optarg, "interleaved")) {
				o.layout = 1;
			} else {
				fprintf(stderr, "ddfbench: --layout: paper or interleaved, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case OPT_AHEAD:
			o.ahead = (uint32_t)num(optarg, "--prefetch-ahead");
			if (o.ahead < 1 || o.ahead > 64) {
				fprintf(stderr, "ddfbench: --prefetch-ahead: 1 to 64\n");
				return 2;
			}
			break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ddfbench %s: unexpected argument '%s'\n", cmd,
			argv[optind]);
		return 2;
	}
	rc = check_opts(cmd, o.all, seen);
	if (rc)
		return rc;
	if (o.layout && (!o.filter || kind_of(&o)->kind != DDF_KIND_APBBF)) {
		fprintf(stderr, "ddfbench %s: --layout interleaved is an apbbf layout\n",
			cmd);
		return 2;
	}
	if (o.ahead && (!o.filter || kind_of(&o)->kind != DDF_KIND_APBBF ||
			o.threads)) {
		fprintf(stderr, "ddfbench %s: --prefetch-ahead is for apbbf without --threads\n",
			cmd);
		return 2;
	}
	/* threads on apbf, apbbf: one ticket slot each unless told */
	if (o.threads && !o.cpus && o.filter) {
		const struct ddf_filter_type *t = kind_of(&o);

		if (t->kind == DDF_KIND_APBF || t->kind == DDF_KIND_APBBF)
			o.cpus = o.threads;
	}
	if (!strcmp(cmd, "size"))
		return cmd_size(&o);
	if (!strcmp(cmd, "accuracy"))
		return o.all ? cmd_accuracy_all(&o) : cmd_accuracy(&o);
	return o.all ? cmd_speed_all(&o) : cmd_speed(&o);
}
