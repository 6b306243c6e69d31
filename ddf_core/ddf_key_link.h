/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The link layer and the tunnels around a packet's IP header (the rules
 * are in ddf_key.h, "Link layer" and "Tunnels"): the Ethernet walk over
 * VLAN tags and MPLS labels, the tunnel headers whose inner packet a key
 * may take, and the frame form's byte string. Every read goes through
 * ddf_key_rd() or ddf_key_get(), bounded by the reader or the packet.
 * Included by ddf_key.c alone: code shared between core files lives in
 * headers, so each core file still builds and links on its own.
 */
#ifndef DDF_KEY_LINK_H
#define DDF_KEY_LINK_H

#include "ddf_key_priv.h"
#include "ddf_key_region.h"

#define DDF_ETH_8021Q 0x8100u
#define DDF_ETH_8021AD 0x88a8u
#define DDF_ETH_QINQ9100 0x9100u
#define DDF_ETH_MPLS_UC 0x8847u
#define DDF_ETH_MPLS_MC 0x8848u
#define DDF_ETH_TEB 0x6558u /* transparent Ethernet bridging */
#define DDF_ETH_ERSPAN2 0x88beu
#define DDF_ETH_ERSPAN3 0x22ebu
#define DDF_GTPU_MAX_EXT 8u

static bool ddf_link_is_tag(uint16_t type)
{
	return type == DDF_ETH_8021Q || type == DDF_ETH_8021AD ||
	       type == DDF_ETH_QINQ9100;
}

/*
 * Walk lv's Ethernet header, tags and labels: lv->ip and lv->l3 when an
 * IPv4 or IPv6 packet follows, the VLAN IDs in any case. A frame cut short
 * anywhere on the way has no IP packet.
 */
static void ddf_link_walk(struct ddf_key_pkt *p, struct ddf_key_level *lv)
{
	uint32_t off = lv->start + 14;
	const uint8_t *h;
	uint16_t type;

	lv->ip = false;
	lv->nvlan = 0;
	lv->inframe = 0;
	if (lv->tag_proto)
		lv->vid[lv->nvlan++] = lv->tag_tci & 0x0fff;
	if (lv->end - lv->start < 14)
		return;
	h = ddf_key_rd(p, lv->start + 12, 2);
	if (!h)
		return;
	type = ddf_key_be16(h);
	while (ddf_link_is_tag(type)) {
		if (lv->nvlan >= DDF_KEY_MAX_VLANS || off + 4 > lv->end)
			return;
		h = ddf_key_rd(p, off, 4);
		if (!h)
			return;
		lv->vid[lv->nvlan++] = ddf_key_be16(h) & 0x0fff;
		lv->inframe++;
		type = ddf_key_be16(h + 2);
		off += 4;
	}
	if (type == DDF_ETH_MPLS_UC || type == DDF_ETH_MPLS_MC) {
		unsigned int i;

		for (i = 0; i < DDF_KEY_MAX_MPLS; i++) {
			if (off + 4 > lv->end)
				return;
			h = ddf_key_rd(p, off, 4);
			if (!h)
				return;
			off += 4;
			if (h[2] & 0x01) /* bottom of the stack */
				break;
		}
		if (i == DDF_KEY_MAX_MPLS || off + 1 > lv->end)
			return;
		h = ddf_key_rd(p, off, 1);
		if (!h || (h[0] >> 4 != 4 && h[0] >> 4 != 6))
			return;
		lv->ver = h[0] >> 4;
	} else if (type == DDF_ETH_IPV4) {
		lv->ver = 4;
	} else if (type == DDF_ETH_IPV6) {
		lv->ver = 6;
	} else {
		return;
	}
	lv->ip = true;
	lv->l3 = off;
}

/* The packet behind a tunnel header of hlen bytes at off (IP packet). */
static int ddf_link_inner(struct ddf_key_pkt *p, uint32_t off, uint32_t hlen,
			  bool ether, struct ddf_key_level *in)
{
	if (!ddf_key_has(p, off, hlen))
		return DDF_TUN_BAD;
	in->start = p->base + off + hlen;
	in->end = p->base + p->len;
	in->ether = ether;
	in->tag_proto = 0;
	in->tag_tci = 0;
	return DDF_TUN_OPEN;
}

/* Geneve at off: version 0, options, then Ethernet or IP. */
static int ddf_link_geneve(struct ddf_key_pkt *p, uint32_t off,
			   struct ddf_key_level *in)
{
	const uint8_t *h = ddf_key_get(p, off, 8);
	uint16_t type;

	if (!h || h[0] >> 6)
		return DDF_TUN_BAD;
	type = ddf_key_be16(h + 2);
	if (type != DDF_ETH_TEB && type != DDF_ETH_IPV4 && type != DDF_ETH_IPV6)
		return DDF_TUN_BAD;
	return ddf_link_inner(p, off, 8 + (uint32_t)(h[0] & 0x3f) * 4,
			      type == DDF_ETH_TEB, in);
}

