// SPDX-License-Identifier: GPL-2.0
/*
 * nf_ddf: de-duplicate packets in netfilter.
 *
 * For now the module registers one pass-through hook per network namespace
 * and family, and checks that the filter core is linked in.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/net_namespace.h>

#include "ddf_filter.h"
#include "ddf_registry.h"

static unsigned int nf_ddf_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	return NF_ACCEPT;
}

static const struct nf_hook_ops nf_ddf_ops[] = {
	{
		.hook = nf_ddf_hook,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_PRE_ROUTING,
		.priority = NF_IP_PRI_RAW + 1,
	},
	{
		.hook = nf_ddf_hook,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_PRE_ROUTING,
		.priority = NF_IP6_PRI_RAW + 1,
	},
};

static int __net_init nf_ddf_net_init(struct net *net)
{
	return nf_register_net_hooks(net, nf_ddf_ops, ARRAY_SIZE(nf_ddf_ops));
}

static void __net_exit nf_ddf_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, nf_ddf_ops, ARRAY_SIZE(nf_ddf_ops));
}

static struct pernet_operations nf_ddf_net_ops = {
	.init = nf_ddf_net_init,
	.exit = nf_ddf_net_exit,
};

static int __init nf_ddf_init(void)
{
	const struct ddf_filter_type *type;
	int ret;

	type = ddf_filter_type_by_name("apbbf");
	if (!type) {
		pr_err("the core has no apbbf filter\n");
		return -ENOENT;
	}

	ret = register_pernet_subsys(&nf_ddf_net_ops);
	if (ret)
		goto err_pernet;

	pr_info("loaded, default filter %s\n", type->name);
	return 0;

err_pernet:
	return ret;
}

static void __exit nf_ddf_exit(void)
{
	unregister_pernet_subsys(&nf_ddf_net_ops);
	pr_info("unloaded\n");
}

module_init(nf_ddf_init);
module_exit(nf_ddf_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Netfilter packet de-duplication");
