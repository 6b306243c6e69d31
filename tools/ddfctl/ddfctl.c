// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl: the command table, global options and help. Each command parses
 * its words into a struct ddf_cmd_req and hands it to ddfctl_run().
 */
#include <stdlib.h>
#include <string.h>

#include "ddfctl.h"

bool ddfctl_json;
bool ddfctl_dry_run;
/* -o prometheus: show and stats as metrics (prom.c) */
static bool output_prom;

struct ddf_command {
	const char *name;
	const char *args;
	const char *help;
	int (*fn)(int argc, char **argv);
};

static const char rule_add_help[] =
	"usage: ddfctl rule add NAME [family ip|ip6|inet|netdev] [hook HOOK]\n"
	"                        [priority N] [dev DEV[,DEV...]] [iif DEV] [oif DEV]\n"
	"                        [proto tcp|udp|udplite|sctp|icmp|icmpv6]\n"
	"                        [key packet | key frame | key FIELD[,FIELD...]]\n"
	"                        [payload OFF:LEN] [ignore FIELD[,...]|none]\n"
	"                        [max-bytes N] [decap TUNNEL[,...]|none]\n"
	"                        [filter KIND]\n"
	"                        [window N|N/DURATION|DURATION]\n"
	"                        [fpr P | memory SIZE | shape S] [cpus C]\n"
	"                        [tune speed|memory]\n"
	"                        [seed HEX] [hash siphash13|siphash24]\n"
	"                        [action drop|count|mark VALUE[/MASK]]\n"
	"  NAME      1 to 31 bytes\n"
	"  family    ip, ip6, inet: the IP hooks, packets from their IP header on;\n"
	"            netdev: the frames of its devices (dev, required), whole\n"
	"  HOOK      ip, ip6, inet: prerouting input forward output postrouting,\n"
	"            or none (only the xtables match uses the rule; ip or ip6)\n"
	"            netdev: ingress (default) or egress of its dev, or none\n"
	"  dev       family netdev: the devices (at most 16, comma-separated),\n"
	"            which must exist; they share the rule's filter, window and\n"
	"            counters (a copy on eth2 of a packet seen on eth1 is a\n"
	"            duplicate), each with its own counters beside. A device that\n"
	"            goes is waited for by name (show says gone), others go on;\n"
	"            renames are followed\n"
	"  iif, oif  the IP families: only packets in (out) on this interface\n"
	"  FIELD     key: saddr daddr proto sport dport ipid tcpseq tcpack icmpid\n"
	"            payload (with payload OFF:LEN)\n"
	"            ignore (key packet): ttl ipv4csum dscp ecn ipid flowlabel l4csum\n"
	"            ignore (family netdev, any key): vlan (the VLAN IDs) and mac\n"
	"            (the MAC addresses of a frame keyed whole)\n"
	"  key frame family netdev: every byte of the frame from its MAC header\n"
	"  max-bytes key packet: the first N bytes of the packet are hashed\n"
	"            (1 .. 65535)\n"
	"  TUNNEL    decap: key the packet inside vxlan[:PORT] (4789), geneve[:PORT]\n"
	"            (6081), gre, erspan, gtpu (up to two levels); none: the default\n"
	"  window    N packets (k, M), or N/DURATION: at most N packets within\n"
	"            DURATION (ns us ms s m h, 10us .. 1h), or DURATION alone:\n"
	"            N = DURATION x 100 kpps, at least 1 (give N/DURATION for\n"
	"            long windows or another rate; m is minutes, M is 10^6).\n"
	"            Required, except by the kinds that have none:\n"
	"  KIND      apbf apbbf qht qhtd qqhtd sqf a2 bdbf cuckoo exact shf\n"
	"            cshf queue need a window; sbf rsbf bsbf bsbfsd rlbsbf have\n"
	"            none (they forget at random): leave window out, give\n"
	"            memory SIZE, and fpr P beside it as the target if wanted\n"
	"  fpr       target false-positive rate in (0, 1): the filter its tune\n"
	"            chooses among those meeting it\n"
	"  memory    SIZE: bytes, or with K, M, G: the lowest rate that fits\n"
	"  shape     NAME=V[,...]: the resolved parameters themselves (as save\n"
	"            writes them): k l m block_bits block_hashes fp_bits\n"
	"            cell_bits decrements inner_kind subfilters p_star cpus\n"
	"  tune      apbf, apbbf sized by fpr: speed (default), among the shapes\n"
	"            meeting fpr within 2x the least memory, the fewest cache\n"
	"            lines plus atomic words per new key; memory: the least\n"
	"            memory (ddfctl size shows both; save writes the shape)\n"
	"  cpus      apbf, apbbf: CPUs inserting at once (1 .. 8192; the kernel\n"
	"            uses at least its possible CPUs): each takes its insert\n"
	"            tickets in batches, and the sizing keeps the window with them\n"
	"  seed      32 hex digits, the SipHash key (random when absent)\n"
	"  hash      the keyed hash of the key bytes: SipHash-1-3 (default)\n"
	"            or SipHash-2-4\n"
	"defaults: family inet hook prerouting priority 0 key packet\n"
	"          ignore ttl,ipv4csum max-bytes 1500 decap none filter apbbf\n"
	"          fpr 1e-6 tune speed hash siphash13 action drop; family netdev:\n"
	"          hook ingress\n";