/* GTP-U at off: a G-PDU's optional words and extension headers, then IP. */
static int ddf_link_gtpu(struct ddf_key_pkt *p, uint32_t off,
			 struct ddf_key_level *in)
{
	const uint8_t *h = ddf_key_get(p, off, 8);
	uint32_t hlen = 8;
	uint8_t next;

	/* version 1, protocol type GTP */
	if (!h || h[0] >> 5 != 1 || !(h[0] & 0x10))
		return DDF_TUN_BAD;
	if (h[1] != 0xff) /* signalling, not user data: nothing inside */
		return DDF_TUN_NONE;
	if (h[0] & 0x07) {
		bool ext = h[0] & 0x04;

		h = ddf_key_get(p, off + 8, 4);
		if (!h)
			return DDF_TUN_BAD;
		hlen = 12;
		next = ext ? h[3] : 0;
		for (unsigned int i = 0; next; i++) {
			uint32_t elen;

			h = ddf_key_get(p, off + hlen, 1);
			if (!h || !h[0] || i == DDF_GTPU_MAX_EXT)
				return DDF_TUN_BAD;
			elen = (uint32_t)h[0] * 4;
			h = ddf_key_get(p, off + hlen + elen - 1, 1);
			if (!h)
				return DDF_TUN_BAD;
			next = h[0];
			hlen += elen;
		}
	}
	return ddf_link_inner(p, off, hlen, false, in);
}

/* GRE at off (version 0), and ERSPAN over it. */
static int ddf_link_gre(struct ddf_key_pkt *p, const struct ddf_key_spec *s,
			uint32_t off, struct ddf_key_level *in)
{
	const uint8_t *h = ddf_key_get(p, off, 4);
	uint32_t hlen = 4;
	uint16_t fl, type;

	if (!h)
		return DDF_TUN_BAD;
	fl = ddf_key_be16(h);
	type = ddf_key_be16(h + 2);
	if (fl & 0x0007) /* version 1 is PPTP's enhanced GRE */
		return DDF_TUN_NONE;
	if (fl & 0x4000) /* source routing, obsolete */
		return DDF_TUN_BAD;
	hlen += fl & 0x8000 ? 4 : 0; /* checksum and reserved */
	hlen += fl & 0x2000 ? 4 : 0; /* key */
	hlen += fl & 0x1000 ? 4 : 0; /* sequence number */
	if ((s->decap & DDF_KD_GRE) &&
	    (type == DDF_ETH_IPV4 || type == DDF_ETH_IPV6 || type == DDF_ETH_TEB))
		return ddf_link_inner(p, off, hlen, type == DDF_ETH_TEB, in);
	if (!(s->decap & DDF_KD_ERSPAN))
		return DDF_TUN_NONE;
	if (type == DDF_ETH_ERSPAN2 && !(fl & 0x1000)) /* type I */
		return ddf_link_inner(p, off, hlen, true, in);
	if (type == DDF_ETH_ERSPAN2) { /* type II: version 1 */
		h = ddf_key_get(p, off + hlen, 8);
		if (!h || h[0] >> 4 != 1)
			return DDF_TUN_BAD;
		return ddf_link_inner(p, off, hlen + 8, true, in);
	}
	if (type == DDF_ETH_ERSPAN3) { /* type III: version 2, O flag */
		h = ddf_key_get(p, off + hlen, 12);
		if (!h || h[0] >> 4 != 2)
			return DDF_TUN_BAD;
		return ddf_link_inner(p, off, hlen + 12 + (h[11] & 0x01 ? 8 : 0),
				      true, in);
	}
	return DDF_TUN_NONE;
}

/*
 * Whether the IP packet p has parsed (p->ki) is a tunnel s opens: the
 * packet inside goes to *in. Only whole, unfragmented packets are opened.
 */
static int ddf_link_tunnel(struct ddf_key_pkt *p, const struct ddf_key_spec *s,
		    struct ddf_key_level *in)
{
	const struct ddf_key_info *ki = &p->ki;
	uint32_t l4 = ki->l4off;
	const uint8_t *h;
	uint16_t dport;

	if (!(ki->flags & DDF_KEY_F_L4) || (ki->flags & DDF_KEY_F_FRAG))
		return DDF_TUN_NONE;
	if (ki->proto == DDF_IPPROTO_GRE &&
	    (s->decap & (DDF_KD_GRE | DDF_KD_ERSPAN)))
		return ddf_link_gre(p, s, l4, in);
	if (ki->proto != DDF_IPPROTO_UDP ||
	    !(s->decap & (DDF_KD_VXLAN | DDF_KD_GENEVE | DDF_KD_GTPU)))
		return DDF_TUN_NONE;
	if (!(ki->flags & DDF_KEY_F_L4HDR))
		return DDF_TUN_NONE; /* no whole UDP header: no port */
	h = ddf_key_get(p, l4 + 2, 2);
	if (!h)
		return DDF_TUN_NONE;
	dport = ddf_key_be16(h);
	if ((s->decap & DDF_KD_VXLAN) &&
	    dport == (s->vxlan_port ? s->vxlan_port : DDF_KEY_VXLAN_PORT)) {
		h = ddf_key_get(p, l4 + 8, 8);
		if (!h || !(h[0] & 0x08)) /* the I flag: a valid VNI */
			return DDF_TUN_BAD;
		return ddf_link_inner(p, l4 + 8, 8, true, in);
	}
	if ((s->decap & DDF_KD_GENEVE) &&
	    dport == (s->geneve_port ? s->geneve_port : DDF_KEY_GENEVE_PORT))
		return ddf_link_geneve(p, l4 + 8, in);
	if ((s->decap & DDF_KD_GTPU) && dport == DDF_KEY_GTPU_PORT)
		return ddf_link_gtpu(p, l4 + 8, in);
	return DDF_TUN_NONE;
}

