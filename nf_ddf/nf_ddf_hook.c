// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path: each rule with a hook registers its own netfilter hook
 * (its family, hook and priority), so rules order among themselves and
 * among other netfilter users by priority, as nft chains do. The hook
 * hashes the packet's key, asks the rule's filter whether the key was seen
 * within the window (inserting it), and acts on a duplicate. The xtables
 * match (nf_ddf_xt.c) takes the same path through nf_ddf_rule_seen(),
 * without the action.
 *
 * It never allocates or sleeps and takes no lock: the rule is reached
 * through the hook's priv under the RCU read lock that nf_hook_slow()
 * holds, the filter through an RCU pointer, and the counters are per CPU.
 * BH is off around the filter and the counters (nf_ddf_bh_off()), since
 * the output hook runs in process context and a filter must not be
 * re-entered on one CPU.
 */
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/preempt.h>
#include <linux/skbuff.h>
#include <linux/timekeeping.h>

#include "nf_ddf.h"
#include "nf_ddf_skb.h"

/* A device selector: empty takes every packet, even one with no device. */
static bool nf_ddf_dev_match(const char *name, const struct net_device *dev)
{
	if (!name[0])
		return true;
	return dev && !strncmp(dev->name, name, IFNAMSIZ);
}

/*
 * A filter must not be re-entered on one CPU, and the per-CPU counters
 * need the CPU to stay: bottom halves off. The receive path runs in a
 * softirq, or with them off already (softirq_count()); only process
 * context, the output path, pays for turning them off and on.
 */
static __always_inline bool nf_ddf_bh_off(void)
{
	if (softirq_count())
		return false;
	local_bh_disable();
	return true;
}

static __always_inline void nf_ddf_bh_on(bool turned_off)
{
	if (turned_off)
		local_bh_enable();
}

static void nf_ddf_count_unparsed(struct nf_ddf_rule *rule, unsigned int slot)
{
	struct nf_ddf_pcpu *c;
	bool bh = nf_ddf_bh_off();

	c = this_cpu_ptr(rule->stats) + slot;
	u64_stats_update_begin(&c->syncp);
	c->unparsed++;
	u64_stats_update_end(&c->syncp);
	nf_ddf_bh_on(bh);
}

/*
 * The filter's test-and-insert: a direct call for the kinds rules use
 * most (ddf_registry.h), an indirect one, a retpoline, for the others.
 */
static __always_inline bool nf_ddf_test_and_insert(struct ddf_filter *f,
						   const struct ddf_hash *h,
						   u64 now)
{
	bool (*fn)(struct ddf_filter *f, const struct ddf_hash *h, u64 now);

	fn = f->type->test_and_insert;
	if (likely(fn == ddf_apbbf_test_and_insert))
		return ddf_apbbf_test_and_insert(f, h, now);
	if (fn == ddf_qht_test_and_insert)
		return ddf_qht_test_and_insert(f, h, now);
	return fn(f, h, now);
}

/*
 * After the key: ask the rule's filter about h (inserting it with insert),
 * count the packet of len bytes in the counters' slot (the device's of a
 * netdev rule), and say what the rule makes of it: a
 * ddf_xdp_verdict, the rule's action for a duplicate with act, else
 * DDF_XDP_DUP. keyed is the key's enum ddf_key_result; a packet with no
 * usable IP header counts as unparsed, one another rule's spec takes
 * (another family or protocol) not at all, and both pass.
 */
static __always_inline int nf_ddf_judge(struct nf_ddf_rule *rule,
					unsigned int slot, int keyed,
					const struct ddf_hash *h, u64 len,
					bool insert, bool act)
{
	struct nf_ddf_fmem *fm;
	struct nf_ddf_pcpu *c;
	int verdict = DDF_XDP_PASS;
	u64 now = 0;
	bool dup, bh;

	switch (keyed) {
	case DDF_KEY_HASHED:
		break;
	case DDF_KEY_NOT_IP:
	case DDF_KEY_MALFORMED:
		nf_ddf_count_unparsed(rule, slot);
		return DDF_XDP_PASS;
	default: /* another protocol or family: not this rule's */
		return DDF_XDP_PASS;
	}
	if (rule->params.flags & DDF_PF_TIME)
		now = ktime_get_ns();

	bh = nf_ddf_bh_off();
	fm = rcu_dereference(rule->fm);
	if (insert)
		dup = nf_ddf_test_and_insert(fm->filter, h, now);
	else
		dup = ddf_filter_lookup(fm->filter, h, now);
	c = this_cpu_ptr(rule->stats) + slot;
	u64_stats_update_begin(&c->syncp);
	c->packets++;
	c->bytes += len;
	if (dup) {
		c->duplicates++;
		verdict = DDF_XDP_DUP;
		switch (act ? rule->action : DDF_ACTION_COUNT) {
		case DDF_ACTION_DROP:
			c->dropped++;
			verdict = DDF_XDP_DROP;
			break;
		case DDF_ACTION_MARK:
			c->marked++;
			verdict = DDF_XDP_MARK;
			break;
		}
	}
	u64_stats_update_end(&c->syncp);
	nf_ddf_bh_on(bh);
	return verdict;
}

