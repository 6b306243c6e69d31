// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl's messages without a kernel: a rule's request, decoded as a reply
 * would be, must print as a `rule add` line that parses back to the very
 * same request (what save and restore rely on), and show/stats must print
 * what a reply carries.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "check.h"
#include "ddfctl.h"
#include "rule_reply.h"

bool ddfctl_json;
bool ddfctl_dry_run;

static int split(char *line, char **w, int max)
{
	int n = 0;
	char *save, *t;

	for (t = strtok_r(line, " \n", &save); t && n < max;
	     t = strtok_r(NULL, " \n", &save))
		w[n++] = t;
	return n;
}

/*
 * Test that a bare window DURATION is N/DURATION with N = ceil(DURATION x
 * 100 kpps), at least 1, and that an explicit N is kept as given
 */
static void test_window_words(void)
{
	static const struct {
		const char *word;
		uint64_t window, window_ns;
		bool assumed;
	} t[] = {
		{ "10us", 1, 10000, true },
		{ "15us", 2, 15000, true },
		{ "500us", 50, 500000, true },
		{ "2ms", 200, 2000000, true },
		{ "1.5ms", 150, 1500000, true },
		{ "30s", 3000000, 30000000000ull, true },
		{ "1m", 6000000, 60000000000ull, true },
		{ "1h", 360000000, 3600000000000ull, true },
		{ "7/2ms", 7, 2000000, false },
		{ "100k/1s", 100000, 1000000000, false },
		{ "2M", 2000000, 0, false },
		{ "1000", 1000, 0, false },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ddf_filter_req f = { 0 };
		int err = parse_window(t[i].word, &f);

		CHECK(!err && f.window == t[i].window &&
			      f.window_ns == t[i].window_ns &&
			      f.window_assumed == t[i].assumed,
		      "window %s: %d, %llu packets per %llu ns%s", t[i].word,
		      err, (unsigned long long)f.window,
		      (unsigned long long)f.window_ns,
		      f.window_assumed ? " (assumed)" : "");
	}
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

static char *show(const char *cmdline, bool json);

/* Test that show's rate (text and JSON) is the one sizing reported */
static void test_show_fpr(const char *cmdline)
{
	struct ddf_rule_spec r;
	char line[1024], *w[64], want[64], *text;
	int n;

	snprintf(line, sizeof(line), "%s", cmdline);
	n = split(line, w, 64);
	if (parse_rule_add(n, w, &r))
		return;
	snprintf(want, sizeof(want), " fpr %.3g\n", r.filter.rep.fpr);
	text = show(cmdline, false);
	CHECK(text && strstr(text, want), "show '%s': '%s' lacks '%s'",
	      cmdline, text, want);
	free(text);
	snprintf(want, sizeof(want), ", \"fpr\": %.6g}", r.filter.rep.fpr);
	text = show(cmdline, true);
	CHECK(text && strstr(text, want), "show -j '%s': '%s' lacks '%s'",
	      cmdline, text, want);
	free(text);
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
	test_show_fpr(cmdline);
}

/*
 * A GET reply for cmdline's rule, as the kernel writes one: the request's
 * attributes, and in the filter nest the hash (always) and the bytes held.
 */
static struct nlmsghdr *reply(const char *cmdline, uint64_t bytes, char *buf)
{
	static char req[8192];
	struct nlmsghdr *rq = build(cmdline, req), *nlh;
	struct ddf_rule_info ri;

	if (!rq || decode_rule(rq, &ri))
		return NULL;
	nlh = reply_start(rq, buf);
	reply_put_request(nlh, rq, ri.rule.hash_alg, bytes, 0);
	return nlh;
}

/* What show prints of a reply for cmdline's rule (free it) */
static char *show(const char *cmdline, bool json)
{
	static char buf[8192];
	struct nlmsghdr *nlh = reply(cmdline, 4096, buf);
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!nlh)
		return NULL;
	ddfctl_json = json;
	f = open_memstream(&text, &len);
	print_rule_reply(f, nlh, false);
	fclose(f);
	ddfctl_json = false;
	return text;
}

/* Test that show names what is not the default, and only that */
static void test_show_words(void)
{
	static const struct {
		const char *cmdline, *has, *lacks;
		bool json;
	} t[] = {
		{ "h window 1000 hash siphash24", " hash siphash24\n", NULL, false },
		{ "h window 1000", NULL, " hash ", false },
		/* JSON: the numbers, each with the words it stands for */
		{ "j family ip6 hook input proto udp key saddr,dport window 1000 hash siphash24 action mark 0x10/0xf0",
		  "{\"name\": \"j\", \"family\": 10, \"family_name\": \"ip6\", "
		  "\"hook\": 1, \"hook_name\": \"input\", \"priority\": 0, "
		  "\"proto\": 17, \"proto_name\": \"udp\", "
		  "\"key\": {\"form\": 1, \"form_name\": \"fields\", "
		  "\"fields\": 17, \"fields_names\": [\"saddr\", \"dport\"]}, "
		  "\"filter\": {\"kind\": 2, \"kind_name\": \"apbbf\", ", NULL, true },
		{ "j family ip6 hook input proto udp key saddr,dport window 1000 hash siphash24 action mark 0x10/0xf0",
		  "\"hash\": 1, \"hash_name\": \"siphash24\", \"bytes\": 4096, \"fpr\": ",
		  NULL, true },
		{ "j family ip6 hook input proto udp key saddr,dport window 1000 hash siphash24 action mark 0x10/0xf0",
		  "\"action\": {\"type\": 1, \"type_name\": \"mark\", \"mark\": 16, \"mask\": 240}}\n",
		  NULL, true },
		{ "j window 1000", "\"key\": {\"form\": 0, \"form_name\": \"packet\", "
		  "\"ignore\": 3, \"ignore_names\": [\"ttl\", \"ipv4csum\"], \"max_bytes\": 1500}",
		  NULL, true },
		{ "j ignore none window 1000", "\"ignore\": 0, \"ignore_names\": [], ", NULL, true },
		{ "a\"b\\c window 1000", "{\"name\": \"a\\\"b\\\\c\", ", NULL, true },
		{ "m window 1000 max-bytes 64 action count",
		  "    key packet ignore ttl,ipv4csum max-bytes 64 action count\n", NULL,
		  false },
		{ "m window 1000", NULL, "max-bytes", false },
		/* size's numbers for the same request (test_ddfctl.sh) */
		{ "w window 1000000 tune memory", "\n    memory 4096 bytes fpr 9.43e-07\n", NULL,
		  false },
		{ "w window 1000000 tune memory", ", \"bytes\": 4096, \"fpr\": 9.4", NULL, true },
		{ "x filter exact window 1000", " fpr 0\n", NULL, false },
		{ "x filter exact window 1000", "\"fpr\": 0}", NULL, true },
		/* queues: Theorem 5 over SHF, no model over APBBF */
		{ "q filter queue window 1000 shape inner_kind=shf,subfilters=4,fp_bits=16",
		  " fpr 0.0", NULL, false },
		{ "q filter queue window 1000 shape inner_kind=apbbf,subfilters=4,k=3,l=10,m=7,block_bits=512,block_hashes=8",
		  "    memory 4096 bytes\n", "fpr", false },
		{ "q filter queue window 1000 shape inner_kind=apbbf,subfilters=4,k=3,l=10,m=7,block_bits=512,block_hashes=8",
		  "\"bytes\": 4096}", "fpr", true },
		/* no window: none is shown, and the request's 0 is in JSON */
		{ "s filter sbf memory 1M",
		  "\n    filter sbf shape k=2,m=4193280,cell_bits=2,decrements=39\n"
		  "    memory 4096 bytes fpr 0.0194\n", "window", false },
		{ "s filter sbf memory 1M",
		  "\"filter\": {\"kind\": 7, \"kind_name\": \"sbf\", \"window\": 0, \"k\": 2, ",
		  NULL, true },
		{ "b filter bsbf memory 64K fpr 0.05",
		  "\n    filter bsbf shape k=5,m=",
		  "window", false },
		/* a bare duration: the window as sized, per the duration */
		{ "t window 2ms tune memory", "\n    filter apbbf window 210 per 2ms shape ", NULL,
		  false },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *text = show(t[i].cmdline, t[i].json);

		CHECK(text, "'%s' shows", t[i].cmdline);
		if (!text)
			continue;
		if (t[i].has)
			CHECK(strstr(text, t[i].has), "show '%s': '%s' lacks '%s'",
			      t[i].cmdline, text, t[i].has);
		if (t[i].lacks)
			CHECK(!strstr(text, t[i].lacks), "show '%s': '%s' has '%s'",
			      t[i].cmdline, text, t[i].lacks);
		free(text);
	}
}

