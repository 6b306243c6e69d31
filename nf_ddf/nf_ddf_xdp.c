// SPDX-License-Identifier: GPL-2.0
/*
 * XDP: the kfunc bpf_ddf_xdp() lets an XDP program ask a rule's filter
 * about a frame before the device's packet taps see it, which no netfilter
 * hook can (uapi/linux/ddf.h, "XDP"; tools/xdp/ddf_xdp.bpf.c is the
 * program ddfctl attaches). The frame is keyed as a netdev ingress hook
 * keys it and judged by the same code (nf_ddf_rule_judge()), so both count
 * alike and ddfctl replay agrees with both.
 *
 * The rule is found by number in nf_ddf_ids under the RCU read lock: a
 * program outliving its rule finds nothing and passes everything; the
 * rule is freed a grace period after it left the array.
 * A loaded program holds a reference to this module (through its BTF),
 * so the module cannot be unloaded under it.
 *
 * Kernels without module BTF (CONFIG_DEBUG_INFO_BTF_MODULES) or a module
 * built without it get no kfunc; the rest of nf_ddf works as before.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <net/xdp.h>

#include "nf_ddf.h"
#include "nf_ddf_xdp_frame.h"

#if IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES)

/*
 * Spelled as each kernel spells a kfunc: 6.1 has none of these macros,
 * and there a global noinline function is all a kfunc needs to be.
 */
#ifdef __bpf_kfunc
#define NF_DDF_KFUNC __bpf_kfunc
#else
#define NF_DDF_KFUNC noinline
#endif
#ifdef __bpf_kfunc_start_defs
__bpf_kfunc_start_defs();
#else
__diag_push();
__diag_ignore_all("-Wmissing-prototypes",
		  "kfuncs are called from BPF, declared in its BTF");
#endif

/**
 * bpf_ddf_xdp - judge an XDP frame by a ddf rule
 * @ctx: the program's context
 * @rule_id: the rule's number (DDF_A_ID)
 *
 * A multi-buffer frame (the program is loaded with XDP frags) is keyed
 * whole, its fragments read as at netdev ingress (nf_ddf_xdp_frame.h).
 *
 * Return: an enum ddf_xdp_verdict, or -ENOENT (no such rule in the
 * device's namespace), -EINVAL (not a netdev rule with hook none).
 */
NF_DDF_KFUNC int bpf_ddf_xdp(struct xdp_md *ctx, u32 rule_id)
{
	struct xdp_buff *xdp = (struct xdp_buff *)ctx;
	const struct net_device *dev = xdp->rxq->dev;
	struct ddf_key_link lk = { DDF_LINK_NONE, 0, 0 };
	struct nf_ddf_rule *rule;
	struct ddf_key_info ki;
	struct ddf_hash h;
	int keyed, ret;

	/*
	 * Drivers run XDP with BH disabled, which RCU honours, but not all
	 * of them take the RCU read lock that lockdep looks for.
	 */
	rcu_read_lock();
	rule = xa_load(&nf_ddf_ids, rule_id);
	if (!rule || !net_eq(rule->net, dev_net(dev))) {
		ret = -ENOENT;
		goto out;
	}
	if (rule->family != NFPROTO_NETDEV || rule->hook != DDF_HOOK_NONE) {
		ret = -EINVAL;
		goto out;
	}
	if (dev->type == ARPHRD_ETHER)
		lk.type = DDF_LINK_ETHER;
	keyed = nf_ddf_xdp_hash(&rule->key, &lk, xdp, &rule->secret,
				rule->hash_alg, &h, &ki);
	ret = nf_ddf_rule_judge(rule, nf_ddf_dev_slot(rule, dev), keyed, &h,
				ki.len);
out:
	rcu_read_unlock();
	return ret;
}

#ifdef __bpf_kfunc_end_defs
__bpf_kfunc_end_defs();
#else
__diag_pop();
#endif

#ifdef BTF_KFUNCS_START
BTF_KFUNCS_START(nf_ddf_kfunc_ids)
BTF_ID_FLAGS(func, bpf_ddf_xdp)
BTF_KFUNCS_END(nf_ddf_kfunc_ids)
#else
BTF_SET8_START(nf_ddf_kfunc_ids)
BTF_ID_FLAGS(func, bpf_ddf_xdp)
BTF_SET8_END(nf_ddf_kfunc_ids)
#endif

static const struct btf_kfunc_id_set nf_ddf_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &nf_ddf_kfunc_ids,
};

/*
 * Not fatal: without the kfunc only XDP programs are refused. A module
 * without BTF is told apart here: the kernels differ in what
 * registration says of it (6.12 warns and returns 0).
 */
void nf_ddf_xdp_register(void)
{
	int err;

	if (!THIS_MODULE->btf_data_size) {
		pr_info("no XDP kfunc: nf_ddf.ko was built without BTF\n");
		return;
	}
	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_XDP, &nf_ddf_kfunc_set);
	if (err)
		pr_info("no XDP kfunc: registering it failed (%d)\n", err);
}

#else

void nf_ddf_xdp_register(void)
{
	pr_info("no XDP kfunc: the kernel has no module BTF\n");
}

#endif
