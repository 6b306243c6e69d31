// SPDX-License-Identifier: GPL-2.0
/*
 * show and stats as Prometheus' text exposition format, version 0.0.4, for
 * node_exporter's textfile collector or any scraper of that format.
 *
 * A rule's counters are the families ddf_*_total{rule=...}. A netdev rule's
 * devices have families of their own, ddf_dev_*_total{rule=...,dev=...,
 * port=...}, not the same names with device labels: the rule's counters
 * already hold every device's (and an XDP program's on a device not in its
 * list), so sum(ddf_packets_total) would count a netdev rule's frames
 * twice.
 *
 * The format wants a family's samples together, after its HELP and TYPE:
 * the rules are collected first, then printed family by family.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ddfctl.h"
#include "ddf_registry.h"

/* A counter of the rule and the same of each device. */
static const struct prom_counter {
	const char *name, *help;
	size_t rule_off, dev_off;
} counters[] = {
	{ "packets", "packets (netdev: frames) judged",
	  offsetof(struct ddf_rule_info, packets),
	  offsetof(struct ddf_dev_info, packets) },
	{ "bytes", "bytes of the packets judged",
	  offsetof(struct ddf_rule_info, bytes_seen),
	  offsetof(struct ddf_dev_info, bytes) },
	{ "duplicates", "duplicates: packets its filter had seen in the window",
	  offsetof(struct ddf_rule_info, duplicates),
	  offsetof(struct ddf_dev_info, duplicates) },
	{ "dropped", "duplicates dropped (action drop)",
	  offsetof(struct ddf_rule_info, dropped),
	  offsetof(struct ddf_dev_info, dropped) },
	{ "marked", "duplicates marked (action mark)",
	  offsetof(struct ddf_rule_info, marked),
	  offsetof(struct ddf_dev_info, marked) },
	{ "unparsed", "packets passed unjudged (not IP, malformed, another family)",
	  offsetof(struct ddf_rule_info, unparsed),
	  offsetof(struct ddf_dev_info, unparsed) },
};

static uint64_t field(const void *base, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)base + off, sizeof(v));
	return v;
}

/* A label: its value escaped as escape.c says */
static void label(FILE *out, const char *name, const char *v, bool first)
{
	fprintf(out, "%s%s=", first ? "{" : ",", name);
	prom_str(out, v);
}

/*
 * A float as Go's Prometheus reads it back to the same double: the
 * shortest %g that does, and NaN, +Inf, -Inf.
 */
static void value(FILE *out, double v)
{
	char buf[32];

	if (isnan(v)) {
		fputs(" NaN\n", out);
		return;
	}
	if (isinf(v)) {
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", out);
		return;
	}
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fprintf(out, " %s\n", buf);
}

/* HELP and TYPE before a family's first sample: *said once printed */
static void family(FILE *out, bool *said, const char *name, const char *help,
		   const char *type)
{
	if (*said)
		return;
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	*said = true;
}

/*
 * A device's labels: dev, its name now, and port, its place in the rule's
 * list (1 first). A name tells no port apart: two ports of a rule may have
 * the same one (a port waiting for the name a renamed device of the rule
 * took), and names that differ in bytes that are not UTF-8 have the same
 * label value.
 */
static void dev_labels(FILE *out, const struct ddf_rule_spec *r,
		       unsigned int i)
{
	label(out, "dev", r->devs[i], false);
	fprintf(out, ",port=\"%u\"", i + 1);
}

static void print_counters(FILE *out, const struct ddf_rule_info *ri, size_t n)
{
	char name[64], help[192];

	for (size_t c = 0; c < DDF_ARRAY_SIZE(counters); c++) {
		const struct prom_counter *k = &counters[c];
		bool said = false;

		snprintf(name, sizeof(name), "ddf_%s_total", k->name);
		snprintf(help, sizeof(help), "A rule's %s, every device's included.",
			 k->help);
		for (size_t i = 0; i < n; i++) {
			if (!ri[i].has_stats)
				continue;
			family(out, &said, name, help, "counter");
			fputs(name, out);
			label(out, "rule", ri[i].rule.name, true);
			fprintf(out, "} %llu\n", (unsigned long long)
				field(&ri[i], k->rule_off));
		}
	}
	for (size_t c = 0; c < DDF_ARRAY_SIZE(counters); c++) {
		const struct prom_counter *k = &counters[c];
		bool said = false;

		snprintf(name, sizeof(name), "ddf_dev_%s_total", k->name);
		snprintf(help, sizeof(help), "A netdev rule's %s, this device's share (ddf_%s_total holds every device's).",
			 k->help, k->name);
		for (size_t i = 0; i < n; i++) {
			const struct ddf_rule_spec *r = &ri[i].rule;

			for (unsigned int d = 0; d < r->ndevs; d++) {
				if (!ri[i].devs[d].has_stats)
					continue;
				family(out, &said, name, help, "counter");
				fputs(name, out);
				label(out, "rule", r->name, true);
				dev_labels(out, r, d);
				fprintf(out, "} %llu\n", (unsigned long long)
					field(&ri[i].devs[d], k->dev_off));
			}
		}
	}
}

