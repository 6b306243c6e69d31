// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "ddf": create, delete, show, reset and flush
 * the rules of a network namespace. Every attribute is checked by the
 * policies (nf_ddf_policy.c); nf_ddf_parse.c checks what policies cannot
 * express (the filter parameters as a whole, the key spec), the handlers
 * the size caps and whether the named rule exists; each says why in the
 * extended ack.
 */
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "nf_ddf.h"

static struct genl_family nf_ddf_genl_family;

/*
 * Whether a filter of bytes fits beside the namespace's rules, which hold
 * net_bytes; -EFBIG with the extended ack set when it does not.
 */
static int nf_ddf_net_room(u64 net_bytes, u64 bytes, struct nlattr *fattr,
			   struct netlink_ext_ack *extack)
{
	if (bytes > nf_ddf_max_net_bytes - min_t(u64, net_bytes,
						  nf_ddf_max_net_bytes)) {
		NL_SET_ERR_MSG_ATTR(extack, fattr,
				    "the namespace's rules would exceed max_net_bytes");
		return -EFBIG;
	}
	return 0;
}

/*
 * Resolve the filter parameters, check the size against the caps (against
 * max_net_bytes with the namespace's rules holding net_bytes: the caller
 * checks again when it publishes the rule) and allocate. On success *rulep
 * holds a new rule with its filter built.
 */
static int nf_ddf_rule_build(u64 net_bytes, struct nf_ddf_rule *tmpl,
			     struct nlattr *fattr, struct nf_ddf_rule **rulep,
			     struct netlink_ext_ack *extack)
{
	struct nf_ddf_rule *rule;
	struct ddf_sipkey sk;
	unsigned int i;
	u64 bytes;
	int err;

	err = nf_ddf_params_size(&tmpl->params, fattr, &bytes, extack);
	if (err)
		return err;
	if (bytes > nf_ddf_max_rule_bytes) {
		NL_SET_ERR_MSG_ATTR(extack, fattr,
				    "the filter is larger than max_rule_bytes");
		return -E2BIG;
	}
	err = nf_ddf_net_room(net_bytes, bytes, fattr, extack);
	if (err)
		return err;
	rule = nf_ddf_rule_alloc(&tmpl->params, bytes, tmpl->ndevs);
	if (!rule)
		return -ENOMEM;
	for (i = 0; i < tmpl->ndevs; i++) {
		memcpy(rule->ports[i].name, tmpl->ports[i].name, IFNAMSIZ);
		memcpy(rule->ports[i].given, tmpl->ports[i].name, IFNAMSIZ);
	}
	rule->net = tmpl->net;
	memcpy(rule->name, tmpl->name, sizeof(rule->name));
	memcpy(rule->iifname, tmpl->iifname, sizeof(rule->iifname));
	memcpy(rule->oifname, tmpl->oifname, sizeof(rule->oifname));
	rule->family = tmpl->family;
	rule->hook = tmpl->hook;
	rule->priority = tmpl->priority;
	rule->l4proto = tmpl->l4proto;
	rule->has_l4proto = tmpl->has_l4proto;
	rule->seed_user = tmpl->seed_user;
	memcpy(rule->seed, tmpl->seed, DDF_SEED_LEN);
	rule->hash_alg = tmpl->hash_alg;
	rule->key = tmpl->key;
	ddf_sipkey_from_bytes(&sk, rule->seed);
	ddf_key_secret_init(&rule->secret, &sk);
	rule->action = tmpl->action;
	rule->mark = tmpl->mark;
	rule->mask = tmpl->mask;
	*rulep = rule;
	return 0;
}

static int nf_ddf_name_taken(struct nlattr **attrs,
			     struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG_ATTR(extack, attrs[DDF_A_NAME],
			    "a rule with this name exists");
	return -EEXIST;
}

/*
 * The checks of a NEW request that the table and the devices decide, made
 * before its filter is built, so that a request bound to fail allocates
 * nothing and fails as it did when all was done under the locks; the
 * handler makes them again under the locks. *net_bytes: what the
 * namespace's rules hold now.
 */
