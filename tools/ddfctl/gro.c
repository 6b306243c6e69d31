// SPDX-License-Identifier: GPL-2.0
/*
 * GRO and LRO at a netdev ingress rule's device. GRO (in the kernel, after
 * XDP and before the taps and netdev ingress), hardware GRO and LRO (in
 * the NIC) merge a TCP stream's segments into trains. The two copies of a
 * stream arrive in other batches, so they are merged differently, and the
 * trains the rule sees do not match. ddfctl says so, once per device,
 * with the fix; it asks the device through the ethtool ioctl, as
 * `ethtool -k` does, so that no library is needed.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/netfilter.h>
#include <linux/sockios.h>

#include "ddfctl.h"

/* The features (ETH_SS_FEATURES) that merge segments. */
static const struct {
	const char *string; /* the kernel's (ethtool -k may say another) */
	unsigned int bit;
	const char *what; /* in the warning */
	const char *off; /* the words of ethtool -K that turn it off */
} merging[] = {
	{ "rx-gro", GRO_SW, "GRO", "gro off" },
	{ "rx-gro-hw", GRO_HW, "hardware GRO", "rx-gro-hw off" },
	{ "rx-lro", GRO_LRO, "LRO", "lro off" },
};

#define N_MERGING (sizeof(merging) / sizeof(merging[0]))

static int ethtool(int fd, const char *dev, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

/* The number of feature strings of dev, or 0. */
static uint32_t feature_count(int fd, const char *dev)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} info;

	memset(&info, 0, sizeof(info));
	info.hdr.cmd = ETHTOOL_GSSET_INFO;
	info.hdr.sset_mask = 1ull << ETH_SS_FEATURES;
	if (ethtool(fd, dev, &info) ||
	    !(info.hdr.sset_mask & (1ull << ETH_SS_FEATURES)))
		return 0;
	/* the kernel's own list is a few hundred; more is not a feature set */
	return info.len <= 4096 ? info.len : 0;
}

/*
 * The bits of the merging features on at dev (GRO_SW, GRO_HW, GRO_LRO),
 * and of those the driver does not let ethtool change (fixed; NULL: not
 * wanted): 0, or -1 when dev does not exist or does not answer.
 */
int gro_state(const char *dev, unsigned int *on, unsigned int *fixed)
{
	struct ethtool_gstrings *names = NULL;
	struct ethtool_gfeatures *feat = NULL;
	uint32_t n, blocks, i, k, bit;
	int fd, ret = -1;

	*on = 0;
	if (fixed)
		*fixed = 0;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	n = feature_count(fd, dev);
	if (!n)
		goto out;
	blocks = (n + 31) / 32;
	names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
	feat = calloc(1, sizeof(*feat) + blocks * sizeof(feat->features[0]));
	if (!names || !feat)
		goto out;
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_FEATURES;
	names->len = n;
	feat->cmd = ETHTOOL_GFEATURES;
	feat->size = blocks;
	if (ethtool(fd, dev, names) || ethtool(fd, dev, feat) ||
	    names->len != n)
		goto out;
	for (i = 0; i < n; i++) {
		const char *s = (const char *)names->data + i * ETH_GSTRING_LEN;

		bit = 1u << (i % 32);
		if (!(feat->features[i / 32].active & bit))
			continue;
		for (k = 0; k < N_MERGING; k++) {
			if (strncmp(s, merging[k].string, ETH_GSTRING_LEN))
				continue;
			*on |= merging[k].bit;
			if (fixed && !(feat->features[i / 32].available & bit))
				*fixed |= merging[k].bit;
		}
	}
	ret = 0;
out:
	free(names);
	free(feat);
	close(fd);
	return ret;
}

/* The names of the features of bits, "GRO and LRO"; their number. */
static unsigned int list_what(char *buf, size_t size, unsigned int bits)
{
	unsigned int n = 0, i = 0, k;
	size_t len = 0;

	for (k = 0; k < N_MERGING; k++)
		n += !!(bits & merging[k].bit);
	buf[0] = 0;
	for (k = 0; k < N_MERGING && len < size; k++) {
		if (!(bits & merging[k].bit))
			continue;
		i++;
		len += snprintf(buf + len, size - len, "%s%s",
				i == 1 ? "" : i == n ? " and " : ", ",
				merging[k].what);
	}
	return n;
}

