// SPDX-License-Identifier: GPL-2.0
/*
 * The filter's words: its kind, window, rate, memory budget or shape, read
 * by rule add, replay and size alike and checked together once all are
 * read (a kind may come after its window, and some kinds have none).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ddfctl.h"
#include "ddf_registry.h"

/* sbf and the BSBF family: no window, they forget at random */
static bool kind_windowless(uint32_t kind)
{
	return kind == DDF_KIND_SBF || kind == DDF_KIND_RSBF ||
	       kind == DDF_KIND_BSBF || kind == DDF_KIND_BSBFSD ||
	       kind == DDF_KIND_RLBSBF;
}

/*
 * Kinds with a window need one, and take fpr or memory. The kinds without
 * one forget at random (ddf_sbf.c, ddf_bsbf.c): no window, and sized by
 * memory, where fpr, if given beside it, is the target their sizing picks
 * SBF's decrements or the BSBF family's k for (ddf_size.h).
 */
/*
 * The CPUs the kernel gives an apbf or apbbf rule by default: its possible
 * CPUs (nr_cpu_ids), capped as the kernel caps them.
 */
static uint32_t possible_cpus(void)
{
	FILE *fp = fopen("/sys/devices/system/cpu/possible", "r");
	char buf[256], *p;
	unsigned long last = 0;
	long n;

	if (fp && fgets(buf, sizeof(buf), fp)) {
		/* "0-3" or "0,2-5": the highest number, plus one */
		for (p = buf; *p; p++)
			if (isdigit((unsigned char)*p)) {
				unsigned long v = strtoul(p, &p, 10);

				last = v > last ? v : last;
				p--;
			}
		fclose(fp);
		n = (long)last + 1;
	} else {
		if (fp)
			fclose(fp);
		n = sysconf(_SC_NPROCESSORS_CONF);
	}
	if (n < 1)
		n = 1;
	return n > DDF_MAX_CPUS ? DDF_MAX_CPUS : (uint32_t)n;
}

int parse_cpus(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || errno || *end || !v ||
	    v > DDF_MAX_CPUS)
		return ddfctl_err("cpus: '%s' is not a number of CPUs from 1 to %u",
				  s, DDF_MAX_CPUS);
	*out = (uint32_t)v;
	return 0;
}

/* cpus: apbf and apbbf only, the kernel's default when not given */
static int check_cpus(const struct filter_words *w, struct ddf_filter_req *f)
{
	bool aged = f->kind == DDF_KIND_APBF || f->kind == DDF_KIND_APBBF;

	if (w->cpus && !aged)
		return ddfctl_err("cpus: '%s' given, but %s takes no insert tickets: only apbf and apbbf batch them",
				  w->cpus, ddf_kind_name(f->kind));
	if (aged && !f->cpus && !(w->shape && f->params.cpus))
		f->cpus = possible_cpus();
	if (w->shape && f->cpus && f->params.cpus &&
	    f->params.cpus != f->cpus)
		return ddfctl_err("cpus: '%s' differs from the shape's cpus=%u",
				  w->cpus, f->params.cpus);
	return 0;
}

int parse_tune(const char *s, uint32_t *tune)
{
	if (!strcmp(s, "speed"))
		*tune = DDF_TUNE_SPEED;
	else if (!strcmp(s, "memory"))
		*tune = DDF_TUNE_MEMORY;
	else
		return ddfctl_err("tune: '%s' is not speed or memory", s);
	return 0;
}

/*
 * tune: how apbf and apbbf choose among the shapes meeting fpr; speed
 * when not given. A memory budget or a shape leaves nothing to choose.
 */
static int check_tune(const struct filter_words *w, struct ddf_filter_req *f)
{
	bool aged = f->kind == DDF_KIND_APBF || f->kind == DDF_KIND_APBBF;

	if (!w->tune) {
		f->tune = DDF_TUNE_SPEED;
		return 0;
	}
	if (!aged)
		return ddfctl_err("tune: '%s' given, but %s has one shape for a target: only apbf and apbbf are tuned",
				  w->tune, ddf_kind_name(f->kind));
	if (w->memory)
		return ddfctl_err("tune: '%s' given with memory: a memory budget is sized for the lowest rate; give fpr P to tune",
				  w->tune);
	if (w->shape)
		return ddfctl_err("tune: '%s' given with a shape: a shape is not sized, give one of them",
				  w->tune);
	return 0;
}

