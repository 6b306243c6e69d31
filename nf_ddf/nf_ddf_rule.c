// SPDX-License-Identifier: GPL-2.0
/*
 * nf_ddf rules and the per-netns rule table: an RCU list, changed under
 * the table's mutex. A rule is counted (the table's reference and one per
 * xtables match) and freed a grace period after the last put. Every rule
 * on a table is also in nf_ddf_ids by its number, for XDP programs
 * (nf_ddf_xdp.c), which read it under RCU.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "nf_ddf.h"
#include "ddf_registry.h"

DEFINE_XARRAY_ALLOC1(nf_ddf_ids);
static u32 nf_ddf_next_id; /* under nf_ddf_ids' lock */

/*
 * A filter built from params (resolved) in bytes of new memory. Not zeroed
 * on allocation: ddf_filter_init() writes every byte of it, and zeroing it
 * twice doubles the cost of a rule of up to max_rule_bytes.
 */
struct nf_ddf_fmem *nf_ddf_fmem_new(const struct ddf_params *params, u64 bytes)
{
	struct nf_ddf_fmem *fm;

	fm = kzalloc(sizeof(*fm), GFP_KERNEL_ACCOUNT);
	if (!fm)
		return NULL;
	refcount_set(&fm->refs, 1);
	fm->mem = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!fm->mem)
		goto err;
	fm->bytes = bytes;
	fm->filter = ddf_filter_init(fm->mem, bytes, params, ktime_get_ns());
	if (!fm->filter)
		goto err;
	return fm;
err:
	kvfree(fm->mem);
	kfree(fm);
	return NULL;
}

void nf_ddf_fmem_free(struct nf_ddf_fmem *fm)
{
	if (fm) {
		kvfree(fm->mem);
		kfree(fm);
	}
}

static void nf_ddf_fmem_put(struct nf_ddf_fmem *fm)
{
	if (refcount_dec_and_test(&fm->refs))
		nf_ddf_fmem_free(fm);
}

/* The rule's reference, a grace period after no packet can find fm. */
static void nf_ddf_fmem_put_rcu(struct rcu_head *head)
{
	nf_ddf_fmem_put(container_of(head, struct nf_ddf_fmem, rcu));
}

/*
 * A rule with its filter (params resolved, mem_bytes its memsize), ndevs
 * ports (family netdev; names unset) and counters, holding one reference
 * (the table's once inserted); NULL when memory is short or the core
 * refuses the params.
 */
struct nf_ddf_rule *nf_ddf_rule_alloc(const struct ddf_params *params,
				      u64 mem_bytes, u8 ndevs)
{
	struct nf_ddf_rule *rule;
	struct nf_ddf_fmem *fm;
	unsigned int i;
	int cpu;

	rule = kzalloc(struct_size(rule, ports, ndevs), GFP_KERNEL_ACCOUNT);
	if (!rule)
		return NULL;
	rule->ndevs = ndevs;
	for (i = 0; i < ndevs; i++) {
		rule->ports[i].rule = rule;
		rule->ports[i].slot = i;
	}
	refcount_set(&rule->refs, 1);
	seqcount_init(&rule->zero_seq);
	seqcount_init(&rule->dev_seq);
	rule->params = *params;
	rule->mem_bytes = mem_bytes;
	fm = nf_ddf_fmem_new(params, mem_bytes);
	if (!fm)
		goto err;
	RCU_INIT_POINTER(rule->fm, fm);
	/* a slot per device, and one for the rest */
	rule->stats = __alloc_percpu_gfp(sizeof(struct nf_ddf_pcpu) * (ndevs + 1),
					 __alignof__(struct nf_ddf_pcpu),
					 GFP_KERNEL_ACCOUNT);
	if (!rule->stats)
		goto err;
	for_each_possible_cpu(cpu)
		for (i = 0; i <= ndevs; i++)
			u64_stats_init(&(per_cpu_ptr(rule->stats, cpu) + i)->syncp);
	return rule;
err:
	nf_ddf_rule_free(rule);
	return NULL;
}

/* Free a rule no CPU can see any more (or never saw). */
void nf_ddf_rule_free(struct nf_ddf_rule *rule)
{
	if (!rule)
		return;
	free_percpu(rule->stats);
	/* a reader may still scan it: the last reference frees it */
	if (rcu_access_pointer(rule->fm))
		nf_ddf_fmem_put(rcu_dereference_protected(rule->fm, 1));
	kfree(rule);
}