/* The saved line of cmdline's rule, or NULL (free it) */
static char *saved_line(const char *cmdline)
{
	static char a[8192];
	struct nlmsghdr *nlh = build(cmdline, a);
	struct ddf_rule_info ri;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!nlh || decode_rule(nlh, &ri))
		return NULL;
	f = open_memstream(&text, &len);
	print_rule_line(f, &ri.rule);
	fclose(f);
	return text;
}

/*
 * Test that a tuned rule saves its shape, not its tune: the saved line of
 * tune memory restores the least-memory shape under the default tune speed
 */
static void test_saved_tunes(void)
{
	/* the rule, and two pieces of its saved line (m: the sizing's) */
	static const char *const tunes[][3] = {
		{ "tm window 100k cpus 1 tune memory", " shape k=6,l=18,m=378,",
		  ",block_bits=512,block_hashes=4,cpus=1 " },
		{ "ts window 100k cpus 1 tune speed", " shape k=4,l=7,m=",
		  ",block_bits=64,block_hashes=8,cpus=1 " },
	};

	for (unsigned int i = 0; i < 2; i++) {
		char *text = saved_line(tunes[i][0]);

		CHECK(text && strstr(text, tunes[i][1]) &&
			      strstr(text, tunes[i][2]) && !strstr(text, "tune"),
		      "'%s' saves '%s...%s' (not its tune): '%s'",
		      tunes[i][0], tunes[i][1], tunes[i][2], text ? text : "");
		free(text);
	}
}

/* Test that save writes a word when it is not the default, and only then */
static void test_saved_words(void)
{
	static const struct {
		const char *cmdline, *has, *lacks;
	} t[] = {
		{ "h window 1000 hash siphash24", " hash siphash24 ", NULL },
		{ "h window 1000 hash siphash13", NULL, " hash " },
		{ "h window 1000", NULL, " hash " },
		{ "m window 1000 max-bytes 64", " ignore ttl,ipv4csum max-bytes 64 ", NULL },
		{ "m window 1000 max-bytes 1500", NULL, "max-bytes" },
		{ "m window 1000", NULL, "max-bytes" },
		{ "m key saddr window 1000", NULL, "max-bytes" },
		/* the rate is shown, never saved: the shape says it all */
		{ "w window 1000000", NULL, "fpr" },
		{ "w window 1000 fpr 1e-3", NULL, "fpr" },
		/* a bare duration is saved as N/DURATION, the N it was sized for */
		{ "t window 2ms tune memory", " filter apbbf window 210/2ms shape ", NULL },
		{ "t window 30s fpr 1e-3 tune memory", " filter apbbf window 3000336/30s shape ", NULL },
		/* the kinds without a window save none: restore refuses one */
		{ "s filter sbf memory 1M", " filter sbf shape k=2,m=4193280,cell_bits=2,decrements=39 ",
		  "window" },
		{ "r filter rsbf memory 256K fpr 0.05", " filter rsbf shape k=5,m=418688,p_star=128849019 ",
		  "window" },
		{ "b filter bsbf memory 64K", " filter bsbf shape k=2,", "window" },
		{ "b filter bsbfsd memory 64K", " filter bsbfsd shape k=2,", "window" },
		{ "b filter rlbsbf memory 64K fpr 0.2", " filter rlbsbf shape k=", "window" },
		/* family netdev: its hook's word and its dev, where it sits */
		{ "n family netdev dev eth1 window 1000",
		  "rule add n family netdev hook ingress dev eth1 priority 0 key packet ignore ttl,ipv4csum filter ",
		  NULL },
		{ "n family netdev hook egress dev eth1 key frame window 1000",
		  " hook egress dev eth1 priority 0 key frame filter ", "ignore" },
		{ "n family netdev dev eth1 key frame ignore mac window 1000",
		  " key frame ignore mac filter ", NULL },
		{ "n family netdev dev eth1 key saddr ignore vlan window 1000",
		  " key saddr ignore vlan filter ", NULL },
		{ "n family netdev dev eth1 key saddr window 1000", NULL, "ignore" },
		/* decap: the tunnels, a port only when not the default */
		{ "d decap vxlan:8472,gre window 1000", " decap vxlan:8472,gre filter ", NULL },
		{ "d decap geneve:6081,vxlan:4789 window 1000", " decap vxlan,geneve filter ", NULL },
		{ "d decap none window 1000", NULL, "decap" },
		{ "d window 1000", NULL, "decap" },
		{ "d family ip window 1000", " family ip hook prerouting priority 0 ", "dev" },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *text = saved_line(t[i].cmdline);

		CHECK(text, "'%s' saves", t[i].cmdline);
		if (!text)
			continue;
		if (t[i].has)
			CHECK(strstr(text, t[i].has), "'%s' saves '%s' without '%s'",
			      t[i].cmdline, text, t[i].has);
		if (t[i].lacks)
			CHECK(!strstr(text, t[i].lacks), "'%s' saves '%s' with '%s'",
			      t[i].cmdline, text, t[i].lacks);
		free(text);
	}
}

