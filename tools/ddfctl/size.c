// SPDX-License-Identifier: GPL-2.0
/*
 * Sizing: the same core as the kernel and ddfbench chooses the filter's
 * shape, so `ddfctl size` shows exactly what `rule add` would send.
 */
#include <string.h>

#include "ddfctl.h"
#include "ddf_age.h"
#include "ddf_registry.h"

int ddfctl_size_filter(struct ddf_filter_req *f)
{
	struct ddf_size_req req = {
		.kind = f->kind,
		.flags = f->window_ns ? DDF_PF_TIME : 0,
		.window = f->window,
		.window_ns = f->window_ns,
		/* beside memory only for the kinds without a window */
		.fpr = f->fpr,
		.bytes = f->memory,
		.cpus = f->cpus,
		.tune = f->tune,
	};
	const char *why = NULL;
	const char *kind = ddf_kind_name(f->kind);

	if (f->shape) {
		/* a saved rule: its exact shape, not a new sizing */
		f->params.kind = f->kind;
		f->params.flags = req.flags;
		f->params.window = f->window;
		f->params.window_ns = f->window_ns;
		if (!f->params.cpus)
			f->params.cpus = f->cpus;
		if (ddf_params_resolve(&f->params, &why))
			return ddfctl_err("shape: not a valid %s: %s", kind, why);
		f->rep.bytes = ddf_filter_memsize(&f->params);
		f->rep.fpr = ddf_fpr_analytic(&f->params);
		return 0;
	}
	if (ddf_size(&req, &f->params, &f->rep, &why)) {
		if (f->memory && f->fpr)
			return ddfctl_err("fpr: '%g' with memory %llu bytes gives no %s filter: %s",
					  f->fpr, (unsigned long long)f->memory,
					  kind, why ? why : "no parameters fit");
		if (f->memory)
			return ddfctl_err("memory: %llu bytes give no %s filter: %s",
					  (unsigned long long)f->memory, kind,
					  why ? why : "no parameters fit");
		return ddfctl_err("filter: '%s' cannot be sized for this window and fpr: %s",
				  kind, why ? why : "no parameters fit");
	}
	/* what is sent must pass the kernel's own check: run it here first */
	if (ddf_params_resolve(&f->params, &why))
		return ddfctl_err("filter: '%s': %s", kind, why);
	f->rep.bytes = ddf_filter_memsize(&f->params);
	f->rep.fpr = ddf_fpr_analytic(&f->params);
	return 0;
}

/*
 * The analytic false-positive rate of params, by the sizing code of
 * `size`; false when the core has no model for them: a queue whose
 * subfilters' kind has none (Theorem 5 needs their rate after n inserts),
 * or params the core's checks refuse. The models take resolved params
 * only, and a reply's are the kernel's word: resolved again here, so
 * that a reply with k or l beyond the core's caps is not read past them.
 */
bool ddfctl_fpr(const struct ddf_params *p, double *fpr)
{
	struct ddf_params q = *p;
	const char *why;
	double v;

	if (ddf_params_resolve(&q, &why))
		return false;
	if (q.kind == DDF_KIND_QUEUE && ddf_queue_fpr_at(&q, 0) < 0)
		return false;
	v = ddf_fpr_analytic(&q);
	if (!(v >= 0 && v <= 1))
		return false;
	*fpr = v;
	return true;
}

void print_duration(FILE *out, uint64_t ns)
{
	static const struct { const char *unit; uint64_t ns; } u[] = {
		{ "h", 3600000000000ull }, { "m", 60000000000ull },
		{ "s", 1000000000ull }, { "ms", 1000000ull }, { "us", 1000ull },
	};

	for (unsigned int i = 0; i < DDF_ARRAY_SIZE(u); i++)
		if (ns >= u[i].ns && ns % u[i].ns == 0) {
			fprintf(out, "%llu%s", (unsigned long long)(ns / u[i].ns),
				u[i].unit);
			return;
		}
	fprintf(out, "%lluns", (unsigned long long)ns);
}

static bool tuned(const struct ddf_filter_req *f)
{
	return (f->kind == DDF_KIND_APBF || f->kind == DDF_KIND_APBBF) &&
	       !f->memory && !f->shape;
}

static const char *tune_name(uint32_t tune)
{
	return tune == DDF_TUNE_SPEED ? "speed" : "memory";
}

static double bits_per_element(const struct ddf_filter_req *f)
{
	return f->params.window ? f->rep.bytes * 8.0 / f->params.window : 0.0;
}