/* Has dev been warned about already in this command? (and now it has) */
static bool warned_before(const char *dev)
{
	static char warned[16][IFNAMSIZ];
	static unsigned int n;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(warned[i], dev))
			return true;
	if (n < sizeof(warned) / sizeof(warned[0]))
		snprintf(warned[n++], IFNAMSIZ, "%s", dev);
	return false;
}

/* How devices are asked: the message tests put a stand-in here. */
int (*gro_ask)(const char *dev, unsigned int *on,
	       unsigned int *fixed) = gro_state;

/*
 * The warning for dev with the features of on, fixed those of them that
 * its driver does not let ethtool turn off; on is not 0. No newline.
 */
void gro_sentence(char *buf, size_t size, const char *dev, unsigned int on,
		  unsigned int fixed)
{
	char what[64], cannot[64], fix[96];
	unsigned int k, n;
	size_t len;

	fixed &= on;
	n = list_what(what, sizeof(what), on);
	list_what(cannot, sizeof(cannot), fixed);
	/* ethtool -K with the features the driver lets it turn off */
	len = snprintf(fix, sizeof(fix), "ethtool -K %s", dev);
	for (k = 0; k < N_MERGING && len < sizeof(fix); k++)
		if ((on & ~fixed) & merging[k].bit)
			len += snprintf(fix + len, sizeof(fix) - len, " %s",
					merging[k].off);
	len = snprintf(buf, size,
		       "ddfctl: warning: %s has %s on: %s before the netdev ingress hook, so TCP copies do not match; ",
		       dev, what,
		       !(on & ~GRO_SW) ? "the kernel merges TCP segments" :
		       !(on & GRO_SW) ? "the NIC merges TCP segments" :
					"the kernel and the NIC merge TCP segments");
	if (len >= size)
		return;
	if (on == fixed)
		snprintf(buf + len, size - len, "its driver cannot turn %s off",
			 cannot);
	else if (fixed)
		snprintf(buf + len, size - len,
			 "turn off what can be (%s; its driver cannot turn %s off)",
			 fix, cannot);
	else
		/* XDP runs before the kernel's GRO, not before the NIC's */
		snprintf(buf + len, size - len, "turn %s off (%s)%s",
			 n > 1 ? "them" : "it", fix,
			 on == GRO_SW ?
				 " or attach ddf by XDP, which runs before GRO" :
				 "");
}

/*
 * One sentence on stderr when dev merges segments, once per device and
 * command. Nothing when it does not, or cannot be asked: that is for the
 * kernel to refuse, not for this warning.
 */
void gro_warn(const char *dev)
{
	unsigned int on, fixed;
	char line[512];

	if (!dev[0] || gro_ask(dev, &on, &fixed) || !on || warned_before(dev))
		return;
	gro_sentence(line, sizeof(line), dev, on, fixed);
	fprintf(stderr, "%s\n", line);
}

static bool at_ingress(const struct ddf_rule_spec *r)
{
	return family_netdev(r->family) && r->hook == NF_NETDEV_INGRESS;
}

/* A rule at netdev ingress: gro_warn() for each of its devices. */
void gro_warn_rule(const struct ddf_rule_spec *r)
{
	unsigned int i;

	if (!at_ingress(r))
		return;
	for (i = 0; i < r->ndevs && i < DDF_DEVS_MAX; i++)
		gro_warn(r->devs[i]);
}

/*
 * JSON, in the object of the device dev of such a rule: `, "gro": true`
 * or false, when the device answers
 */
void gro_json(FILE *out, const struct ddf_rule_spec *r, const char *dev)
{
	unsigned int on;

	if (!at_ingress(r) || !dev[0] || gro_ask(dev, &on, NULL))
		return;
	fprintf(out, ", \"gro\": %s", on ? "true" : "false");
}