/* The attribute of type t among those of set (len bytes at buf), or NULL */
static const struct nlattr *find_attr(const void *buf, size_t len,
				      unsigned int t)
{
	const struct nlattr *attr;

	mnl_attr_for_each_payload(buf, len)
		if (mnl_attr_get_type(attr) == t)
			return attr;
	return NULL;
}

/*
 * Test that the request of a netdev rule carries family 5, hook 0
 * (ingress), the device, and the key's tunnels with the ports that are not
 * the default; and that the rules of the IP families send no device
 */
static void test_netdev_request(void)
{
	static char buf[8192];
	struct nlmsghdr *nlh =
		build("cap family netdev dev eth1 window 1000 ignore ttl,ipv4csum,vlan decap vxlan:8472,gre,geneve",
		      buf);
	const struct nlattr *a, *key;
	const void *attrs, *kattrs;
	size_t len, klen;

	CHECK(nlh, "the netdev rule builds");
	if (!nlh)
		return;
	attrs = (const char *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN;
	len = nlh->nlmsg_len - MNL_NLMSG_HDRLEN - GENL_HDRLEN;
	a = find_attr(attrs, len, DDF_A_FAMILY);
	CHECK(a && mnl_attr_get_u8(a) == 5, "family: %d", a ? mnl_attr_get_u8(a) : -1);
	a = find_attr(attrs, len, DDF_A_HOOK);
	CHECK(a && mnl_attr_get_u8(a) == 0, "hook: %d", a ? mnl_attr_get_u8(a) : -1);
	a = find_attr(attrs, len, DDF_A_DEV);
	CHECK(a && !mnl_attr_validate(a, MNL_TYPE_NUL_STRING) &&
		      !strcmp(mnl_attr_get_str(a), "eth1"),
	      "dev: %s", a ? mnl_attr_get_str(a) : "(none)");
	CHECK(!find_attr(attrs, len, DDF_A_DEV_IFINDEX), "a request has no ifindex");
	key = find_attr(attrs, len, DDF_A_KEY);
	CHECK(key, "the netdev rule has a key");
	if (!key)
		return;
	kattrs = mnl_attr_get_payload(key);
	klen = mnl_attr_get_payload_len(key);
	a = find_attr(kattrs, klen, DDF_KEY_A_IGNORE);
	CHECK(a && mnl_attr_get_u32(a) == (DDF_KEY_IGNORE_TTL |
					     DDF_KEY_IGNORE_IPV4CSUM |
					     DDF_KEY_IGNORE_VLAN),
	      "ignore: %u", a ? mnl_attr_get_u32(a) : 0);
	a = find_attr(kattrs, klen, DDF_KEY_A_DECAP);
	CHECK(a && mnl_attr_get_u32(a) == (DDF_KEY_DECAP_VXLAN |
					     DDF_KEY_DECAP_GRE |
					     DDF_KEY_DECAP_GENEVE),
	      "decap: %u", a ? mnl_attr_get_u32(a) : 0);
	a = find_attr(kattrs, klen, DDF_KEY_A_VXLAN_PORT);
	CHECK(a && mnl_attr_get_u16(a) == 8472, "vxlan port: %u",
	      a ? mnl_attr_get_u16(a) : 0);
	CHECK(!find_attr(kattrs, klen, DDF_KEY_A_GENEVE_PORT),
	      "the default geneve port is not sent");

	/* key frame: form 2, its link-layer ignore bits, no max-bytes */
	nlh = build("f family netdev hook egress dev eth1 key frame ignore mac window 1000",
		    buf);
	CHECK(nlh, "the netdev frame rule builds");
	if (!nlh)
		return;
	attrs = (const char *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN;
	len = nlh->nlmsg_len - MNL_NLMSG_HDRLEN - GENL_HDRLEN;
	a = find_attr(attrs, len, DDF_A_HOOK);
	CHECK(a && mnl_attr_get_u8(a) == 1, "hook egress: %d",
	      a ? mnl_attr_get_u8(a) : -1);
	key = find_attr(attrs, len, DDF_A_KEY);
	kattrs = key ? mnl_attr_get_payload(key) : NULL;
	klen = key ? mnl_attr_get_payload_len(key) : 0;
	a = kattrs ? find_attr(kattrs, klen, DDF_KEY_A_FORM) : NULL;
	CHECK(a && mnl_attr_get_u8(a) == DDF_KEY_TYPE_FRAME, "form: %d",
	      a ? mnl_attr_get_u8(a) : -1);
	a = kattrs ? find_attr(kattrs, klen, DDF_KEY_A_IGNORE) : NULL;
	CHECK(a && mnl_attr_get_u32(a) == DDF_KEY_IGNORE_MAC, "frame ignore: %u",
	      a ? mnl_attr_get_u32(a) : 0);
	CHECK(kattrs && !find_attr(kattrs, klen, DDF_KEY_A_MAX_BYTES),
	      "key frame sends no max-bytes");
	CHECK(kattrs && !find_attr(kattrs, klen, DDF_KEY_A_DECAP),
	      "no decap, none sent");

	nlh = build("i family inet window 1000", buf);
	attrs = (const char *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN;
	len = nlh->nlmsg_len - MNL_NLMSG_HDRLEN - GENL_HDRLEN;
	CHECK(!find_attr(attrs, len, DDF_A_DEV), "family inet sends no dev");
}

/* What show prints of a reply for cmdline's rule with DDF_A_DEV_IFINDEX */
static char *show_ifindex(const char *cmdline, uint32_t ifindex, bool json)
{
	static char buf[8192];
	struct nlmsghdr *nlh = reply(cmdline, 4096, buf);
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!nlh)
		return NULL;
	mnl_attr_put_u32(nlh, DDF_A_DEV_IFINDEX, ifindex);
	ddfctl_json = json;
	f = open_memstream(&text, &len);
	print_rule_reply(f, nlh, false);
	fclose(f);
	ddfctl_json = false;
	return text;
}

/*
 * Test that show names a netdev rule's hook and device, says when the
 * device is gone (ifindex 0), and gives JSON its dev and ifindex
 */
static void test_show_netdev(void)
{
	static const char rule[] =
		"cap family netdev dev eth1 ignore ttl,ipv4csum,vlan decap vxlan:8472,gre window 1000";
	static const struct {
		uint32_t ifindex;
		bool json;
		const char *has, *lacks;
	} t[] = {
		{ 3, false,
		  "cap: family netdev hook ingress dev eth1 priority 0\n"
		  "    key packet ignore ttl,ipv4csum,vlan decap vxlan:8472,gre action drop\n",
		  "gone" },
		{ 0, false,
		  "cap: family netdev hook ingress dev eth1 (gone: re-attaches when a device of that name appears) priority 0\n",
		  NULL },
		{ 0, true,
		  "{\"name\": \"cap\", \"family\": 5, \"family_name\": \"netdev\", "
		  "\"hook\": 0, \"hook_name\": \"ingress\", \"dev\": \"eth1\", ",
		  NULL },
		{ 0, true, ", \"ifindex\": 0}\n", NULL },
		{ 7, true,
		  "\"key\": {\"form\": 0, \"form_name\": \"packet\", \"ignore\": 131, "
		  "\"ignore_names\": [\"ttl\", \"ipv4csum\", \"vlan\"], \"max_bytes\": 1500, "
		  "\"decap\": 5, \"decap_names\": [\"vxlan\", \"gre\"], \"vxlan_port\": 8472}",
		  NULL },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *text = show_ifindex(rule, t[i].ifindex, t[i].json);

		CHECK(text, "show of the netdev rule");
		if (!text)
			continue;
		CHECK(strstr(text, t[i].has), "show %u: '%s' lacks '%s'", i, text,
		      t[i].has);
		if (t[i].lacks)
			CHECK(!strstr(text, t[i].lacks), "show %u: '%s' has '%s'", i,
			      text, t[i].lacks);
		free(text);
	}
}

/* Test that show and stats print what a reply carries */
static void test_show_stats(void)
{
	static char a[8192];
	struct nlmsghdr *nlh = build("web window 100k cpus 1 tune memory action mark 0x10/0xf0", a);
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
			   "    filter apbbf window 100206 shape k=6,l=18,m=378,block_bits=512,block_hashes=4,cpus=1\n"),
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

/*
 * GRO: a stand-in for the devices. gro0 has GRO on, lro0 GRO and LRO,
 * hw0 GRO and hardware GRO fixed on, fix0 only LRO, fixed; off0 none;
 * every other name (eth1 above) does not exist.
 */
static int fake_gro(const char *dev, unsigned int *on, unsigned int *fixed)
{
	static const struct {
		const char *dev;
		unsigned int on, fixed;
	} t[] = {
		{ "gro0", GRO_SW, 0 },
		{ "lro0", GRO_SW | GRO_LRO, 0 },
		{ "hw0", GRO_SW | GRO_HW, GRO_HW },
		{ "fix0", GRO_LRO, GRO_LRO },
		{ "off0", 0, 0 },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(dev, t[i].dev)) {
			*on = t[i].on;
			if (fixed)
				*fixed = t[i].fixed;
			return 0;
		}
	return -1;
}

/*
 * What print_rule_reply() prints of cmdline's rule on stdout (*out) and
 * stderr (*err); free both.
 */
static void reply_outputs(const char *cmdline, bool json, bool stats,
			  char **out, char **err)
{
	static char buf[8192];
	struct nlmsghdr *nlh = reply(cmdline, 4096, buf);
	FILE *f, *e = tmpfile();
	size_t len = 0;
	long n;
	int saved;

	*out = *err = NULL;
	if (!nlh || !e)
		return;
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(e), 2);
	ddfctl_json = json;
	f = open_memstream(out, &len);
	print_rule_reply(f, nlh, stats);
	fclose(f);
	ddfctl_json = false;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = ftell(e);
	*err = calloc(1, n + 1);
	rewind(e);
	if (*err && n > 0 && fread(*err, 1, n, e) != (size_t)n)
		(*err)[0] = 0;
	fclose(e);
}

/*
 * Test that the GRO warning names what is on and its fix (XDP only when
 * the kernel's GRO alone merges, no ethtool words the driver refuses),
 * that show and show -j print it on stderr once per device, stats and
 * rules of other hooks never, and that JSON has "gro" for a device that
 * answers
 */
static void test_gro(void)
{
	static const struct {
		const char *dev;
		unsigned int on, fixed;
		const char *want;
	} w[] = {
		{ "eth1", GRO_SW, 0,
		  "ddfctl: warning: eth1 has GRO on: the kernel merges TCP segments before the netdev ingress hook, so TCP copies do not match; turn it off (ethtool -K eth1 gro off) or attach ddf by XDP, which runs before GRO" },
		{ "eth1", GRO_SW | GRO_LRO, 0,
		  "ddfctl: warning: eth1 has GRO and LRO on: the kernel and the NIC merge TCP segments before the netdev ingress hook, so TCP copies do not match; turn them off (ethtool -K eth1 gro off lro off)" },
		{ "eth2", GRO_SW | GRO_HW | GRO_LRO, GRO_HW,
		  "ddfctl: warning: eth2 has GRO, hardware GRO and LRO on: the kernel and the NIC merge TCP segments before the netdev ingress hook, so TCP copies do not match; turn off what can be (ethtool -K eth2 gro off lro off; its driver cannot turn hardware GRO off)" },
		{ "eth3", GRO_HW, GRO_HW,
		  "ddfctl: warning: eth3 has hardware GRO on: the NIC merges TCP segments before the netdev ingress hook, so TCP copies do not match; its driver cannot turn hardware GRO off" },
	};
	static const struct {
		const char *cmdline;
		bool json, stats;
		const char *out_has, *out_lacks, *err;
	} t[] = {
		{ "a family netdev dev gro0 window 1000", false, false,
		  "a: family netdev hook ingress dev gro0 priority 0\n", "warning",
		  "ddfctl: warning: gro0 has GRO on: the kernel merges " },
		/* once per device and command */
		{ "b family netdev dev gro0 window 1000", false, false, NULL, NULL,
		  "" },
		/* JSON: "gro" in the object of each device that answers */
		{ "c family netdev dev lro0,off0,eth1 window 1000", true, false,
		  "{\"name\": \"lro0\", \"state\": \"gone\", \"xdp\": \"none\", \"gro\": true}, "
		  "{\"name\": \"off0\", \"state\": \"gone\", \"xdp\": \"none\", \"gro\": false}, "
		  "{\"name\": \"eth1\", \"state\": \"gone\", \"xdp\": \"none\"}]",
		  "warning", "ddfctl: warning: lro0 has GRO and LRO on: " },
		{ "d family netdev dev hw0,off0 window 1000", true, true,
		  "\"gro\": true}", NULL, "" },
		{ "e family netdev dev gro0,hw0 window 1000", false, false, NULL,
		  NULL, "ddfctl: warning: hw0 has GRO and hardware GRO on: " },
		{ "f family netdev hook egress dev fix0,off0 window 1000", true,
		  false, NULL, "\"gro\"", "" },
		{ "g family netdev hook none dev fix0 window 1000", false, false,
		  NULL, NULL, "" },
		{ "h family netdev dev eth1 window 1000", true, false, NULL, "\"gro\"",
		  "" },
		{ "i window 1000", true, false, NULL, "\"gro\"", "" },
		{ "j family netdev dev fix0 window 1000", false, true, NULL, NULL,
		  "" },
		{ "k family netdev dev fix0 window 1000", false, false, NULL, NULL,
		  "ddfctl: warning: fix0 has LRO on: the NIC merges TCP segments before the netdev ingress hook, so TCP copies do not match; its driver cannot turn LRO off\n" },
	};
	char line[512];

	for (unsigned int i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		gro_sentence(line, sizeof(line), w[i].dev, w[i].on, w[i].fixed);
		CHECK(!strcmp(line, w[i].want), "GRO sentence %u:\n%s\nwanted\n%s",
		      i, line, w[i].want);
	}
	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *out, *err;

		reply_outputs(t[i].cmdline, t[i].json, t[i].stats, &out, &err);
		CHECK(out && err, "'%s' shows", t[i].cmdline);
		if (!out || !err) {
			free(out);
			free(err);
			continue;
		}
		if (t[i].out_has)
			CHECK(strstr(out, t[i].out_has), "'%s': '%s' lacks '%s'",
			      t[i].cmdline, out, t[i].out_has);
		if (t[i].out_lacks)
			CHECK(!strstr(out, t[i].out_lacks), "'%s': '%s' has '%s'",
			      t[i].cmdline, out, t[i].out_lacks);
		CHECK(t[i].err[0] ? strstr(err, t[i].err) == err &&
					    strchr(err, '\n') == err + strlen(err) - 1 :
				    !err[0],
		      "'%s' on stderr: '%s', wanted '%s'", t[i].cmdline, err,
		      t[i].err);
		free(out);
		free(err);
	}
}