static int nf_ddf_new_precheck(struct nf_ddf_net *dn, struct nf_ddf_rule *tmpl,
			       struct nlattr **attrs, u64 *net_bytes,
			       struct netlink_ext_ack *extack)
{
	bool taken;

	mutex_lock(&dn->lock);
	taken = nf_ddf_rule_find(dn, tmpl->name);
	*net_bytes = dn->bytes;
	mutex_unlock(&dn->lock);
	if (taken)
		return nf_ddf_name_taken(attrs, extack);
	return nf_ddf_dev_lookup(tmpl, false, attrs, extack);
}

/* Why a hook could not be registered, in words. */
static void nf_ddf_insert_err(const struct nf_ddf_rule *rule, int err,
			      struct netlink_ext_ack *extack)
{
	if (rule->family == NFPROTO_NETDEV && rule->hook == NF_NETDEV_EGRESS &&
	    err == -EOPNOTSUPP)
		NL_SET_ERR_MSG_MOD(extack, "this kernel has no netdev egress hook (CONFIG_NETFILTER_EGRESS)");
	else if (rule->family == NFPROTO_NETDEV && err == -EOPNOTSUPP)
		NL_SET_ERR_MSG_MOD(extack, "this kernel has no netdev ingress hook (CONFIG_NETFILTER_INGRESS)");
	else
		NL_SET_ERR_MSG_MOD(extack, "the netfilter hook cannot be registered");
}

/*
 * The rule is built (its filter allocated and written, up to
 * max_rule_bytes) before RTNL and the table's lock are taken: RTNL is the
 * whole host's, and any user may be root of a namespace of its own. Under
 * them only what may have changed since is checked again (the name, the
 * device, the namespace's cap) before the rule is published; a rule that
 * loses such a race is freed unseen.
 */
static int nf_ddf_new(struct nf_ddf_net *dn, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	struct nf_ddf_rule *tmpl, *rule = NULL;
	const char *name;
	u64 net_bytes = 0;
	bool netdev;
	int err;

	name = nf_ddf_attr_name(attrs, extack);
	if (!name)
		return -EINVAL;
	tmpl = kzalloc(struct_size(tmpl, ports, DDF_DEVS_MAX), GFP_KERNEL);
	if (!tmpl)
		return -ENOMEM;
	strscpy(tmpl->name, name, sizeof(tmpl->name));
	tmpl->net = genl_info_net(info);
	err = nf_ddf_rule_parse(tmpl, attrs, extack);
	if (!err)
		err = nf_ddf_new_precheck(dn, tmpl, attrs, &net_bytes, extack);
	if (!err)
		err = nf_ddf_rule_build(net_bytes, tmpl, attrs[DDF_A_FILTER],
					&rule, extack);
	netdev = tmpl->family == NFPROTO_NETDEV;
	kfree(tmpl);
	if (err)
		return err;

	/* a device comes and goes under RTNL: see nf_ddf_dev.c */
	if (netdev)
		rtnl_lock();
	mutex_lock(&dn->lock);
	if (nf_ddf_rule_find(dn, rule->name)) {
		err = nf_ddf_name_taken(attrs, extack);
		goto unlock;
	}
	err = nf_ddf_dev_lookup(rule, true, attrs, extack);
	if (err)
		goto unlock;
	err = nf_ddf_net_room(dn->bytes, rule->mem_bytes, attrs[DDF_A_FILTER],
			      extack);
	if (err)
		goto unlock;
	err = nf_ddf_rule_insert(dn, rule);
	if (err) {
		nf_ddf_insert_err(rule, err, extack);
		/*
		 * packets may be inside the undone IPv4 half of an inet hook,
		 * or the hooks of devices registered before one failed
		 */
		nf_ddf_rule_put(rule);
	}
	rule = NULL;
unlock:
	mutex_unlock(&dn->lock);
	if (netdev)
		rtnl_unlock();
	/* a rule that lost a race was never seen: freed outside the locks */
	nf_ddf_rule_free(rule);
	return err;
}

/*
 * Builds of one namespace wait for each other (struct nf_ddf_net), not
 * for anything of another namespace's.
 */
