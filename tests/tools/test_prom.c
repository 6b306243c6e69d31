// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl -o prometheus without a kernel: GET replies as the kernel writes
 * them (rules of the IP families, netdev rules over several devices, one
 * gone, names that need escaping, and rule_reply.h's odd rules: names of
 * every byte the kernel takes, ports of one name; in the files also every
 * rule name of one and two bytes), printed by prom.c, checked here for the
 * format's details, and written with what ddfctl -j stats prints of the
 * same messages, for test_prom.sh to hand to promtool and compare sample
 * by sample.
 *
 *   ddfctl_prom_tests [DIR]   DIR/metrics.prom, DIR/stats.json
 */
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "check.h"
#include "ddfctl.h"
#include "rule_reply.h"

bool ddfctl_json;
bool ddfctl_dry_run;

static const struct rule_reply rules[] = {
	{ "window 100k tune memory action mark 0x10/0xf0", "web", 81920,
	  { 1000, 64000, 7, 0, 7, 0 }, 3, 125000, 0, { { 0 } } },
	/* three ports, the last gone; 5 frames of an XDP program elsewhere */
	{ "family netdev hook ingress dev m0,m1,m2 window 100000 fpr 1e-6",
	  "ports", 262144, { 185, 18500, 80, 80, 0, 2 }, 1, 333,
	  3, { { "m0", "m0", 4, { 90, 9000, 40, 40, 0, 1 } },
	       { "m1", "m1", 5, { 90, 9000, 40, 40, 0, 1 } },
	       { "m2", "m2", 0, { 0, 0, 0, 0, 0, 0 } } } },
	/* one device, renamed */
	{ "family netdev hook none dev eth1 window 10k action count", "n1",
	  65536, { 12, 1200, 0, 0, 0, 0 }, 0, 17,
	  1, { { "wan0", "eth1", 9, { 12, 1200, 0, 0, 0, 0 } } } },
	/* a port waiting for the name a renamed device of the rule took */
	{ "family netdev dev eth2,eth3 window 1000", "twice", 4096,
	  { 3, 300, 1, 1, 0, 0 }, 0, 2000,
	  2, { { "eth2", "eth3", 7, { 3, 300, 1, 1, 0, 0 } },
	       { "eth2", "eth2", 0, { 0, 0, 0, 0, 0, 0 } } } },
	/* names to escape: a quote, a backslash, a newline */
	{ "filter exact window 2ms action count", "q\"x\\y", 2048,
	  { 5, 500, 2, 0, 0, 0 }, 0, 1000, 0, { { 0 } } },
	{ "window 1000", "new\nline", 4096, { 0, 0, 0, 0, 0, 0 }, 0, 0, 0,
	  { { 0 } } },
	/* no window; no model for the rate */
	{ "filter sbf memory 1M", "s", 1048576, { 1u << 31, 1ull << 40, 3, 3, 0, 0 },
	  0, 999999, 0, { { 0 } } },
	{ "filter queue window 1000 shape inner_kind=apbbf,subfilters=4,k=3,l=10,m=7,block_bits=512,block_hashes=8",
	  "qa", 4096, { 0, 0, 0, 0, 0, 0 }, 0, 0, 0, { { 0 } } },
	/* a time window with a count, the largest counter */
	{ "family ip6 hook input window 20k/100ms fpr 1e-3", "t", 12288,
	  { UINT64_MAX, 1, 0, 0, 0, 0 }, 9, 1, 0, { { 0 } } },
};

/* rules, then odd_rules()'s */
static struct rule_reply all[DDF_ARRAY_SIZE(rules) + ODD_RULES];
#define NALL DDF_ARRAY_SIZE(all)

/* prom_print() of the decoded replies of all[from, to) (free it) */
static char *prom_text(size_t from, size_t to)
{
	static char buf[16384];
	struct ddf_rule_info *ri = calloc(to - from + 1, sizeof(*ri));
	char *text = NULL;
	size_t len = 0, n = 0;
	FILE *f;

	for (size_t i = from; i < to; i++) {
		struct nlmsghdr *nlh = rule_reply(&all[i], buf);

		CHECK(nlh && !decode_rule(nlh, &ri[n]), "rule %zu: a reply", i);
		if (nlh)
			n++;
	}
	f = open_memstream(&text, &len);
	prom_print(f, ri, n);
	fclose(f);
	free(ri);
	return text;
}