/*
 * restore against a kernel that refuses: a sender that logs each request
 * ("+name" an add, "-name" a delete, "@dev" an attach, "!dev" a detach)
 * and refuses the names listed.
 */
static char sent[512];
static const char *refuse_add, *refuse_del; /* refuse_add "@dev": attach */

static int fake_send(const struct ddf_cmd_req *req)
{
	bool add = req->op == OP_RULE_ADD;

	snprintf(sent + strlen(sent), sizeof(sent) - strlen(sent), "%s%c%s",
		 sent[0] ? " " : "", add ? '+' : '-', req->rule.name);
	if (req->op != OP_RULE_ADD && req->op != OP_RULE_DEL)
		return -1;
	if (add && refuse_add && !strcmp(req->rule.name, refuse_add))
		return ddfctl_err("rule add: the kernel refused: test");
	if (!add && refuse_del && !strcmp(req->rule.name, refuse_del))
		return ddfctl_err("rule del: no rule named '%s'",
				  req->rule.name);
	return 0;
}

static int fake_attach(const char *dev, const char *rule,
		       const struct xdp_how *how)
{
	snprintf(sent + strlen(sent), sizeof(sent) - strlen(sent), "%s@%s%s",
		 sent[0] ? " " : "", dev, how->mode == 2 ? ":generic" : "");
	if (how->exclusive)
		snprintf(sent + strlen(sent), sizeof(sent) - strlen(sent),
			 ":exclusive");
	else if (how->prio >= 0)
		snprintf(sent + strlen(sent), sizeof(sent) - strlen(sent),
			 ":p%d", how->prio);
	if (refuse_add && refuse_add[0] == '@' && !strcmp(dev, refuse_add + 1))
		return ddfctl_err("xdp attach: %s has an XDP program already",
				  dev);
	return 0;
}

