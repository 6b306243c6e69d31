// SPDX-License-Identifier: GPL-2.0
/*
 * The words of a rule that say where it sits and how much of a frame its
 * key sees: the family and its hooks, the link-layer ignore words (vlan,
 * mac), key frame, and the tunnels the key opens (decap); the devices'
 * names are ifname.c's. They depend on each other (a hook word means
 * something only in its family), so parse.c keeps them as given and
 * check_link() judges them together once every word is read.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>

#include "ddfctl.h"

static const struct ddf_word families[] = {
	{ "ip", NFPROTO_IPV4 },	  { "ip6", NFPROTO_IPV6 },
	{ "inet", NFPROTO_INET }, { "netdev", NFPROTO_NETDEV },
	{ NULL, 0 },
};

/* the hooks of the IP families (ip, ip6, inet) */
static const struct ddf_word inet_hooks[] = {
	{ "prerouting", NF_INET_PRE_ROUTING },
	{ "input", NF_INET_LOCAL_IN },
	{ "forward", NF_INET_FORWARD },
	{ "output", NF_INET_LOCAL_OUT },
	{ "postrouting", NF_INET_POST_ROUTING },
	{ "none", DDF_HOOK_NONE },
	{ NULL, 0 },
};

/* the hooks of family netdev: a device's frames, in or out */
static const struct ddf_word netdev_hooks[] = {
	{ "ingress", NF_NETDEV_INGRESS },
	{ "egress", NF_NETDEV_EGRESS },
	{ "none", DDF_HOOK_NONE },
	{ NULL, 0 },
};

const struct ddf_word ddf_key_decaps[] = {
	{ "vxlan", DDF_KD_VXLAN }, { "geneve", DDF_KD_GENEVE },
	{ "gre", DDF_KD_GRE },	   { "erspan", DDF_KD_ERSPAN },
	{ "gtpu", DDF_KD_GTPU },   { NULL, 0 },
};

const char *family_name(uint8_t f)
{
	return word_name(families, f);
}

const char *hook_name(uint8_t family, uint8_t h)
{
	return word_name(family == NFPROTO_NETDEV ? netdev_hooks : inet_hooks,
			 h);
}

bool family_netdev(uint8_t family)
{
	return family == NFPROTO_NETDEV;
}

int parse_family(const char *s, uint8_t *family)
{
	uint32_t v;

	if (word_value(families, s, &v))
		return ddfctl_err("family: '%s' is not ip, ip6, inet or netdev",
				  s);
	*family = (uint8_t)v;
	return 0;
}

/* A hook of some family; which one it is depends on the family. */
int parse_hook(const char *s)
{
	uint32_t v;

	if (word_value(inet_hooks, s, &v) && word_value(netdev_hooks, s, &v))
		return ddfctl_err("hook: '%s' is not prerouting, input, forward, output, postrouting, ingress, egress or none",
				  s);
	return 0;
}

const char *list_word(const char *list, const struct ddf_word *t,
		      uint32_t bits, char *buf, size_t size)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		uint32_t v;

		if (n && n < size) {
			memcpy(buf, p, n);
			buf[n] = 0;
			if (!word_value(t, buf, &v) && (v & bits))
				return buf;
		}
		p += n;
		if (*p)
			p++;
	}
	return NULL;
}

/* A UDP port, 1 .. 65535, in decimal; 0 when s is none. */
static uint16_t parse_port(const char *s)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)s[0]))
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 65535)
		return 0;
	return (uint16_t)v;
}