/* other: the same request under the other tune, printed inside, or NULL */
static void print_size_json(const struct ddf_filter_req *f,
			    const struct ddf_filter_req *other)
{
	const struct ddf_params *p = &f->params;

	printf("{\"filter\": \"%s\", ", ddf_kind_name(p->kind));
	if (tuned(f))
		printf("\"tune\": \"%s\", ", tune_name(f->tune));
	printf("\"params\": {\"k\": %u, \"l\": %u, "
	       "\"m\": %llu, \"block_bits\": %u, \"block_hashes\": %u, "
	       "\"fp_bits\": %u, \"cpus\": %u, \"window\": %llu}, ",
	       p->k, p->l, (unsigned long long)p->m, p->block_bits,
	       p->block_hashes, p->fp_bits, p->cpus,
	       (unsigned long long)p->window);
	if (p->window_ns)
		printf("\"window_ns\": %llu, ", (unsigned long long)p->window_ns);
	if (tuned(f))
		printf("\"lines_per_new_key\": %u, \"atomics_per_new_key\": %u, ",
		       f->rep.lines, f->rep.atomics);
	printf("\"bytes\": %llu, \"fpr_analytic\": %.9g, "
	       "\"bits_per_element\": %.3f",
	       (unsigned long long)f->rep.bytes, f->rep.fpr,
	       bits_per_element(f));
	if (other) {
		printf(", \"tune_%s\": ", tune_name(other->tune));
		print_size_json(other, NULL);
	}
	printf("}");
}

static void print_shape_line(const struct ddf_params *p)
{
	printf("k=%u l=%u m=%llu", p->k, p->l, (unsigned long long)p->m);
	if (p->block_bits)
		printf(" B=%u b=%u", p->block_bits, p->block_hashes);
}

/*
 * No tune given: both shapes side by side, speed (what rule add sends)
 * first. fs, fm: the same request sized by each.
 */
static void print_tunes(const struct ddf_filter_req *fs,
			const struct ddf_filter_req *fm)
{
	const struct ddf_filter_req *f[2] = { fs, fm };
	char col[2][64];

	if (ddfctl_json) {
		/* the object of tune speed, with tune memory's inside it */
		print_size_json(fs, fm);
		printf("\n");
		return;
	}
	/* the window asked for: each shape's own is at least that */
	printf("filter      %s, window %llu packets", ddf_kind_name(fs->kind),
	       (unsigned long long)fs->window);
	if (fs->params.window_ns) {
		printf(" per ");
		print_duration(stdout, fs->params.window_ns);
	}
	printf(", fpr %g (rule add takes tune speed unless told)\n", fs->fpr);
	printf("%-22s %-34s %s\n", "", "tune speed (default)", "tune memory");
	for (int i = 0; i < 2; i++)
		snprintf(col[i], sizeof(col[i]), "k=%u l=%u m=%llu", f[i]->params.k,
			 f[i]->params.l, (unsigned long long)f[i]->params.m);
	printf("%-22s %-34s %s\n", "shape", col[0], col[1]);
	for (int i = 0; i < 2; i++)
		snprintf(col[i], sizeof(col[i]), "B=%u b=%u",
			 f[i]->params.block_bits, f[i]->params.block_hashes);
	if (fs->params.block_bits)
		printf("%-22s %-34s %s\n", "block", col[0], col[1]);
	for (int i = 0; i < 2; i++)
		snprintf(col[i], sizeof(col[i]), "%llu (%.2fx)",
			 (unsigned long long)f[i]->rep.bytes,
			 (double)f[i]->rep.bytes / fm->rep.bytes);
	printf("%-22s %-34s %s\n", "memory, bytes", col[0], col[1]);
	for (int i = 0; i < 2; i++)
		snprintf(col[i], sizeof(col[i]), "%.2f", bits_per_element(f[i]));
	printf("%-22s %-34s %s\n", "bits per element", col[0], col[1]);
	for (int i = 0; i < 2; i++)
		snprintf(col[i], sizeof(col[i]), "%u", f[i]->rep.lines);
	printf("%-22s %-34s %s\n", "cache lines, new key", col[0], col[1]);
	for (int i = 0; i < 2; i++)
		snprintf(col[i], sizeof(col[i]), "%u", f[i]->rep.atomics);
	printf("%-22s %-34s %s\n", "atomic words, new key", col[0], col[1]);
	for (int i = 0; i < 2; i++)
		snprintf(col[i], sizeof(col[i]), "%.3g", f[i]->rep.fpr);
	printf("%-22s %-34s %s\n", "fp rate, analytic", col[0], col[1]);
}

