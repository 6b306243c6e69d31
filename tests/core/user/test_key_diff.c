// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The key's fast path (ddf_core/ddf_key_fast.h) against its general walk
 * (ddf_key.c): both driven over the same frames under the same specs,
 * the first difference in the result, the hash, any info field, or a
 * write the contract forbids fails the test, with the frame in hex and
 * the spec. The general walk is the definition; the fast path must give
 * its answer for every frame it takes and leave every other alone.
 *
 * Crafted cases first: every ignore mask and every field set over common
 * frames, and every frame of a set (common ones, tagged, labelled,
 * tunnelled, with options, fragments and extension headers) cut at every
 * byte, with its IP length left as it was and made to fit the cut. Then
 * generated frames, mostly common ones and every kind the fast path must
 * leave alone, under generated specs (every form, family, protocol
 * selector, tunnel set and hash), through the flat buffer and, for some,
 * a reader callback (non-linear: the fast path must refuse it, and the
 * entry point must answer as the general walk does over the flat bytes).
 * The reader is a plain callback or the reader over pieces (as a
 * multi-buffer XDP frame's, ddf_key_segs.h), the frame cut into pieces
 * with junk behind each; crafted frames are cut at every offset, so that
 * a piece ends at every byte of the stream's words. The bytes behind a
 * frame are random, so that a read past its end shows.
 *
 *   DDF_KEYDIFF_SEED=S DDF_KEYDIFF_FRAMES=N build/ddf_core_tests ddf_key_diff
 * (default: a new seed each run, printed first; 10^6 frames)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ddf_test.h"
#include "ddf_test_nh_ref.h"
#include "ddf_key_priv.h"
#include "ddf_key_segs.h"
#include "key_string.h"

#define KD_CAP 4096u
#define KD_FRAMES 1000000ull
#define KD_VXLAN_ALT 8472u /* a vxlan_port of the spec's own */
#define KD_GENEVE_ALT 6082u
#define KD_MAXCUTS 8u /* reader 3: the frame in up to 9 pieces */
#define KD_JUNK 16u /* behind each piece */

/* One case: a frame, how it is handed over, and the spec. */
struct kd_case {
	uint8_t *b; /* KD_CAP bytes, the frame first */
	uint32_t len;
	struct ddf_key_link lk;
	bool lk_null;
	/*
	 * 0: flat (NULL reader); 1, 2: callback in place, copying; 3: in
	 * pieces, cut at cut[0..ncut) (ascending, inside the frame)
	 */
	int reader;
	uint32_t cut[KD_MAXCUTS], ncut;
	uint8_t *arena; /* the pieces, junk behind each */
	struct ddf_key_spec s;
	uint32_t hashfn;
	const char *what; /* where it came from */
};

struct kd_stats {
	uint64_t cases, fast, fast_res[5], fast_kind[2][2][2], reader;
	uint64_t refs, regions; /* held against the definition, with one */
	uint64_t pieces; /* of reader, through reader 3 */
	uint64_t gen_res[5], gen_flags[16], gen_vlans, gen_decaps, gen_ext;
};

struct kd_run {
	ddf_test_t *t;
	uint64_t rng, seed;
	struct ddf_key_secret key;
	struct kd_stats st;
	uint8_t *str, *e; /* the key's string, the reference's room */
	bool failed;
};

static uint32_t kd_below(uint64_t *rng, uint32_t n)
{
	return n ? (uint32_t)(ddf_test_rand(rng) % n) : 0;
}

static bool kd_chance(uint64_t *rng, uint32_t pct)
{
	return kd_below(rng, 100) < pct;
}

static void kd_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void kd_fill(uint8_t *p, uint32_t n, uint64_t *rng)
{
	uint64_t r = 0;

	for (uint32_t i = 0; i < n; i++, r >>= 8) {
		if (!(i & 7))
			r = ddf_test_rand(rng);
		p[i] = (uint8_t)r;
	}
}

/* The bytes behind a frame, random: a read past its end shows. */
#define KD_BEHIND 256u

static void kd_behind(uint8_t *b, uint32_t len, uint64_t *rng)
{
	kd_fill(b + len, KD_CAP - len < KD_BEHIND ? KD_CAP - len : KD_BEHIND,
		rng);
}

/* ---- the reader callback: the frame in pieces ---- */

struct kd_reader {
	const uint8_t *data;
	uint32_t len;
	bool copy;
};

static const void *kd_read(void *ctx, uint32_t off, uint32_t len, void *buf)
{
	const struct kd_reader *r = ctx;

	if (off > r->len || len > r->len - off)
		return NULL;
	if (!r->copy)
		return r->data + off;
	memcpy(buf, r->data + off, len);
	return buf;
}

/* The pieces of reader 3, copied out of the frame with junk behind. */
struct kd_pieces {
	const uint8_t *p[KD_MAXCUTS + 1];
	uint32_t n[KD_MAXCUTS + 1], count;
};

static const uint8_t *kd_seg(void *pkt, uint32_t i, uint32_t *len)
{
	const struct kd_pieces *ps = pkt;

	if (i >= ps->count)
		return NULL;
	*len = ps->n[i];
	return ps->p[i];
}

static void kd_pieces(struct kd_pieces *ps, const struct kd_case *c,
		      uint64_t *rng)
{
	uint8_t *a = c->arena;
	uint32_t from = 0;

	ps->count = c->ncut + 1;
	for (uint32_t i = 0; i <= c->ncut; i++) {
		uint32_t to = i < c->ncut ? c->cut[i] : c->len;

		memcpy(a, c->b + from, to - from);
		kd_fill(a + to - from, KD_JUNK, rng);
		ps->p[i] = a;
		ps->n[i] = to - from;
		a += to - from + KD_JUNK;
		from = to;
	}
}

/* Random cuts for reader 3: pieces of any length, short ones often. */
static void kd_rand_cuts(struct kd_case *c, uint64_t *rng)
{
	uint32_t at = 0;

	c->ncut = 1 + kd_below(rng, KD_MAXCUTS);
	for (uint32_t i = 0; i < c->ncut; i++) {
		at += kd_chance(rng, 50) ? kd_below(rng, 12) :
					   kd_below(rng, 400);
		if (at > c->len)
			at = c->len;
		c->cut[i] = at;
	}
}

/* ---- frames ---- */

/* What an IP packet is made of (kd_ip()). */
struct kd_pkt {
	uint8_t ver; /* 4 or 6 */
	uint8_t proto; /* the L4 protocol */
	uint8_t ihl; /* IPv4 */
	uint16_t frag; /* IPv4 flags and offset; IPv6: a fragment header's */
	uint8_t nexts; /* IPv6: extension headers before L4; IPv4: AH */
	uint8_t doff; /* TCP data offset */
	uint16_t dport; /* UDP, TCP */
	uint32_t paylen;
	int tunnel; /* 0 none, else KD_TUN_* behind UDP or GRE */
	int depth;
};

enum {
	KD_TUN_NONE,
	KD_TUN_VXLAN,
	KD_TUN_GENEVE,
	KD_TUN_GTPU,
	KD_TUN_GRE,
	KD_TUN_GRETAP,
	KD_TUN_ERSPAN1,
	KD_TUN_ERSPAN2,
	KD_TUN_ERSPAN3,
	__KD_TUN_MAX
};

static uint32_t kd_ip(uint8_t *b, uint32_t room, const struct kd_pkt *pk,
		      uint64_t *rng);
static uint32_t kd_ether(uint8_t *b, uint32_t room, uint16_t type,
			 uint64_t *rng);

/* A random packet description, mostly common, at nesting depth. */
static void kd_pkt_rand(struct kd_pkt *pk, uint64_t *rng, int depth)
{
	static const uint8_t others[] = { 1, 58, 132, 136, 47, 50, 59, 0, 44 };
	uint32_t r = kd_below(rng, 100);

	memset(pk, 0, sizeof(*pk));
	pk->depth = depth;
	pk->ver = kd_chance(rng, 55) ? 4 : 6;
	pk->proto = r < 42 ? 6 : r < 84 ? 17 :
		    r < 98 ? others[kd_below(rng, sizeof(others))] :
			     (uint8_t)ddf_test_rand(rng);
	pk->ihl = 5;
	if (kd_chance(rng, 8))
		pk->ihl = (uint8_t)kd_below(rng, 16); /* options, or bad */
	r = kd_below(rng, 100);
	pk->frag = r < 45 ? 0x4000 : r < 85 ? 0 :
		   r < 90 ? 0x2000 : /* a first fragment */
		   r < 95 ? (uint16_t)(kd_below(rng, 0x2000) | (r & 1) << 13) :
			    (uint16_t)ddf_test_rand(rng);
	if (pk->ver == 6) {
		pk->frag = 0;
		if (kd_chance(rng, 20))
			pk->nexts = (uint8_t)(1 + kd_below(rng, 4));
		if (kd_chance(rng, 2))
			pk->nexts = 17; /* over the limit */
	} else if (kd_chance(rng, 3)) {
		pk->nexts = 1; /* AH */
	}
	pk->doff = kd_chance(rng, 65) ? 5 :
		   kd_chance(rng, 85) ? (uint8_t)(6 + kd_below(rng, 10)) :
					(uint8_t)kd_below(rng, 5);
	pk->dport = (uint16_t)ddf_test_rand(rng);
	pk->paylen = kd_chance(rng, 75) ? kd_below(rng, 200) :
		     kd_chance(rng, 50) ? kd_below(rng, 1500) :
					  kd_below(rng, 9);
	if (depth < 3 && kd_chance(rng, depth ? 30 : 12)) {
		pk->tunnel = 1 + (int)kd_below(rng, __KD_TUN_MAX - 1);
		if (pk->tunnel >= KD_TUN_GRE)
			pk->proto = 47;
		else
			pk->proto = 17;
		if (pk->tunnel == KD_TUN_VXLAN)
			pk->dport = kd_chance(rng, 70) ? 4789 : KD_VXLAN_ALT;
		else if (pk->tunnel == KD_TUN_GENEVE)
			pk->dport = kd_chance(rng, 70) ? 6081 : KD_GENEVE_ALT;
		else if (pk->tunnel == KD_TUN_GTPU)
			pk->dport = 2152;
	} else if (pk->proto == 17 && kd_chance(rng, 10)) {
		/* a tunnel's port, and whatever behind it */
		static const uint16_t ports[] = { 4789, 6081, 2152,
						  KD_VXLAN_ALT, KD_GENEVE_ALT };

		pk->dport = ports[kd_below(rng, 5)];
	}
}

/* The tunnel header of pk and the packet inside it at b; its length. */
static uint32_t kd_tunnel(uint8_t *b, uint32_t room, const struct kd_pkt *pk,
			  uint64_t *rng)
{
	struct kd_pkt in;
	uint32_t h = 0, n;
	bool ether = false;
	uint16_t type = 0;

	if (room < 64)
		return 0;
	kd_fill(b, 24, rng);
	switch (pk->tunnel) {
	case KD_TUN_VXLAN:
		b[0] = kd_chance(rng, 95) ? 0x08 : 0;
		h = 8;
		ether = true;
		break;
	case KD_TUN_GENEVE:
		ether = kd_chance(rng, 50);
		b[0] = (uint8_t)(kd_chance(rng, 95) ? kd_below(rng, 3) :
						      ddf_test_rand(rng));
		type = ether ? 0x6558 : 0;
		h = 8 + (b[0] & 0x3f) * 4u;
		break;
	case KD_TUN_GTPU:
		b[0] = kd_chance(rng, 70) ? 0x30 : kd_chance(rng, 50) ? 0x32 :
			(uint8_t)ddf_test_rand(rng);
		b[1] = kd_chance(rng, 90) ? 0xff : 1;
		h = b[0] & 0x07 ? 12 : 8;
		if (h == 12)
			b[11] = 0; /* no extension header */
		break;
	case KD_TUN_GRE:
	case KD_TUN_GRETAP:
		b[0] = kd_chance(rng, 70) ? 0 :
		       (uint8_t)(ddf_test_rand(rng) & 0xb0);
		b[1] = kd_chance(rng, 95) ? 0 : 1;
		h = 4 + (b[0] & 0x80 ? 4 : 0) + (b[0] & 0x20 ? 4 : 0) +
		    (b[0] & 0x10 ? 4 : 0);
		ether = pk->tunnel == KD_TUN_GRETAP;
		type = ether ? 0x6558 : 0;
		break;
	case KD_TUN_ERSPAN1:
		b[0] = 0;
		b[1] = 0;
		kd_put16(b + 2, 0x88be);
		h = 4;
		ether = true;
		break;
	case KD_TUN_ERSPAN2:
		b[0] = 0x10;
		b[1] = 0;
		kd_put16(b + 2, 0x88be);
		b[8] = 0x10;
		h = 16;
		ether = true;
		break;
	default:
		b[0] = 0;
		b[1] = 0;
		kd_put16(b + 2, 0x22eb);
		b[4] = 0x20;
		h = 16 + (b[15] & 1 ? 8 : 0);
		ether = true;
		break;
	}
	kd_pkt_rand(&in, rng, pk->depth + 1);
	if (!ether && !type)
		type = in.ver == 4 ? 0x0800 : 0x86dd;
	if (pk->tunnel == KD_TUN_GENEVE || pk->tunnel == KD_TUN_GRE ||
	    pk->tunnel == KD_TUN_GRETAP)
		kd_put16(b + 2, type);
	if (h >= room)
		return room;
	n = h;
	if (ether)
		n += kd_ether(b + n, room - n, in.ver == 4 ? 0x0800 : 0x86dd,
			      rng);
	if (n < room)
		n += kd_ip(b + n, room - n, &in, rng);
	return n;
}

/*
 * The IP packet pk at b (room bytes at most): its length, as its header
 * states it. Whatever pk leaves open is random.
 */
static uint32_t kd_ip(uint8_t *b, uint32_t room, const struct kd_pkt *pk,
		      uint64_t *rng)
{
	uint32_t off, hl, l4hl = 0;
	uint8_t *nh;

	if (room < 120)
		return 0;
	kd_fill(b, 64, rng);
	if (pk->ver == 4) {
		b[0] = (uint8_t)(0x40 | pk->ihl);
		off = pk->ihl < 5 ? 20 : pk->ihl * 4u;
		kd_put16(b + 6, pk->frag);
		nh = b + 9;
		if (pk->nexts) { /* AH */
			*nh = 51;
			nh = b + off;
			b[off + 1] = (uint8_t)kd_below(rng, 3);
			off += (b[off + 1] + 2u) * 4;
		}
	} else {
		b[0] = (uint8_t)(0x60 | (b[0] & 0x0f));
		off = 40;
		nh = b + 6;
		for (uint32_t i = 0; i < pk->nexts && off + 64 < room; i++) {
			static const uint8_t ext[] = { 0, 43, 60, 44, 51 };
			uint8_t e = ext[kd_below(rng, sizeof(ext))];

			*nh = e;
			nh = b + off;
			kd_fill(b + off, 8, rng);
			if (e == 44) {
				if (kd_chance(rng, 60))
					b[off + 2] = 0, b[off + 3] &= 0x07;
				off += 8;
			} else {
				b[off + 1] = (uint8_t)kd_below(rng, 3);
				off += e == 51 ? (b[off + 1] + 2u) * 4 :
						 (b[off + 1] + 1u) * 8;
			}
		}
	}
	*nh = pk->proto;
	hl = off;
	if (off + 60 + pk->paylen > room)
		return room; /* no room: a random tail */
	kd_fill(b + off, 60, rng);
	if (pk->proto == 6) {
		b[off + 12] = (uint8_t)(pk->doff << 4 | (b[off + 12] & 0x0f));
		kd_put16(b + off + 2, pk->dport);
		l4hl = pk->doff < 5 ? 20 : pk->doff * 4u;
	} else if (pk->proto == 17) {
		kd_put16(b + off + 2, pk->dport);
		l4hl = 8;
	} else if (pk->proto != 47) {
		l4hl = kd_below(rng, 13);
	}
	off += l4hl;
	if (pk->tunnel)
		off += kd_tunnel(b + off, room - off, pk, rng);
	else
		kd_fill(b + off, pk->paylen, rng), off += pk->paylen;
	if (pk->proto == 17)
		kd_put16(b + hl + 4, off - hl);
	if (pk->ver == 4)
		kd_put16(b + 2, off);
	else
		kd_put16(b + 4, off - 40);
	return off;
}

/* An Ethernet header of type at b; its length (14). */
static uint32_t kd_ether(uint8_t *b, uint32_t room, uint16_t type,
			 uint64_t *rng)
{
	if (room < 14)
		return 0;
	kd_fill(b, 12, rng);
	kd_put16(b + 12, type);
	return 14;
}

/* A link layer in front of the packet at b + at; the frame's start. */
static uint32_t kd_link(struct kd_case *c, uint8_t ver, uint64_t *rng,
			uint32_t at)
{
	uint16_t type = ver == 4 ? 0x0800 : 0x86dd;
	uint32_t r = kd_below(rng, 100), n = 0, s;
	uint8_t hdr[128];

	c->lk_null = false;
	memset(&c->lk, 0, sizeof(c->lk));
	if (r < 25) { /* bare IP */
		c->lk_null = kd_chance(rng, 50);
		if (kd_chance(rng, 20)) { /* a tag the link ignores */
			c->lk.vlan_proto = 0x8100;
			c->lk.vlan_tci = (uint16_t)ddf_test_rand(rng);
		}
		if (kd_chance(rng, 3))
			c->lk.type = (uint16_t)ddf_test_rand(rng);
		return at;
	}
	c->lk.type = DDF_LINK_ETHER;
	kd_fill(hdr, 12, rng);
	n = 12;
	if (r < 70) {
		/* untagged */
	} else if (r < 78) { /* a tag taken out */
		c->lk.vlan_proto = kd_chance(rng, 80) ? 0x8100 : 0x88a8;
		c->lk.vlan_tci = (uint16_t)ddf_test_rand(rng);
	} else if (r < 88) { /* tags in the frame, some over the limit */
		uint32_t k = kd_chance(rng, 90) ? 1 + kd_below(rng, 3) :
						  1 + kd_below(rng, 10);
		static const uint16_t tp[] = { 0x8100, 0x88a8, 0x9100 };

		for (uint32_t i = 0; i < k; i++) {
			kd_put16(hdr + n, tp[kd_below(rng, 3)]);
			kd_put16(hdr + n + 2, (uint16_t)ddf_test_rand(rng));
			n += 4;
		}
	} else if (r < 93) { /* MPLS */
		uint32_t k = 1 + kd_below(rng, 4);

		kd_put16(hdr + n, kd_chance(rng, 80) ? 0x8847 : 0x8848);
		n += 2;
		for (uint32_t i = 0; i < k; i++) {
			kd_fill(hdr + n, 4, rng);
			hdr[n + 2] &= 0xfe;
			if (i == k - 1 && kd_chance(rng, 90))
				hdr[n + 2] |= 1; /* bottom of the stack */
			n += 4;
		}
		goto done; /* the ethertype is already in */
	} else if (r < 97) { /* not IP */
		static const uint16_t t[] = { 0x0806, 0x88cc, 0x6558, 0x0800,
					      0x86dd };

		type = kd_chance(rng, 50) ? t[kd_below(rng, 5)] :
					    (uint16_t)ddf_test_rand(rng);
		if (type == 0x0800 || type == 0x86dd)
			type ^= 0x0800 ^ 0x86dd; /* the other version */
	} else { /* a random link type with a tag */
		c->lk.type = (uint16_t)(2 + kd_below(rng, 100));
		c->lk.vlan_proto = 0x8100;
	}
	kd_put16(hdr + n, type);
	n += 2;
done:
	s = at - n;
	memcpy(c->b + s, hdr, n);
	return s;
}

/*
 * A generated frame into c (c->b, the frame moved to its start): a packet,
 * a link layer, then maybe a cut, padding, a lying length or a flipped
 * byte; the bytes behind it random.
 */
static void kd_frame(struct kd_case *c, uint64_t *rng)
{
	struct kd_pkt pk;
	uint32_t at = 128, start, stated, len;

	kd_pkt_rand(&pk, rng, 0);
	stated = kd_ip(c->b + at, KD_CAP - at - 64, &pk, rng);
	start = kd_link(c, pk.ver, rng, at);
	len = at - start + stated;
	memmove(c->b, c->b + start, len);
	at -= start;
	if (kd_chance(rng, 12)) /* cut: a snap length, a broken frame */
		len = kd_below(rng, len + 1);
	else if (kd_chance(rng, 10)) /* Ethernet padding */
		len += kd_below(rng, 64);
	if (kd_chance(rng, 3) && len > at + 6) /* a lying length */
		kd_put16(c->b + at + (pk.ver == 4 ? 2 : 4),
			 (uint32_t)(kd_chance(rng, 30) ? 0 : ddf_test_rand(rng)));
	if (kd_chance(rng, 8) && len) {
		uint32_t i = kd_chance(rng, 80) ? kd_below(rng, len < 100 ? len : 100) :
						  kd_below(rng, len);

		c->b[i] ^= (uint8_t)(1 + kd_below(rng, 255));
	}
	c->len = len;
	kd_behind(c->b, len, rng);
}

/* ---- specs ---- */

static void kd_spec(struct kd_case *c, uint64_t *rng)
{
	struct ddf_key_spec *s = &c->s;
	uint32_t r = kd_below(rng, 100);

	c->hashfn = kd_chance(rng, 80) ? DDF_HASH_SIP13 : DDF_HASH_SIP24;
	if (r >= 97) { /* anything at all */
		kd_fill((uint8_t *)s, sizeof(*s), rng);
		if (kd_chance(rng, 70))
			s->form = (uint8_t)kd_below(rng, 4);
		if (kd_chance(rng, 50))
			s->family = (uint8_t)(kd_below(rng, 3) * 2 + 2) & 6;
		return;
	}
	ddf_key_spec_default(s);
	if (r < 47) {
		s->ignore = kd_below(rng, __DDF_KI_ALL + 1);
		s->max_bytes = kd_chance(rng, 40) ? 1500 :
			       kd_chance(rng, 30) ? DDF_KEY_MAX_BYTES_MAX :
						    1 + kd_below(rng, 700);
	} else if (r < 93) {
		s->form = DDF_KEY_FIELDS;
		s->fields = kd_chance(rng, 15) ?
				    DDF_KF_SADDR | DDF_KF_DADDR | DDF_KF_PROTO |
					    DDF_KF_SPORT | DDF_KF_DPORT |
					    DDF_KF_PAYLOAD :
				    1 + kd_below(rng, __DDF_KF_ALL);
		if (s->fields & DDF_KF_PAYLOAD) {
			s->payload_off = (uint16_t)(kd_chance(rng, 50) ? 0 :
						    kd_below(rng, 300));
			s->payload_len = (uint16_t)(kd_chance(rng, 30) ? 16 :
						    1 + kd_below(rng, 400));
		}
		s->ignore = (kd_below(rng, 4) ? DDF_KI_DEFAULT : 0) |
			    kd_below(rng, 4) << 7;
	} else {
		s->form = DDF_KEY_FRAME;
		s->ignore = kd_below(rng, 4) << 7;
	}
	if (s->form != DDF_KEY_FRAME) {
		if (kd_chance(rng, 25))
			s->family = (uint8_t)(4 + 2 * kd_below(rng, 2));
		if (kd_chance(rng, 20)) {
			static const uint8_t pr[] = { 6, 17, 1, 47, 58 };

			s->match = DDF_KM_L4PROTO;
			s->l4proto = pr[kd_below(rng, sizeof(pr))];
		}
	}
	if (kd_chance(rng, 35)) {
		s->decap = 1 + kd_below(rng, __DDF_KD_ALL);
		if ((s->decap & DDF_KD_VXLAN) && kd_chance(rng, 30))
			s->vxlan_port = KD_VXLAN_ALT;
		if ((s->decap & DDF_KD_GENEVE) && kd_chance(rng, 30))
			s->geneve_port = KD_GENEVE_ALT;
	}
}

/* ---- the comparison ---- */

static void kd_hex(const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += 32) {
		printf("    #   %04x:", i);
		for (uint32_t j = i; j < n && j < i + 32; j++)
			printf(" %02x", p[j]);
		printf("\n");
	}
}

