// SPDX-License-Identifier: GPL-2.0
/*
 * libxt_ddf.so: the iptables/ip6tables side of the xtables match "ddf"
 * (uapi/linux/netfilter/xt_ddf.h), for iptables-legacy and iptables-nft.
 *
 *   iptables -m ddf [!] --ddf-rule NAME [--ddf-mode test|test-and-insert]
 *
 * Out of the iptables tree, so it registers from a constructor: the _init
 * that in-tree extensions define would clash with the C runtime's.
 */
#include <stdio.h>
#include <string.h>
#include <stddef.h>
#include <xtables.h>
#include <linux/netfilter/xt_ddf.h>

enum {
	O_DDF_RULE = 0,
	O_DDF_MODE,
};

static const char *const ddf_modes[] = {
	[XT_DDF_MODE_TEST_AND_INSERT] = "test-and-insert",
	[XT_DDF_MODE_TEST] = "test",
};

static void ddf_mt_help(void)
{
	printf(
"ddf match options:\n"
"[!] --ddf-rule NAME      match a packet that is a duplicate for the filter\n"
"                         of the ddf rule NAME of this network namespace\n"
"                         (created first with \"ddfctl rule add NAME ...\";\n"
"                         \"hook none\" leaves it to iptables alone);\n"
"                         with !, match a packet that is not a duplicate.\n"
"                         The packet is counted in the rule's counters\n"
"                         (ddfctl stats NAME); the rule's action is not\n"
"                         applied: this rule's target (-j) decides.\n"
" --ddf-mode MODE         test-and-insert (default): remember the packet,\n"
"                         so a later copy of it is a duplicate;\n"
"                         test: only ask, leaving the filter unchanged.\n"
"While an iptables rule uses a ddf rule, \"ddfctl rule del\" refuses to\n"
"delete it.\n");
}

static const struct xt_option_entry ddf_mt_opts[] = {
	{
		.name = "ddf-rule",
		.id = O_DDF_RULE,
		.type = XTTYPE_STRING,
		.flags = XTOPT_MAND | XTOPT_INVERT | XTOPT_PUT,
		XTOPT_POINTER(struct xt_ddf_mtinfo, name),
		.min = 1,
		.max = DDF_NAME_MAX - 1,
	},
	{
		.name = "ddf-mode",
		.id = O_DDF_MODE,
		.type = XTTYPE_STRING,
	},
	XTOPT_TABLEEND,
};

static void ddf_mt_parse(struct xt_option_call *cb)
{
	struct xt_ddf_mtinfo *info = cb->data;
	unsigned int i;

	xtables_option_parse(cb);
	switch (cb->entry->id) {
	case O_DDF_RULE:
		if (cb->invert)
			info->flags |= XT_DDF_F_INVERT;
		break;
	case O_DDF_MODE:
		for (i = 0; i < sizeof(ddf_modes) / sizeof(ddf_modes[0]); i++) {
			if (strcmp(cb->arg, ddf_modes[i]) == 0) {
				info->mode = i;
				return;
			}
		}
		xtables_error(PARAMETER_PROBLEM,
			      "ddf: unknown --ddf-mode \"%s\": use test or test-and-insert",
			      cb->arg);
	}
}

static const char *ddf_mode_name(const struct xt_ddf_mtinfo *info)
{
	return info->mode <= XT_DDF_MODE_MAX ? ddf_modes[info->mode] : "?";
}

static void ddf_mt_print(const void *ip, const struct xt_entry_match *match,
			 int numeric)
{
	const struct xt_ddf_mtinfo *info = (const void *)match->data;

	printf(" ddf%s rule %s", info->flags & XT_DDF_F_INVERT ? " !" : "",
	       info->name);
	if (info->mode != XT_DDF_MODE_TEST_AND_INSERT)
		printf(" mode %s", ddf_mode_name(info));
}

static void ddf_mt_save(const void *ip, const struct xt_entry_match *match)
{
	const struct xt_ddf_mtinfo *info = (const void *)match->data;

	printf("%s --ddf-rule", info->flags & XT_DDF_F_INVERT ? " !" : "");
	xtables_save_string(info->name);
	if (info->mode != XT_DDF_MODE_TEST_AND_INSERT)
		printf(" --ddf-mode %s", ddf_mode_name(info));
}

static struct xtables_match ddf_mt_reg = {
	.version = XTABLES_VERSION,
	.name = "ddf",
	.revision = 0,
	.family = NFPROTO_UNSPEC,
	.size = XT_ALIGN(sizeof(struct xt_ddf_mtinfo)),
	.userspacesize = offsetof(struct xt_ddf_mtinfo, rule),
	.help = ddf_mt_help,
	.print = ddf_mt_print,
	.save = ddf_mt_save,
	.x6_parse = ddf_mt_parse,
	.x6_options = ddf_mt_opts,
};

static void __attribute__((constructor)) ddf_mt_ldr(void)
{
	xtables_register_match(&ddf_mt_reg);
}