static int nf_ddf_cmd_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(genl_info_net(info));
	int err;

	if (mutex_lock_killable(&dn->build_lock))
		return -EINTR;
	err = nf_ddf_new(dn, info);
	mutex_unlock(&dn->build_lock);
	return err;
}

/* The rule named in the request, with the table locked; NULL: error set. */
static struct nf_ddf_rule *nf_ddf_lookup(struct nf_ddf_net *dn,
					 struct genl_info *info, int *err)
{
	struct nf_ddf_rule *rule;
	const char *name;

	name = nf_ddf_attr_name(info->attrs, info->extack);
	if (!name) {
		*err = -EINVAL;
		return NULL;
	}
	rule = nf_ddf_rule_find(dn, name);
	if (!rule) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[DDF_A_NAME],
				    "no rule with this name");
		*err = -ENOENT;
	}
	return rule;
}

/*
 * A rule that xtables matches hold stays: EBUSY, naming how many (see
 * linux/netfilter/xt_ddf.h). 6.1 has no formatted extack messages.
 */
static int nf_ddf_check_unused(const struct nf_ddf_rule *rule,
			       struct netlink_ext_ack *extack)
{
	unsigned int users = nf_ddf_rule_users(rule);

	if (!users)
		return 0;
#ifdef NL_SET_ERR_MSG_FMT_MOD
	NL_SET_ERR_MSG_FMT_MOD(extack,
			       "the rule %s is used by %u iptables match%s",
			       rule->name, users, users == 1 ? "" : "es");
#else
	NL_SET_ERR_MSG_MOD(extack, "the rule is used by iptables matches");
#endif
	return -EBUSY;
}

static int nf_ddf_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(genl_info_net(info));
	struct nf_ddf_rule *rule;
	LIST_HEAD(gone);
	int err = 0;

	mutex_lock(&dn->lock);
	rule = nf_ddf_lookup(dn, info, &err);
	if (rule)
		err = nf_ddf_check_unused(rule, info->extack);
	if (rule && !err)
		nf_ddf_rule_remove(dn, rule, &gone);
	mutex_unlock(&dn->lock);
	nf_ddf_rules_retire(&gone);
	return err;
}

/*
 * The empty filter of a reset, built with no lock held (device events take
 * the table's lock under RTNL) for the named rule as it is now; *id: that
 * rule's number. NULL: *err set.
 */
static struct nf_ddf_fmem *nf_ddf_reset_filter(struct nf_ddf_net *dn,
					       struct genl_info *info, u32 *id,
					       int *err)
{
	struct nf_ddf_rule *rule;
	struct nf_ddf_fmem *fm;
	struct ddf_params params;
	u64 bytes = 0;

	mutex_lock(&dn->lock);
	rule = nf_ddf_lookup(dn, info, err);
	if (rule) {
		params = rule->params;
		bytes = rule->mem_bytes;
		*id = rule->id;
	}
	mutex_unlock(&dn->lock);
	if (!rule)
		return NULL;
	fm = nf_ddf_fmem_new(&params, bytes);
	if (!fm)
		*err = -ENOMEM;
	return fm;
}

/*
 * A filter is only ever built with no lock held. What may change while
 * it is built is whether the name is still the rule it was built for:
 * rules may be deleted meanwhile (DEL and FLUSH take no build_lock), not
 * added (NEW takes it), so the name is that rule or none. Its number says
 * which without relying on that: numbers are cyclic, and a stale filter is
 * thrown away and built again, outside the lock as before.
 */
static int nf_ddf_reset(struct nf_ddf_net *dn, struct genl_info *info,
			bool filter)
{
	struct nf_ddf_fmem *fm = NULL;
	struct nf_ddf_rule *rule;
	bool stale;
	u32 id = 0;
	int err;

	do {
		err = 0;
		if (filter) {
			fm = nf_ddf_reset_filter(dn, info, &id, &err);
			if (!fm)
				return err;
		}
		mutex_lock(&dn->lock);
		rule = nf_ddf_lookup(dn, info, &err);
		stale = rule && filter && rule->id != id;
		if (rule && !stale) {
			nf_ddf_rule_reset(rule, fm);
			fm = NULL;
		}
		mutex_unlock(&dn->lock);
		nf_ddf_fmem_free(fm);
		fm = NULL;
		if (stale && fatal_signal_pending(current))
			return -EINTR;
	} while (stale);
	return err;
}