static void kd_info(const char *who, int r, const struct ddf_hash *h,
		    const struct ddf_key_info *k)
{
	printf("    #   %s: result %d hash %016llx%016llx len %u l4off %u payoff %u frag_id %u frag_off %u flags %#x family %u proto %u exthdrs %u vlans %u l3off %u decaps %u reserved %02x%02x%02x\n",
	       who, r, (unsigned long long)h->h1, (unsigned long long)h->h2,
	       k->len, k->l4off, k->payoff, k->frag_id, k->frag_off, k->flags,
	       k->family, k->proto, k->exthdrs, k->vlans, k->l3off, k->decaps,
	       k->reserved[0], k->reserved[1], k->reserved[2]);
}

static void kd_fail(struct kd_run *run, const struct kd_case *c,
		    const char *why, int rg, const struct ddf_hash *hg,
		    const struct ddf_key_info *kg, int ro,
		    const struct ddf_hash *ho, const struct ddf_key_info *ko,
		    const char *other)
{
	const struct ddf_key_spec *s = &c->s;

	ddf_test_fail(run->t, __FILE__, __LINE__,
		      "seed %llu case %llu (%s): %s",
		      (unsigned long long)run->seed,
		      (unsigned long long)run->st.cases, c->what, why);
	printf("    #   spec: form %u fields %#x ignore %#x max_bytes %u payload %u:%u family %u match %#x l4proto %u decap %#x vxlan_port %u geneve_port %u; hash %s\n",
	       s->form, s->fields, s->ignore, s->max_bytes, s->payload_off,
	       s->payload_len, s->family, s->match, s->l4proto, s->decap,
	       s->vxlan_port, s->geneve_port,
	       c->hashfn == DDF_HASH_SIP24 ? "sip24" : "sip13");
	printf("    #   link: %s type %u vlan_proto %#x vlan_tci %#x; reader %s; %u bytes:\n",
	       c->lk_null ? "NULL" : "given", c->lk.type, c->lk.vlan_proto,
	       c->lk.vlan_tci,
	       c->reader == 0 ? "flat" : c->reader == 1 ? "callback" :
	       c->reader == 2 ? "callback (copying)" : "pieces",
	       c->len);
	if (c->reader == 3) {
		printf("    #   pieces cut at");
		for (uint32_t i = 0; i < c->ncut; i++)
			printf(" %u", c->cut[i]);
		printf("\n");
	}
	kd_hex(c->b, c->len);
	kd_info("general walk", rg, hg, kg);
	kd_info(other, ro, ho, ko);
	run->failed = true;
}