static void nf_ddf_rule_free_rcu(struct rcu_head *head)
{
	nf_ddf_rule_free(container_of(head, struct nf_ddf_rule, rcu));
}

/*
 * Drop a reference. The last one frees the rule after a grace period:
 * packets may still be inside it (a hook or a match, under RCU). By then
 * it is off its table's list and off its hook.
 */
void nf_ddf_rule_put(struct nf_ddf_rule *rule)
{
	if (refcount_dec_and_test(&rule->refs))
		call_rcu(&rule->rcu, nf_ddf_rule_free_rcu);
}

/* The xtables matches using a rule on a table (all references but its). */
unsigned int nf_ddf_rule_users(const struct nf_ddf_rule *rule)
{
	return refcount_read(&rule->refs) - 1;
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

/*
 * Before a change of the list: a dump (under RCU) that sees the change
 * sees the new generation when it reads it after the rules.
 */
static void nf_ddf_rules_changing(struct nf_ddf_net *dn)
{
	WRITE_ONCE(dn->gen, dn->gen + 1);
	smp_wmb(); /* pairs with smp_rmb() in nf_ddf_dump() */
}

/*
 * Publish a rule: on its hook (the packet path finds it through the hook
 * only), then on the list, then its advance worker. On failure the rule is
 * not published and still the caller's, to put: an inet hook registers
 * IPv4 then IPv6, and when IPv6 fails the IPv4 half, undone without a
 * grace period, may still have packets inside the rule.
 */
int nf_ddf_rule_insert(struct nf_ddf_net *dn, struct nf_ddf_rule *rule)
{
	int err;

	lockdep_assert_held(&dn->lock);
	/*
	 * The number XDP programs find the rule by: cyclic, so that a program
	 * left attached to a deleted rule's number does not soon find another.
	 */
	err = xa_alloc_cyclic(&nf_ddf_ids, &rule->id, rule,
			      XA_LIMIT(1, INT_MAX), &nf_ddf_next_id,
			      GFP_KERNEL);
	if (err < 0)
		return err;
	err = nf_ddf_hook_register(rule);
	if (err) {
		xa_erase(&nf_ddf_ids, rule->id);
		return err;
	}
	dn->bytes += rule->mem_bytes;
	nf_ddf_rules_changing(dn);
	list_add_tail_rcu(&rule->list, &dn->rules);
	nf_ddf_advance_start(rule);
	return 0;
}

/*
 * Unpublish a rule and put it on gone, for nf_ddf_rules_retire() once the
 * table's lock is dropped: its advance worker may be shifting generations
 * (clearing segments of the filter), and the wait for it must not hold
 * the lock that device events take under RTNL.
 */
void nf_ddf_rule_remove(struct nf_ddf_net *dn, struct nf_ddf_rule *rule,
			struct list_head *gone)
{
	lockdep_assert_held(&dn->lock);
	xa_erase(&nf_ddf_ids, rule->id);
	nf_ddf_hook_unregister(rule);
	nf_ddf_rules_changing(dn);
	list_del_rcu(&rule->list);
	dn->bytes -= rule->mem_bytes;
	list_add_tail(&rule->gone, gone);
}

void nf_ddf_rule_flush(struct nf_ddf_net *dn, struct list_head *gone)
{
	struct nf_ddf_rule *rule, *next;

	lockdep_assert_held(&dn->lock);
	list_for_each_entry_safe(rule, next, &dn->rules, list)
		nf_ddf_rule_remove(dn, rule, gone);
}

/*
 * With no lock held: stop the removed rules' advance workers and drop the
 * table's references. Hook invocations run under RCU, so one still inside
 * a rule finishes before the free. xtables matches may still hold
 * references (only when the namespace goes away: the netlink commands
 * refuse to delete a rule in use); they keep a complete rule, off its hook
 * and with no advance worker, until their own destroy puts it.
 */
void nf_ddf_rules_retire(struct list_head *gone)
{
	struct nf_ddf_rule *rule, *next;

	list_for_each_entry_safe(rule, next, gone, gone) {
		list_del(&rule->gone);
		nf_ddf_advance_stop(rule);
		nf_ddf_rule_put(rule);
	}
}

/* The counters' sums of one slot (a device's, or the rest's) since load. */
static void nf_ddf_slot_sum(const struct nf_ddf_rule *rule, unsigned int slot,
			    struct nf_ddf_pcpu *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct nf_ddf_pcpu *c = per_cpu_ptr(rule->stats, cpu) + slot;
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

static const struct nf_ddf_pcpu *
nf_ddf_slot_zero(const struct nf_ddf_rule *rule, unsigned int slot)
{
	return slot < rule->ndevs ? &rule->ports[slot].zero : &rule->zero;
}

static void nf_ddf_pcpu_add(struct nf_ddf_pcpu *sum, const struct nf_ddf_pcpu *c)
{
	sum->packets += c->packets;
	sum->bytes += c->bytes;
	sum->duplicates += c->duplicates;
	sum->dropped += c->dropped;
	sum->marked += c->marked;
	sum->unparsed += c->unparsed;
}

/*
 * The counters of slot since the last reset. The sums are read after the
 * snapshot and with no reset in between: a snapshot newer than the sums
 * would make them wrap below zero.
 */
void nf_ddf_port_stats(const struct nf_ddf_rule *rule, unsigned int slot,
		       struct nf_ddf_pcpu *sum)
{
	struct nf_ddf_pcpu z;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&rule->zero_seq);
		z = *nf_ddf_slot_zero(rule, slot);
		nf_ddf_slot_sum(rule, slot, sum);
	} while (read_seqcount_retry(&rule->zero_seq, seq));
	sum->packets -= z.packets;
	sum->bytes -= z.bytes;
	sum->duplicates -= z.duplicates;
	sum->dropped -= z.dropped;
	sum->marked -= z.marked;
	sum->unparsed -= z.unparsed;
}