static int fake_detach(const char *dev)
{
	snprintf(sent + strlen(sent), sizeof(sent) - strlen(sent), "%s!%s",
		 sent[0] ? " " : "", dev);
	return 0;
}

static const struct restore_ops fake_ops = { fake_send, fake_attach,
					     fake_detach };

static int read_text(const char *text, struct restore_set *s)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret = restore_read(in, s);

	fclose(in);
	return ret;
}

/* stderr into a file from here on; capture_end() hands its text (free it) */
static FILE *cap;
static int saved_stderr;

static void capture_start(void)
{
	sent[0] = 0;
	cap = tmpfile();
	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fileno(cap), 2);
}

static char *capture_end(void)
{
	char *err;
	long n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	n = ftell(cap);
	err = calloc(1, n + 1);
	rewind(cap);
	if (fread(err, 1, n, cap) != (size_t)n)
		err[0] = 0;
	fclose(cap);
	return err;
}

/* restore of text with fake_ops; stderr into err (free it) */
static int restore_text(const char *text, char **err)
{
	struct restore_set s;
	int ret;

	capture_start();
	ret = read_text(text, &s);
	if (!ret)
		ret = restore_apply(&s, &fake_ops);
	restore_free(&s);
	*err = capture_end();
	return ret;
}

/* Test that restore adds all or nothing, and names the refused line */
static void test_restore(void)
{
	static const char file[] = "# saved\n"
				   "rule add a window 1000\n"
				   "rule add b filter qqhtd window 2000\n"
				   "\n"
				   "rule add c window 3000 hash siphash24\n"
				   "rule add d window 4000\n";
	static const char xfile[] =
		"rule add a window 1000\n"
		"rule add n family netdev hook none dev m0,m1 window 1000\n"
		"rule add o family netdev hook none dev m2 window 1000\n"
		"xdp attach dev m0 rule n mode native\n"
		"xdp attach dev m1 rule n mode generic\n"
		"xdp attach dev m2 rule o\n";
	static const struct {
		const char *refuse_add, *refuse_del, *text, *sent, *err;
		int ret;
	} t[] = {
		{ NULL, NULL, file, "+a +b +c +d", "", 0 },
		/* the third rule refused: the two before it go, newest first */
		{ "c", NULL, file, "+a +b +c -b -a",
		  "ddfctl: restore: line 5: rule add: the kernel refused: test\n"
		  "ddfctl: restore: line 5 was refused; the 2 rules added before it were deleted again\n",
		  -1 },
		/* the first refused: nothing to undo */
		{ "a", NULL, file, "+a",
		  "ddfctl: restore: line 2 was refused; no rule had been added\n", -1 },
		/* an undo that fails is named, and the others still run */
		{ "d", "b", file, "+a +b +c +d -c -b -a",
		  "ddfctl: restore: undoing line 3: rule del: no rule named 'b'\n"
		  "ddfctl: restore: line 6 was refused, and 1 of the 3 rules added before it could not be deleted again\n",
		  -1 },
		/* a bad line, even the last, and nothing is sent */
		{ NULL, NULL,
		  "rule add a window 1000\nrule add b window 1000\nrule add c window 1 parsec\n",
		  "", "ddfctl: restore: line 3: rule add: 'parsec' is not a keyword", -1 },
		{ NULL, NULL, "rule add a window 1000\nrule add a window 2000\n", "",
		  "ddfctl: restore: line 2: rule 'a' is on line 1 already\n", -1 },
		/* nothing to do is no error */
		{ NULL, NULL, "# empty\n\n", "", "", 0 },
		/* save's lines of the kinds without a window, and a bare duration */
		{ NULL, NULL,
		  "rule add s filter sbf shape k=2,m=4193280,cell_bits=2,decrements=39\n"
		  "rule add b filter bsbf memory 64K fpr 0.05\n"
		  "rule add t window 2ms\n",
		  "+s +b +t", "", 0 },
		/* xdp lines: attached after every rule, in file order */
		{ NULL, NULL, xfile, "+a +n +o @m0 @m1:generic @m2", "", 0 },
		/* an attach refused: the attached detached, the rules deleted */
		{ "@m2", NULL, xfile, "+a +n +o @m0 @m1:generic @m2 !m1 !m0 -o -n -a",
		  "ddfctl: restore: line 6: xdp attach: m2 has an XDP program already\n"
		  "ddfctl: restore: line 6 was refused; the 2 XDP programs attached were detached again; the 3 rules added before it were deleted again\n",
		  -1 },
		/* a rule refused before any attach */
		{ "o", NULL, xfile, "+a +n +o -n -a",
		  "ddfctl: restore: line 3 was refused; the 2 rules added before it were deleted again\n",
		  -1 },
		/* bad xdp lines: nothing is sent */
		{ NULL, NULL, "rule add a window 1000\nxdp attach dev m0 rule n\n", "",
		  "ddfctl: restore: line 2: xdp attach: rule 'n' is on no line before it\n", -1 },
		{ NULL, NULL, "rule add a window 1000\nxdp attach dev m0 rule a\n", "",
		  "ddfctl: restore: line 2: xdp attach: rule 'a' (line 1) is not of family netdev hook none\n", -1 },
		{ NULL, NULL, "rule add n family netdev hook none dev m0,m1 window 10\nxdp attach dev m2 rule n\n", "",
		  "ddfctl: restore: line 2: xdp attach: rule 'n' (line 1) is not for dev m2\n", -1 },
		{ NULL, NULL, "rule add n family netdev hook none dev m0,m1 window 10\nxdp attach dev m0 rule n\nxdp attach dev m0 rule n mode generic\n", "",
		  "ddfctl: restore: line 3: dev m0 has an xdp line already (line 2)\n", -1 },
		{ NULL, NULL, "rule add n family netdev hook none dev m0 window 10\nxdp attach dev m0 rule n mode fast\n", "",
		  "ddfctl: restore: line 2: xdp attach: mode 'fast' is not native or generic\n", -1 },
		{ NULL, NULL, "rule add n family netdev hook none dev m0 window 10\nxdp attach rule n\n", "",
		  "ddfctl: restore: line 2: xdp attach: needs dev DEV\n", -1 },
		{ NULL, NULL, "rule add n family netdev hook none dev m0 window 10\nxdp detach dev m0\n", "",
		  "ddfctl: restore: line 2: 'xdp detach' is not 'xdp attach'\n", -1 },
		{ NULL, NULL,
		  "rule add a window 1000\nrule add s filter sbf window 1000 shape k=2,m=64,cell_bits=2,decrements=1\n",
		  "", "ddfctl: restore: line 2: window: '1000' given, but sbf has no window: it forgets at random; size it with memory SIZE",
		  -1 },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *err;
		int ret;

		refuse_add = t[i].refuse_add;
		refuse_del = t[i].refuse_del;
		ret = restore_text(t[i].text, &err);
		CHECK(ret == t[i].ret, "restore %u returned %d", i, ret);
		CHECK(!strcmp(sent, t[i].sent), "restore %u sent '%s', not '%s'",
		      i, sent, t[i].sent);
		CHECK(t[i].err[0] ? strstr(err, t[i].err) != NULL : !err[0],
		      "restore %u said '%s', not '%s'", i, err, t[i].err);
		free(err);
	}
	refuse_add = refuse_del = NULL;
}