/* Test the whole text of one rule of the IP families */
static void test_one_rule(void)
{
	static const char head[] =
		"# HELP ddf_packets_total A rule's packets (netdev: frames) judged, every device's included.\n"
		"# TYPE ddf_packets_total counter\n"
		"ddf_packets_total{rule=\"web\"} 1000\n"
		"# HELP ddf_bytes_total A rule's bytes of the packets judged, every device's included.\n"
		"# TYPE ddf_bytes_total counter\n"
		"ddf_bytes_total{rule=\"web\"} 64000\n"
		"# HELP ddf_duplicates_total A rule's duplicates: packets its filter had seen in the window, every device's included.\n"
		"# TYPE ddf_duplicates_total counter\n"
		"ddf_duplicates_total{rule=\"web\"} 7\n"
		"# HELP ddf_dropped_total A rule's duplicates dropped (action drop), every device's included.\n"
		"# TYPE ddf_dropped_total counter\n"
		"ddf_dropped_total{rule=\"web\"} 0\n"
		"# HELP ddf_marked_total A rule's duplicates marked (action mark), every device's included.\n"
		"# TYPE ddf_marked_total counter\n"
		"ddf_marked_total{rule=\"web\"} 7\n"
		"# HELP ddf_unparsed_total A rule's packets passed unjudged (not IP, malformed, another family), every device's included.\n"
		"# TYPE ddf_unparsed_total counter\n"
		"ddf_unparsed_total{rule=\"web\"} 0\n"
		"# HELP ddf_filter_fill_ratio The share of the rule's filter in use, 0 to 1 (stats: fill).\n"
		"# TYPE ddf_filter_fill_ratio gauge\n"
		"ddf_filter_fill_ratio{rule=\"web\"} 0.125\n"
		"# HELP ddf_filter_bytes Memory the rule's filter holds, in bytes.\n"
		"# TYPE ddf_filter_bytes gauge\n"
		"ddf_filter_bytes{rule=\"web\"} 81920\n";
	char *text = prom_text(0, 1);

	CHECK(!strncmp(text, head, strlen(head)), "one rule:\n%s", text);
	CHECK(strstr(text, "# TYPE ddf_filter_fpr gauge\nddf_filter_fpr{rule=\"web\"} 9."),
	      "one rule: fpr:\n%s", text);
	CHECK(strstr(text, "# TYPE ddf_filter_window gauge\nddf_filter_window{rule=\"web\"} 100"),
	      "one rule: window:\n%s", text);
	CHECK(!strstr(text, "ddf_filter_window_seconds") &&
		      !strstr(text, "ddf_dev_"),
	      "one rule: a count window, no device:\n%s", text);
	CHECK(strstr(text, "# TYPE ddf_rule_info gauge\n"
			   "ddf_rule_info{rule=\"web\",family=\"inet\",hook=\"prerouting\",kind=\"apbbf\",action=\"mark\"} 1\n"),
	      "one rule: info:\n%s", text);
	free(text);
}

/* Test the details of the whole set: escapes, devices, gauges left out */
static void test_all_rules(void)
{
	static const char *const has[] = {
		"ddf_packets_total{rule=\"q\\\"x\\\\y\"} 5\n",
		"ddf_packets_total{rule=\"new\\nline\"} 0\n",
		"ddf_packets_total{rule=\"t\"} 18446744073709551615\n",
		"# TYPE ddf_dev_packets_total counter\n"
		"ddf_dev_packets_total{rule=\"ports\",dev=\"m0\",port=\"1\"} 90\n"
		"ddf_dev_packets_total{rule=\"ports\",dev=\"m1\",port=\"2\"} 90\n"
		"ddf_dev_packets_total{rule=\"ports\",dev=\"m2\",port=\"3\"} 0\n"
		"ddf_dev_packets_total{rule=\"n1\",dev=\"wan0\",port=\"1\"} 12\n"
		"ddf_dev_packets_total{rule=\"twice\",dev=\"eth2\",port=\"1\"} 3\n"
		"ddf_dev_packets_total{rule=\"twice\",dev=\"eth2\",port=\"2\"} 0\n",
		"ddf_dev_unparsed_total{rule=\"ports\",dev=\"m0\",port=\"1\"} 1\n",
		/* a name and the same name with "#2" are two ports of it */
		"ddf_dev_packets_total{rule=\"same-ports\",dev=\"eth0\",port=\"1\"} 1\n"
		"ddf_dev_packets_total{rule=\"same-ports\",dev=\"eth0\",port=\"2\"} 2\n"
		"ddf_dev_packets_total{rule=\"same-ports\",dev=\"eth0#2\",port=\"3\"} 3\n"
		"ddf_dev_packets_total{rule=\"same-ports\",dev=\"eth0#1\",port=\"4\"} 4\n"
		"ddf_dev_packets_total{rule=\"same-ports\",dev=\"a\xef\xbf\xbd\",port=\"5\"} 5\n"
		"ddf_dev_packets_total{rule=\"same-ports\",dev=\"a\xef\xbf\xbd\",port=\"6\"} 6\n"
		"ddf_dev_packets_total{rule=\"same-ports\",dev=\"q\\\"#\\\\x\",port=\"7\"} 7\n"
		"ddf_dev_packets_total{rule=\"same-ports\",dev=\"\x01\x1c\x7f\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\",port=\"8\"} 3\n",
		"ddf_filter_window_seconds{rule=\"q\\\"x\\\\y\"} 0.002\n",
		"ddf_filter_window_seconds{rule=\"t\"} 0.1\n",
		"ddf_filter_fill_ratio{rule=\"s\"} 0.999999\n",
		"ddf_filter_fpr{rule=\"q\\\"x\\\\y\"} 0\n",
		"ddf_rule_info{rule=\"ports\",family=\"netdev\",hook=\"ingress\",kind=\"apbbf\",action=\"drop\"} 1\n",
		"ddf_rule_info{rule=\"n1\",family=\"netdev\",hook=\"none\",kind=\"apbbf\",action=\"count\"} 1\n",
		"ddf_rule_info{rule=\"t\",family=\"ip6\",hook=\"input\",kind=\"apbbf\",action=\"drop\"} 1\n",
	};
	static const char *const lacks[] = {
		"ddf_filter_window{rule=\"s\"}", "ddf_filter_fpr{rule=\"qa\"}",
		"ddf_dev_packets_total{rule=\"web\"",
	};
	char *text = prom_text(0, NALL);

	for (size_t i = 0; i < DDF_ARRAY_SIZE(has); i++)
		CHECK(strstr(text, has[i]), "all rules lack '%s':\n%s", has[i],
		      text);
	for (size_t i = 0; i < DDF_ARRAY_SIZE(lacks); i++)
		CHECK(!strstr(text, lacks[i]), "all rules have '%s'", lacks[i]);
	free(text);
	text = prom_text(0, 0);
	CHECK(text && !text[0], "no rule, no line: '%s'", text);
	free(text);
}