/* A reset of the filter builds one: with the namespace's other builds. */
static int nf_ddf_cmd_reset(struct sk_buff *skb, struct genl_info *info)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(genl_info_net(info));
	struct nlattr *fl = info->attrs[DDF_A_RESET_FLAGS];
	bool filter = fl && (nla_get_u32(fl) & DDF_RESET_F_FILTER);
	int err;

	if (!filter)
		return nf_ddf_reset(dn, info, false);
	if (mutex_lock_killable(&dn->build_lock))
		return -EINTR;
	err = nf_ddf_reset(dn, info, true);
	mutex_unlock(&dn->build_lock);
	return err;
}

/* All or nothing: no rule goes while one is used by an xtables match. */
static int nf_ddf_cmd_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(genl_info_net(info));
	struct nf_ddf_rule *rule;
	LIST_HEAD(gone);
	int err = 0;

	mutex_lock(&dn->lock);
	list_for_each_entry(rule, &dn->rules, list) {
		err = nf_ddf_check_unused(rule, info->extack);
		if (err)
			break;
	}
	if (!err)
		nf_ddf_rule_flush(dn, &gone);
	mutex_unlock(&dn->lock);
	nf_ddf_rules_retire(&gone);
	return err;
}

static int nf_ddf_put_u32_nz(struct sk_buff *skb, int type, u32 v)
{
	return v ? nla_put_u32(skb, type, v) : 0;
}

static int nf_ddf_fill_key(struct sk_buff *skb, const struct ddf_key_spec *k)
{
	struct nlattr *nest = nla_nest_start(skb, DDF_A_KEY);

	if (!nest ||
	    nla_put_u8(skb, DDF_KEY_A_FORM, k->form) ||
	    (k->form == DDF_KEY_TYPE_FIELDS &&
	     nla_put_u32(skb, DDF_KEY_A_FIELDS, k->fields)) ||
	    (k->form == DDF_KEY_TYPE_PACKET &&
	     (nla_put_u32(skb, DDF_KEY_A_IGNORE, k->ignore) ||
	      nla_put_u32(skb, DDF_KEY_A_MAX_BYTES, k->max_bytes))) ||
	    (k->form != DDF_KEY_TYPE_PACKET && (k->ignore & DDF_KI_L2) &&
	     nla_put_u32(skb, DDF_KEY_A_IGNORE, k->ignore & DDF_KI_L2)) ||
	    nf_ddf_put_u32_nz(skb, DDF_KEY_A_DECAP, k->decap) ||
	    (k->vxlan_port &&
	     nla_put_u16(skb, DDF_KEY_A_VXLAN_PORT, k->vxlan_port)) ||
	    (k->geneve_port &&
	     nla_put_u16(skb, DDF_KEY_A_GENEVE_PORT, k->geneve_port)) ||
	    (k->payload_len &&
	     (nla_put_u16(skb, DDF_KEY_A_PAYLOAD_OFF, k->payload_off) ||
	      nla_put_u16(skb, DDF_KEY_A_PAYLOAD_LEN, k->payload_len))))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int nf_ddf_fill_filter(struct sk_buff *skb,
			      const struct nf_ddf_rule *rule)
{
	const struct ddf_params *p = &rule->params;
	struct nlattr *nest = nla_nest_start(skb, DDF_A_FILTER);

	if (!nest ||
	    nla_put_u32(skb, DDF_FILTER_A_KIND, p->kind) ||
	    nla_put_u64_64bit(skb, DDF_FILTER_A_WINDOW, p->window,
			      DDF_FILTER_A_PAD) ||
	    ((p->flags & DDF_PF_TIME) &&
	     nla_put_u64_64bit(skb, DDF_FILTER_A_WINDOW_NS, p->window_ns,
			       DDF_FILTER_A_PAD)) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_K, p->k) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_L, p->l) ||
	    (p->m && nla_put_u64_64bit(skb, DDF_FILTER_A_M, p->m,
				       DDF_FILTER_A_PAD)) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_BLOCK_BITS, p->block_bits) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_BLOCK_HASHES, p->block_hashes) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_FP_BITS, p->fp_bits) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_CELL_BITS, p->cell_bits) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_DECREMENTS, p->decrements) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_INNER_KIND, p->inner_kind) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_SUBFILTERS, p->subfilters) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_P_STAR, p->p_star) ||
	    nf_ddf_put_u32_nz(skb, DDF_FILTER_A_CPUS, p->cpus) ||
	    (rule->seed_user &&
	     nla_put(skb, DDF_FILTER_A_SEED, DDF_SEED_LEN, rule->seed)) ||
	    nla_put_u8(skb, DDF_FILTER_A_HASH, rule->hash_alg) ||
	    nla_put_u64_64bit(skb, DDF_FILTER_A_BYTES, rule->mem_bytes,
			      DDF_FILTER_A_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int nf_ddf_fill_action(struct sk_buff *skb,
			      const struct nf_ddf_rule *rule)
{
	struct nlattr *nest = nla_nest_start(skb, DDF_A_ACTION);

	if (!nest ||
	    nla_put_u8(skb, DDF_ACTION_A_TYPE, rule->action) ||
	    (rule->action == DDF_ACTION_MARK &&
	     (nla_put_u32(skb, DDF_ACTION_A_MARK, rule->mark) ||
	      nla_put_u32(skb, DDF_ACTION_A_MASK, rule->mask))))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int nf_ddf_put_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, DDF_STATS_A_PAD);
}