/* the UDP port each listed tunnel is found on */
static int decap_ports(const struct ddf_key_spec *k, const char *s)
{
	const struct {
		uint32_t bit;
		const char *name;
		unsigned int port;
	} udp[] = {
		{ DDF_KD_VXLAN, "vxlan",
		  k->vxlan_port ? k->vxlan_port : DDF_KEY_VXLAN_PORT },
		{ DDF_KD_GENEVE, "geneve",
		  k->geneve_port ? k->geneve_port : DDF_KEY_GENEVE_PORT },
		{ DDF_KD_GTPU, "gtpu", DDF_KEY_GTPU_PORT },
	};

	for (unsigned int i = 0; i < DDF_ARRAY_SIZE(udp); i++)
		for (unsigned int j = i + 1; j < DDF_ARRAY_SIZE(udp); j++)
			if ((k->decap & udp[i].bit) && (k->decap & udp[j].bit) &&
			    udp[i].port == udp[j].port)
				return ddfctl_err("decap: %s and %s are both on UDP port %u in '%s': a port carries one tunnel",
						  udp[i].name, udp[j].name,
						  udp[i].port, s);
	return 0;
}

/*
 * decap TUNNEL[,TUNNEL...] | none, TUNNEL one of vxlan[:PORT],
 * geneve[:PORT], gre, erspan, gtpu. A port equal to the default is kept
 * as 0 (the default), so a rule has one spelling.
 */
int parse_decap(const char *s, struct ddf_key_spec *k)
{
	char buf[128], *tok, *save;
	uint32_t mask = 0, v;
	uint16_t vxlan = 0, geneve = 0;
	bool none = false;

	if (strlen(s) >= sizeof(buf))
		return ddfctl_err("decap: '%s' is too long", s);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		uint16_t port = 0;

		if (colon)
			*colon++ = 0;
		if (!strcmp(tok, "none") && !colon) {
			none = true;
			continue;
		}
		if (word_value(ddf_key_decaps, tok, &v)) {
			ddfctl_err("decap: '%s' is not a tunnel (vxlan and geneve take :PORT; none opens none); known tunnels:",
				   tok);
			for (const struct ddf_word *t = ddf_key_decaps; t->name;
			     t++)
				fprintf(stderr, " %s", t->name);
			fputc('\n', stderr);
			return -1;
		}
		if (mask & v)
			return ddfctl_err("decap: '%s' is named twice in '%s'",
					  tok, s);
		if (colon && v != DDF_KD_VXLAN && v != DDF_KD_GENEVE)
			return ddfctl_err("decap: '%s:%s': %s has no port to give (only vxlan and geneve take :PORT)",
					  tok, colon, tok);
		if (colon && !(port = parse_port(colon)))
			return ddfctl_err("decap: '%s' in '%s' is not a UDP port (1 to 65535)",
					  colon, s);
		if (v == DDF_KD_VXLAN)
			vxlan = port == DDF_KEY_VXLAN_PORT ? 0 : port;
		if (v == DDF_KD_GENEVE)
			geneve = port == DDF_KEY_GENEVE_PORT ? 0 : port;
		mask |= v;
	}
	if (none && mask)
		return ddfctl_err("decap: 'none' is listed with tunnels in '%s'",
				  s);
	if (!none && !mask)
		return ddfctl_err("decap: '%s' names no tunnel", s);
	k->decap = mask;
	k->vxlan_port = vxlan;
	k->geneve_port = geneve;
	return decap_ports(k, s);
}

void print_decap(FILE *out, const struct ddf_key_spec *k)
{
	const char *sep = "";

	for (const struct ddf_word *t = ddf_key_decaps; t->name; t++) {
		if (!(k->decap & t->value))
			continue;
		fprintf(out, "%s%s", sep, t->name);
		if (t->value == DDF_KD_VXLAN && k->vxlan_port &&
		    k->vxlan_port != DDF_KEY_VXLAN_PORT)
			fprintf(out, ":%u", k->vxlan_port);
		if (t->value == DDF_KD_GENEVE && k->geneve_port &&
		    k->geneve_port != DDF_KEY_GENEVE_PORT)
			fprintf(out, ":%u", k->geneve_port);
		sep = ",";
	}
	if (!*sep)
		fputs("none", out);
}