static bool kd_same(int ra, const struct ddf_hash *ha,
		    const struct ddf_key_info *ka, int rb,
		    const struct ddf_hash *hb, const struct ddf_key_info *kb)
{
	if (ra != rb || memcmp(ka, kb, sizeof(*ka)))
		return false;
	return ra != DDF_KEY_HASHED || (ha->h1 == hb->h1 && ha->h2 == hb->h2);
}

#define KD_POISON 0xa5
#define KD_STR (2 * KD_CAP + 64) /* room for a key's string */

/*
 * The general walk's hash against the definition: the key's string as
 * the walk builds it (key_string.c), hashed by the reference
 * (ddf_test_nh_ref.h), its region's chunks by the plain NH.
 */
static bool kd_reference(struct kd_run *run, const struct kd_case *c,
			 const struct ddf_key_link *lk, int rg,
			 const struct ddf_hash *hg,
			 const struct ddf_key_info *kg)
{
	struct ddf_key_info ks;
	struct ddf_hash hr = { 0, 0 };
	uint32_t n, at, rn;
	int rs;

	rs = key_string(&c->s, lk, c->b, c->len, run->str, KD_STR, &n, &ks);
	if (rs != rg || memcmp(&ks, kg, sizeof(ks))) {
		kd_fail(run, c, "the walk that writes the string differs", rg,
			hg, kg, rs, &hr, &ks, "string");
		return false;
	}
	if (rg != DDF_KEY_HASHED)
		return true;
	run->st.refs++;
	run->st.regions += nhref_region(run->str, n, &at, &rn);
	nhref_key_hash(run->str, n, &run->key, c->hashfn, run->e, &hr);
	if (hr.h1 != hg->h1 || hr.h2 != hg->h2) {
		kd_fail(run, c, "the general walk's hash is not the definition's",
			rg, hg, kg, rs, &hr, &ks, "definition");
		printf("    #   the key's string, %u bytes:\n", n);
		kd_hex(run->str, n);
		return false;
	}
	return true;
}

