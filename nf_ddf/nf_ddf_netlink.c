// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "ddf": create, delete, show, reset and flush
 * the rules of a network namespace. Every attribute is checked by the
 * policies below; the handlers check what policies cannot express (the
 * filter parameters as a whole, the key spec, the size caps) and say why in
 * the extended ack.
 */
#include <linux/netfilter.h>
#include <linux/random.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "nf_ddf.h"
#include "ddf_registry.h"

static struct genl_family nf_ddf_genl_family;

/*
 * An extended-ack message that is not a literal: a sentence of the core
 * (static storage), which NL_SET_ERR_MSG_ATTR cannot take on 6.1.
 */
static void nf_ddf_set_err(struct netlink_ext_ack *extack,
			   const struct nlattr *attr, const char *msg)
{
	if (extack) {
		extack->_msg = msg;
		extack->bad_attr = attr;
	}
}

/* The rule's name, required and non-empty. */
static const char *nf_ddf_name(struct genl_info *info)
{
	struct nlattr *attr = info->attrs[DDF_A_NAME];

	if (!attr) {
		NL_SET_ERR_MSG_MOD(info->extack, "a rule name is required");
		return NULL;
	}
	if (!nla_len(attr) || !*(const char *)nla_data(attr)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "empty rule name");
		return NULL;
	}
	return nla_data(attr);
}

static u32 nf_ddf_get_u32(struct nlattr **tb, int type, u32 def)
{
	return tb[type] ? nla_get_u32(tb[type]) : def;
}

static int nf_ddf_parse_key(struct nf_ddf_rule *rule, struct nlattr *nest,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[DDF_KEY_A_MAX + 1];
	struct ddf_key_spec *spec = &rule->key;
	const char *why = NULL;
	int err;

	ddf_key_spec_default(spec);
	if (rule->has_l4proto) {
		spec->match = DDF_KM_L4PROTO;
		spec->l4proto = rule->l4proto;
	}
	switch (rule->family) {
	case NFPROTO_IPV4:
		spec->family = 4;
		break;
	case NFPROTO_IPV6:
		spec->family = 6;
		break;
	}
	if (nest) {
		err = nla_parse_nested(tb, DDF_KEY_A_MAX, nest,
				       nf_ddf_key_policy, extack);
		if (err)
			return err;
		if (tb[DDF_KEY_A_FORM])
			spec->form = nla_get_u8(tb[DDF_KEY_A_FORM]);
		spec->fields = nf_ddf_get_u32(tb, DDF_KEY_A_FIELDS, 0);
		spec->ignore = nf_ddf_get_u32(tb, DDF_KEY_A_IGNORE, spec->ignore);
		spec->max_bytes = nf_ddf_get_u32(tb, DDF_KEY_A_MAX_BYTES,
						 spec->max_bytes);
		if (tb[DDF_KEY_A_PAYLOAD_OFF])
			spec->payload_off = nla_get_u16(tb[DDF_KEY_A_PAYLOAD_OFF]);
		if (tb[DDF_KEY_A_PAYLOAD_LEN])
			spec->payload_len = nla_get_u16(tb[DDF_KEY_A_PAYLOAD_LEN]);
	}
	err = ddf_key_spec_validate(spec, &why);
	if (err) {
		nf_ddf_set_err(extack, nest, why ? why : "invalid key");
		return err;
	}
	return 0;
}

/* A random PRNG seed for the kinds (or a queue's subfilters) that draw. */
static void nf_ddf_rng_seed(struct ddf_params *p)
{
	const struct ddf_filter_type *t = ddf_filter_type_by_kind(p->kind);

	if (t && t->kind == DDF_KIND_QUEUE)
		t = ddf_filter_type_by_kind(p->inner_kind);
	if (t && (t->flags & DDF_TF_RANDOM))
		get_random_bytes(&p->rng_seed, sizeof(p->rng_seed));
}

