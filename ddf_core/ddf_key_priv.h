/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What ddf_key.c (the IP packet and its key) and ddf_key_link.h (the link
 * layer and tunnels around it) share: one packet's parsing state and the
 * bounded reads through the caller's reader. Private to the core.
 */
#ifndef DDF_KEY_PRIV_H
#define DDF_KEY_PRIV_H

#include "ddf_key.h"

/*
 * Everything one packet's key needs, in one place so that the phases
 * inlined into the entry points share their stack. Offsets in the IP
 * parse are relative to base, the IP header's place in the reader.
 */
struct ddf_key_pkt {
	ddf_key_read_t read;
	void *ctx;
	uint32_t flen; /* bytes the reader shows */
	uint32_t base; /* the IP header, in the reader */
	uint32_t len; /* min(l3len, IP length) once known, else l3len */
	bool failed; /* the reader failed inside the packet */
	struct ddf_key_info ki;
	struct ddf_sipstate st;
	uint8_t buf[DDF_KEY_READ_MAX]; /* scratch for reads and key bytes */
};

static inline uint16_t ddf_key_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t ddf_key_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void ddf_key_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* [off, off + n) of the reader (not of the IP packet), if inside it. */
static inline const uint8_t *ddf_key_rd(struct ddf_key_pkt *p, uint32_t off,
					uint32_t n)
{
	const uint8_t *d;

	if (off > p->flen || n > p->flen - off || n > DDF_KEY_READ_MAX)
		return NULL;
	if (!p->read) /* flat: inside flen, so inside the buffer */
		return ((const struct ddf_key_flat *)p->ctx)->data + off;
	d = p->read(p->ctx, off, n, p->buf);
	if (!d)
		p->failed = true; /* a broken reader, not a short packet */
	return d;
}

/* [off, off + n) of the IP packet if it lies inside it, else NULL. */
static inline const uint8_t *ddf_key_get(struct ddf_key_pkt *p, uint32_t off,
					 uint32_t n)
{
	if (off > p->len || n > p->len - off)
		return NULL;
	return ddf_key_rd(p, p->base + off, n);
}

static inline bool ddf_key_has(const struct ddf_key_pkt *p, uint32_t off,
			       uint32_t n)
{
	return off <= p->len && n <= p->len - off;
}

/*
 * A frame or packet at one level of nesting: [start, end) of the reader;
 * ether: it starts with an Ethernet header. What the link walk found in it.
 */
struct ddf_key_level {
	uint32_t start, end;
	bool ether;
	bool ip; /* an IP packet of version ver starts at l3 */
	uint8_t ver;
	uint8_t nvlan; /* VLAN IDs, outermost first, the taken-out tag too */
	uint8_t inframe; /* the tags in the frame, right behind the MACs */
	uint32_t l3;
	uint16_t tag_proto, tag_tci; /* a tag taken out of the frame */
	uint16_t vid[DDF_KEY_MAX_VLANS];
};

/* ddf_link_tunnel() (ddf_key_link.h) */
#define DDF_TUN_NONE 0 /* not a tunnel the spec opens */
#define DDF_TUN_OPEN 1 /* *in is the packet inside */
#define DDF_TUN_BAD 2 /* a tunnel asked for, its header unusable */

#endif /* DDF_KEY_PRIV_H */
