// SPDX-License-Identifier: GPL-2.0
/*
 * A NEW request's attributes, already checked by the policies, as a rule
 * template: what the policies cannot express (the family and hook values,
 * the key spec, the filter's required members, the mark against its mask,
 * interface selectors against the hook), and the filter parameters
 * resolved and sized. Apart from the
 * handlers, as the policies are, so that the KUnit suite can feed it bad
 * attribute sets.
 */
#include <linux/netfilter.h>
#include <linux/random.h>
#include <linux/string.h>
#include <net/netlink.h>

#include "nf_ddf.h"
#include "ddf_registry.h"

/*
 * NL_SET_ERR_MSG_MOD with the module's name spelt out: this file is linked
 * into the KUnit module too, where KBUILD_MODNAME names both modules.
 */
#define NF_DDF_MSG(extack, msg) NL_SET_ERR_MSG(extack, "nf_ddf: " msg)

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

/* The rule's name, required and non-empty; NULL: -EINVAL, extack set. */
const char *nf_ddf_attr_name(struct nlattr **attrs,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *attr = attrs[DDF_A_NAME];

	if (!attr) {
		NF_DDF_MSG(extack, "a rule name is required");
		return NULL;
	}
	if (!nla_len(attr) || !*(const char *)nla_data(attr)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "empty rule name");
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
		spec->decap = nf_ddf_get_u32(tb, DDF_KEY_A_DECAP, 0);
		if (tb[DDF_KEY_A_VXLAN_PORT])
			spec->vxlan_port = nla_get_u16(tb[DDF_KEY_A_VXLAN_PORT]);
		if (tb[DDF_KEY_A_GENEVE_PORT])
			spec->geneve_port = nla_get_u16(tb[DDF_KEY_A_GENEVE_PORT]);
	}
	if (rule->family != NFPROTO_NETDEV) {
		/* an IP hook's packet starts at its IP header */
		if (spec->form == DDF_KEY_FRAME) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "key frame needs family netdev: IP hooks see packets from their IP header on");
			return -EINVAL;
		}
		if (spec->ignore & DDF_KI_L2) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "ignore vlan and mac need family netdev: IP hooks see no link layer");
			return -EINVAL;
		}
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
		NF_DDF_MSG(extack, "a filter (DDF_A_FILTER) is required");
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
	p->cpus = nf_ddf_get_u32(tb, DDF_FILTER_A_CPUS, 0);
	/*
	 * A count window holds while no more CPUs than cpus insert at once
	 * (ddf_age.h), and any of this kernel's CPUs can: never fewer, for a
	 * shape sent without cpus or saved on a smaller machine too. The
	 * window that holds comes back in the reply.
	 */
	if (p->kind == DDF_KIND_APBF || p->kind == DDF_KIND_APBBF)
		p->cpus = max_t(u32, p->cpus,
				min_t(u32, nr_cpu_ids, DDF_MAX_CPUS));
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

/* -EINVAL with msg (a literal, as the extended ack keeps it) on attr */
#define nf_ddf_dev_err(extack, attr, msg) ({		\
	NL_SET_ERR_MSG_ATTR(extack, attr, msg);		\
	-EINVAL;					\
})

/* One entry of DDF_A_DEVS: its name into port. */
static int nf_ddf_dev_parse_one(struct nf_ddf_port *port,
				const struct nlattr *entry,
				struct netlink_ext_ack *extack)
{
	struct nlattr *tb[DDF_DEV_A_MAX + 1];
	int err;

	err = nla_parse_nested(tb, DDF_DEV_A_MAX, entry, nf_ddf_dev_policy,
			       extack);
	if (err)
		return err;
	if (!tb[DDF_DEV_A_NAME])
		return nf_ddf_dev_err(extack, entry,
				      "a device of DDF_A_DEVS needs its name (DDF_DEV_A_NAME)");
	nla_strscpy(port->name, tb[DDF_DEV_A_NAME], IFNAMSIZ);
	return 0;
}

/* The names of DDF_A_DEVS, in order, into tmpl's ports. */
static int nf_ddf_dev_parse_list(struct nf_ddf_rule *tmpl,
				 const struct nlattr *list,
				 struct netlink_ext_ack *extack)
{
	const struct nlattr *entry;
	int rem, err;

