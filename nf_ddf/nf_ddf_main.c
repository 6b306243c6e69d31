// SPDX-License-Identifier: GPL-2.0
/*
 * nf_ddf: de-duplicate packets in netfilter.
 *
 * Named rules per network namespace (the table in nf_ddf_rule.c), set up
 * over the generic netlink family "ddf" (nf_ddf_netlink.c); each rule with
 * a hook registers its own netfilter hook (the packet path, nf_ddf_hook.c),
 * a netdev rule on its device's while the device is there (nf_ddf_dev.c);
 * the xtables match "ddf" (nf_ddf_xt.c) lets iptables ask a rule's filter,
 * a kfunc (nf_ddf_xdp.c) lets XDP programs do so.
 * A namespace going away takes its rules and their hooks with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netfilter.h>
#include <net/net_namespace.h>

#include "nf_ddf.h"
#include "ddf_registry.h"

unsigned int nf_ddf_net_id __read_mostly;

unsigned long nf_ddf_max_rule_bytes __read_mostly = 256ul << 20;
module_param_named(max_rule_bytes, nf_ddf_max_rule_bytes, ulong, 0644);
MODULE_PARM_DESC(max_rule_bytes, "most filter memory of one rule, bytes");

unsigned long nf_ddf_max_net_bytes __read_mostly = 1024ul << 20;
module_param_named(max_net_bytes, nf_ddf_max_net_bytes, ulong, 0644);
MODULE_PARM_DESC(max_net_bytes, "most filter memory of a namespace's rules, bytes");

static int __net_init nf_ddf_net_init(struct net *net)
{
	nf_ddf_net_table_init(nf_ddf_pernet(net));
	return 0;
}

static void __net_exit nf_ddf_net_exit(struct net *net)
{
	nf_ddf_net_table_exit(nf_ddf_pernet(net));
}

static struct pernet_operations nf_ddf_net_ops = {
	.init = nf_ddf_net_init,
	.exit = nf_ddf_net_exit,
	.id = &nf_ddf_net_id,
	.size = sizeof(struct nf_ddf_net),
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

	ret = nf_ddf_dev_notifier_register();
	if (ret)
		goto err_notifier;

	ret = nf_ddf_genl_register();
	if (ret)
		goto err_genl;

	ret = nf_ddf_xt_register();
	if (ret)
		goto err_xt;

	nf_ddf_xdp_register();
	pr_info("loaded, default filter %s\n", type->name);
	return 0;

err_xt:
	nf_ddf_genl_unregister();
err_genl:
	nf_ddf_dev_notifier_unregister();
err_notifier:
	unregister_pernet_subsys(&nf_ddf_net_ops);
	rcu_barrier(); /* rules freed by call_rcu() */
err_pernet:
	return ret;
}

static void __exit nf_ddf_exit(void)
{
	nf_ddf_xt_unregister();
	nf_ddf_genl_unregister();
	nf_ddf_dev_notifier_unregister();
	unregister_pernet_subsys(&nf_ddf_net_ops);
	rcu_barrier(); /* rules freed by call_rcu() */
	xa_destroy(&nf_ddf_ids);
	pr_info("unloaded\n");
}

module_init(nf_ddf_init);
module_exit(nf_ddf_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Netfilter packet de-duplication");
#ifdef DDF_VERSION
MODULE_VERSION(DDF_VERSION);
#endif