/* The gauges of a rule: false when it has no such value. */
static bool fill_ratio(const struct ddf_rule_info *ri, double *v)
{
	*v = ri->fill_ppm / 1e6;
	return ri->has_stats;
}

static bool filter_bytes(const struct ddf_rule_info *ri, double *v)
{
	*v = (double)ri->bytes;
	return true;
}

static bool filter_fpr(const struct ddf_rule_info *ri, double *v)
{
	return ddfctl_fpr(&ri->rule.filter.params, v);
}

static bool filter_window(const struct ddf_rule_info *ri, double *v)
{
	*v = (double)ri->rule.filter.params.window;
	return *v > 0;
}

static bool filter_window_seconds(const struct ddf_rule_info *ri, double *v)
{
	*v = ri->rule.filter.params.window_ns / 1e9;
	return ri->rule.filter.params.window_ns > 0;
}

static const struct prom_gauge {
	const char *name, *help;
	bool (*get)(const struct ddf_rule_info *ri, double *v);
} gauges[] = {
	{ "ddf_filter_fill_ratio",
	  "The share of the rule's filter in use, 0 to 1 (stats: fill).",
	  fill_ratio },
	{ "ddf_filter_bytes", "Memory the rule's filter holds, in bytes.",
	  filter_bytes },
	{ "ddf_filter_fpr",
	  "The analytic false-positive rate of the rule's filter, where there is a model for it.",
	  filter_fpr },
	{ "ddf_filter_window",
	  "The packets of the rule's window (of a time window: at most this many within it).",
	  filter_window },
	{ "ddf_filter_window_seconds",
	  "The duration of the rule's time window, in seconds.",
	  filter_window_seconds },
};

/* a coded number's word, or the number when it has none */
static const char *word_or_number(const char *word, unsigned int v,
				  char *buf, size_t size)
{
	if (word)
		return word;
	snprintf(buf, size, "%u", v);
	return buf;
}

static void print_info(FILE *out, const struct ddf_rule_info *ri, size_t n)
{
	bool said = false;
	char b[12];

	for (size_t i = 0; i < n; i++) {
		const struct ddf_rule_spec *r = &ri[i].rule;

		family(out, &said, "ddf_rule_info",
		       "A rule of nf_ddf, always 1: its family, hook, filter kind and action as labels.",
		       "gauge");
		fputs("ddf_rule_info", out);
		label(out, "rule", r->name, true);
		label(out, "family",
		      word_or_number(family_name(r->family), r->family, b,
				     sizeof(b)), false);
		label(out, "hook",
		      word_or_number(hook_name(r->family, r->hook), r->hook, b,
				     sizeof(b)), false);
		label(out, "kind", ddf_kind_name(r->filter.params.kind), false);
		label(out, "action",
		      word_or_number(action_name(r->action), r->action, b,
				     sizeof(b)), false);
		fputs("} 1\n", out);
	}
}

void prom_print(FILE *out, const struct ddf_rule_info *ri, size_t n)
{
	double v;

	print_counters(out, ri, n);
	for (size_t g = 0; g < DDF_ARRAY_SIZE(gauges); g++) {
		bool said = false;

		for (size_t i = 0; i < n; i++) {
			if (!gauges[g].get(&ri[i], &v))
				continue;
			family(out, &said, gauges[g].name, gauges[g].help,
			       "gauge");
			fputs(gauges[g].name, out);
			label(out, "rule", ri[i].rule.name, true);
			fputc('}', out);
			value(out, v);
		}
	}
	print_info(out, ri, n);
}

struct prom_rules {
	struct ddf_rule_info *v;
	size_t n, cap;
	bool nomem;
};

static void collect(const struct ddf_rule_info *ri, void *arg)
{
	struct prom_rules *s = arg;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		void *v = realloc(s->v, cap * sizeof(*s->v));

		if (!v) {
			s->nomem = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *ri;
}

int prom_run(const struct ddf_cmd_req *req)
{
	struct prom_rules s = { 0 };
	int err;

	/* a dry run prints the request, as for any output */
	if (ddfctl_dry_run)
		return ddfctl_run(req);
	err = ddfctl_fetch_req(req, collect, &s);
	if (!err && s.nomem)
		err = ddfctl_err("%s: out of memory for the rules",
				 req->op == OP_SHOW ? "show" : "stats");
	if (!err)
		prom_print(stdout, s.v, s.n);
	free(s.v);
	return err;
}