static void print_size(const struct ddf_filter_req *f)
{
	const struct ddf_params *p = &f->params;
	double bpe = bits_per_element(f);

	if (ddfctl_json) {
		print_size_json(f, NULL);
		printf("\n");
		return;
	}
	printf("filter      %s\n", ddf_kind_name(p->kind));
	printf("shape       ");
	print_shape_line(p);
	if (p->fp_bits)
		printf(" s=%u", p->fp_bits);
	if (p->cell_bits)
		printf(" d=%u", p->cell_bits);
	if (p->decrements)
		printf(" P=%u", p->decrements);
	if (tuned(f))
		printf(" (tune %s)", tune_name(f->tune));
	if (!p->window) {
		printf("\nwindow      none: %s forgets at random\n",
		       ddf_kind_name(p->kind));
		printf("memory      %llu bytes\n",
		       (unsigned long long)f->rep.bytes);
		printf("fp rate     %.3g analytic\n", f->rep.fpr);
		return;
	}
	printf("\nwindow      %llu packets", (unsigned long long)p->window);
	if (p->window_ns) {
		printf(" per ");
		print_duration(stdout, p->window_ns);
	}
	if (f->window_assumed)
		printf(" (%llu kpps assumed: give N/DURATION for another rate)",
		       DDFCTL_WINDOW_PPS / 1000);
	printf("\nmemory      %llu bytes (%.2f bits per element)\n",
	       (unsigned long long)f->rep.bytes, bpe);
	printf("fp rate     %.3g analytic\n", f->rep.fpr);
	if (tuned(f))
		printf("new key     %u cache lines, %u atomic words\n",
		       f->rep.lines, f->rep.atomics);
	if (p->cpus) {
		uint64_t cap = ddf_apbf_gen_size(p);
		uint32_t B = ddf_age_batch(p, cap);

		printf("cpus        %u, insert tickets ", p->cpus);
		if (B > 1)
			printf("in batches of %u", B);
		else
			printf("one at a time");
		if (!(p->flags & DDF_PF_TIME))
			printf("; the window allows for %llu inserts under way or tickets held",
			       (unsigned long long)ddf_age_slack(p, cap));
		printf("\n");
	}
}

/* size [filter KIND] [window W] (fpr P | memory SIZE) */
int cmd_size(int argc, char **argv)
{
	struct ddf_filter_req f = { .kind = DDF_KIND_APBBF };
	struct filter_words fw = { 0 };

	if (argc == 1 && !strcmp(argv[0], "--help")) {
		puts("usage: ddfctl [-j] size [filter KIND] window N|N/DURATION|DURATION\n"
		     "                        [fpr P | memory SIZE] [cpus C]\n"
		     "                        [tune speed|memory]\n"
		     "       ddfctl [-j] size filter sbf|rsbf|bsbf|bsbfsd|rlbsbf memory SIZE [fpr P]\n"
		     "  the parameters 'rule add' would send, their memory, bits per\n"
		     "  element and analytic false-positive rate (no kernel needed)\n"
		     "  window    N packets (k, M), N/DURATION: at most N packets within\n"
		     "            DURATION (ns us ms s m h, 10us .. 1h), or a DURATION\n"
		     "            alone: N = DURATION x 100 kpps, at least 1 (give\n"
		     "            N/DURATION for long windows or another rate)\n"
		     "  cpus      apbf, apbbf: CPUs inserting at once (default: this\n"
		     "            machine's possible CPUs, as the kernel's); each takes\n"
		     "            insert tickets in batches, which the sizing allows for\n"
		     "  tune      apbf, apbbf sized by fpr: speed (rule add's default),\n"
		     "            among the shapes meeting fpr within 2x the least\n"
		     "            memory, the fewest cache lines plus atomic words\n"
		     "            per new key; memory: the least memory.\n"
		     "            Without tune, size prints both side by side\n"
		     "  sbf rsbf bsbf bsbfsd rlbsbf have no window (they forget at\n"
		     "            random): memory sizes them, fpr beside it is the target\n"
		     "defaults: filter apbbf fpr 1e-6");
		return 0;
	}
	for (int i = 0; i < argc; i++) {
		const char *kw = argv[i], *arg;

		if (i + 1 >= argc)
			return ddfctl_err("%s: %s", kw,
					  strcmp(kw, "filter") &&
							  strcmp(kw, "window") &&
							  strcmp(kw, "fpr") &&
							  strcmp(kw, "memory") &&
							  strcmp(kw, "cpus") &&
							  strcmp(kw, "tune") ?
						  "is not a keyword of size (filter, window, fpr, memory, cpus, tune)" :
						  "needs an argument");
		arg = argv[++i];
		if (!strcmp(kw, "filter")) {
			if (parse_kind(arg, &f.kind))
				return -1;
		} else if (!strcmp(kw, "window")) {
			fw.window = arg; /* parsed once the kind is known */
		} else if (!strcmp(kw, "fpr")) {
			if (parse_fpr(arg, &f.fpr))
				return -1;
			fw.fpr = arg;
			fw.fpr_last = true;
		} else if (!strcmp(kw, "memory")) {
			if (parse_size("memory", arg, &f.memory))
				return -1;
			fw.memory = arg;
			fw.fpr_last = false;
		} else if (!strcmp(kw, "cpus")) {
			if (parse_cpus(arg, &f.cpus))
				return -1;
			fw.cpus = arg;
		} else if (!strcmp(kw, "tune")) {
			if (parse_tune(arg, &f.tune))
				return -1;
			fw.tune = arg;
		} else {
			return ddfctl_err("size: '%s' is not a keyword (filter, window, fpr, memory, cpus, tune)",
					  kw);
		}
	}
	if (parse_filter_words(&fw, &f, NULL))
		return -1;
	if (ddfctl_size_filter(&f))
		return -1;
	if (!fw.tune && tuned(&f)) {
		struct ddf_filter_req fm = f;

		fm.tune = DDF_TUNE_MEMORY;
		if (ddfctl_size_filter(&fm))
			return -1;
		print_tunes(&f, &fm);
		return 0;
	}
	print_size(&f);
	return 0;
}