/*
 * Test that apply changes only what differs between the kernel's state
 * (now, as save would write it) and the file (want), and undoes all of it
 * when a step fails
 */
static void test_apply(void)
{
	static const char now[] =
		"rule add a window 1000\n"
		"rule add b window 2000\n"
		"rule add n family netdev hook none dev m0,m1 window 1000\n"
		"rule add o family netdev hook none dev m2 window 1000\n"
		"xdp attach dev m0 rule n mode native\n"
		"xdp attach dev m1 rule n mode native\n"
		"xdp attach dev m2 rule o mode generic\n";
	static const struct {
		const char *want, *sent, *counts, *err, *refuse_add;
	} t[] = {
		/* the same lines, mode left out: nothing to do */
		{ "rule add a window 1000\nrule add b window 2000\n"
		  "rule add n family netdev hook none dev m0,m1 window 1000\n"
		  "rule add o family netdev hook none dev m2 window 1000\n"
		  "xdp attach dev m0 rule n\nxdp attach dev m1 rule n mode native\n"
		  "xdp attach dev m2 rule o mode generic\n",
		  "", "4 0 0 0 3 0 0", NULL, NULL },
		/* the default priority given, or none: nothing to do */
		{ "rule add a window 1000\nrule add b window 2000\n"
		  "rule add n family netdev hook none dev m0,m1 window 1000\n"
		  "rule add o family netdev hook none dev m2 window 1000\n"
		  "xdp attach dev m0 rule n priority 5\nxdp attach dev m1 rule n\n"
		  "xdp attach dev m2 rule o mode generic\n",
		  "", "4 0 0 0 3 0 0", NULL, NULL },
		/* another priority, or alone: the program goes and comes back */
		{ "rule add a window 1000\nrule add b window 2000\n"
		  "rule add n family netdev hook none dev m0,m1 window 1000\n"
		  "rule add o family netdev hook none dev m2 window 1000\n"
		  "xdp attach dev m0 rule n priority 30\nxdp attach dev m1 rule n\n"
		  "xdp attach dev m2 rule o mode generic exclusive\n",
		  "!m0 !m2 @m0:p30 @m2:generic:exclusive", "4 0 0 0 1 2 2", NULL,
		  NULL },
		/* b's window changed, a gone, c new; o's program to native */
		{ "rule add b window 3000\nrule add c window 10\n"
		  "rule add n family netdev hook none dev m0,m1 window 1000\n"
		  "rule add o family netdev hook none dev m2 window 1000\n"
		  "xdp attach dev m0 rule n\nxdp attach dev m1 rule n\n"
		  "xdp attach dev m2 rule o mode native\n",
		  "!m2 -b -a +b +c @m2", "2 1 1 1 2 1 1", NULL, NULL },
		/* n changed: its programs go and come back; m1's is not wanted */
		{ "rule add a window 1000\nrule add b window 2000\n"
		  "rule add n family netdev hook none dev m0,m1 window 5000\n"
		  "rule add o family netdev hook none dev m2 window 1000\n"
		  "xdp attach dev m0 rule n\n"
		  "xdp attach dev m2 rule o mode generic\n",
		  "!m0 !m1 -n +n @m0", "3 1 0 0 1 1 2", NULL, NULL },
		/* an empty file: every program detached, every rule deleted */
		{ "# nothing\n", "!m0 !m1 !m2 -o -n -b -a", "0 0 0 4 0 0 3", NULL,
		  NULL },
		/* c refused: b added again with its old line, programs back */
		{ "rule add b window 3000\nrule add c window 10\n",
		  "!m0 !m1 !m2 -o -n -b -a +b +c -b +a +b +n +o @m2:generic @m1 @m0",
		  NULL,
		  "ddfctl: apply: line 2 was refused; the 1 rules added before it were deleted again; the 4 rules deleted were added again (their filters empty); the 3 XDP programs detached were attached again\n",
		  "c" },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct restore_set sn, sw;
		struct apply_plan p;
		char counts[64], *err;
		int ret;

		refuse_add = t[i].refuse_add;
		CHECK(!read_text(now, &sn) && !read_text(t[i].want, &sw),
		      "apply %u: the files read", i);
		capture_start();
		ret = apply_plan(&sn, &sw, &p);
		if (!ret)
			ret = restore_run("apply", p.st, p.n, &fake_ops);
		err = capture_end();
		snprintf(counts, sizeof(counts), "%zu %zu %zu %zu %zu %zu %zu",
			 p.kept, p.changed, p.added, p.deleted, p.xkept,
			 p.attached, p.detached);
		CHECK(!strcmp(sent, t[i].sent), "apply %u sent '%s', not '%s'",
		      i, sent, t[i].sent);
		CHECK(!t[i].counts || !strcmp(counts, t[i].counts),
		      "apply %u counted '%s', not '%s'", i, counts, t[i].counts);
		CHECK(t[i].err ? ret && strstr(err, t[i].err) : !ret && !err[0],
		      "apply %u returned %d and said '%s', not '%s'", i, ret,
		      err, t[i].err ? t[i].err : "");
		free(err);
		free(p.st);
		restore_free(&sn);
		restore_free(&sw);
	}
	refuse_add = NULL;
}

