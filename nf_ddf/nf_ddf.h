/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf_ddf internals: rules, the per-netns rule table and the generic
 * netlink family that configures them.
 */
#ifndef NF_DDF_H
#define NF_DDF_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/refcount.h>
#include <linux/u64_stats_sync.h>
#include <linux/if.h>
#include <linux/netfilter.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>

#include "ddf_filter.h"
#include "ddf_key.h"
#include "linux/ddf.h"

/*
 * Per-CPU counters of a rule, bumped by the packet path with BH disabled.
 * packets and bytes count what the rule hashed (bytes: the skb's length
 * at an IP hook, at a netdev hook the bytes the key looked at, as ddfctl
 * replay counts them); unparsed counts packets
 * its selectors took that had no usable IP header.
 */
struct nf_ddf_pcpu {
	u64 packets;
	u64 bytes;
	u64 duplicates;
	u64 dropped;
	u64 marked;
	u64 unparsed;
	struct u64_stats_sync syncp;
};

/*
 * A rule's filter and its memory. Replaced as a whole when the filter is
 * emptied (reset), so the packet path always sees a complete one.
 * Counted: the rule holds one reference (dropped a grace period after
 * the filter is replaced or the rule freed), a reader that scans the
 * filter (its stats) one more, so the scan needs neither a lock nor an
 * RCU read-side section (a long one would hold up every synchronize_rcu,
 * device unregistration under RTNL among them).
 */
struct nf_ddf_fmem {
	struct rcu_head rcu;
	refcount_t refs;
	struct ddf_filter *filter;
	void *mem; /* kvmalloc'ed, written whole by ddf_filter_init() */
	u64 bytes;
};

struct nf_ddf_rule;

/*
 * A device of a netdev rule: the name the rule waits for (or follows, once
 * renamed), the device while it is in the rule's namespace, and the hook
 * on it. dev and name change under RTNL and the table's lock
 * (nf_ddf_dev.c); dumps read them under the rule's dev_seq. Its counters
 * are the slot-th of the rule's per-CPU counters.
 */
struct nf_ddf_port {
	struct nf_ddf_rule *rule;
	struct net_device *dev;
	char name[IFNAMSIZ];
	char given[IFNAMSIZ]; /* when it joined the rule: renames differ */
	struct nf_hook_ops ops;
	bool hooked;
	u8 slot;
	struct nf_ddf_pcpu zero; /* as the rule's, for this device */
};

/*
 * A rule. Immutable once published on the table's list, except for the
 * counters, the filter's own state and the filter pointer. Counted: the
 * table holds one reference while the rule is on its list, each xtables
 * match that names it one more; the last put frees it after an RCU grace
 * period.
 */
struct nf_ddf_rule {
	struct list_head list; /* nf_ddf_net.rules, RCU */
	struct list_head gone; /* off the table, to retire: nf_ddf_rule_remove() */
	struct rcu_head rcu;
	refcount_t refs;
	struct net *net; /* the namespace whose table holds the rule */
	u32 id; /* in nf_ddf_ids while on the table's list */
	char name[DDF_NAME_MAX];
	char iifname[IFNAMSIZ];
	char oifname[IFNAMSIZ];
	seqcount_t dev_seq; /* around changes of the ports' dev and name */
	u8 family; /* NFPROTO_* */
	u8 hook; /* NF_INET_*, NF_NETDEV_*, or DDF_HOOK_NONE */
	u8 l4proto; /* with has_l4proto; also in key.match */
	bool has_l4proto;
	bool hooked; /* ops is registered */
	bool seed_user; /* the seed came from the user: report it */
	u8 seed[DDF_SEED_LEN];
	u8 hash_alg; /* enum ddf_hash_alg */
	s32 priority;
	struct ddf_key_spec key;
	struct ddf_key_secret secret; /* from seed: SipHash's and NH's keys */
	u8 action; /* enum ddf_action */
	u32 mark;
	u32 mask;
	struct ddf_params params; /* resolved */
	u64 mem_bytes;
	struct nf_ddf_fmem __rcu *fm;
	/*
	 * Per CPU, ndevs + 1 slots of counters: one per device of a netdev
	 * rule, then one for packets of no listed device (the rule's own,
	 * for the other families).
	 */
	struct nf_ddf_pcpu __percpu *stats;
	/*
	 * The sums at the last reset (this, the last slot's; the devices'
	 * in their ports), written under the table's lock; dumps read them
	 * under RCU only, so a reset bumps zero_seq around the writes and
	 * they retry.
	 */
	struct nf_ddf_pcpu zero;
	seqcount_t zero_seq;
	struct nf_hook_ops ops; /* not of family netdev */
	/* time windows: shifts due generations off the packet path */
	struct delayed_work advance;
	unsigned long advance_period; /* jiffies; 0: no worker */
	u8 ndevs; /* family netdev: 1 .. DDF_DEVS_MAX; else 0 */
	struct nf_ddf_port ports[] __counted_by(ndevs);
};

struct nf_ddf_net {
	struct mutex lock; /* serialises changes of rules */
	/*
	 * One filter built at a time in a namespace (a new rule's, a reset's),
	 * taken before RTNL and lock: what builds hold beside the rules stays
	 * one filter, as when genl_mutex serialised every request.
	 */
	struct mutex build_lock;
	struct list_head rules; /* RCU readers, changes under lock */
	u64 bytes; /* filter memory of every rule, under lock */
	/* bumped before each change of rules: a dump that spans one says so */
	unsigned int gen;
};

