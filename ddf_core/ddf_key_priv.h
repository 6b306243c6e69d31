/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What ddf_key.c (the IP packet and its key), ddf_key_link.h (the link
 * layer and tunnels around it) and ddf_key_fast.h (the common frame's fast
 * path) share: one packet's parsing state, the bounded reads through the
 * caller's reader and the pieces the key strings are built of. Private to
 * the core.
 */
#ifndef DDF_KEY_PRIV_H
#define DDF_KEY_PRIV_H

#include "ddf_key.h"

#define DDF_IPPROTO_HOPOPTS 0
#define DDF_IPPROTO_ICMP 1
#define DDF_IPPROTO_TCP 6
#define DDF_IPPROTO_UDP 17
#define DDF_IPPROTO_ROUTING 43
#define DDF_IPPROTO_FRAGMENT 44
#define DDF_IPPROTO_GRE 47
#define DDF_IPPROTO_AH 51
#define DDF_IPPROTO_ICMPV6 58
#define DDF_IPPROTO_DSTOPTS 60
#define DDF_IPPROTO_SCTP 132
#define DDF_IPPROTO_UDPLITE 136

#define DDF_ETH_IPV4 0x0800u
#define DDF_ETH_IPV6 0x86ddu

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
	const struct ddf_nh_key *nh; /* the regions' NH key */
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
 * Stream [off, end) of the reader (not of the IP packet) into st as they
 * are, with c rounds: no mask, no shift, no loop per byte. A packet whole
 * in memory goes in at once; through a reader the chunks start on a word
 * of the stream (the first one completes the pending word), so every
 * word is loaded straight from the packet and only the last 0..7 bytes
 * are left pending. False when a read fails.
 */
static DDF_ALWAYS_INLINE bool ddf_key_plain(struct ddf_key_pkt *p,
					    struct ddf_sipstate *st,
					    uint32_t off, uint32_t end, int c)
{
	if (off >= end)
		return true;
	if (end > p->flen)
		return false;
	if (!p->read) {
		ddf_sip_stream(st, ((const struct ddf_key_flat *)p->ctx)->data +
					   off,
			       end - off, c);
		return true;
	}
	while (off < end) {
		uint32_t a = (8 - (st->len & 7)) & 7;
		uint32_t n = DDF_KEY_READ_MAX - (a ? 8 - a : 0);
		const uint8_t *d;

		if (n > end - off)
			n = end - off;
		d = ddf_key_rd(p, off, n);
		if (!d)
			return false;
		ddf_sip_stream(st, d, n, c);
		off += n;
	}
	return true;
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

/*
 * The two ways to a key behind ddf_key_hash_link(), each on its own, for
 * the differential test (tests/core/user/test_key_diff.c) that compares
 * them: the fast path for the common frame (ddf_key_fast.h), which
 * returns DDF_KEY_FAST_NONE and writes nothing for any other frame, and
 * the general walk (ddf_key.c), for any frame.
 */
#define DDF_KEY_FAST_NONE (-1)

int ddf_key_fast(const struct ddf_key_spec *spec,
		 const struct ddf_key_link *lk, ddf_key_read_t read, void *ctx,
		 uint32_t len, const struct ddf_key_secret *key, uint32_t hashfn,
		 struct ddf_hash *out, struct ddf_key_info *info);
int ddf_key_general(const struct ddf_key_spec *spec,
		    const struct ddf_key_link *lk, ddf_key_read_t read,
		    void *ctx, uint32_t len, const struct ddf_key_secret *key,
		    uint32_t hashfn, struct ddf_hash *out,
		    struct ddf_key_info *info);

/* ---- the key string's pieces (ddf_key.c and ddf_key_fast.h) ---- */

/* v's low n bytes, most significant first (big-endian on the wire). */
static DDF_ALWAYS_INLINE void ddf_key_push_be(struct ddf_sipstate *st,
					      uint64_t v, uint32_t n,
					      int rounds)
{
	uint64_t w = 0;

	for (uint32_t i = 0; i < n; i++)
		w |= (v >> (8 * (n - 1 - i)) & 0xff) << (8 * i);
	ddf_sip_push(st, w, n, rounds);
}

/*
 * The field form's string is put together in a small buffer, a few stores
 * a piece, and compressed a word at a time: pushing its one- and two-byte
 * pieces into the stream one by one cost more than the SipHash rounds.
 * The buffer starts with the bytes the stream has pending (a link layer's
 * tail), so its words are the stream's. Its head (up to the payload's
 * bytes) is at most 69 bytes (two IPv6 addresses and every other field);
 * a payload of up to DDF_KEY_READ_MAX bytes joins it, a longer one is
 * streamed from the packet after it.
 */
#define DDF_KEY_FBUF (8 + 69 + DDF_KEY_READ_MAX + 16)

/*
 * The count is kept apart from the bytes (b points at an array of the
 * caller's): byte stores may alias anything in their own object, so a
 * count beside them would be reloaded and stored again after each piece.
 */
struct ddf_key_fbuf {
	uint8_t *b;
	uint32_t n;
};

/*
 * Append n (1..8) bytes given as a little-endian value w: all 8 bytes are
 * stored (the compiler merges the byte stores into one), the next piece
 * goes over those past n. No memcpy(): a fortified kernel checks each
 * call at run time, and one of variable length is a call.
 */
static DDF_ALWAYS_INLINE void ddf_fbuf_put(struct ddf_key_fbuf *kb,
					   uint64_t w, uint32_t n)
{
	uint8_t *d = kb->b + kb->n;

	d[0] = (uint8_t)w;
	d[1] = (uint8_t)(w >> 8);
	d[2] = (uint8_t)(w >> 16);
	d[3] = (uint8_t)(w >> 24);
	d[4] = (uint8_t)(w >> 32);
	d[5] = (uint8_t)(w >> 40);
	d[6] = (uint8_t)(w >> 48);
	d[7] = (uint8_t)(w >> 56);
	kb->n += n;
}

/* Append the n bytes at d, 8 at a time. */
static DDF_ALWAYS_INLINE void ddf_fbuf_copy(struct ddf_key_fbuf *kb,
					    const uint8_t *d, uint32_t n)
{
	for (; n >= 8; n -= 8, d += 8)
		ddf_fbuf_put(kb, ddf_sip_load_le64(d), 8);
	if (n)
		ddf_fbuf_put(kb, ddf_sip_partial(d, n), n);
}

/* Start kb with st's pending bytes, taking them out of st. */
static DDF_ALWAYS_INLINE void ddf_fbuf_begin(struct ddf_key_fbuf *kb,
					     struct ddf_sipstate *st)
{
	kb->n = 0;
	ddf_fbuf_put(kb, st->tail, st->len & 7);
	st->len -= kb->n;
	st->tail = 0;
}

/* Compress kb's whole words into st, its last bytes pending; empty kb. */
static DDF_ALWAYS_INLINE void ddf_fbuf_flush(struct ddf_key_fbuf *kb,
					     struct ddf_sipstate *st,
					     int rounds)
{
	uint32_t i;

	for (i = 0; i + 8 <= kb->n; i += 8)
		ddf_sip_compress(st, ddf_sip_load_le64(kb->b + i), rounds);
	st->tail = ddf_sip_partial(kb->b + i, kb->n - i);
	st->len += kb->n;
	kb->n = 0;
}

#endif /* DDF_KEY_PRIV_H */