static int nf_ddf_fill_counters(struct sk_buff *skb,
				const struct nf_ddf_pcpu *sum)
{
	if (nf_ddf_put_u64(skb, DDF_STATS_A_PACKETS, sum->packets) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_BYTES, sum->bytes) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_DUPLICATES, sum->duplicates) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_DROPPED, sum->dropped) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_MARKED, sum->marked) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_UNPARSED, sum->unparsed))
		return -EMSGSIZE;
	return 0;
}

/* fst: the filter's state, read before (nf_ddf_rule_scan()) */
static int nf_ddf_fill_stats(struct sk_buff *skb,
			     const struct nf_ddf_rule *rule,
			     const struct ddf_stats *fst)
{
	struct nlattr *nest = nla_nest_start(skb, DDF_A_STATS);
	struct nf_ddf_pcpu sum;

	if (!nest)
		return -EMSGSIZE;
	nf_ddf_rule_stats(rule, &sum);
	if (nf_ddf_fill_counters(skb, &sum) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_GENERATION, fst->generation) ||
	    nla_put_u32(skb, DDF_STATS_A_FILL_PPM, fst->fill_ppm))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* Device i of a netdev rule: names, index (0: gone) and counters. */
static int nf_ddf_fill_port(struct sk_buff *skb, const struct nf_ddf_rule *rule,
			    unsigned int i)
{
	struct nlattr *entry, *stats;
	char name[IFNAMSIZ];
	struct nf_ddf_pcpu sum;
	int ifindex;

	nf_ddf_dev_name(rule, i, name, &ifindex);
	nf_ddf_port_stats(rule, i, &sum);
	entry = nla_nest_start(skb, i + 1);
	if (!entry ||
	    nla_put_string(skb, DDF_DEV_A_NAME, name) ||
	    nla_put_u32(skb, DDF_DEV_A_IFINDEX, ifindex) ||
	    nla_put_string(skb, DDF_DEV_A_GIVEN, rule->ports[i].given))
		return -EMSGSIZE;
	stats = nla_nest_start(skb, DDF_DEV_A_STATS);
	if (!stats || nf_ddf_fill_counters(skb, &sum))
		return -EMSGSIZE;
	nla_nest_end(skb, stats);
	nla_nest_end(skb, entry);
	return 0;
}

/*
 * A netdev rule's devices: the first as DDF_A_DEV and DDF_A_DEV_IFINDEX
 * (what a rule of one device always said), all in DDF_A_DEVS.
 */