/*
 * Drive c through the general walk, the fast path and the entry point:
 * flat, and through the reader callback when c->reader asks. false (and
 * the test failed) at the first difference.
 */
static bool kd_check(struct kd_run *run, struct kd_case *c)
{
	const struct ddf_key_link *lk = c->lk_null ? NULL : &c->lk;
	struct ddf_key_flat flat = { c->b, c->len };
	struct ddf_key_info kg, kf, kp;
	struct ddf_hash hg, hf, hp, poison;
	int rg, rf;

	memset(&poison, KD_POISON, sizeof(poison));
	run->st.cases++;
	rg = ddf_key_general(&c->s, lk, NULL, &flat, c->len, &run->key,
			     c->hashfn, &hg, &kg);
	if (rg < 0 || rg > DDF_KEY_SKIPPED) {
		kd_fail(run, c, "the general walk's result is no result", rg,
			&hg, &kg, rg, &hg, &kg, "-");
		return false;
	}
	if (!kd_reference(run, c, lk, rg, &hg, &kg))
		return false;
	run->st.gen_res[rg]++;
	for (int i = 0; i < 16; i++)
		run->st.gen_flags[i] += kg.flags >> i & 1;
	run->st.gen_vlans += kg.vlans != 0;
	run->st.gen_decaps += kg.decaps != 0;
	run->st.gen_ext += kg.exthdrs != 0;

	/* the fast path alone: the general walk's answer, or nothing */
	memset(&kf, KD_POISON, sizeof(kf));
	hf = poison;
	rf = ddf_key_fast(&c->s, lk, NULL, &flat, c->len, &run->key,
			  c->hashfn, &hf, &kf);
	if (rf == DDF_KEY_FAST_NONE) {
		struct ddf_key_info pk;

		memset(&pk, KD_POISON, sizeof(pk));
		if (memcmp(&kf, &pk, sizeof(kf)) ||
		    memcmp(&hf, &poison, sizeof(hf))) {
			kd_fail(run, c, "the fast path refused the frame but wrote out or info",
				rg, &hg, &kg, rf, &hf, &kf, "fast path");
			return false;
		}
	} else {
		run->st.fast++;
		if (rf >= 0 && rf <= DDF_KEY_SKIPPED)
			run->st.fast_res[rf]++;
		if (rf == DDF_KEY_HASHED)
			run->st.fast_kind[kf.family == 6][kf.proto == 6]
					 [c->s.form == DDF_KEY_FIELDS]++;
		if (!kd_same(rg, &hg, &kg, rf, &hf, &kf) ||
		    (rf != DDF_KEY_HASHED && memcmp(&hf, &poison, sizeof(hf)))) {
			kd_fail(run, c, "the fast path differs from the general walk",
				rg, &hg, &kg, rf, &hf, &kf, "fast path");
			return false;
		}
	}

	/* the entry point, over the flat bytes or through the reader */
	hp = poison;
	if (c->reader) {
		struct kd_reader rd = { c->b, c->len, c->reader == 2 };
		struct ddf_key_segs segs;
		struct kd_pieces ps;
		ddf_key_read_t read = kd_read;
		void *ctx = &rd;

		if (c->reader == 3) {
			kd_pieces(&ps, c, &run->rng);
			ddf_key_segs_init(&segs, kd_seg, &ps, c->len);
			read = ddf_key_read_segs;
			ctx = &segs;
			run->st.pieces++;
		}
		run->st.reader++;
		rf = ddf_key_fast(&c->s, lk, read, ctx, c->len, &run->key,
				  c->hashfn, &hf, &kf);
		if (rf != DDF_KEY_FAST_NONE) {
			kd_fail(run, c, "the fast path took a reader's frame",
				rg, &hg, &kg, rf, &hf, &kf, "fast path");
			return false;
		}
		if (c->reader == 3)
			ddf_key_segs_first(&segs);
		rf = ddf_key_hash_link(&c->s, lk, read, ctx, c->len,
				       &run->key, c->hashfn, &hp, &kp);
	} else {
		rf = ddf_key_hash_link(&c->s, lk, NULL, &flat, c->len,
				       &run->key, c->hashfn, &hp, &kp);
	}
	if (!kd_same(rg, &hg, &kg, rf, &hp, &kp) ||
	    (rf != DDF_KEY_HASHED && memcmp(&hp, &poison, sizeof(hp)))) {
		kd_fail(run, c, "the entry point differs from the general walk",
			rg, &hg, &kg, rf, &hp, &kp, "ddf_key_hash_link");
		return false;
	}
	return true;
}

