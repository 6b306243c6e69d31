// SPDX-License-Identifier: GPL-2.0
/*
 * nf_ddf rules and the per-netns rule table: an RCU list, changed under
 * the table's mutex; a rule is freed after a grace period.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "nf_ddf.h"
#include "ddf_registry.h"

struct nf_ddf_rule *nf_ddf_rule_alloc(u64 mem_bytes)
{
	struct nf_ddf_rule *rule;
	int cpu;

	rule = kzalloc(sizeof(*rule), GFP_KERNEL_ACCOUNT);
	if (!rule)
		return NULL;
	rule->mem = kvzalloc(mem_bytes, GFP_KERNEL_ACCOUNT);
	if (!rule->mem)
		goto err;
	rule->mem_bytes = mem_bytes;
	rule->stats = alloc_percpu_gfp(struct nf_ddf_pcpu, GFP_KERNEL_ACCOUNT);
	if (!rule->stats)
		goto err;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(rule->stats, cpu)->syncp);
	return rule;
err:
	kvfree(rule->mem);
	kfree(rule);
	return NULL;
}

/* Build the filter from rule->params (resolved) in rule->mem. */
int nf_ddf_rule_init_filter(struct nf_ddf_rule *rule)
{
	rule->filter = ddf_filter_init(rule->mem, rule->mem_bytes,
				       &rule->params, ktime_get_ns());
	return rule->filter ? 0 : -EINVAL;
}

void nf_ddf_rule_free(struct nf_ddf_rule *rule)
{
	if (!rule)
		return;
	free_percpu(rule->stats);
	kvfree(rule->mem);
	kfree(rule);
}

static void nf_ddf_rule_free_rcu(struct rcu_head *head)
{
	nf_ddf_rule_free(container_of(head, struct nf_ddf_rule, rcu));
}

struct nf_ddf_rule *nf_ddf_rule_find(struct nf_ddf_net *dn, const char *name)
{
	struct nf_ddf_rule *rule;

	list_for_each_entry_rcu(rule, &dn->rules, list,
				lockdep_is_held(&dn->lock))
		if (!strcmp(rule->name, name))
			return rule;
	return NULL;
}

void nf_ddf_rule_insert(struct nf_ddf_net *dn, struct nf_ddf_rule *rule)
{
	lockdep_assert_held(&dn->lock);
	dn->bytes += rule->mem_bytes;
	list_add_tail_rcu(&rule->list, &dn->rules);
}

void nf_ddf_rule_remove(struct nf_ddf_net *dn, struct nf_ddf_rule *rule)
{
	lockdep_assert_held(&dn->lock);
	list_del_rcu(&rule->list);
	dn->bytes -= rule->mem_bytes;
	call_rcu(&rule->rcu, nf_ddf_rule_free_rcu);
}

void nf_ddf_rule_flush(struct nf_ddf_net *dn)
{
	struct nf_ddf_rule *rule, *next;

	lockdep_assert_held(&dn->lock);
	list_for_each_entry_safe(rule, next, &dn->rules, list)
		nf_ddf_rule_remove(dn, rule);
}

void nf_ddf_rule_stats(const struct nf_ddf_rule *rule, struct nf_ddf_pcpu *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct nf_ddf_pcpu *c = per_cpu_ptr(rule->stats, cpu);
		u64 packets, bytes, duplicates, dropped, marked, unparsed;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&c->syncp);
			packets = c->packets;
			bytes = c->bytes;
			duplicates = c->duplicates;
			dropped = c->dropped;
			marked = c->marked;
			unparsed = c->unparsed;
		} while (u64_stats_fetch_retry(&c->syncp, start));
		sum->packets += packets;
		sum->bytes += bytes;
		sum->duplicates += duplicates;
		sum->dropped += dropped;
		sum->marked += marked;
		sum->unparsed += unparsed;
	}
}

/*
 * Zero the counters and, with filter, empty the filter by building it
 * again. There is no packet path yet; once hooks use rules, emptying the
 * filter must swap in a new rule instead of rebuilding one in place.
 */
void nf_ddf_rule_reset(struct nf_ddf_rule *rule, bool filter)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct nf_ddf_pcpu *c = per_cpu_ptr(rule->stats, cpu);

		u64_stats_update_begin(&c->syncp);
		c->packets = 0;
		c->bytes = 0;
		c->duplicates = 0;
		c->dropped = 0;
		c->marked = 0;
		c->unparsed = 0;
		u64_stats_update_end(&c->syncp);
	}
	if (filter) {
		memset(rule->mem, 0, rule->mem_bytes);
		/* same params and memory: cannot fail after the first time */
		WARN_ON(nf_ddf_rule_init_filter(rule));
	}
}

void nf_ddf_net_table_init(struct nf_ddf_net *dn)
{
	mutex_init(&dn->lock);
	INIT_LIST_HEAD(&dn->rules);
	dn->bytes = 0;
}

void nf_ddf_net_table_exit(struct nf_ddf_net *dn)
{
	mutex_lock(&dn->lock);
	nf_ddf_rule_flush(dn);
	mutex_unlock(&dn->lock);
	mutex_destroy(&dn->lock);
}