static int nf_ddf_fill_dev(struct sk_buff *skb, const struct nf_ddf_rule *rule)
{
	char name[IFNAMSIZ];
	struct nlattr *list;
	unsigned int i;
	int ifindex;

	if (rule->family != NFPROTO_NETDEV)
		return 0;
	nf_ddf_dev_name(rule, 0, name, &ifindex);
	if (nla_put_string(skb, DDF_A_DEV, name) ||
	    nla_put_u32(skb, DDF_A_DEV_IFINDEX, ifindex))
		return -EMSGSIZE;
	list = nla_nest_start(skb, DDF_A_DEVS);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < rule->ndevs; i++)
		if (nf_ddf_fill_port(skb, rule, i))
			return -EMSGSIZE;
	nla_nest_end(skb, list);
	return 0;
}

static int nf_ddf_fill_rule(struct sk_buff *skb, const struct nf_ddf_rule *rule,
			    const struct ddf_stats *fst, u32 portid, u32 seq,
			    int flags)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &nf_ddf_genl_family, flags,
			  DDF_CMD_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, DDF_A_NAME, rule->name) ||
	    nla_put_u8(skb, DDF_A_FAMILY, rule->family) ||
	    nla_put_u8(skb, DDF_A_HOOK, rule->hook) ||
	    nla_put_u32(skb, DDF_A_ID, rule->id) ||
	    nla_put_s32(skb, DDF_A_PRIORITY, rule->priority) ||
	    (rule->iifname[0] &&
	     nla_put_string(skb, DDF_A_IIFNAME, rule->iifname)) ||
	    (rule->oifname[0] &&
	     nla_put_string(skb, DDF_A_OIFNAME, rule->oifname)) ||
	    (rule->has_l4proto &&
	     nla_put_u8(skb, DDF_A_L4PROTO, rule->l4proto)) ||
	    nf_ddf_fill_dev(skb, rule) ||
	    nf_ddf_fill_key(skb, &rule->key) ||
	    nf_ddf_fill_filter(skb, rule) ||
	    nf_ddf_fill_action(skb, rule) ||
	    nf_ddf_fill_stats(skb, rule, fst)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * A rule's filter state, for its reply: for a2, cuckoo, sbf, sqf, qht,
 * bdbf, bsbf and shf a scan of the whole filter, so it runs with no lock
 * and no RCU read-side section held (a reader of seconds would hold up
 * every synchronize_rcu, device unregistration under RTNL among them),
 * on a reference to the filter. Called and returns under RCU; false when
 * the rule went meanwhile: its number no longer names it (numbers are
 * cyclic, and the stale pointer is only compared, never followed).
 */
static bool nf_ddf_rule_scan(const struct nf_ddf_rule *rule,
			     struct ddf_stats *fst)
	__must_hold(RCU)
{
	struct nf_ddf_fmem *fm = nf_ddf_rule_fmem_get(rule);
	u32 id = rule->id;

	rcu_read_unlock();
	nf_ddf_fmem_stats_put(fm, fst);
	rcu_read_lock();
	return xa_load(&nf_ddf_ids, id) == rule;
}

/*
 * Needs no privilege: nothing is held while the filter's stats are read
 * (nf_ddf_rule_scan()), neither the table's lock, which device events
 * take under RTNL, nor RCU for longer than a walk of the rules.
 */
static int nf_ddf_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(genl_info_net(info));
	const struct nf_ddf_rule *rule;
	struct ddf_stats fst;
	struct sk_buff *msg;
	const char *name;
	int err = 0;

	name = nf_ddf_attr_name(info->attrs, info->extack);
	if (!name)
		return -EINVAL;
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rcu_read_lock();
	rule = nf_ddf_rule_find(dn, name);
	if (rule && !nf_ddf_rule_scan(rule, &fst))
		rule = NULL;
	if (rule)
		err = nf_ddf_fill_rule(msg, rule, &fst, info->snd_portid,
				       info->snd_seq, 0);
	rcu_read_unlock();
	if (!rule) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[DDF_A_NAME],
				    "no rule with this name");
		err = -ENOENT;
	}
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Mark this round's messages NLM_F_DUMP_INTR when the rules changed in it
 * (changed) or since the last round (cb->seq against cb->prev_seq; the
 * NLMSG_DONE message is checked by the netlink core): resuming by index
 * would repeat or skip rules, and the reader must ask again. gen is the
 * generation read after the walk, so a change during a round that sent
 * nothing (the last one) still marks NLMSG_DONE.
 */