/* ---- crafted cases ---- */

/* A common frame: Ethernet or bare, IPv4/IPv6, TCP/UDP, paylen bytes. */
static void kd_common(struct kd_case *c, uint64_t *rng, bool ether, uint8_t ver,
		      uint8_t proto, uint32_t paylen)
{
	struct kd_pkt pk;
	uint32_t n = 0;

	memset(&pk, 0, sizeof(pk));
	pk.ver = ver;
	pk.proto = proto;
	pk.ihl = 5;
	pk.frag = 0x4000;
	pk.doff = 5;
	pk.dport = 80;
	pk.paylen = paylen;
	memset(&c->lk, 0, sizeof(c->lk));
	c->lk_null = !ether;
	if (ether) {
		c->lk.type = DDF_LINK_ETHER;
		n = kd_ether(c->b, KD_CAP, ver == 4 ? 0x0800 : 0x86dd, rng);
	}
	c->len = n + kd_ip(c->b + n, KD_CAP - n - 64, &pk, rng);
	kd_behind(c->b, c->len, rng);
}

/* Every ignore mask and every field set over the common frames. */
static void kd_masks(struct kd_run *run, struct kd_case *c)
{
	static const uint32_t pays[] = { 0, 1, 7, 33, 300, 1400 };
	static const uint32_t maxb[] = { 1500, 1, 20, 41, 63, 65535 };
	static const uint16_t win[][2] = { { 0, 16 }, { 0, 64 }, { 0, 65 },
					   { 3, 200 }, { 500, 10 },
					   { 0, 4096 }, { 7, 1 } };

	for (uint32_t k = 0; k < 16 && !run->failed; k++) {
		kd_common(c, &run->rng, k & 1, k & 2 ? 6 : 4, k & 4 ? 6 : 17,
			  pays[(k >> 3) * 3 + kd_below(&run->rng, 3)]);
		c->what = "crafted: every ignore mask";
		for (uint32_t ig = 0; ig <= __DDF_KI_ALL && !run->failed; ig++) {
			ddf_key_spec_default(&c->s);
			c->s.ignore = ig;
			c->s.max_bytes = maxb[ig % 6];
			c->hashfn = ig & 1 ? DDF_HASH_SIP24 : DDF_HASH_SIP13;
			c->reader = 0;
			kd_check(run, c);
		}
		c->what = "crafted: every field set";
		for (uint32_t f = 1; f <= __DDF_KF_ALL && !run->failed; f++) {
			ddf_key_spec_default(&c->s);
			c->s.form = DDF_KEY_FIELDS;
			c->s.fields = f;
			if (f & DDF_KF_PAYLOAD) {
				c->s.payload_off = win[f % 7][0];
				c->s.payload_len = win[f % 7][1];
			}
			c->hashfn = f & 1 ? DDF_HASH_SIP13 : DDF_HASH_SIP24;
			c->reader = 0;
			kd_check(run, c);
		}
	}
}

