/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's packet reader over an skb: the key is read only through
 * skb_header_pointer(), so linear, paged and fragment-list skbs all work
 * and nothing past skb->len is ever touched.
 */
#ifndef NF_DDF_SKB_H
#define NF_DDF_SKB_H

#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>

#include "ddf_key.h"

struct nf_ddf_skb_ctx {
	const struct sk_buff *skb;
	int nhoff; /* where the reader starts, from skb->data (MAC: < 0) */
};

static inline const void *nf_ddf_skb_read(void *ctx, u32 off, u32 len,
					  void *buf)
{
	const struct nf_ddf_skb_ctx *c = ctx;

	return skb_header_pointer(c->skb, c->nhoff + (int)off, len, buf);
}

/*
 * A linear skb (no paged or frag_list data, the common case up to the
 * MTU) is whole in memory from nhoff: the core reads it in place, with no
 * call per read (a NULL reader with a ddf_key_flat). nhoff may be below
 * 0 (the MAC header at ingress): it is inside the head buffer then.
 */
static inline ddf_key_read_t nf_ddf_skb_reader(const struct sk_buff *skb,
					       struct nf_ddf_skb_ctx *c,
					       struct ddf_key_flat *flat,
					       u32 len, void **ctx)
{
	if (!skb_is_nonlinear(skb)) {
		flat->data = skb->data + c->nhoff;
		flat->len = len;
		*ctx = flat;
		return NULL;
	}
	*ctx = c;
	return nf_ddf_skb_read;
}

/*
 * Whether the packet nhoff bytes into skb is of the hook's family pf: its
 * version nibble says 4 in an IPv4 hook, 6 in an IPv6 one. The receive
 * paths check it, but a raw socket (IP_HDRINCL, IPV6_HDRINCL) hands the
 * output hooks any bytes: an IPv4 hook's packet that says version 6 is no
 * IPv6 packet to parse, nor another family's to pass over uncounted, but
 * an unparsed one, as ddfctl replay counts a record whose link layer names
 * the other version. True for other families, and for an empty packet
 * (the key finds no IP header in it).
 */
static inline bool nf_ddf_skb_family_ok(const struct sk_buff *skb,
					unsigned int nhoff, u8 pf)
{
	const u8 *v;
	u8 buf;

	if (pf != NFPROTO_IPV4 && pf != NFPROTO_IPV6)
		return true;
	v = skb_header_pointer(skb, nhoff, 1, &buf);
	return !v || *v >> 4 == (pf == NFPROTO_IPV4 ? 4 : 6);
}

/*
 * Hash the IP packet that starts nhoff bytes into skb (its network header
 * in a netfilter hook) under spec; as ddf_key_hash().
 */
static inline int nf_ddf_skb_hash(const struct ddf_key_spec *spec,
				  const struct sk_buff *skb, unsigned int nhoff,
				  const struct ddf_key_secret *key, u32 hashfn,
				  struct ddf_hash *out,
				  struct ddf_key_info *info)
{
	struct nf_ddf_skb_ctx c = { .skb = skb, .nhoff = nhoff };
	u32 l3len = skb->len > nhoff ? skb->len - nhoff : 0;
	struct ddf_key_flat flat;
	ddf_key_read_t read;
	void *ctx;

	read = nf_ddf_skb_reader(skb, &c, &flat, l3len, &ctx);
	return ddf_key_hash(spec, read, ctx, l3len, key, hashfn, out, info);
}

/*
 * The hook's nf_ddf_skb_hash() (no info), of a packet held to the hook's
 * family pf: DDF_KEY_NOT_IP where nf_ddf_skb_family_ok() says no, so that
 * it is counted unparsed. A linear skb's version nibble is read in place,
 * where the key reads it; l3len > 0 says the byte is there.
 */
static __always_inline int nf_ddf_skb_hash_pf(const struct ddf_key_spec *spec,
					      const struct sk_buff *skb,
					      unsigned int nhoff, u8 pf,
					      const struct ddf_key_secret *key,
					      u32 hashfn, struct ddf_hash *out)
{
	struct nf_ddf_skb_ctx c = { .skb = skb, .nhoff = nhoff };
	u32 l3len = skb->len > nhoff ? skb->len - nhoff : 0;
	/* written before it is read: not zeroed per packet */
	struct ddf_key_flat flat DDF_NOINIT;
	ddf_key_read_t read;
	void *ctx;

	read = nf_ddf_skb_reader(skb, &c, &flat, l3len, &ctx);
	if ((pf == NFPROTO_IPV4 || pf == NFPROTO_IPV6) && l3len &&
	    (read ? !nf_ddf_skb_family_ok(skb, nhoff, pf) :
		    *flat.data >> 4 != (pf == NFPROTO_IPV4 ? 4 : 6)))
		return DDF_KEY_NOT_IP;
	return ddf_key_hash(spec, read, ctx, l3len, key, hashfn, out, NULL);
}

/*
 * Hash the frame of a netdev hook under spec, as ddf_key_hash_link(): an
 * Ethernet device's frame from its MAC header (behind skb->data at
 * ingress, at it at egress), with a tag the device or the stack took out
 * of it; any other device's packet from its network header.
 */
static inline int nf_ddf_skb_hash_frame(const struct ddf_key_spec *spec,
					const struct sk_buff *skb,
					const struct ddf_key_secret *key, u32 hashfn,
					struct ddf_hash *out,
					struct ddf_key_info *info)
{
	struct ddf_key_link lk = { DDF_LINK_NONE, 0, 0 };
	struct nf_ddf_skb_ctx c = { .skb = skb };
	int off = skb_network_offset(skb), len;
	struct ddf_key_flat flat DDF_NOINIT; /* written before it is read */
	ddf_key_read_t read;
	void *ctx;

	if (skb->dev && skb->dev->type == ARPHRD_ETHER &&
	    skb_mac_header_was_set(skb) && skb_mac_offset(skb) <= 0) {
		lk.type = DDF_LINK_ETHER;
		off = skb_mac_offset(skb);
		if (skb_vlan_tag_present(skb)) {
			lk.vlan_proto = ntohs(skb->vlan_proto);
			lk.vlan_tci = skb_vlan_tag_get(skb);
		}
	}
	c.nhoff = off;
	len = (int)skb->len - off;
	if (len < 0)
		len = 0;
	read = nf_ddf_skb_reader(skb, &c, &flat, len, &ctx);
	return ddf_key_hash_link(spec, &lk, read, ctx, len, key, hashfn, out,
				 info);
}

#endif /* NF_DDF_SKB_H */
