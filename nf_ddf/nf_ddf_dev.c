// SPDX-License-Identifier: GPL-2.0
/*
 * Rules of family netdev and their devices. A netdev rule names one or
 * more devices of its namespace (at most DDF_DEVS_MAX: a capture box's
 * ports, whose copies of a packet arrive on different devices), which share
 * its filter, window and counters, each with counters of its own beside.
 * Its hook sits on each device's netdev ingress or egress hook while that
 * device is there, as an nft netdev chain hooks `devices = { ... }`.
 *
 * Each device comes and goes on its own. When one goes away (unregistered,
 * or moved to another namespace) its hook goes with it and its port waits,
 * detached, until a device of that name appears in the rule's namespace;
 * the rule's other devices are untouched. A renamed device keeps its rules,
 * which take its new name. A device is on at most one port of a rule: a
 * port waiting for a name that one of the rule's devices takes by a rename
 * keeps waiting, or every frame of that device would be judged twice.
 *
 * The ports' devices and names change under RTNL and the table's lock
 * (taken in that order, here and in the NEW handler); a hook is on a device
 * only while the device is registered, so unregistering it never touches a
 * freed device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "nf_ddf.h"

static void nf_ddf_port_set(struct nf_ddf_port *port, struct net_device *dev)
{
	struct nf_ddf_rule *rule = port->rule;

	preempt_disable(); /* a reader spins while the count is odd */
	write_seqcount_begin(&rule->dev_seq);
	WRITE_ONCE(port->dev, dev);
	if (dev)
		strscpy(port->name, dev->name, IFNAMSIZ);
	write_seqcount_end(&rule->dev_seq);
	preempt_enable();
}

/* Put the port's hook on dev, a device of the rule's namespace. */
static int nf_ddf_port_attach(struct nf_ddf_port *port, struct net_device *dev)
{
	int err;

	ASSERT_RTNL();
	nf_ddf_port_set(port, dev);
	err = nf_ddf_port_hook_register(port);
	if (err)
		nf_ddf_port_set(port, NULL);
	return err;
}

static void nf_ddf_port_detach(struct nf_ddf_port *port)
{
	ASSERT_RTNL();
	nf_ddf_port_hook_unregister(port);
	nf_ddf_port_set(port, NULL);
}

/*
 * The name and index of the rule's device i as a dump may read them, under
 * RCU only: ifindex 0 while that port is detached.
 */
void nf_ddf_dev_name(const struct nf_ddf_rule *rule, unsigned int i,
		     char *name, int *ifindex)
{
	const struct nf_ddf_port *port = &rule->ports[i];
	const struct net_device *dev;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&rule->dev_seq);
		dev = READ_ONCE(port->dev);
		*ifindex = dev ? dev->ifindex : 0;
		memcpy(name, port->name, IFNAMSIZ);
	} while (read_seqcount_retry(&rule->dev_seq, seq));
	name[IFNAMSIZ - 1] = '\0';
}

/*
 * The counters' slot of frames of dev (an XDP program's device): its
 * port's, or the last one when dev is none of the rule's.
 */
unsigned int nf_ddf_dev_slot(const struct nf_ddf_rule *rule,
			     const struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < rule->ndevs; i++)
		if (READ_ONCE(rule->ports[i].dev) == dev)
			return i;
	return rule->ndevs;
}

static int nf_ddf_no_dev(const char *name, struct nlattr **attrs,
			 struct netlink_ext_ack *extack)
{
#ifdef NL_SET_ERR_MSG_FMT_MOD
	NL_SET_ERR_MSG_FMT_MOD(extack,
			       "no device %s in the rule's network namespace",
			       name);
#else
	NL_SET_ERR_MSG_MOD(extack, "no such device in the rule's network namespace");
#endif
	NL_SET_BAD_ATTR(extack, attrs[DDF_A_DEVS] ?: attrs[DDF_A_DEV]);
	return -ENODEV;
}

/*
 * Whether every device of a new netdev rule is in its namespace now. With
 * rtnl (RTNL held, the rule not yet published) each port takes its device;
 * without, the check is made under RCU, before the rule is built.
 */
int nf_ddf_dev_lookup(struct nf_ddf_rule *rule, bool rtnl,
		      struct nlattr **attrs, struct netlink_ext_ack *extack)
{
	struct net_device *dev;
	unsigned int i;

	for (i = 0; i < rule->ndevs; i++) {
		struct nf_ddf_port *port = &rule->ports[i];

		if (rtnl) {
			dev = __dev_get_by_name(rule->net, port->name);
			port->dev = dev;
		} else {
			rcu_read_lock();
			dev = dev_get_by_name_rcu(rule->net, port->name);
			rcu_read_unlock();
		}
		if (!dev)
			return nf_ddf_no_dev(port->name, attrs, extack);
	}
	return 0;
}

static bool nf_ddf_rule_has_dev(const struct nf_ddf_rule *rule,
				const struct net_device *dev)
{
	return nf_ddf_dev_slot(rule, dev) < rule->ndevs;
}

static void nf_ddf_dev_event_port(struct nf_ddf_port *port,
				  struct net_device *dev, unsigned long event)
{
	struct nf_ddf_rule *rule = port->rule;
	int err;

	switch (event) {
	case NETDEV_UNREGISTER: /* also when it leaves the namespace */
		if (port->dev == dev)
			nf_ddf_port_detach(port);
		break;
	case NETDEV_CHANGENAME:
		if (port->dev == dev) {
			nf_ddf_port_set(port, dev);
			break;
		}
		fallthrough; /* renamed to the name a detached port waits for */
	case NETDEV_REGISTER:
		if (port->dev || strncmp(port->name, dev->name, IFNAMSIZ) ||
		    nf_ddf_rule_has_dev(rule, dev))
			break;
		err = nf_ddf_port_attach(port, dev);
		if (err)
			pr_warn("rule %s: cannot attach to %s: %d\n", rule->name,
				dev->name, err);
		break;
	}
}

static int nf_ddf_dev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct nf_ddf_net *dn;
	struct nf_ddf_rule *rule;
	unsigned int i;

	if (event != NETDEV_REGISTER && event != NETDEV_UNREGISTER &&
	    event != NETDEV_CHANGENAME)
		return NOTIFY_DONE;
	dn = nf_ddf_pernet(dev_net(dev));
	mutex_lock(&dn->lock);
	list_for_each_entry(rule, &dn->rules, list)
		for (i = 0; i < rule->ndevs; i++)
			nf_ddf_dev_event_port(&rule->ports[i], dev, event);
	mutex_unlock(&dn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block nf_ddf_dev_nb = {
	.notifier_call = nf_ddf_dev_event,
};

int nf_ddf_dev_notifier_register(void)
{
	return register_netdevice_notifier(&nf_ddf_dev_nb);
}

void nf_ddf_dev_notifier_unregister(void)
{
	unregister_netdevice_notifier(&nf_ddf_dev_nb);
}