/*
 * Frames of every kind cut at every byte: the IP length as it was (a
 * capture's snap length) and made to fit the cut (a shorter packet).
 */
static void kd_cuts(struct kd_run *run, struct kd_case *c)
{
	struct ddf_key_spec specs[5];
	uint8_t *whole = malloc(KD_CAP);

	if (!whole) {
		ddf_test_fail(run->t, __FILE__, __LINE__, "no memory");
		run->failed = true;
		return;
	}
	for (int i = 0; i < 5; i++)
		ddf_key_spec_default(&specs[i]);
	specs[1].ignore = __DDF_KI_ALL;
	specs[1].max_bytes = 45;
	specs[2].form = DDF_KEY_FIELDS;
	specs[2].fields = __DDF_KF_ALL;
	specs[2].payload_off = 2;
	specs[2].payload_len = 100;
	specs[3].form = DDF_KEY_FIELDS;
	specs[3].fields = DDF_KF_SADDR | DDF_KF_DADDR | DDF_KF_PROTO |
			  DDF_KF_SPORT | DDF_KF_DPORT | DDF_KF_PAYLOAD;
	specs[3].payload_len = 16;
	specs[3].decap = __DDF_KD_ALL;
	specs[4].decap = __DDF_KD_ALL;
	specs[4].match = DDF_KM_L4PROTO;
	specs[4].l4proto = 17;
	for (uint32_t k = 0; k < 64 && !run->failed; k++) {
		uint32_t len, l3 = 0;
		uint8_t ver = 4;

		if (k < 16) {
			kd_common(c, &run->rng, k & 1, k & 2 ? 6 : 4,
				  k & 4 ? 6 : 17, k & 8 ? 90 : 3);
			ver = k & 2 ? 6 : 4;
			l3 = k & 1 ? 14 : 0;
		} else {
			/*
			 * any kind; "fitted" rewrites the bytes where an
			 * untagged frame's IP length lies
			 */
			kd_frame(c, &run->rng);
			if (c->len > 400)
				c->len = 400;
			if (!c->lk_null && c->lk.type == DDF_LINK_ETHER)
				l3 = 14;
			ver = c->b[l3] >> 4;
		}
		len = c->len;
		memcpy(whole, c->b, len);
		for (uint32_t cut = 0; cut <= len && !run->failed; cut++) {
			for (int fit = 0; fit < 2 && !run->failed; fit++) {
				memcpy(c->b, whole, len);
				kd_behind(c->b, cut, &run->rng);
				c->len = cut;
				if (fit && ver == 4 && cut >= l3 + 4)
					kd_put16(c->b + l3 + 2, cut - l3);
				else if (fit && ver == 6 && cut >= l3 + 40)
					kd_put16(c->b + l3 + 4, cut - l3 - 40);
				else if (fit)
					continue;
				c->what = fit ? "crafted: cut, length fitted" :
						"crafted: cut";
				for (int i = 0; i < 5 && !run->failed; i++) {
					c->s = specs[i];
					c->hashfn = (cut + i) & 1;
					c->reader = (cut + i) % 7 == 0 ?
							    1 + (cut % 3) : 0;
					if (c->reader == 3)
						kd_rand_cuts(c, &run->rng);
					kd_check(run, c);
				}
			}
		}
	}
	free(whole);
}

