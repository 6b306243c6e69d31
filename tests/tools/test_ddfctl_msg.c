// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl's messages without a kernel: a rule's request, decoded as a reply
 * would be, must print as a `rule add` line that parses back to the very
 * same request (what save and restore rely on), and show/stats must print
 * what a reply carries.
 */
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>

#include "ddfctl.h"

bool ddfctl_json;
bool ddfctl_dry_run;

static int pass, fail;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (cond) {                                                  \
			pass++;                                              \
		} else {                                                     \
			fail++;                                              \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
			printf(__VA_ARGS__);                                 \
			putchar('\n');                                       \
		}                                                            \
	} while (0)

static int split(char *line, char **w, int max)
{
	int n = 0;
	char *save, *t;

	for (t = strtok_r(line, " \n", &save); t && n < max;
	     t = strtok_r(NULL, " \n", &save))
		w[n++] = t;
	return n;
}

static struct nlmsghdr *build(const char *cmdline, char *buf)
{
	struct ddf_cmd_req req = { .op = OP_RULE_ADD };
	char line[1024], *w[64];
	int n;

	snprintf(line, sizeof(line), "%s", cmdline);
	n = split(line, w, 64);
	if (parse_rule_add(n, w, &req.rule))
		return NULL;
	return ddfctl_build(&req, buf);
}

/* Test that the saved line of a rule rebuilds the same request */
static void test_roundtrip(const char *cmdline)
{
	static char a[8192], b[8192];
	struct nlmsghdr *na = build(cmdline, a), *nb;
	struct ddf_rule_info ri;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(na, "'%s' builds", cmdline);
	if (!na)
		return;
	CHECK(!decode_rule(na, &ri), "'%s' decodes", cmdline);
	f = open_memstream(&text, &len);
	print_rule_line(f, &ri.rule);
	fclose(f);
	CHECK(!strncmp(text, "rule add ", 9), "line '%s'", text);
	nb = build(text + 9, b);
	CHECK(nb, "saved line '%s' parses", text);
	if (nb) {
		na->nlmsg_seq = nb->nlmsg_seq = 0;
		CHECK(na->nlmsg_len == nb->nlmsg_len &&
			      !memcmp(na, nb, na->nlmsg_len),
		      "'%s' and its saved line '%s' differ", cmdline, text);
	}
	free(text);
}

/* Test that show and stats print what a reply carries */
static void test_show_stats(void)
{
	static char a[8192];
	struct nlmsghdr *nlh = build("web window 100k action mark 0x10/0xf0", a);
	struct nlattr *n;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	n = mnl_attr_nest_start(nlh, DDF_A_STATS);
	mnl_attr_put_u64(nlh, DDF_STATS_A_PACKETS, 1000);
	mnl_attr_put_u64(nlh, DDF_STATS_A_BYTES, 64000);
	mnl_attr_put_u64(nlh, DDF_STATS_A_DUPLICATES, 7);
	mnl_attr_put_u64(nlh, DDF_STATS_A_MARKED, 7);
	mnl_attr_put_u64(nlh, DDF_STATS_A_GENERATION, 3);
	mnl_attr_put_u32(nlh, DDF_STATS_A_FILL_PPM, 125000);
	mnl_attr_nest_end(nlh, n);

	f = open_memstream(&text, &len);
	print_rule_reply(f, nlh, true);
	fclose(f);
	CHECK(!strcmp(text,
		      "web: packets 1000 bytes 64000 duplicates 7 dropped 0 marked 7 unparsed 0\n"
		      "    filter generation 3 fill 12.50%\n"),
	      "stats text:\n%s", text);
	free(text);

	f = open_memstream(&text, &len);
	print_rule_reply(f, nlh, false);
	fclose(f);
	CHECK(strstr(text, "web: family inet hook prerouting priority 0\n"
			   "    key packet ignore ttl,ipv4csum action mark 0x10/0xf0\n"
			   "    filter apbbf window 100206 shape k=6,l=18,m=378,block_bits=512,block_hashes=4\n"),
	      "show text:\n%s", text);
	free(text);

	ddfctl_json = true;
	f = open_memstream(&text, &len);
	print_rule_reply(f, nlh, true);
	fclose(f);
	ddfctl_json = false;
	CHECK(strstr(text, "{\"name\": \"web\", \"family\": 1, ") == text &&
		      strstr(text, "\"stats\": {\"packets\": 1000, \"bytes\": 64000, \"duplicates\": 7, ") &&
		      strstr(text, "\"fill_ppm\": 125000}}\n"),
	      "stats JSON: %s", text);
	free(text);
}

int main(void)
{
	static const char *const rules[] = {
		"web window 100k",
		"a family ip6 hook input priority -10 iif eth0 proto tcp key saddr,daddr,sport,dport,tcpseq window 1M fpr 1e-4 action count",
		"b family ip hook forward oif br0 key saddr,payload payload 8:32 filter qqhtd window 50000 fpr 1e-3 seed 000102030405060708090a0b0c0d0e0f action mark 0x100",
		"c family ip hook none ignore ttl,ipv4csum,dscp,ecn window 20k/100ms memory 256K",
		"d filter sqf window 1000",
		"e filter exact window 4096 action mark 0x4/0xc",
		"f family ip6 ignore none filter apbf window 100k/1h fpr 1e-2",
	};

	for (unsigned int i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		test_roundtrip(rules[i]);
	test_show_stats();
	printf("test_ddfctl_msg: %d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