static int nf_ddf_parse_filter(struct nf_ddf_rule *rule, struct nlattr *nest,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[DDF_FILTER_A_MAX + 1];
	struct ddf_params *p = &rule->params;
	int err;

	if (!nest) {
		NL_SET_ERR_MSG_MOD(extack, "a filter (DDF_A_FILTER) is required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, DDF_FILTER_A_MAX, nest, nf_ddf_filter_policy,
			       extack);
	if (err)
		return err;
	if (!tb[DDF_FILTER_A_KIND]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "the filter kind is required");
		return -EINVAL;
	}
	if (!tb[DDF_FILTER_A_WINDOW]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "the filter window is required");
		return -EINVAL;
	}
	memset(p, 0, sizeof(*p));
	p->kind = nla_get_u32(tb[DDF_FILTER_A_KIND]);
	p->window = nla_get_u64(tb[DDF_FILTER_A_WINDOW]);
	if (tb[DDF_FILTER_A_WINDOW_NS]) {
		p->flags |= DDF_PF_TIME;
		p->window_ns = nla_get_u64(tb[DDF_FILTER_A_WINDOW_NS]);
	}
	p->k = nf_ddf_get_u32(tb, DDF_FILTER_A_K, 0);
	p->l = nf_ddf_get_u32(tb, DDF_FILTER_A_L, 0);
	if (tb[DDF_FILTER_A_M])
		p->m = nla_get_u64(tb[DDF_FILTER_A_M]);
	p->block_bits = nf_ddf_get_u32(tb, DDF_FILTER_A_BLOCK_BITS, 0);
	p->block_hashes = nf_ddf_get_u32(tb, DDF_FILTER_A_BLOCK_HASHES, 0);
	p->fp_bits = nf_ddf_get_u32(tb, DDF_FILTER_A_FP_BITS, 0);
	p->cell_bits = nf_ddf_get_u32(tb, DDF_FILTER_A_CELL_BITS, 0);
	p->decrements = nf_ddf_get_u32(tb, DDF_FILTER_A_DECREMENTS, 0);
	p->inner_kind = nf_ddf_get_u32(tb, DDF_FILTER_A_INNER_KIND, 0);
	p->subfilters = nf_ddf_get_u32(tb, DDF_FILTER_A_SUBFILTERS, 0);
	p->p_star = nf_ddf_get_u32(tb, DDF_FILTER_A_P_STAR, 0);
	nf_ddf_rng_seed(p);
	if (tb[DDF_FILTER_A_HASH])
		rule->hash_alg = nla_get_u8(tb[DDF_FILTER_A_HASH]);
	if (tb[DDF_FILTER_A_SEED]) {
		nla_memcpy(rule->seed, tb[DDF_FILTER_A_SEED], DDF_SEED_LEN);
		rule->seed_user = true;
	} else {
		get_random_bytes(rule->seed, DDF_SEED_LEN);
	}
	return 0;
}

static int nf_ddf_parse_action(struct nf_ddf_rule *rule, struct nlattr *nest,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[DDF_ACTION_A_MAX + 1];
	int err;

	rule->action = DDF_ACTION_DROP;
	rule->mask = ~0u;
	if (!nest)
		return 0;
	err = nla_parse_nested(tb, DDF_ACTION_A_MAX, nest, nf_ddf_action_policy,
			       extack);
	if (err)
		return err;
	if (tb[DDF_ACTION_A_TYPE])
		rule->action = nla_get_u8(tb[DDF_ACTION_A_TYPE]);
	if (rule->action != DDF_ACTION_MARK &&
	    (tb[DDF_ACTION_A_MARK] || tb[DDF_ACTION_A_MASK])) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "mark and mask go only with the mark action");
		return -EINVAL;
	}
	if (rule->action == DDF_ACTION_MARK && !tb[DDF_ACTION_A_MARK]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "the mark action needs a mark");
		return -EINVAL;
	}
	rule->mark = nf_ddf_get_u32(tb, DDF_ACTION_A_MARK, 0);
	rule->mask = nf_ddf_get_u32(tb, DDF_ACTION_A_MASK, ~0u);
	if (rule->mark & ~rule->mask) {
		NL_SET_ERR_MSG_ATTR(extack, tb[DDF_ACTION_A_MARK],
				    "the mark has bits outside its mask");
		return -EINVAL;
	}
	return 0;
}

/* An interface selector needs a hook where the packet has that interface. */
static int nf_ddf_check_selectors(const struct nf_ddf_rule *rule,
				  struct nlattr **attrs,
				  struct netlink_ext_ack *extack)
{
	u8 hook = rule->hook;

	if (rule->iifname[0] && hook != DDF_HOOK_NONE &&
	    hook != NF_INET_PRE_ROUTING && hook != NF_INET_LOCAL_IN &&
	    hook != NF_INET_FORWARD) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[DDF_A_IIFNAME],
				    "an input interface needs hook prerouting, input or forward");
		return -EINVAL;
	}
	if (rule->oifname[0] && hook != DDF_HOOK_NONE &&
	    hook != NF_INET_FORWARD && hook != NF_INET_LOCAL_OUT &&
	    hook != NF_INET_POST_ROUTING) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[DDF_A_OIFNAME],
				    "an output interface needs hook forward, output or postrouting");
		return -EINVAL;
	}
	return 0;
}

/*
 * Resolve the filter parameters, check the size against the caps and
 * allocate. On success *rulep holds a new rule with its filter built.
 */