/* For an XDP program (nf_ddf_xdp.c): the judgement with the rule's action. */
int nf_ddf_rule_judge(struct nf_ddf_rule *rule, unsigned int slot, int keyed,
		      const struct ddf_hash *h, u64 len)
{
	return nf_ddf_judge(rule, slot, keyed, h, len, true, true);
}

/*
 * The packet path of a hook and of the xtables match: hash skb's key, look
 * it up in the rule's filter (inserting it with insert), count, and with
 * act (the hook's skb) apply the rule's action to a duplicate, setting
 * *verdict. pf is the hook's family. Whether skb is a duplicate; false for
 * a packet the rule does not select.
 */
static __always_inline bool nf_ddf_seen(struct nf_ddf_rule *rule,
					unsigned int slot,
					const struct sk_buff *skb, u8 pf,
					const struct net_device *in,
					const struct net_device *out,
					bool insert, struct sk_buff *act,
					unsigned int *verdict)
{
	/* written before any read (DDF_KEY_HASHED): not zeroed per packet */
	struct ddf_hash h DDF_NOINIT;
	u64 len = skb->len;
	int ret;

	if (pf == NFPROTO_NETDEV) {
		struct ddf_key_info ki;

		/* bytes: what the key looked at, as ddfctl replay counts */
		ret = nf_ddf_skb_hash_frame(&rule->key, skb, &rule->secret,
					    rule->hash_alg, &h, &ki);
		len = ki.len;
	} else {
		if (!nf_ddf_dev_match(rule->iifname, in) ||
		    !nf_ddf_dev_match(rule->oifname, out))
			return false;
		/* not of the hook's family: unparsed, as the key's NOT_IP */
		ret = nf_ddf_skb_hash_pf(&rule->key, skb,
					 skb_network_offset(skb), pf,
					 &rule->secret, rule->hash_alg, &h);
	}
	switch (nf_ddf_judge(rule, slot, ret, &h, len, insert, act != NULL)) {
	case DDF_XDP_PASS:
		return false;
	case DDF_XDP_DROP:
		*verdict = NF_DROP;
		break;
	case DDF_XDP_MARK:
		act->mark = (act->mark & ~rule->mask) | rule->mark;
		break;
	}
	return true;
}

static unsigned int nf_ddf_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	unsigned int verdict = NF_ACCEPT;

	nf_ddf_seen(priv, 0, skb, state->pf, state->in, state->out, true, skb,
		    &verdict);
	return verdict;
}

/* A netdev rule's hook on one of its devices: priv is the device's port. */
static unsigned int nf_ddf_hook_port(void *priv, struct sk_buff *skb,
				     const struct nf_hook_state *state)
{
	struct nf_ddf_port *port = priv;
	unsigned int verdict = NF_ACCEPT;

	nf_ddf_seen(port->rule, port->slot, skb, NFPROTO_NETDEV, state->in,
		    state->out, true, skb, &verdict);
	return verdict;
}

/*
 * For the xtables match: whether skb is a duplicate for rule (inserting
 * its key with insert), counted in the rule's packets, bytes and
 * duplicates; the rule's action is left to the match's rule. The caller
 * holds the RCU read lock (the xtables and nf_tables packet paths do).
 */
bool nf_ddf_rule_seen(struct nf_ddf_rule *rule, const struct sk_buff *skb,
		      u8 pf, const struct net_device *in,
		      const struct net_device *out, bool insert)
{
	return nf_ddf_seen(rule, rule->ndevs, skb, pf, in, out, insert, NULL,
			   NULL);
}