static int rule_add(int argc, char **argv)
{
	struct ddf_cmd_req req = { .op = OP_RULE_ADD };

	if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "help"))) {
		fputs(rule_add_help, stdout);
		return 0;
	}
	if (parse_rule_add(argc, argv, &req.rule) || ddfctl_run(&req))
		return -1;
	/* the rule is in: say what would keep it from matching TCP copies */
	if (!ddfctl_dry_run)
		gro_warn_rule(&req.rule);
	return 0;
}

static int rule_del(int argc, char **argv)
{
	struct ddf_cmd_req req = { .op = OP_RULE_DEL };

	if (argc != 1)
		return ddfctl_err("rule del: needs exactly one NAME%s%s%s",
				  argc > 1 ? ", not '" : "",
				  argc > 1 ? argv[1] : "", argc > 1 ? "'" : "");
	if (parse_name(argv[0], req.rule.name))
		return -1;
	return ddfctl_run(&req);
}

/* rule reset NAME [filter]: the counters, and with filter the filter too */
static int rule_reset(int argc, char **argv)
{
	struct ddf_cmd_req req = { .op = OP_RULE_RESET };

	if (!argc)
		return ddfctl_err("rule reset: needs a NAME");
	if (parse_name(argv[0], req.rule.name))
		return -1;
	if (argc >= 2) {
		if (strcmp(argv[1], "filter"))
			return ddfctl_err("rule reset: '%s' is not expected after the NAME (only 'filter', to empty the filter too)",
					  argv[1]);
		req.reset_flags = DDF_RESET_F_FILTER;
	}
	if (argc >= 3)
		return ddfctl_err("rule reset: '%s' is not expected after 'filter'",
				  argv[2]);
	return ddfctl_run(&req);
}

static int rule_flush(int argc, char **argv)
{
	struct ddf_cmd_req req = { .op = OP_RULE_FLUSH };

	if (argc)
		return ddfctl_err("rule flush: '%s' is not expected", argv[0]);
	return ddfctl_run(&req);
}

static int show_or_stats(enum ddfctl_op op, const char *word, int argc,
			 char **argv)
{
	struct ddf_cmd_req req = { .op = op };

	if (argc > 1)
		return ddfctl_err("%s: '%s' is not expected after the NAME", word,
				  argv[1]);
	if (argc == 1) {
		if (parse_name(argv[0], req.rule.name))
			return -1;
		req.has_name = true;
	}
	return output_prom ? prom_run(&req) : ddfctl_run(&req);
}

static int cmd_show(int argc, char **argv)
{
	return show_or_stats(OP_SHOW, "show", argc, argv);
}

static int cmd_stats(int argc, char **argv)
{
	return show_or_stats(OP_STATS, "stats", argc, argv);
}

static const struct ddf_command rule_cmds[] = {
	{ "add", "NAME [options]", "create a rule (rule add --help)", rule_add },
	{ "del", "NAME", "delete a rule", rule_del },
	{ "reset", "NAME [filter]",
	  "zero a rule's counters (filter: empty its filter too)", rule_reset },
	{ "flush", "", "delete every rule", rule_flush },
	{ NULL },
};