static int nf_ddf_rule_build(struct nf_ddf_net *dn, struct nf_ddf_rule *tmpl,
			     struct nlattr *fattr, struct nf_ddf_rule **rulep,
			     struct netlink_ext_ack *extack)
{
	struct nf_ddf_rule *rule;
	const char *why = NULL;
	u64 bytes;
	int err;

	err = ddf_params_resolve(&tmpl->params, &why);
	if (err) {
		nf_ddf_set_err(extack, fattr,
			       why ? why : "invalid filter parameters");
		return err;
	}
	bytes = ddf_filter_memsize(&tmpl->params);
	if (!bytes) {
		NL_SET_ERR_MSG_ATTR(extack, fattr, "the filter has no valid size");
		return -EINVAL;
	}
	if (bytes > nf_ddf_max_rule_bytes) {
		NL_SET_ERR_MSG_ATTR(extack, fattr,
				    "the filter is larger than max_rule_bytes");
		return -E2BIG;
	}
	if (bytes > nf_ddf_max_net_bytes - min_t(u64, dn->bytes,
						  nf_ddf_max_net_bytes)) {
		NL_SET_ERR_MSG_ATTR(extack, fattr,
				    "the namespace's rules would exceed max_net_bytes");
		return -EFBIG;
	}
	rule = nf_ddf_rule_alloc(&tmpl->params, bytes);
	if (!rule)
		return -ENOMEM;
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
	ddf_sipkey_from_bytes(&rule->sipkey, rule->seed);
	rule->action = tmpl->action;
	rule->mark = tmpl->mark;
	rule->mask = tmpl->mask;
	*rulep = rule;
	return 0;
}

static int nf_ddf_cmd_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(genl_info_net(info));
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	struct nf_ddf_rule *tmpl, *rule = NULL;
	const char *name;
	int err;

	name = nf_ddf_name(info);
	if (!name)
		return -EINVAL;
	tmpl = kzalloc(sizeof(*tmpl), GFP_KERNEL);
	if (!tmpl)
		return -ENOMEM;
	strscpy(tmpl->name, name, sizeof(tmpl->name));
	tmpl->net = genl_info_net(info);
	tmpl->family = attrs[DDF_A_FAMILY] ? nla_get_u8(attrs[DDF_A_FAMILY]) :
					     NFPROTO_INET;
	tmpl->hook = attrs[DDF_A_HOOK] ? nla_get_u8(attrs[DDF_A_HOOK]) :
					 NF_INET_PRE_ROUTING;
	if (attrs[DDF_A_PRIORITY])
		tmpl->priority = nla_get_s32(attrs[DDF_A_PRIORITY]);
	if (attrs[DDF_A_IIFNAME])
		nla_strscpy(tmpl->iifname, attrs[DDF_A_IIFNAME], IFNAMSIZ);
	if (attrs[DDF_A_OIFNAME])
		nla_strscpy(tmpl->oifname, attrs[DDF_A_OIFNAME], IFNAMSIZ);
	if (attrs[DDF_A_L4PROTO]) {
		tmpl->l4proto = nla_get_u8(attrs[DDF_A_L4PROTO]);
		tmpl->has_l4proto = true;
	}
	err = nf_ddf_check_selectors(tmpl, attrs, extack);
	if (err)
		goto out;
	err = nf_ddf_parse_key(tmpl, attrs[DDF_A_KEY], extack);
	if (err)
		goto out;
	err = nf_ddf_parse_filter(tmpl, attrs[DDF_A_FILTER], extack);
	if (err)
		goto out;
	err = nf_ddf_parse_action(tmpl, attrs[DDF_A_ACTION], extack);
	if (err)
		goto out;

	mutex_lock(&dn->lock);
	if (nf_ddf_rule_find(dn, tmpl->name)) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[DDF_A_NAME],
				    "a rule with this name exists");
		err = -EEXIST;
		goto unlock;
	}
	err = nf_ddf_rule_build(dn, tmpl, attrs[DDF_A_FILTER], &rule, extack);
	if (err)
		goto unlock;
	err = nf_ddf_rule_insert(dn, rule);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "the netfilter hook cannot be registered");
		nf_ddf_rule_free(rule);
	}
unlock:
	mutex_unlock(&dn->lock);
out:
	kfree(tmpl);
	return err;
}

/* The rule named in the request, with the table locked; NULL: error set. */
static struct nf_ddf_rule *nf_ddf_lookup(struct nf_ddf_net *dn,
					 struct genl_info *info, int *err)
{
	struct nf_ddf_rule *rule;
	const char *name;

	lockdep_assert_held(&dn->lock);
	name = nf_ddf_name(info);
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
	int err = 0;