/* what print_rule_reply() prints of nlh, as text or JSON (to free) */
static char *reply_text(const struct nlmsghdr *nlh, bool json, bool stats)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	ddfctl_json = json;
	print_rule_reply(f, nlh, stats);
	ddfctl_json = false;
	fclose(f);
	return text;
}

/*
 * Test that a reply's attributes are read within themselves: a number
 * shorter than its type, a string without its NUL are printed as
 * malformed and decoded as absent; a filter's shape past the core's caps
 * gets no rate (the model's tables end at the caps); a message too short
 * for its headers decodes as none; and replies whose length runs past the
 * bytes read are refused before any is handed on.
 */
static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(*(int *)data)++;
	return MNL_CB_OK;
}

static void test_malformed_reply(void)
{
	static char buf[16384];
	struct rule_reply rr = { .words = "filter apbf window 10k fpr 1e-3",
				 .name = "mal" };
	struct nlmsghdr *nlh = rule_reply(&rr, buf), *bad;
	struct nlmsgerr *err;
	struct ddf_rule_info ri;
	char *text;
	int got = 0;

	CHECK(nlh, "malformed: no reply of '%s'", rr.words);
	if (!nlh)
		return;
	/* after the well-formed attributes: a 1-byte priority, an unended iif */
	mnl_attr_put(nlh, DDF_A_PRIORITY, 1, "\x05");
	mnl_attr_put(nlh, DDF_A_IIFNAME, 3, "abc");
	CHECK(!decode_rule(nlh, &ri) && !ri.rule.iif[0] &&
	      ri.rule.priority == 0, "malformed: iif '%s', priority %d decoded",
	      ri.rule.iif, ri.rule.priority);
	{
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		text = NULL;
		if (f) {
			print_request(f, nlh);
			fclose(f);
		}
	}
	CHECK(text && strstr(text, "DDF_A_IIFNAME malformed (3 bytes)") &&
	      strstr(text, "DDF_A_PRIORITY malformed (1 bytes)"),
	      "malformed: -n prints '%s'", text);
	free(text);
	text = reply_text(nlh, true, false);
	CHECK(text && strstr(text, "\"iif\": null") &&
	      strstr(text, "\"priority\": null"), "malformed: -j prints '%s'",
	      text);
	free(text);

	/* k one past the core's cap: no rate computed from the shape */
	CHECK(!decode_rule(nlh, &ri), "malformed: '%s' does not decode",
	      rr.words);
	ri.rule.filter.params.k = DDF_MAX_K + 1;
	CHECK(!ddfctl_fpr(&ri.rule.filter.params, &(double){ 0 }),
	      "malformed: a rate for apbf k=%u l=%u", ri.rule.filter.params.k,
	      ri.rule.filter.params.l);

	/* a message of a netlink header alone */
	bad = (struct nlmsghdr *)buf;
	memset(bad, 0, MNL_NLMSG_HDRLEN);
	bad->nlmsg_len = MNL_NLMSG_HDRLEN;
	bad->nlmsg_type = 0x20;
	CHECK(decode_rule(bad, &ri), "malformed: a header alone decodes");

	/* a second message claiming 2^32 - 1792 bytes, within 40 read */
	bad->nlmsg_len = 20;
	bad = (struct nlmsghdr *)(buf + 20);
	memset(bad, 0, 20);
	bad->nlmsg_len = 0xfffff900u;
	bad->nlmsg_type = 0x20;
	CHECK(ddfctl_replies(buf, 40, 0, 0, count_cb, &got) == MNL_CB_ERROR &&
	      !got, "malformed: a reply past the bytes read handed on (%d)",
	      got);

	/* an error whose echoed request is longer than the error itself */
	bad = mnl_nlmsg_put_header(buf);
	bad->nlmsg_type = NLMSG_ERROR;
	bad->nlmsg_flags = NLM_F_ACK_TLVS;
	err = mnl_nlmsg_put_extra_header(bad, sizeof(*err));
	err->error = -EINVAL;
	err->msg.nlmsg_len = 0xffffffd4u;
	mnl_attr_put_strz(bad, NLMSGERR_ATTR_MSG, "window: too large");
	errno = 0;
	CHECK(ddfctl_replies(buf, bad->nlmsg_len, 0, 0, count_cb, &got) ==
		      MNL_CB_ERROR && errno == EINVAL,
	      "malformed: an error with a request past it: errno %d", errno);

	/* errors no kernel sends (it sends -4095..-1): a bad message */
	for (int i = 0; i < 3; i++) {
		static const int codes[] = { INT_MIN, -4096, 1 };

		bad = mnl_nlmsg_put_header(buf);
		bad->nlmsg_type = NLMSG_ERROR;
		err = mnl_nlmsg_put_extra_header(bad, sizeof(*err));
		err->error = codes[i];
		err->msg.nlmsg_len = MNL_NLMSG_HDRLEN;
		errno = 0;
		CHECK(ddfctl_replies(buf, bad->nlmsg_len, 0, 0, count_cb,
				     &got) == MNL_CB_ERROR && errno == EBADMSG,
		      "malformed: error %d: errno %d", codes[i], errno);
	}
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
		"g filter qqhtd window 10k hash siphash24 seed 000102030405060708090a0b0c0d0e0f",
		"h family ip6 ignore ttl,flowlabel max-bytes 96 window 10k",
		"i max-bytes 1 ignore none hash siphash24 window 100",
		"j filter a2 window 10000 fpr 1e-3",
		"k filter bdbf window 10000 fpr 1e-3",
		"l filter cuckoo window 10000 fpr 1e-3",
		"m filter cshf window 10000 fpr 1e-3",
		"o filter queue window 1000 shape inner_kind=shf,subfilters=4,fp_bits=16",
		/* bare durations: N from 100 kpps */
		"p window 2ms",
		"q family ip window 30s fpr 1e-3 action count",
		"r filter exact window 500us",
		/* no window: sized by memory, fpr beside it the target */
		"s filter sbf memory 1M",
		"s2 filter sbf memory 256K fpr 1e-3",
		"t filter rsbf memory 256K fpr 0.05",
		"u filter bsbf memory 64K",
		"v filter bsbfsd memory 64K action count",
		"w2 filter rlbsbf memory 1M fpr 0.05 seed 000102030405060708090a0b0c0d0e0f",
		"x filter bsbf shape k=3,m=4096",
		/* family netdev, key frame, link-layer ignores, tunnels */
		"n1 family netdev dev eth1 window 100k",
		"n2 family netdev hook egress dev eth1 priority -3 key frame ignore vlan,mac window 10k",
		"n3 family netdev hook none dev eth1 key saddr,daddr ignore vlan decap vxlan:8472,geneve window 10k",
		"n4 family netdev dev br0 ignore ttl,ipv4csum,mac proto udp decap gre,erspan,gtpu window 1k action count",
		"n5 family netdev dev eth1 key frame window 1k seed 000102030405060708090a0b0c0d0e0f",
		"n6 family ip decap vxlan window 1k",
		"n7 key saddr,dport decap geneve:6090,vxlan window 1k",
		"n8 family ip6 hook output oif eth2 decap gtpu window 1k",
		/* device names of bytes the words escape */
		"n9 family netdev dev a\\,b,c\\\\d,\\x01\\xff,#\"',\\x2c window 1k",
		"n10 family ip hook forward iif x\\,y oif \\x7f\\x80\\x5c window 1k",
		/* tunes: the saved shape is restored, whatever the default */
		"tu1 window 100k tune memory",
		"tu2 window 1M fpr 1e-9 tune speed",
		"tu3 filter apbf window 10k fpr 1e-3 tune memory",
		"tu4 filter apbf window 10k fpr 1e-3",
	};

	/* the devices of the tests are the stand-in's, not this machine's */
	gro_ask = fake_gro;
	test_window_words();
	for (unsigned int i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		test_roundtrip(rules[i]);
	test_saved_words();
	test_saved_tunes();
	test_show_words();
	test_netdev_request();
	test_show_netdev();
	test_show_stats();
	test_restore();
	test_apply();
	test_gro();
	test_malformed_reply();
	printf("test_ddfctl_msg: %d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