extern unsigned int nf_ddf_net_id;
extern struct xarray nf_ddf_ids;
extern unsigned long nf_ddf_max_rule_bytes;
extern unsigned long nf_ddf_max_net_bytes;

static inline struct nf_ddf_net *nf_ddf_pernet(struct net *net)
{
	return net_generic(net, nf_ddf_net_id);
}

void nf_ddf_net_table_init(struct nf_ddf_net *dn);
void nf_ddf_net_table_exit(struct nf_ddf_net *dn);

struct nf_ddf_rule *nf_ddf_rule_alloc(const struct ddf_params *params,
				      u64 mem_bytes, u8 ndevs);
void nf_ddf_rule_free(struct nf_ddf_rule *rule);
void nf_ddf_rule_put(struct nf_ddf_rule *rule);
struct nf_ddf_rule *nf_ddf_rule_find(struct nf_ddf_net *dn, const char *name);
int nf_ddf_rule_insert(struct nf_ddf_net *dn, struct nf_ddf_rule *rule);
void nf_ddf_rule_remove(struct nf_ddf_net *dn, struct nf_ddf_rule *rule,
			struct list_head *gone);
void nf_ddf_rule_flush(struct nf_ddf_net *dn, struct list_head *gone);
void nf_ddf_rules_retire(struct list_head *gone);
unsigned int nf_ddf_rule_users(const struct nf_ddf_rule *rule);
void nf_ddf_rule_stats(const struct nf_ddf_rule *rule, struct nf_ddf_pcpu *sum);
void nf_ddf_port_stats(const struct nf_ddf_rule *rule, unsigned int slot,
		       struct nf_ddf_pcpu *sum);
struct nf_ddf_fmem *nf_ddf_rule_fmem_get(const struct nf_ddf_rule *rule);
void nf_ddf_fmem_stats_put(struct nf_ddf_fmem *fm, struct ddf_stats *st);
void nf_ddf_rule_reset(struct nf_ddf_rule *rule, struct nf_ddf_fmem *fm);
struct nf_ddf_fmem *nf_ddf_fmem_new(const struct ddf_params *params, u64 bytes);
void nf_ddf_fmem_free(struct nf_ddf_fmem *fm);

/* nf_ddf_dev.c: netdev rules and their devices */
int nf_ddf_dev_lookup(struct nf_ddf_rule *rule, bool rtnl,
		      struct nlattr **attrs, struct netlink_ext_ack *extack);
void nf_ddf_dev_name(const struct nf_ddf_rule *rule, unsigned int i,
		     char *name, int *ifindex);
unsigned int nf_ddf_dev_slot(const struct nf_ddf_rule *rule,
			     const struct net_device *dev);
int nf_ddf_dev_notifier_register(void);
void nf_ddf_dev_notifier_unregister(void);

/* nf_ddf_hook.c: the packet path */
int nf_ddf_hook_register(struct nf_ddf_rule *rule);
void nf_ddf_hook_unregister(struct nf_ddf_rule *rule);
int nf_ddf_port_hook_register(struct nf_ddf_port *port);
void nf_ddf_port_hook_unregister(struct nf_ddf_port *port);
bool nf_ddf_rule_seen(struct nf_ddf_rule *rule, const struct sk_buff *skb,
		      u8 pf, const struct net_device *in,
		      const struct net_device *out, bool insert);
int nf_ddf_rule_judge(struct nf_ddf_rule *rule, unsigned int slot, int keyed,
		      const struct ddf_hash *h, u64 len);
void nf_ddf_advance_start(struct nf_ddf_rule *rule);
void nf_ddf_advance_stop(struct nf_ddf_rule *rule);

/* nf_ddf_xdp.c: the kfunc of XDP programs (uapi/linux/ddf.h, "XDP") */
struct xdp_md;
int bpf_ddf_xdp(struct xdp_md *ctx, u32 rule_id);
void nf_ddf_xdp_register(void);

/* nf_ddf_policy.c */
extern const struct nla_policy nf_ddf_policy[DDF_A_MAX + 1];
extern const struct nla_policy nf_ddf_key_policy[DDF_KEY_A_MAX + 1];
extern const struct nla_policy nf_ddf_filter_policy[DDF_FILTER_A_MAX + 1];
extern const struct nla_policy nf_ddf_action_policy[DDF_ACTION_A_MAX + 1];
extern const struct nla_policy nf_ddf_dev_policy[DDF_DEV_A_MAX + 1];

/* nf_ddf_parse.c: a NEW request's attributes as a rule template */
const char *nf_ddf_attr_name(struct nlattr **attrs,
			     struct netlink_ext_ack *extack);
int nf_ddf_rule_parse(struct nf_ddf_rule *tmpl, struct nlattr **attrs,
		      struct netlink_ext_ack *extack);
int nf_ddf_dev_parse(struct nf_ddf_rule *tmpl, struct nlattr **attrs,
		     struct netlink_ext_ack *extack);
int nf_ddf_params_size(struct ddf_params *p, const struct nlattr *fattr,
		       u64 *bytes, struct netlink_ext_ack *extack);

int nf_ddf_genl_register(void);
void nf_ddf_genl_unregister(void);

/* nf_ddf_xt.c: the xtables match "ddf" */
int nf_ddf_xt_register(void);
void nf_ddf_xt_unregister(void);

#endif /* NF_DDF_H */
