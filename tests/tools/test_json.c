// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl's JSON printers without a kernel, over rules and devices whose
 * names hold every byte the kernel takes in them (rule_reply.h's odd
 * rules), for test_json.sh to parse with a JSON parser:
 *
 *   ddfctl_json_tests DIR
 *
 * DIR/show.json, DIR/stats.json  show -j and stats -j of every rule
 * DIR/one.json                   stats -j of one rule
 * DIR/xdp.json                   xdp show -j of each device of the rules,
 *                                with its rule, then one whose rule is gone
 * DIR/xdp-none.json              xdp show -j of no device
 * DIR/names                      what was fed: each rule's name, then its
 *                                devices', each ending in a NUL, and one
 *                                more NUL after a rule's
 */
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>

#include "ddfctl.h"
#include "rule_reply.h"

bool ddfctl_json;
bool ddfctl_dry_run;

static struct rule_reply rules[ODD_RULES];

static FILE *open_in(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		perror(path);
	return f;
}

/* every rule as nl.c prints a dump: one array */
static int write_dump(const char *dir, const char *name, bool stats)
{
	static char buf[16384];
	FILE *f = open_in(dir, name);

	if (!f)
		return -1;
	for (size_t i = 0; i < ODD_RULES; i++) {
		struct nlmsghdr *nlh = rule_reply(&rules[i], buf);

		if (!nlh)
			return -1;
		fputs(i ? ", " : "[", f);
		print_rule_reply(f, nlh, stats);
	}
	fputs("]\n", f);
	return fclose(f);
}

static int write_one(const char *dir)
{
	static char buf[16384];
	struct nlmsghdr *nlh = rule_reply(&rules[0], buf);
	FILE *f = open_in(dir, "one.json");

	if (!f || !nlh)
		return -1;
	/* a reply of its own, not an item of a dump */
	nlh->nlmsg_flags &= ~NLM_F_MULTI;
	print_rule_reply(f, nlh, true);
	return fclose(f);
}

static int write_xdp(const char *dir)
{
	struct xdp_dev v[ODD_RULES * DDF_DEVS_MAX + 1];
	FILE *f = open_in(dir, "xdp.json");
	size_t n = 0;

	if (!f)
		return -1;
	for (size_t i = 0; i < ODD_RULES; i++)
		for (unsigned int d = 0; d < rules[i].ndevs; d++, n++) {
			memset(&v[n], 0, sizeof(v[n]));
			snprintf(v[n].dev, sizeof(v[n].dev), "%s",
				 rules[i].devs[d].name);
			snprintf(v[n].rule, sizeof(v[n].rule), "%s",
				 rules[i].name);
			v[n].mode = d % 2 ? "generic" : "native";
			v[n].prog_id = 10 + n;
			v[n].rule_id = 1 + i;
			/* alone, or in a dispatcher beside n other programs */
			v[n].prio = d % 2 ? -1 : (int)n;
			v[n].nothers = d % 2 ? 0 : n % XDP_OTHERS_MAX;
			for (size_t o = 0; o < v[n].nothers; o++) {
				v[n].others[o].id = 100 + o;
				v[n].others[o].prio = 20 + (int)o;
				snprintf(v[n].others[o].name,
					 sizeof(v[n].others[o].name), "p%zu", o);
			}
		}
	memset(&v[n], 0, sizeof(v[n]));
	snprintf(v[n].dev, sizeof(v[n].dev), "%s", rules[0].devs[0].name);
	v[n].mode = "generic";
	v[n].rule_id = 99;
	v[n].prio = 50;
	xdp_show_print(f, v, n + 1);
	if (fclose(f))
		return -1;
	f = open_in(dir, "xdp-none.json");
	if (!f)
		return -1;
	xdp_show_print(f, v, 0);
	return fclose(f);
}

static int write_names(const char *dir)
{
	FILE *f = open_in(dir, "names");

	if (!f)
		return -1;
	for (size_t i = 0; i < ODD_RULES; i++) {
		fwrite(rules[i].name, 1, strlen(rules[i].name) + 1, f);
		for (unsigned int d = 0; d < rules[i].ndevs; d++)
			fwrite(rules[i].devs[d].name, 1,
			       strlen(rules[i].devs[d].name) + 1, f);
		fputc(0, f);
	}
	return fclose(f);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ddfctl_json_tests DIR\n");
		return 2;
	}
	odd_rules(rules);
	ddfctl_json = true;
	if (write_dump(argv[1], "show.json", false) ||
	    write_dump(argv[1], "stats.json", true) || write_one(argv[1]) ||
	    write_xdp(argv[1]) || write_names(argv[1])) {
		fprintf(stderr, "ddfctl_json_tests: the files were not written\n");
		return 1;
	}
	return 0;
}