static void nf_ddf_dump_check(struct sk_buff *skb, struct netlink_callback *cb,
			      unsigned int gen, bool changed)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)skb->data;
	int len = skb->len;

	cb->seq = gen << 1 | 1; /* never 0: that means "first round" */
	for (; nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len)) {
		if (changed)
			nlh->nlmsg_flags |= NLM_F_DUMP_INTR;
		nl_dump_check_consistent(cb, nlh);
	}
}

/* The rule at index idx of the table, under RCU; NULL past the last. */
static struct nf_ddf_rule *nf_ddf_dump_nth(struct nf_ddf_net *dn, long idx)
{
	struct nf_ddf_rule *rule;

	list_for_each_entry_rcu(rule, &dn->rules, list)
		if (!idx--)
			return rule;
	return NULL;
}

/*
 * cb->args[0]: rules already sent. Under RCU a rule at a time, not the
 * table's mutex; each rule's filter is read outside (nf_ddf_rule_scan()),
 * and a rule that went meanwhile has its place found again (the
 * generation marks the round interrupted).
 */
static int nf_ddf_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(sock_net(skb->sk));
	struct nf_ddf_rule *rule;
	unsigned int gen, gen_after;
	long idx = cb->args[0];
	struct ddf_stats fst;
	int err = 0;

	rcu_read_lock();
	gen = READ_ONCE(dn->gen);
	smp_rmb(); /* the rules after gen: see nf_ddf_rules_changing() */
	rule = nf_ddf_dump_nth(dn, idx);
	while (rule) {
		if (!nf_ddf_rule_scan(rule, &fst)) {
			rule = nf_ddf_dump_nth(dn, idx);
			continue;
		}
		err = nf_ddf_fill_rule(skb, rule, &fst,
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
		idx++;
		rule = list_next_or_null_rcu(&dn->rules, &rule->list,
					     struct nf_ddf_rule, list);
	}
	smp_rmb(); /* gen again after the rules */
	gen_after = READ_ONCE(dn->gen);
	nf_ddf_dump_check(skb, cb, gen_after, gen_after != gen);
	rcu_read_unlock();
	cb->args[0] = idx;
	/* a full skb ends this round; the next round resumes at idx */
	if (err && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

static const struct genl_ops nf_ddf_genl_ops[] = {
	{
		.cmd = DDF_CMD_NEW,
		.doit = nf_ddf_cmd_new,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = DDF_CMD_DEL,
		.doit = nf_ddf_cmd_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = DDF_CMD_GET,
		.doit = nf_ddf_cmd_get,
		.dumpit = nf_ddf_dump,
	},
	{
		.cmd = DDF_CMD_RESET,
		.doit = nf_ddf_cmd_reset,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = DDF_CMD_FLUSH,
		.doit = nf_ddf_cmd_flush,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

/*
 * Parallel: no request of this family takes genl_mutex, which every family
 * without parallel ops shares in every namespace, so a rule's build (up to
 * max_rule_bytes, allowed to root of any user namespace) stalls no other
 * family's requests. Nothing here needed it: the rule table and its byte
 * count are under the namespace's mutex, devices under RTNL, rule numbers
 * under nf_ddf_ids' own lock, a dump's state is its callback's and it
 * reads the rules under RCU, and the attributes are parsed per message.
 */
static struct genl_family nf_ddf_genl_family __ro_after_init = {
	.name = DDF_GENL_NAME,
	.version = DDF_GENL_VERSION,
	.maxattr = DDF_A_MAX,
	.policy = nf_ddf_policy,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = nf_ddf_genl_ops,
	.n_ops = ARRAY_SIZE(nf_ddf_genl_ops),
	.resv_start_op = DDF_CMD_FLUSH + 1,
};

int nf_ddf_genl_register(void)
{
	return genl_register_family(&nf_ddf_genl_family);
}

void nf_ddf_genl_unregister(void)
{
	genl_unregister_family(&nf_ddf_genl_family);
}
