// SPDX-License-Identifier: GPL-2.0
/*
 * Rules of family netdev and their devices. A netdev rule names a device
 * of its namespace; its hook sits on that device's netdev ingress or
 * egress hook while the device is there. When the device goes away
 * (unregistered, or moved to another namespace) the hook goes with it and
 * the rule stays, detached, until a device of that name appears in its
 * namespace: then it attaches to that one, as nft's netdev chains do. A
 * renamed device keeps its rules, which take its new name.
 *
 * The device and the name change under RTNL and the table's lock (taken
 * in that order, here and in the NEW handler); a hook is on a device only
 * while the device is registered, so unregistering it never touches a
 * freed device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "nf_ddf.h"

static void nf_ddf_dev_set(struct nf_ddf_rule *rule, struct net_device *dev)
{
	preempt_disable(); /* a reader spins while the count is odd */
	write_seqcount_begin(&rule->dev_seq);
	WRITE_ONCE(rule->dev, dev);
	if (dev)
		strscpy(rule->devname, dev->name, IFNAMSIZ);
	write_seqcount_end(&rule->dev_seq);
	preempt_enable();
}

/* Put rule's hook on dev, a device of the rule's namespace. */
int nf_ddf_dev_attach(struct nf_ddf_rule *rule, struct net_device *dev)
{
	int err;

	ASSERT_RTNL();
	nf_ddf_dev_set(rule, dev);
	err = nf_ddf_hook_register(rule);
	if (err)
		nf_ddf_dev_set(rule, NULL);
	return err;
}

void nf_ddf_dev_detach(struct nf_ddf_rule *rule)
{
	ASSERT_RTNL();
	nf_ddf_hook_unregister(rule);
	nf_ddf_dev_set(rule, NULL);
}

/*
 * The device's name and index as a dump may read them, under RCU only:
 * ifindex 0 while the rule is detached.
 */
void nf_ddf_dev_name(const struct nf_ddf_rule *rule, char *name, int *ifindex)
{
	const struct net_device *dev;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&rule->dev_seq);
		dev = READ_ONCE(rule->dev);
		*ifindex = dev ? dev->ifindex : 0;
		memcpy(name, rule->devname, IFNAMSIZ);
	} while (read_seqcount_retry(&rule->dev_seq, seq));
	name[IFNAMSIZ - 1] = '\0';
}

static void nf_ddf_dev_event_rule(struct nf_ddf_rule *rule,
				  struct net_device *dev, unsigned long event)
{
	int err;

	switch (event) {
	case NETDEV_UNREGISTER: /* also when it leaves the namespace */
		if (rule->dev == dev)
			nf_ddf_dev_detach(rule);
		break;
	case NETDEV_CHANGENAME:
		if (rule->dev == dev) {
			nf_ddf_dev_set(rule, dev);
			break;
		}
		fallthrough; /* renamed to the name a detached rule waits for */
	case NETDEV_REGISTER:
		if (rule->dev || strncmp(rule->devname, dev->name, IFNAMSIZ))
			break;
		err = nf_ddf_dev_attach(rule, dev);
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

	if (event != NETDEV_REGISTER && event != NETDEV_UNREGISTER &&
	    event != NETDEV_CHANGENAME)
		return NOTIFY_DONE;
	dn = nf_ddf_pernet(dev_net(dev));
	mutex_lock(&dn->lock);
	list_for_each_entry(rule, &dn->rules, list)
		if (rule->family == NFPROTO_NETDEV)
			nf_ddf_dev_event_rule(rule, dev, event);
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