int check_filter_words(const struct filter_words *w, struct ddf_filter_req *f,
		       const char *cmd, const char *name)
{
	const char *kind = ddf_kind_name(f->kind);

	if (check_cpus(w, f) || check_tune(w, f))
		return -1;

	if (kind_windowless(f->kind)) {
		if (w->window)
			return ddfctl_err("window: '%s' given, but %s has no window: it forgets at random; size it with memory SIZE (fpr P beside it sets the target rate)",
					  w->window, kind);
		if (w->shape && (w->fpr || w->memory))
			return ddfctl_err("shape: given with %s: a shape is not sized, give one of them",
					  w->fpr ? "fpr" : "memory");
		if (!w->shape && !w->memory && w->fpr)
			return ddfctl_err("fpr: '%s' alone does not size %s: it is sized by memory; give memory SIZE beside it",
					  w->fpr, kind);
		if (!w->shape && !w->memory && name)
			return ddfctl_err("%s: '%s' has filter %s, which has no window (it forgets at random) and is sized by memory: give memory SIZE (and fpr P, optionally), or shape S",
					  cmd, name, kind);
		if (!w->shape && !w->memory)
			return ddfctl_err("%s: filter %s has no window (it forgets at random) and is sized by memory: give memory SIZE (and fpr P, optionally)",
					  cmd, kind);
		f->window = f->window_ns = 0;
		f->window_assumed = false;
		if (!w->fpr)
			f->fpr = 0;
		return 0;
	}
	if (!w->window && name)
		return ddfctl_err("%s: '%s' needs a window (window N or window N/DURATION)",
				  cmd, name);
	if (!w->window)
		return ddfctl_err("%s: needs a window (window N or window N/DURATION)",
				  cmd);
	if (parse_window(w->window, f))
		return -1;
	if (w->fpr && w->memory) {
		if (w->fpr_last)
			return ddfctl_err("fpr: '%s' given with memory: give one of them",
					  w->fpr);
		return ddfctl_err("memory: '%s' given with fpr: give one of them",
				  w->memory);
	}
	if (w->shape && (w->fpr || w->memory))
		return ddfctl_err("shape: given with %s: a shape is not sized, give one of them",
				  w->fpr ? "fpr" : "memory");
	if (!w->fpr)
		f->fpr = w->memory ? 0 : 1e-6; /* the default target */
	return 0;
}

int parse_filter_words(const struct filter_words *w, struct ddf_filter_req *f,
		       const char *name)
{
	return check_filter_words(w, f, name ? "rule add" : "size", name);
}

int parse_fpr(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || isnan(v))
		return ddfctl_err("fpr: '%s' is not a number", s);
	if (!(v > 0.0 && v < 1.0))
		return ddfctl_err("fpr: '%s' is not a rate strictly between 0 and 1",
				  s);
	*out = v;
	return 0;
}

int parse_kind(const char *s, uint32_t *kind)
{
	const struct ddf_filter_type *t = ddf_filter_type_by_name(s);

	if (!t) {
		ddfctl_err("filter: '%s' is not a filter kind; known kinds:", s);
		for (unsigned int i = 0; (t = ddf_filter_type_at(i)); i++)
			fprintf(stderr, "%s%s", i ? " " : "  ", t->name);
		fputc('\n', stderr);
		return -1;
	}
	*kind = t->kind;
	return 0;
}

/*
 * shape NAME=V[,NAME=V...]: the resolved parameters themselves, as `save`
 * writes them, so a restored rule gets exactly the filter it had.
 */
static const struct {
	const char *name;
	size_t off;
	bool wide;
} shape_members[] = {
#define SM(n, w) { #n, offsetof(struct ddf_params, n), w }
	SM(k, false), SM(l, false), SM(m, true), SM(block_bits, false),
	SM(block_hashes, false), SM(fp_bits, false), SM(cell_bits, false),
	SM(decrements, false), SM(inner_kind, false), SM(subfilters, false),
	SM(p_star, false), SM(cpus, false),
#undef SM
};

int parse_shape(const char *s, struct ddf_params *p)
{
	char buf[512], *tok, *save;

	if (strlen(s) >= sizeof(buf))
		return ddfctl_err("shape: '%s' is too long", s);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		unsigned long long v;
		unsigned int i;

		if (!eq)
			return ddfctl_err("shape: '%s' is not NAME=VALUE", tok);
		*eq = 0;
		for (i = 0; i < DDF_ARRAY_SIZE(shape_members); i++)
			if (!strcmp(tok, shape_members[i].name))
				break;
		if (i == DDF_ARRAY_SIZE(shape_members))
			return ddfctl_err("shape: '%s' is not a filter parameter",
					  tok);
		if (!strcmp(tok, "inner_kind") && !isdigit((unsigned char)eq[1])) {
			uint32_t kind;

			if (parse_kind(eq + 1, &kind))
				return -1;
			p->inner_kind = kind;
			continue;
		}
		errno = 0;
		v = strtoull(eq + 1, &end, 0);
		if (!isdigit((unsigned char)eq[1]) || errno || *end ||
		    (!shape_members[i].wide && v > 0xffffffffull))
			return ddfctl_err("shape: %s '%s' is not a number", tok,
					  eq + 1);
		if (shape_members[i].wide)
			*(uint64_t *)((char *)p + shape_members[i].off) = v;
		else
			*(uint32_t *)((char *)p + shape_members[i].off) =
				(uint32_t)v;
	}
	return 0;
}

/* " shape k=..,l=..", or nothing for a kind without a shape (exact) */
void print_shape(FILE *out, const struct ddf_params *p)
{
	const char *sep = " shape ";

	for (unsigned int i = 0; i < DDF_ARRAY_SIZE(shape_members); i++) {
		const char *at = (const char *)p + shape_members[i].off;
		uint64_t v = shape_members[i].wide ? *(const uint64_t *)at :
						     *(const uint32_t *)at;

		if (!v)
			continue;
		if (!strcmp(shape_members[i].name, "inner_kind"))
			fprintf(out, "%sinner_kind=%s", sep,
				ddf_kind_name((uint32_t)v));
		else
			fprintf(out, "%s%s=%llu", sep, shape_members[i].name,
				(unsigned long long)v);
		sep = ",";
	}
}
