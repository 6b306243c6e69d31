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
#include <linux/u64_stats_sync.h>
#include <linux/if.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "ddf_filter.h"
#include "ddf_key.h"
#include "linux/ddf.h"

/* Per-CPU counters of a rule; the packet path will bump them. */
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
 * A rule. Immutable once published on the table's list, except for the
 * counters and the filter's own state; freed after an RCU grace period.
 */
struct nf_ddf_rule {
	struct list_head list; /* nf_ddf_net.rules, RCU */
	struct rcu_head rcu;
	char name[DDF_NAME_MAX];
	char iifname[IFNAMSIZ];
	char oifname[IFNAMSIZ];
	u8 family; /* NFPROTO_* */
	u8 hook; /* NF_INET_* or DDF_HOOK_NONE: stored, not registered yet */
	u8 l4proto; /* 0: any */
	bool has_l4proto;
	bool seed_user; /* the seed came from the user: report it */
	u8 seed[DDF_SEED_LEN];
	u8 hash_alg; /* enum ddf_hash_alg */
	s32 priority;
	struct ddf_key_spec key;
	u8 action; /* enum ddf_action */
	u32 mark;
	u32 mask;
	struct ddf_params params; /* resolved */
	void *mem; /* kvzalloc'ed, holds filter */
	u64 mem_bytes;
	struct ddf_filter *filter;
	struct nf_ddf_pcpu __percpu *stats;
};

struct nf_ddf_net {
	struct mutex lock; /* serialises changes of rules */
	struct list_head rules; /* RCU readers, changes under lock */
	u64 bytes; /* filter memory of every rule, under lock */
};

extern unsigned int nf_ddf_net_id;
extern unsigned long nf_ddf_max_rule_bytes;
extern unsigned long nf_ddf_max_net_bytes;

static inline struct nf_ddf_net *nf_ddf_pernet(struct net *net)
{
	return net_generic(net, nf_ddf_net_id);
}

void nf_ddf_net_table_init(struct nf_ddf_net *dn);
void nf_ddf_net_table_exit(struct nf_ddf_net *dn);

struct nf_ddf_rule *nf_ddf_rule_alloc(u64 mem_bytes);
int nf_ddf_rule_init_filter(struct nf_ddf_rule *rule);
void nf_ddf_rule_free(struct nf_ddf_rule *rule);
struct nf_ddf_rule *nf_ddf_rule_find(struct nf_ddf_net *dn, const char *name);
void nf_ddf_rule_insert(struct nf_ddf_net *dn, struct nf_ddf_rule *rule);
void nf_ddf_rule_remove(struct nf_ddf_net *dn, struct nf_ddf_rule *rule);
void nf_ddf_rule_flush(struct nf_ddf_net *dn);
void nf_ddf_rule_stats(const struct nf_ddf_rule *rule, struct nf_ddf_pcpu *sum);
void nf_ddf_rule_reset(struct nf_ddf_rule *rule, bool filter);

int nf_ddf_genl_register(void);
void nf_ddf_genl_unregister(void);

#endif /* NF_DDF_H */