/*
 * Frames in pieces through the reader, a piece ending at every offset
 * (and a short piece behind it): the key streams the payload as words
 * from chunks that start on the stream's words, so a piece boundary may
 * fall anywhere in a word, a chunk or the pending bytes; each must give
 * the flat frame's answer.
 */
static void kd_chunks(struct kd_run *run, struct kd_case *c)
{
	struct ddf_key_spec specs[6];

	for (int i = 0; i < 6; i++)
		ddf_key_spec_default(&specs[i]);
	specs[1].ignore = __DDF_KI_ALL;
	specs[1].max_bytes = DDF_KEY_MAX_BYTES_MAX;
	specs[2].form = DDF_KEY_FIELDS;
	specs[2].fields = DDF_KF_SADDR | DDF_KF_DADDR | DDF_KF_PROTO |
			  DDF_KF_SPORT | DDF_KF_DPORT | DDF_KF_PAYLOAD;
	specs[2].payload_off = 3;
	specs[2].payload_len = 4000;
	specs[3].form = DDF_KEY_FRAME;
	specs[4].form = DDF_KEY_FRAME;
	specs[4].ignore = DDF_KI_L2;
	specs[5].ignore = DDF_KI_DEFAULT | DDF_KI_L4CSUM;
	specs[5].max_bytes = 201;
	for (uint32_t k = 0; k < 12 && !run->failed; k++) {
		if (k < 8) {
			kd_common(c, &run->rng, k & 1, k & 2 ? 6 : 4,
				  k & 4 ? 6 : 17, 150 + k);
		} else {
			do
				kd_frame(c, &run->rng);
			while (c->len < 100);
			if (c->len > 400)
				c->len = 400;
		}
		if (k == 3 || k == 9) { /* a tag taken out: 'Q' in front */
			c->lk_null = false;
			c->lk.type = DDF_LINK_ETHER;
			c->lk.vlan_proto = 0x8100;
			c->lk.vlan_tci = 7;
		}
		c->what = "crafted: in pieces, one ending at every offset";
		c->reader = 3;
		for (uint32_t o = 0; o <= c->len && !run->failed; o++) {
			for (uint32_t two = 0; two < 2 && !run->failed; two++) {
				c->cut[0] = o;
				c->ncut = 1;
				if (two) {
					c->cut[1] = o + 1 + o % 13;
					if (c->cut[1] > c->len)
						c->cut[1] = c->len;
					c->ncut = 2;
				}
				for (int i = 0; i < 6 && !run->failed; i++) {
					c->s = specs[i];
					c->hashfn = (o + i) & 1;
					kd_check(run, c);
				}
			}
		}
	}
}

/*
 * Every length around the regions' edges (ddf_key.h, "Long keys"): the
 * packet and frame forms' bytes at the region's threshold and at the
 * head and k whole chunks, the field form's payload at the threshold and
 * at k chunks, each 3 bytes either side, as far as a frame here goes;
 * flat, through the callback (in place and copying) and in pieces.
 */
static void kd_lengths(struct kd_run *run, struct kd_case *c)
{
	for (uint32_t k = 0; k < 8 && !run->failed; k++) {
		bool ether = k & 1;
		uint8_t ver = k & 2 ? 6 : 4, proto = k & 4 ? 6 : 17;
		uint32_t hdr = (ver == 4 ? 20u : 40u) + (proto == 6 ? 20u : 8u);
		uint32_t l2 = ether ? 14 : 0;

		for (uint32_t e = 0; !run->failed; e++) {
			uint32_t edge = e ? DDF_KEY_HEAD + e * DDF_NH_CHUNK :
					    DDF_KEY_HEAD + DDF_KEY_NH_OVER;

			if (edge + 200 > KD_CAP)
				break;

			for (int d = -3; d <= 3 && !run->failed; d++) {
				for (int form = 0; form < 3 && !run->failed;
				     form++) {
					uint32_t want = edge + d, pay = 3600;

					if (form == 0)
						pay = want - hdr;
					else if (form == 1)
						pay = want - hdr - l2;
					kd_common(c, &run->rng, ether, ver,
						  proto, pay);
					if (ether && form == 1 &&
					    kd_chance(&run->rng, 50)) {
						c->lk.vlan_proto = 0x8100;
						c->lk.vlan_tci = (uint16_t)d;
					}
					ddf_key_spec_default(&c->s);
					c->s.max_bytes = DDF_KEY_MAX_BYTES_MAX;
					if (form == 0) {
						c->s.ignore = kd_below(&run->rng,
							__DDF_KI_ALL + 1);
					} else if (form == 1) {
						c->s.form = DDF_KEY_FRAME;
						c->s.ignore =
							kd_below(&run->rng, 4)
							<< 7;
					} else {
						c->s.form = DDF_KEY_FIELDS;
						c->s.fields = DDF_KF_SPORT |
							      DDF_KF_PAYLOAD;
						c->s.payload_off = (uint16_t)
							kd_below(&run->rng, 9);
						c->s.payload_len = (uint16_t)
							(e ? e * DDF_NH_CHUNK + d :
							     DDF_KEY_NH_OVER + d);
						if (c->s.payload_off +
						    c->s.payload_len >
						    DDF_KEY_PAYLOAD_MAX)
							continue;
					}
					c->what = form == 0 ? "crafted: packet form at a region's edge" :
						  form == 1 ? "crafted: frame form at a region's edge" :
							      "crafted: payload at a region's edge";
					for (int rd = 0; rd < 4 && !run->failed;
					     rd++) {
						c->reader = rd;
						c->hashfn = (uint32_t)(rd & 1);
						if (rd == 3)
							kd_rand_cuts(c, &run->rng);
						kd_check(run, c);
					}
				}
			}
		}
	}
}