/* Put a netdev rule's port on its device's hook (none while detached). */
int nf_ddf_port_hook_register(struct nf_ddf_port *port)
{
	struct nf_ddf_rule *rule = port->rule;
	int err;

	if (rule->hook == DDF_HOOK_NONE || !port->dev)
		return 0;
	memset(&port->ops, 0, sizeof(port->ops));
	port->ops.hook = nf_ddf_hook_port;
	port->ops.pf = NFPROTO_NETDEV;
	port->ops.hooknum = rule->hook;
	port->ops.priority = rule->priority;
	port->ops.priv = port;
	port->ops.dev = port->dev;
	err = nf_register_net_hook(rule->net, &port->ops);
	if (!err)
		port->hooked = true;
	return err;
}

/* In-flight hook calls may still use the rule: free it after RCU. */
void nf_ddf_port_hook_unregister(struct nf_ddf_port *port)
{
	if (port->hooked) {
		nf_unregister_net_hook(port->rule->net, &port->ops);
		port->hooked = false;
	}
}

/*
 * Put the rule on its hook: a netdev rule on each of its devices' (see
 * nf_ddf_dev.c). All or none.
 */
int nf_ddf_hook_register(struct nf_ddf_rule *rule)
{
	unsigned int i;
	int err;

	if (rule->hook == DDF_HOOK_NONE)
		return 0;
	for (i = 0; i < rule->ndevs; i++) {
		err = nf_ddf_port_hook_register(&rule->ports[i]);
		if (err) {
			while (i--)
				nf_ddf_port_hook_unregister(&rule->ports[i]);
			return err;
		}
	}
	if (rule->family == NFPROTO_NETDEV)
		return 0;
	memset(&rule->ops, 0, sizeof(rule->ops));
	rule->ops.hook = nf_ddf_hook;
	rule->ops.pf = rule->family;
	rule->ops.hooknum = rule->hook;
	rule->ops.priority = rule->priority;
	rule->ops.priv = rule;
	err = nf_register_net_hook(rule->net, &rule->ops);
	if (!err)
		rule->hooked = true;
	return err;
}

void nf_ddf_hook_unregister(struct nf_ddf_rule *rule)
{
	unsigned int i;

	for (i = 0; i < rule->ndevs; i++)
		nf_ddf_port_hook_unregister(&rule->ports[i]);
	if (rule->hooked) {
		nf_unregister_net_hook(rule->net, &rule->ops);
		rule->hooked = false;
	}
}

/*
 * Time windows. A filter shifts its generations when a packet finds one
 * due; after an idle gap that can mean clearing many segments in one
 * packet's path. A worker shifts them as they fall due instead, once per
 * generation (at least one jiffy apart), so a packet finds at most the
 * shifts of one period. BH is disabled around it as around the hook.
 */
static void nf_ddf_advance_work(struct work_struct *work)
{
	struct nf_ddf_rule *rule = container_of(to_delayed_work(work),
						struct nf_ddf_rule, advance);
	struct nf_ddf_fmem *fm;

	rcu_read_lock();
	fm = rcu_dereference(rule->fm);
	local_bh_disable();
	ddf_filter_advance(fm->filter, ktime_get_ns());
	local_bh_enable();
	rcu_read_unlock();
	queue_delayed_work(system_power_efficient_wq, &rule->advance,
			   rule->advance_period);
}

void nf_ddf_advance_start(struct nf_ddf_rule *rule)
{
	struct nf_ddf_fmem *fm = rcu_dereference_protected(rule->fm, true);
	u64 gen_ns;

	INIT_DELAYED_WORK(&rule->advance, nf_ddf_advance_work);
	if (!(rule->params.flags & DDF_PF_TIME) || !fm->filter->type->advance)
		return;
	/* the generation of APBF and APBBF; the window for the others */
	gen_ns = rule->params.l ? div_u64(rule->params.window_ns,
					  rule->params.l) :
				  rule->params.window_ns;
	rule->advance_period = max_t(unsigned long, 1,
				     nsecs_to_jiffies(gen_ns));
	queue_delayed_work(system_power_efficient_wq, &rule->advance,
			   rule->advance_period);
}

/* Sleeps until a running advance is done; the worker never re-arms after. */
void nf_ddf_advance_stop(struct nf_ddf_rule *rule)
{
	if (rule->advance_period)
		cancel_delayed_work_sync(&rule->advance);
}