	nla_for_each_nested(entry, list, rem) {
		/* the policy refuses types past DDF_DEVS_MAX */
		if (nla_type(entry) != tmpl->ndevs + 1)
			return nf_ddf_dev_err(extack, entry,
					      "the devices of DDF_A_DEVS are numbered 1, 2, ... in order");
		tmpl->ndevs++;
		err = nf_ddf_dev_parse_one(&tmpl->ports[tmpl->ndevs - 1],
					   entry, extack);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The devices of a NEW request into tmpl (room for DDF_DEVS_MAX ports):
 * DDF_A_DEV or DDF_A_DEVS for family netdev, neither for the others. Each
 * named once.
 */
int nf_ddf_dev_parse(struct nf_ddf_rule *tmpl, struct nlattr **attrs,
		     struct netlink_ext_ack *extack)
{
	struct nlattr *blame = attrs[DDF_A_DEVS] ?: attrs[DDF_A_DEV];
	unsigned int i, j;
	int err;

	if (tmpl->family != NFPROTO_NETDEV) {
		if (blame)
			return nf_ddf_dev_err(extack, blame,
					      "a device binds a rule of family netdev; IP families select with iif and oif");
		return 0;
	}
	if (attrs[DDF_A_DEV] && attrs[DDF_A_DEVS])
		return nf_ddf_dev_err(extack, attrs[DDF_A_DEVS],
				      "give the devices in DDF_A_DEV or DDF_A_DEVS, not both");
	if (attrs[DDF_A_DEV]) {
		tmpl->ndevs = 1;
		nla_strscpy(tmpl->ports[0].name, attrs[DDF_A_DEV], IFNAMSIZ);
	} else if (attrs[DDF_A_DEVS]) {
		err = nf_ddf_dev_parse_list(tmpl, attrs[DDF_A_DEVS], extack);
		if (err)
			return err;
	}
	if (!tmpl->ndevs)
		return nf_ddf_dev_err(extack, blame ?: attrs[DDF_A_FAMILY],
				      "family netdev needs a device (DDF_A_DEV or DDF_A_DEVS)");
	for (i = 0; i < tmpl->ndevs; i++) {
		if (!tmpl->ports[i].name[0])
			return nf_ddf_dev_err(extack, blame,
					      "a device name is empty");
		for (j = 0; j < i; j++)
			if (!strcmp(tmpl->ports[i].name, tmpl->ports[j].name))
				return nf_ddf_dev_err(extack, blame,
						      "a device is named twice");
	}
	return 0;
}

/* A netdev rule: an ingress or egress hook, no selectors. */
static int nf_ddf_check_netdev(const struct nf_ddf_rule *rule,
			       struct nlattr **attrs,
			       struct netlink_ext_ack *extack)
{
	if (rule->family != NFPROTO_NETDEV)
		return 0;
	if (rule->hook != NF_NETDEV_INGRESS && rule->hook != NF_NETDEV_EGRESS &&
	    rule->hook != DDF_HOOK_NONE) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[DDF_A_HOOK],
				    "family netdev has hooks ingress, egress and none (XDP)");
		return -EINVAL;
	}
	if (rule->iifname[0] || rule->oifname[0]) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[DDF_A_IIFNAME] ?
					    attrs[DDF_A_IIFNAME] :
					    attrs[DDF_A_OIFNAME],
				    "a netdev rule sees its device's packets only: no iif or oif");
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
	int err;

	err = nf_ddf_check_netdev(rule, attrs, extack);
	if (err || rule->family == NFPROTO_NETDEV)
		return err;

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
 * The request's attributes (parsed against nf_ddf_policy) into tmpl, whose
 * name the caller set: 0, or an error with the extended ack set.
 */
int nf_ddf_rule_parse(struct nf_ddf_rule *tmpl, struct nlattr **attrs,
		      struct netlink_ext_ack *extack)
{
	int err;

	tmpl->family = attrs[DDF_A_FAMILY] ? nla_get_u8(attrs[DDF_A_FAMILY]) :
					     NFPROTO_INET;
	tmpl->hook = attrs[DDF_A_HOOK] ? nla_get_u8(attrs[DDF_A_HOOK]) :
		     tmpl->family == NFPROTO_NETDEV ? NF_NETDEV_INGRESS :
						      NF_INET_PRE_ROUTING;
	switch (tmpl->family) {
	case NFPROTO_INET:
	case NFPROTO_IPV4:
	case NFPROTO_IPV6:
	case NFPROTO_NETDEV:
		break;
	default:
		NL_SET_ERR_MSG_ATTR(extack, attrs[DDF_A_FAMILY],
				    "family must be ip, ip6, inet or netdev");
		return -EINVAL;
	}
	err = nf_ddf_dev_parse(tmpl, attrs, extack);
	if (err)
		return err;
	if (tmpl->family != NFPROTO_NETDEV &&
	    tmpl->hook > NF_INET_POST_ROUTING && tmpl->hook != DDF_HOOK_NONE) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[DDF_A_HOOK], "unknown hook");
		return -EINVAL;
	}
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
		return err;
	err = nf_ddf_parse_key(tmpl, attrs[DDF_A_KEY], extack);
	if (err)
		return err;
	err = nf_ddf_parse_filter(tmpl, attrs[DDF_A_FILTER], extack);
	if (err)
		return err;
	return nf_ddf_parse_action(tmpl, attrs[DDF_A_ACTION], extack);
}

/*
 * Resolve the filter parameters and size the filter (fattr: the filter
 * attribute, blamed on failure): 0 with *bytes set, or an error with the
 * extended ack set. The caps are the caller's.
 */
int nf_ddf_params_size(struct ddf_params *p, const struct nlattr *fattr,
		       u64 *bytes, struct netlink_ext_ack *extack)
{
	const char *why = NULL;
	int err;

	err = ddf_params_resolve(p, &why);
	if (err) {
		nf_ddf_set_err(extack, fattr,
			       why ? why : "invalid filter parameters");
		return err;
	}
	*bytes = ddf_filter_memsize(p);
	if (!*bytes) {
		NL_SET_ERR_MSG_ATTR(extack, fattr, "the filter has no valid size");
		return -EINVAL;
	}
	return 0;
}