/* ---- the test ---- */

static uint64_t kd_env(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

DDF_TEST(ddf_key_diff_fast_general)
{
	struct kd_run *run = calloc(1, sizeof(*run));
	struct kd_case c = { 0 };
	uint64_t frames, crafted;
	struct timespec a, b;
	struct kd_stats *st;

	DDF_ASSERT(t, run);
	c.b = malloc(KD_CAP);
	c.arena = malloc(KD_CAP + (KD_MAXCUTS + 1) * KD_JUNK);
	run->str = malloc(KD_STR);
	run->e = malloc(KD_STR + 16);
	DDF_ASSERT(t, c.b && c.arena && run->str && run->e);
	clock_gettime(CLOCK_REALTIME, &a);
	run->t = t;
	run->seed = kd_env("DDF_KEYDIFF_SEED",
			   (uint64_t)a.tv_sec * 1000000007ull ^
				   (uint64_t)a.tv_nsec ^ (uint64_t)getpid() << 32);
	frames = kd_env("DDF_KEYDIFF_FRAMES", KD_FRAMES);
	run->rng = run->seed;
	{
		struct ddf_sipkey sk = { ddf_test_rand(&run->rng),
					 ddf_test_rand(&run->rng) };

		ddf_key_secret_init(&run->key, &sk);
	}
	st = &run->st;
	DDF_LOG(t, "seed %llu (DDF_KEYDIFF_SEED=%llu to repeat), %llu frames",
		(unsigned long long)run->seed, (unsigned long long)run->seed,
		(unsigned long long)frames);
	clock_gettime(CLOCK_MONOTONIC, &a);

	kd_masks(run, &c);
	kd_cuts(run, &c);
	kd_chunks(run, &c);
	kd_lengths(run, &c);
	crafted = st->cases;
	c.what = "generated";
	while (!run->failed && st->cases < frames) {
		kd_frame(&c, &run->rng);
		kd_spec(&c, &run->rng);
		c.reader = kd_chance(&run->rng, 10) ? 1 + kd_below(&run->rng, 3) :
						      0;
		if (c.reader == 3)
			kd_rand_cuts(&c, &run->rng);
		kd_check(run, &c);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);

	DDF_LOG(t, "%llu frames (%llu crafted) in %.2f s; the fast path took %llu (hashed %llu, other family %llu, skipped %llu); %llu through the reader (%llu in pieces)",
		(unsigned long long)st->cases, (unsigned long long)crafted,
		(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
		(unsigned long long)st->fast,
		(unsigned long long)st->fast_res[DDF_KEY_HASHED],
		(unsigned long long)st->fast_res[DDF_KEY_OTHER_FAMILY],
		(unsigned long long)st->fast_res[DDF_KEY_SKIPPED],
		(unsigned long long)st->reader,
		(unsigned long long)st->pieces);
	DDF_LOG(t, "the definition (ddf_test_nh_ref.h) held against the general walk's hash of %llu frames, %llu of them with a region",
		(unsigned long long)st->refs,
		(unsigned long long)st->regions);
	DDF_LOG(t, "general walk: hashed %llu not-ip %llu other-family %llu malformed %llu skipped %llu; frag %llu later %llu truncated %llu badhdr %llu extlimit %llu cut %llu nonip %llu badtunnel %llu; tagged %llu decapsulated %llu with extension headers %llu",
		(unsigned long long)st->gen_res[0],
		(unsigned long long)st->gen_res[1],
		(unsigned long long)st->gen_res[2],
		(unsigned long long)st->gen_res[3],
		(unsigned long long)st->gen_res[4],
		(unsigned long long)st->gen_flags[3],
		(unsigned long long)st->gen_flags[4],
		(unsigned long long)st->gen_flags[6],
		(unsigned long long)st->gen_flags[7],
		(unsigned long long)st->gen_flags[8],
		(unsigned long long)st->gen_flags[9],
		(unsigned long long)st->gen_flags[11],
		(unsigned long long)st->gen_flags[12],
		(unsigned long long)st->gen_vlans,
		(unsigned long long)st->gen_decaps,
		(unsigned long long)st->gen_ext);
	if (!run->failed && frames >= 100000) {
		/* the frames reach both paths and every kind of each */
		DDF_EXPECT(t, st->fast > st->cases / 5);
		DDF_EXPECT(t, st->fast < st->cases * 4 / 5);
		for (int v = 0; v < 2; v++)
			for (int p = 0; p < 2; p++)
				for (int f = 0; f < 2; f++)
					DDF_EXPECT(t, st->fast_kind[v][p][f] > 1000);
		DDF_EXPECT(t, st->fast_res[DDF_KEY_OTHER_FAMILY] > 100);
		DDF_EXPECT(t, st->fast_res[DDF_KEY_SKIPPED] > 100);
		for (int r = 0; r <= DDF_KEY_SKIPPED; r++)
			DDF_EXPECT(t, st->gen_res[r] > 100);
		DDF_EXPECT(t, st->gen_flags[3] > 100 && st->gen_flags[4] > 100);
		DDF_EXPECT(t, st->gen_flags[6] > 100 && st->gen_flags[7] > 100);
		DDF_EXPECT(t, st->gen_flags[8] > 10 && st->gen_flags[9] > 100);
		DDF_EXPECT(t, st->gen_flags[11] > 100 && st->gen_flags[12] > 100);
		DDF_EXPECT(t, st->gen_vlans > 100 && st->gen_decaps > 100);
		DDF_EXPECT(t, st->gen_ext > 100 && st->reader > 1000);
		DDF_EXPECT(t, st->pieces > 1000);
		DDF_EXPECT(t, st->refs == st->gen_res[DDF_KEY_HASHED]);
		DDF_EXPECT(t, st->regions > st->refs / 20);
	}
	free(c.b);
	free(c.arena);
	free(run->str);
	free(run->e);
	free(run);
}

/* clang-format off */
static ddf_case_t ddf_key_diff_cases[] = {
	DDF_CASE(ddf_key_diff_fast_general),
	DDF_CASES_END
};
/* clang-format on */

DDF_SUITE(ddf_key_diff, ddf_key_diff_cases);