	mutex_lock(&dn->lock);
	rule = nf_ddf_lookup(dn, info, &err);
	if (rule)
		err = nf_ddf_check_unused(rule, info->extack);
	if (rule && !err)
		nf_ddf_rule_remove(dn, rule);
	mutex_unlock(&dn->lock);
	return err;
}

static int nf_ddf_cmd_reset(struct sk_buff *skb, struct genl_info *info)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(genl_info_net(info));
	struct nlattr *fl = info->attrs[DDF_A_RESET_FLAGS];
	struct nf_ddf_rule *rule;
	int err = 0;

	mutex_lock(&dn->lock);
	rule = nf_ddf_lookup(dn, info, &err);
	if (rule)
		err = nf_ddf_rule_reset(rule, fl &&
				       (nla_get_u32(fl) & DDF_RESET_F_FILTER));
	mutex_unlock(&dn->lock);
	return err;
}

/* All or nothing: no rule goes while one is used by an xtables match. */
static int nf_ddf_cmd_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(genl_info_net(info));
	struct nf_ddf_rule *rule;
	int err = 0;

	mutex_lock(&dn->lock);
	list_for_each_entry(rule, &dn->rules, list) {
		err = nf_ddf_check_unused(rule, info->extack);
		if (err)
			break;
	}
	if (!err)
		nf_ddf_rule_flush(dn);
	mutex_unlock(&dn->lock);
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

static int nf_ddf_fill_stats(struct sk_buff *skb,
			     const struct nf_ddf_rule *rule)
{
	struct nlattr *nest = nla_nest_start(skb, DDF_A_STATS);
	struct nf_ddf_pcpu sum;
	struct ddf_stats fst;

	if (!nest)
		return -EMSGSIZE;
	nf_ddf_rule_stats(rule, &sum);
	nf_ddf_rule_filter_stats(rule, &fst);
	if (nf_ddf_put_u64(skb, DDF_STATS_A_PACKETS, sum.packets) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_BYTES, sum.bytes) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_DUPLICATES, sum.duplicates) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_DROPPED, sum.dropped) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_MARKED, sum.marked) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_UNPARSED, sum.unparsed) ||
	    nf_ddf_put_u64(skb, DDF_STATS_A_GENERATION, fst.generation) ||
	    nla_put_u32(skb, DDF_STATS_A_FILL_PPM, fst.fill_ppm))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int nf_ddf_fill_rule(struct sk_buff *skb, const struct nf_ddf_rule *rule,
			    u32 portid, u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &nf_ddf_genl_family, flags,
			  DDF_CMD_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, DDF_A_NAME, rule->name) ||
	    nla_put_u8(skb, DDF_A_FAMILY, rule->family) ||
	    nla_put_u8(skb, DDF_A_HOOK, rule->hook) ||
	    nla_put_s32(skb, DDF_A_PRIORITY, rule->priority) ||
	    (rule->iifname[0] &&
	     nla_put_string(skb, DDF_A_IIFNAME, rule->iifname)) ||
	    (rule->oifname[0] &&
	     nla_put_string(skb, DDF_A_OIFNAME, rule->oifname)) ||
	    (rule->has_l4proto &&
	     nla_put_u8(skb, DDF_A_L4PROTO, rule->l4proto)) ||
	    nf_ddf_fill_key(skb, &rule->key) ||
	    nf_ddf_fill_filter(skb, rule) ||
	    nf_ddf_fill_action(skb, rule) ||
	    nf_ddf_fill_stats(skb, rule)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int nf_ddf_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(genl_info_net(info));
	struct nf_ddf_rule *rule;
	struct sk_buff *msg;
	int err = 0;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&dn->lock);
	rule = nf_ddf_lookup(dn, info, &err);
	if (rule)
		err = nf_ddf_fill_rule(msg, rule, info->snd_portid,
				       info->snd_seq, 0);
	mutex_unlock(&dn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * cb->args[0]: rules already sent. Under RCU, not the table's mutex: 6.12
 * calls dumpit inside rcu_read_lock().
 */
static int nf_ddf_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nf_ddf_net *dn = nf_ddf_pernet(sock_net(skb->sk));
	struct nf_ddf_rule *rule;
	long idx = 0;
	int err = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(rule, &dn->rules, list) {
		if (idx++ < cb->args[0])
			continue;
		err = nf_ddf_fill_rule(skb, rule, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			idx--;
			break;
		}
	}
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

static struct genl_family nf_ddf_genl_family __ro_after_init = {
	.name = DDF_GENL_NAME,
	.version = DDF_GENL_VERSION,
	.maxattr = DDF_A_MAX,
	.policy = nf_ddf_policy,
	.netnsok = true,
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