/*
 * Hash [from, to) of the reader, the bytes below zero_to as zeros; false
 * when the reader fails.
 */
static bool ddf_link_bytes(struct ddf_key_pkt *p, uint32_t from, uint32_t to,
			   uint32_t zero_to)
{
	if (zero_to <= from) /* as they are: plain words */
		return p->st.c == 1 ? ddf_key_plain(p, &p->st, from, to, 1) :
				      ddf_key_plain(p, &p->st, from, to, p->st.c);
	for (uint32_t off = from; off < to; off += DDF_KEY_READ_MAX) {
		uint32_t c = to - off < DDF_KEY_READ_MAX ? to - off :
							   DDF_KEY_READ_MAX;
		const uint8_t *d = ddf_key_rd(p, off, c);

		if (!d)
			return false;
		if (off < zero_to) {
			uint32_t z = zero_to - off < c ? zero_to - off : c;

			if (d != p->buf)
				memcpy(p->buf, d, c);
			memset(p->buf, 0, z);
			d = p->buf;
		}
		ddf_sip_update(&p->st, d, c);
	}
	return true;
}

/* [from, to) of the reader as a long key's region (ddf_key_region()). */
static bool ddf_link_region(struct ddf_key_pkt *p, uint32_t from, uint32_t to)
{
	return p->st.c == 1 ? ddf_key_region(p, &p->st, from, to, 0, 0, 1) :
			      ddf_key_region(p, &p->st, from, to, 0, 0, p->st.c);
}

/*
 * The frame form over a level: 'R', the bytes, their count. An Ethernet
 * frame gets its taken-out tag back behind the MACs (ignore vlan: every
 * tag out), its MACs as zeros with ignore mac. The string is its pieces:
 * [s, split) (the MACs, or all of a frame that is not Ethernet), the tag,
 * [resume, e); a long one's region is its bytes from DDF_KEY_HEAD on,
 * [rs, e) of the reader, which lie in the last piece (a frame that is not
 * Ethernet has no other).
 */
static bool ddf_link_frame(struct ddf_key_pkt *p, const struct ddf_key_level *lv,
		    uint32_t ignore)
{
	uint32_t s = lv->start, e = lv->end, n = e - s, mac = s;
	uint32_t split = e, resume = e, rs = e;
	bool tagged = false;
	uint8_t tag[4];

	ddf_sip_update(&p->st, "R", 1);
	if (lv->ether) {
		split = n < 12 ? e : s + 12;
		resume = split;
		if (ignore & DDF_KI_MAC)
			mac = split;
		if (ignore & DDF_KI_VLAN) {
			resume = split + 4u * lv->inframe;
			n -= 4u * lv->inframe;
		}
		tagged = lv->tag_proto && !(ignore & DDF_KI_VLAN);
		n += tagged ? 4 : 0;
	}
	if (n > DDF_KEY_HEAD + DDF_KEY_NH_OVER) {
		if (split == e)
			rs = split = resume = s + DDF_KEY_HEAD;
		else
			rs = resume + DDF_KEY_HEAD - (split - s) -
			     (tagged ? 4 : 0);
	}
	if (!ddf_link_bytes(p, s, split, mac))
		return false;
	if (tagged) {
		tag[0] = (uint8_t)(lv->tag_proto >> 8);
		tag[1] = (uint8_t)lv->tag_proto;
		tag[2] = (uint8_t)(lv->tag_tci >> 8);
		tag[3] = (uint8_t)lv->tag_tci;
		ddf_sip_update(&p->st, tag, 4);
	}
	if (!ddf_link_bytes(p, resume, rs, 0) || !ddf_link_region(p, rs, e))
		return false;
	ddf_key_put_be32(p->buf, n);
	ddf_sip_update(&p->st, p->buf, 4);
	p->ki.len = n;
	return true;
}

/* The VLAN prefix of an IP packet's key: 'Q', the count, the IDs. */
static void ddf_link_vlans(struct ddf_key_pkt *p, const struct ddf_key_level *lv)
{
	uint8_t *b = p->buf;

	b[0] = 'Q';
	b[1] = lv->nvlan;
	for (unsigned int i = 0; i < lv->nvlan; i++) {
		b[2 + 2 * i] = (uint8_t)(lv->vid[i] >> 8);
		b[3 + 2 * i] = (uint8_t)lv->vid[i];
	}
	ddf_sip_update(&p->st, b, 2 + 2u * lv->nvlan);
}

#endif /* DDF_KEY_LINK_H */