/* The hook word in the rule's family; its default when none was given. */
static int resolve_hook(struct ddf_rule_spec *r, const char *word)
{
	bool netdev = r->family == NFPROTO_NETDEV;
	uint32_t v;

	if (!word) {
		r->hook = netdev ? NF_NETDEV_INGRESS : NF_INET_PRE_ROUTING;
		return 0;
	}
	if (!word_value(netdev ? netdev_hooks : inet_hooks, word, &v)) {
		r->hook = (uint8_t)v;
		return 0;
	}
	if (netdev)
		return ddfctl_err("hook: '%s' is a hook of the IP families; family netdev has ingress, egress and none",
				  word);
	return ddfctl_err("hook: '%s' is a hook of family netdev (a device's frames); family %s has prerouting, input, forward, output, postrouting and none",
			  word, family_name(r->family));
}

/* family netdev: bound to one device, its frames seen whole */
static int check_netdev(struct ddf_rule_spec *r, const struct rule_words *w)
{
	if (!r->ndevs && !w->offline)
		return ddfctl_err("rule add: '%s' has family netdev: give dev DEV[,DEV...], the devices whose frames it sees",
				  r->name);
	if (r->iif[0])
		return ddfctl_err("iif: '%s' is refused with family netdev: the rule sees the frames of its dev only",
				  r->iif);
	if (r->oif[0])
		return ddfctl_err("oif: '%s' is refused with family netdev: the rule sees the frames of its dev only",
				  r->oif);
	return 0;
}

/* the IP families: packets from their IP header on, of every device */
static int check_ip(struct ddf_rule_spec *r, const struct rule_words *w)
{
	const char *fam = family_name(r->family);
	bool frame = r->key.form == DDF_KEY_FRAME;
	char buf[32];
	const char *l2;

	if (r->ndevs)
		return ddfctl_err("dev: '%s' binds a rule of family netdev to a device; family %s sees the packets of every device (iif and oif select some)",
				  r->devs[0], fam);
	if (frame && !w->offline)
		return ddfctl_err("key: 'frame' needs family netdev: IP hooks see packets from their IP header on");
	l2 = w->ignore ? list_word(w->ignore, ddf_key_ignores, DDF_KI_L2, buf,
				   sizeof(buf)) :
			 NULL;
	if (l2 && frame)
		return ddfctl_err("ignore: '%s' needs family netdev: 'key frame' of family %s hashes every captured byte as it is",
				  l2, fam);
	if (l2)
		return ddfctl_err("ignore: '%s' needs family netdev: IP hooks never see the link layer",
				  l2);
	if (frame && r->key.decap)
		return ddfctl_err("decap: '%s' opens tunnels of parsed packets; 'key frame' of family %s hashes every captured byte unparsed (family netdev parses the frame)",
				  w->decap, fam);
	return 0;
}

/*
 * Where the rule sits and what its key sees: the hook resolved in its
 * family, the device, and the ignore words each form takes. The field and
 * frame forms keep only the link-layer ignore bits: they mask no bytes.
 */
int check_link(struct ddf_rule_spec *r, const struct rule_words *w)
{
	bool netdev = r->family == NFPROTO_NETDEV;
	char buf[32];
	const char *word;

	if (resolve_hook(r, w->hook))
		return -1;
	if (netdev ? check_netdev(r, w) : check_ip(r, w))
		return -1;
	if (r->key.form == DDF_KEY_PACKET || !w->ignore)
		goto out;
	word = list_word(w->ignore, ddf_key_ignores, ~DDF_KI_L2, buf,
			 sizeof(buf));
	if (word && r->key.form == DDF_KEY_FRAME)
		return ddfctl_err("ignore: '%s' masks bytes of 'key packet'; 'key frame' hashes every byte of the frame (its ignore words are vlan and mac)",
				  word);
	if (word)
		return ddfctl_err("ignore: '%s' masks bytes of 'key packet'; with 'key %s' leave the field out of the list instead",
				  word, w->key);
out:
	if (r->key.form != DDF_KEY_PACKET)
		r->key.ignore &= DDF_KI_L2;
	return 0;
}