static int cmd_rule(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct ddf_command commands[] = {
	{ "rule", "add|del|reset|flush ...", "create and delete rules",
	  cmd_rule },
	{ "show", "[NAME]", "a rule, or all: shape, memory, analytic fpr",
	  cmd_show },
	{ "stats", "[NAME]", "counters of a rule, or of all", cmd_stats },
	{ "save", "", "print the rules and XDP attachments as lines for restore",
	  cmd_save },
	{ "restore", "[--wait S] [FILE]",
	  "add the rules and XDP attachments of save's lines, all or none",
	  cmd_restore },
	{ "apply", "[--wait S] [FILE]",
	  "make the rules those of save's lines; unchanged ones are kept",
	  cmd_apply },
	{ "size", "[filter KIND] [window W] [fpr P|memory SIZE] [tune T]",
	  "size a filter (no kernel needed)", cmd_size },
	{ "replay", "FILE... [-w KEPT] [-W DROPPED] [-l LOG] [WORDS]",
	  "a rule over pcap files, merged by time (replay --help)",
	  cmd_replay },
	{ "advise", "FILE... [-c COUNT] [-l LOG]",
	  "the rule captures need: copies, delays, differences (advise --help)",
	  cmd_advise },
	{ "xdp", "attach|detach|show ...",
	  "XDP on a device for a netdev rule (xdp --help)", cmd_xdp },
	{ "help", "", "this list", cmd_help },
	{ NULL },
};

static void usage(FILE *out)
{
	fputs("usage: ddfctl [-j | -o FORMAT] [-n] COMMAND ...\n"
	      "  -j  JSON output (show, stats, size), as -o json\n"
	      "  -o  text (default), json, or prometheus: show and stats as\n"
	      "      Prometheus' text format, ddf_packets_total{rule=...} ...\n"
	      "  -n  dry run: print the netlink request instead of sending it\n"
	      "commands:\n", out);
	for (const struct ddf_command *c = rule_cmds; c->name; c++) {
		char w[16];

		snprintf(w, sizeof(w), "rule %s", c->name);
		fprintf(out, "  %-11s %-44s %s\n", w, c->args, c->help);
	}
	for (const struct ddf_command *c = commands; c->name; c++)
		if (strcmp(c->name, "rule"))
			fprintf(out, "  %-11s %-44s %s\n", c->name, c->args,
				c->help);
	fputs("window W (rule add, size): N packets, N/DURATION (at most N packets\n"
	      "  within DURATION), or DURATION alone: N = DURATION x 100 kpps;\n"
	      "  none for sbf rsbf bsbf bsbfsd rlbsbf, sized by memory SIZE\n", out);
}

static int cmd_help(int argc, char **argv)
{
	usage(stdout);
	return 0;
}

static int dispatch(const struct ddf_command *table, const char *what,
		    int argc, char **argv)
{
	for (const struct ddf_command *c = table; c->name; c++)
		if (!strcmp(c->name, argv[0]))
			return c->fn(argc - 1, argv + 1);
	return ddfctl_err("%s'%s' is not a command (ddfctl --help)", what,
			  argv[0]);
}

static int cmd_rule(int argc, char **argv)
{
	if (!argc)
		return ddfctl_err("rule: needs add, del, reset or flush");
	return dispatch(rule_cmds, "rule: ", argc, argv);
}

/* -o FORMAT: 0, or -1 after saying why */
static int output_format(const char *s)
{
	if (!s)
		return ddfctl_err("-o: needs a FORMAT: text, json or prometheus");
	ddfctl_json = !strcmp(s, "json");
	output_prom = !strcmp(s, "prometheus");
	if (!ddfctl_json && !output_prom && strcmp(s, "text"))
		return ddfctl_err("-o: '%s' is not a format: text, json or prometheus",
				  s);
	return 0;
}

int main(int argc, char **argv)
{
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			ddfctl_json = true;
			output_prom = false;
		} else if (!strcmp(argv[i], "-o") ||
			   !strcmp(argv[i], "--output")) {
			if (output_format(argv[++i]))
				return 1;
		} else if (!strncmp(argv[i], "--output=", 9)) {
			if (output_format(argv[i] + 9))
				return 1;
		} else if (!strcmp(argv[i], "-n") ||
			   !strcmp(argv[i], "--dry-run")) {
			ddfctl_dry_run = true;
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			ddfctl_err("'%s' is not an option (ddfctl --help)",
				   argv[i]);
			return 1;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 1;
	}
	if (output_prom && strcmp(argv[i], "show") && strcmp(argv[i], "stats")) {
		ddfctl_err("-o prometheus: '%s' has no metrics; show and stats print them",
			   argv[i]);
		return 1;
	}
	/* -1: failed; a positive status is the command's own (restore) */
	ret = dispatch(commands, "", argc - i, argv + i);
	return ret < 0 ? 1 : ret;
}
