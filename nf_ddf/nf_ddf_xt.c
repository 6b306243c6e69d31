// SPDX-License-Identifier: GPL-2.0
/*
 * The xtables match "ddf" (uapi linux/netfilter/xt_ddf.h): true when the
 * packet is a duplicate for a named rule's filter. For iptables and
 * ip6tables, legacy or nft (nft_compat). checkentry finds the rule in the
 * namespace's table under its mutex and takes a reference, which destroy
 * drops; the packet path is the hook's (nf_ddf_rule_seen()) without the
 * rule's action.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": xt_ddf: " fmt

#include <linux/module.h>
#include <linux/netfilter/x_tables.h>
#include <linux/skbuff.h>
#include <linux/string.h>

#include "nf_ddf.h"
#include "linux/netfilter/xt_ddf.h"

static const char *ddf_mt_family(u8 family)
{
	return family == NFPROTO_IPV4 ? "iptables (family ip)" :
	       family == NFPROTO_IPV6 ? "ip6tables (family ip6)" :
					"its device (family netdev)";
}

static int ddf_mt_check(const struct xt_mtchk_param *par)
{
	struct xt_ddf_mtinfo *info = par->matchinfo;
	struct nf_ddf_net *dn = nf_ddf_pernet(par->net);
	struct nf_ddf_rule *rule;
	int err = 0;

	if (info->mode > XT_DDF_MODE_MAX) {
		pr_info_ratelimited("unknown mode %u\n", info->mode);
		return -EINVAL;
	}
	if (info->flags & ~__XT_DDF_F_ALL) {
		pr_info_ratelimited("unknown flags 0x%x\n",
				    info->flags & ~__XT_DDF_F_ALL);
		return -EINVAL;
	}
	if (memchr_inv(info->reserved, 0, sizeof(info->reserved))) {
		pr_info_ratelimited("reserved bytes are not zero\n");
		return -EINVAL;
	}
	if (!info->name[0] || strnlen(info->name, sizeof(info->name)) ==
				      sizeof(info->name)) {
		pr_info_ratelimited("the rule name is empty or too long\n");
		return -EINVAL;
	}

	mutex_lock(&dn->lock);
	rule = nf_ddf_rule_find(dn, info->name);
	if (!rule) {
		pr_info_ratelimited("no rule \"%s\" in this namespace (ddfctl rule add %s ...)\n",
				    info->name, info->name);
		err = -ENOENT;
	} else if (rule->family != NFPROTO_INET &&
		   rule->family != par->family) {
		pr_info_ratelimited("rule \"%s\" is for %s only\n", info->name,
				    ddf_mt_family(rule->family));
		err = -EINVAL;
	} else {
		refcount_inc(&rule->refs);
		info->rule = rule;
	}
	mutex_unlock(&dn->lock);
	return err;
}

static void ddf_mt_destroy(const struct xt_mtdtor_param *par)
{
	struct xt_ddf_mtinfo *info = par->matchinfo;

	nf_ddf_rule_put(info->rule);
}

static bool ddf_mt(const struct sk_buff *skb, struct xt_action_param *par)
{
	const struct xt_ddf_mtinfo *info = par->matchinfo;
	bool dup;

	dup = nf_ddf_rule_seen(info->rule, skb, xt_family(par), xt_in(par),
			       xt_out(par),
			       info->mode == XT_DDF_MODE_TEST_AND_INSERT);
	return dup ^ !!(info->flags & XT_DDF_F_INVERT);
}

static struct xt_match ddf_mt_reg[] __read_mostly = {
	{
		.name = "ddf",
		.revision = 0,
		.family = NFPROTO_IPV4,
		.match = ddf_mt,
		.checkentry = ddf_mt_check,
		.destroy = ddf_mt_destroy,
		.matchsize = sizeof(struct xt_ddf_mtinfo),
		.usersize = offsetof(struct xt_ddf_mtinfo, rule),
		.me = THIS_MODULE,
	},
	{
		.name = "ddf",
		.revision = 0,
		.family = NFPROTO_IPV6,
		.match = ddf_mt,
		.checkentry = ddf_mt_check,
		.destroy = ddf_mt_destroy,
		.matchsize = sizeof(struct xt_ddf_mtinfo),
		.usersize = offsetof(struct xt_ddf_mtinfo, rule),
		.me = THIS_MODULE,
	},
};

int nf_ddf_xt_register(void)
{
	BUILD_BUG_ON(sizeof(struct xt_ddf_mtinfo) != 48);
	BUILD_BUG_ON(offsetof(struct xt_ddf_mtinfo, rule) != 40);
	return xt_register_matches(ddf_mt_reg, ARRAY_SIZE(ddf_mt_reg));
}

void nf_ddf_xt_unregister(void)
{
	xt_unregister_matches(ddf_mt_reg, ARRAY_SIZE(ddf_mt_reg));
}

/* iptables and nft_compat load "ipt_ddf" / "ip6t_ddf" on first use */
MODULE_ALIAS("ipt_ddf");
MODULE_ALIAS("ip6t_ddf");