/* The rule's counters since the last reset: every slot's. */
void nf_ddf_rule_stats(const struct nf_ddf_rule *rule, struct nf_ddf_pcpu *sum)
{
	struct nf_ddf_pcpu s;
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i <= rule->ndevs; i++) {
		nf_ddf_port_stats(rule, i, &s);
		nf_ddf_pcpu_add(sum, &s);
	}
}

/*
 * The rule's filter with a reference, for a scan with no lock and no RCU
 * read-side section held; the caller holds RCU (or the table's lock).
 */
struct nf_ddf_fmem *nf_ddf_rule_fmem_get(const struct nf_ddf_rule *rule)
{
	struct nf_ddf_fmem *fm = rcu_dereference_check(rule->fm, 1);

	/* its put waits a grace period: never zero while it can be found */
	refcount_inc(&fm->refs);
	return fm;
}

/* The filter's state (for some kinds a scan of all of it), and the put. */
void nf_ddf_fmem_stats_put(struct nf_ddf_fmem *fm, struct ddf_stats *st)
{
	ddf_filter_stats(fm->filter, st);
	nf_ddf_fmem_put(fm);
}

/*
 * Zero the counters and, with fm (a new filter built for the rule's params
 * by the caller, with no lock held, which this takes over), empty the
 * filter: fm is swapped in, so packets racing the reset use either the old
 * filter or the new one, never a half-cleared one. The old one is freed
 * after a grace period. Nothing here grows with the filter's size: the
 * caller holds the table's lock.
 */
void nf_ddf_rule_reset(struct nf_ddf_rule *rule, struct nf_ddf_fmem *fm)
{
	struct nf_ddf_pcpu sum;
	unsigned int i;

	/* counters count on from the snapshot: only the packet path writes them */
	for (i = 0; i <= rule->ndevs; i++) {
		nf_ddf_slot_sum(rule, i, &sum);
		preempt_disable(); /* a reader spins while the count is odd */
		write_seqcount_begin(&rule->zero_seq);
		if (i < rule->ndevs)
			rule->ports[i].zero = sum;
		else
			rule->zero = sum;
		write_seqcount_end(&rule->zero_seq);
		preempt_enable();
	}
	if (fm) {
		fm = rcu_replace_pointer(rule->fm, fm, true);
		call_rcu(&fm->rcu, nf_ddf_fmem_put_rcu);
	}
}

void nf_ddf_net_table_init(struct nf_ddf_net *dn)
{
	mutex_init(&dn->lock);
	mutex_init(&dn->build_lock);
	INIT_LIST_HEAD(&dn->rules);
	dn->bytes = 0;
	dn->gen = 0;
}

void nf_ddf_net_table_exit(struct nf_ddf_net *dn)
{
	LIST_HEAD(gone);

	mutex_lock(&dn->lock);
	nf_ddf_rule_flush(dn, &gone);
	mutex_unlock(&dn->lock);
	nf_ddf_rules_retire(&gone);
	mutex_destroy(&dn->lock);
	mutex_destroy(&dn->build_lock);
}