/* Test that a name that is not UTF-8 becomes U+FFFD, its UTF-8 kept */
static void test_utf8(void)
{
	static char buf[16384];
	struct nlmsghdr *nlh = rule_reply(&rules[2], buf);
	struct ddf_rule_info ri;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!nlh || decode_rule(nlh, &ri)) {
		CHECK(0, "the netdev reply decodes");
		return;
	}
	snprintf(ri.rule.devs[0], sizeof(ri.rule.devs[0]), "\xc3\xa9t\xff\xe2\x82");
	f = open_memstream(&text, &len);
	prom_print(f, &ri, 1);
	fclose(f);
	CHECK(strstr(text, "{rule=\"n1\",dev=\"\xc3\xa9t\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\",port=\"1\"} 12\n"),
	      "not UTF-8:\n%s", text);
	free(text);
}

/*
 * Every rule name of one and of two bytes the kernel takes (printable
 * ASCII without space): 94 + 94 * 94 rules, for test_prom.sh's check that
 * no two names share a label. Names differing in one byte, quotes and
 * backslashes among them, are where an escape would collide.
 */
#define SHORT_BYTES 94
#define NSHORT (SHORT_BYTES + SHORT_BYTES * SHORT_BYTES)
static char short_names[NSHORT][3];

/* into v, those no rule of all[] has; how many */
static size_t short_rules(struct rule_reply *v)
{
	size_t n = 0, k = 0;

	for (int a = 0; a < SHORT_BYTES; a++)
		short_names[n++][0] = (char)(0x21 + a);
	for (int a = 0; a < SHORT_BYTES; a++)
		for (int b = 0; b < SHORT_BYTES; b++) {
			short_names[n][0] = (char)(0x21 + a);
			short_names[n++][1] = (char)(0x21 + b);
		}
	for (size_t i = 0; i < NSHORT; i++) {
		bool taken = false;

		for (size_t j = 0; j < NALL; j++)
			taken |= !strcmp(all[j].name, short_names[i]);
		if (taken)
			continue;
		memset(&v[k], 0, sizeof(v[k]));
		v[k].words = "window 1000";
		v[k].name = short_names[i];
		v[k].bytes = 4096;
		v[k].c[0] = i;
		k++;
	}
	return k;
}

/* dir/metrics.prom and dir/stats.json: the same messages, both ways */
static int write_files(const char *dir)
{
	static char buf[16384];
	static struct rule_reply shorts[NSHORT];
	static struct ddf_rule_info ri[NALL + NSHORT];
	char path[4096];
	FILE *prom, *json;
	size_t n = 0, nshort;

	snprintf(path, sizeof(path), "%s/stats.json", dir);
	json = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/metrics.prom", dir);
	prom = fopen(path, "w");
	if (!json || !prom) {
		perror(path);
		return -1;
	}
	ddfctl_json = true;
	nshort = short_rules(shorts);
	CHECK(nshort > NSHORT - 10, "%zu short names", nshort);
	for (size_t i = 0; i < NALL + nshort; i++) {
		const struct rule_reply *r = i < NALL ? &all[i] : &shorts[i - NALL];
		struct nlmsghdr *nlh = rule_reply(r, buf);

		if (!nlh || decode_rule(nlh, &ri[n]))
			return -1;
		/* as nl.c prints a dump */
		fputs(n ? ", " : "[", json);
		print_rule_reply(json, nlh, true);
		n++;
	}
	fputs("]\n", json);
	ddfctl_json = false;
	prom_print(prom, ri, n);
	return fclose(json) || fclose(prom) ? -1 : 0;
}

int main(int argc, char **argv)
{
	memcpy(all, rules, sizeof(rules));
	odd_rules(all + DDF_ARRAY_SIZE(rules));
	test_one_rule();
	test_all_rules();
	test_utf8();
	if (argc > 1)
		CHECK(!write_files(argv[1]), "files written into %s", argv[1]);
	printf("test_prom: %d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
