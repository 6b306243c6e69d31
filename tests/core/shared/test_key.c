// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Packet keys (ddf_key.h): hand-built IPv4/IPv6 packets with extension
 * header chains and TCP/UDP/UDP-Lite/SCTP/ICMP/ICMPv6, hashed through a
 * reader that counts every request outside the packet. Table-driven: a
 * base packet, a spec, a few byte changes, and whether the two keys match.
 */
#include "ddf_test.h"
#include "ddf_test_nh_ref.h"
#include "ddf_key.h"

#define TK_CAP 2048u

#define TK_TCP 6
#define TK_UDP 17
#define TK_UDPLITE 136
#define TK_SCTP 132
#define TK_ICMP 1
#define TK_ICMPV6 58
#define TK_HOP 0
#define TK_RT 43
#define TK_FRAG 44
#define TK_AH 51
#define TK_DST 60
#define TK_ESP 50
#define TK_NONXT 59

/* ---- packet builders ---- */

/* A packet to build; unset members take the defaults below. */
struct tk_pkt {
	uint8_t family; /* 4 or 6 */
	uint8_t proto; /* L4 protocol */
	uint8_t ihl; /* IPv4 header words; 0: 5 */
	uint8_t nexts; /* extension headers (AH for IPv4) ... */
	uint8_t next[20]; /* ... of these types, in order */
	uint16_t frag_off; /* 8-byte units: IPv4 or the fragment header */
	uint8_t mf; /* more fragments */
	uint8_t tcp_doff; /* 0: 5 */
	uint8_t icmp_type;
	uint16_t paylen; /* bytes behind the L4 header */
};

/* Where the builder put things. */
struct tk_out {
	uint32_t len, l4off, payoff;
};

static void tk_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void tk_put32(uint8_t *p, uint32_t v)
{
	tk_put16(p, v >> 16);
	tk_put16(p + 2, v);
}

/* An extension header of type h at b; its length in bytes. */
static uint32_t tk_ext(uint8_t *b, uint8_t h, const struct tk_pkt *d)
{
	switch (h) {
	case TK_HOP: /* 8 bytes: PadN of 4 */
		b[1] = 0;
		b[2] = 1;
		b[3] = 4;
		return 8;
	case TK_DST: /* 16 bytes: PadN of 12 */
		b[1] = 1;
		b[2] = 1;
		b[3] = 12;
		return 16;
	case TK_RT: /* 24 bytes: type 4 (segment routing), segments left 0 */
		b[1] = 2;
		b[2] = 4;
		return 24;
	case TK_AH: /* (4 + 2) * 4 = 24 bytes, not (4 + 1) * 8 */
		b[1] = 4;
		tk_put32(b + 4, 0x1000); /* SPI */
		tk_put32(b + 8, 7); /* sequence */
		return 24;
	case TK_FRAG:
		tk_put16(b + 2, (uint32_t)d->frag_off << 3 | (d->mf ? 1 : 0));
		tk_put32(b + 4, 0xabcd1234);
		return 8;
	default:
		return 8;
	}
}

/* The L4 header of d at b; its length. */
static uint32_t tk_l4(uint8_t *b, const struct tk_pkt *d)
{
	uint32_t hl;

	switch (d->proto) {
	case TK_TCP:
		hl = (d->tcp_doff ? d->tcp_doff : 5) * 4u;
		tk_put16(b, 1234);
		tk_put16(b + 2, 80);
		tk_put32(b + 4, 0x01020304); /* seq */
		tk_put32(b + 8, 0x05060708); /* ack */
		b[12] = (uint8_t)((d->tcp_doff ? d->tcp_doff : 5) << 4);
		b[13] = 0x18;
		tk_put16(b + 14, 65535);
		tk_put16(b + 16, 0xc0de);
		for (uint32_t i = 20; i < hl; i++)
			b[i] = 1; /* NOP options */
		return hl < 20 ? 20 : hl;
	case TK_UDP:
	case TK_UDPLITE:
		tk_put16(b, 5353);
		tk_put16(b + 2, 53);
		tk_put16(b + 6, 0xc0de);
		return 8;
	case TK_SCTP:
		tk_put16(b, 2905);
		tk_put16(b + 2, 2905);
		tk_put32(b + 4, 0xdeadbeef); /* verification tag */
		tk_put32(b + 8, 0xc0dec0de); /* CRC32c */
		return 12;
	case TK_ICMP:
	case TK_ICMPV6:
		b[0] = d->icmp_type;
		tk_put16(b + 2, 0xc0de);
		tk_put16(b + 4, 0x4242); /* identifier */
		tk_put16(b + 6, 1); /* sequence */
		return 8;
	default:
		return 0;
	}
}

/* Build d into b (TK_CAP bytes); its length. */
static uint32_t tk_build(uint8_t *b, const struct tk_pkt *d, struct tk_out *o)
{
	uint32_t off, i;
	uint8_t *nh;
	bool later = false;

	memset(b, 0, TK_CAP);
	if (d->family == 4) {
		off = (d->ihl ? d->ihl : 5) * 4u;
		b[0] = (uint8_t)(0x40 | off / 4);
		tk_put16(b + 4, 0x1111);
		tk_put16(b + 6, (uint32_t)d->frag_off | (d->mf ? 0x2000 : 0));
		b[8] = 64;
		tk_put16(b + 10, 0xbeef); /* checksum: not computed */
		tk_put32(b + 12, 0x0a000001);
		tk_put32(b + 16, 0x0a000002);
		for (i = 20; i < off; i++)
			b[i] = 1; /* NOP options */
		nh = &b[9];
		later = d->frag_off != 0;
	} else {
		b[0] = 0x60;
		tk_put16(b + 2, 0x2345); /* flow label low 16 bits */
		b[1] = 0x01;
		b[7] = 64;
		tk_put32(b + 8, 0x20010db8);
		b[23] = 1;
		tk_put32(b + 24, 0x20010db8);
		b[39] = 2;
		nh = &b[6];
		off = 40;
	}
	for (i = 0; i < d->nexts && !later; i++) {
		*nh = d->next[i];
		nh = &b[off];
		off += tk_ext(b + off, d->next[i], d);
		if (d->next[i] == TK_FRAG && d->frag_off)
			later = true; /* what follows is data */
	}
	*nh = d->proto;
	o->l4off = off;
	if (!later)
		off += tk_l4(b + off, d);
	o->payoff = off;
	for (i = 0; i < d->paylen; i++)
		b[off + i] = (uint8_t)(i * 7 + 3);
	o->len = off + d->paylen;
	if (d->family == 4)
		tk_put16(b + 2, o->len);
	else
		tk_put16(b + 4, o->len - 40);
	if (!later && (d->proto == TK_UDP || d->proto == TK_UDPLITE))
		tk_put16(b + o->l4off + 4, o->len - o->l4off);
	return o->len;
}

/* ---- the reader ---- */

/* A reader that counts what it is asked for. */
struct tk_reader {
	const uint8_t *data;
	uint32_t len; /* l3len */
	uint32_t calls, bad, maxlen;
	bool copy; /* copy into buf, as skb_header_pointer on paged data */
};

static const void *tk_read(void *ctx, uint32_t off, uint32_t len, void *buf)
{
	struct tk_reader *r = ctx;

	r->calls++;
	if (len > r->maxlen)
		r->maxlen = len;
	if (off > r->len || len > r->len - off) {
		r->bad++;
		return NULL;
	}
	if (!r->copy)
		return r->data + off;
	memcpy(buf, r->data + off, len);
	return buf;
}

static const struct ddf_sipkey tk_sipkey = { 0x0706050403020100ull,
					     0x0f0e0d0c0b0a0908ull };
static struct ddf_key_secret tk_secret; /* from tk_sipkey: tk_key() */

static const struct ddf_key_secret *tk_key(void)
{
	if (!tk_secret.nh.k[0])
		ddf_key_secret_init(&tk_secret, &tk_sipkey);
	return &tk_secret;
}

static uint64_t tk_sum(const uint8_t *b, uint32_t n)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < n; i++)
		s = s * 31 + b[i];
	return s;
}

/*
 * Hash pkt[0..l3len) under spec with both reader modes, checking that no
 * read leaves the packet, that reads are short, that the packet is not
 * written, and that both modes agree. Returns the result.
 */
static int tk_hash(ddf_test_t *t, const struct ddf_key_spec *spec,
		   const uint8_t *pkt, uint32_t l3len, struct ddf_hash *h,
		   struct ddf_key_info *ki, const char *desc)
{
	struct tk_reader r = { pkt, l3len, 0, 0, 0, false };
	struct tk_reader rc = { pkt, l3len, 0, 0, 0, true };
	struct ddf_hash h2 = { 0, 0 };
	uint64_t before = tk_sum(pkt, l3len);
	int ret, ret2;

	*h = (struct ddf_hash){ 0, 0 };
	ret = ddf_key_hash(spec, tk_read, &r, l3len, tk_key(), DDF_HASH_SIP13, h,
			   ki);
	ret2 = ddf_key_hash(spec, tk_read, &rc, l3len, tk_key(), DDF_HASH_SIP13,
			    &h2, NULL);
	DDF_EXPECT_MSG(t, r.bad == 0 && rc.bad == 0,
		       "%s: %u reads outside the packet", desc, r.bad + rc.bad);
	DDF_EXPECT_MSG(t, r.maxlen <= DDF_KEY_READ_MAX,
		       "%s: a read of %u bytes", desc, r.maxlen);
	DDF_EXPECT_MSG(t, tk_sum(pkt, l3len) == before,
		       "%s: the packet was written", desc);
	DDF_EXPECT_MSG(t, ret == ret2 && h->h1 == h2.h1 && h->h2 == h2.h2,
		       "%s: in-place and copying readers disagree", desc);
	return ret;
}

/* tk_hash() of a packet that must give a hash */
static void tk_hashed(ddf_test_t *t, const struct ddf_key_spec *spec,
		      const uint8_t *pkt, uint32_t l3len, struct ddf_hash *h,
		      struct ddf_key_info *ki, const char *desc)
{
	int r = tk_hash(t, spec, pkt, l3len, h, ki, desc);

	DDF_EXPECT_MSG(t, r == DDF_KEY_HASHED, "%s: result %d", desc, r);
}

/* ---- table-driven cases: base packet, spec, changes, match? ---- */

enum { TK_AT_L3, TK_AT_L4, TK_AT_PAY };

struct tk_mut {
	uint8_t at; /* TK_AT_*: offsets count from there */
	int16_t off;
	uint8_t x; /* xored into the byte; 0: no change */
};

struct tk_case {
	const char *desc;
	struct tk_pkt pkt;
	uint8_t form;
	uint32_t fields, ignore;
	uint16_t poff, plen;
	uint32_t max_bytes; /* 0: default */
	struct tk_mut mut[3];
	bool equal;
};

/* clang-format off */
/* a packet of family 4 or 6, protocol p, n payload bytes (V4, V6: 100) */
#define V4N(p, n, ...) \
	{ .family = 4, .proto = (p), .paylen = (n), __VA_ARGS__ }
#define V6N(p, n, ...) \
	{ .family = 6, .proto = (p), .paylen = (n), __VA_ARGS__ }
#define V4(p, ...) V4N(p, 100, __VA_ARGS__)
#define V6(p, ...) V6N(p, 100, __VA_ARGS__)
#define IG_DEF (DDF_KI_TTL | DDF_KI_IPV4CSUM)
#define L3(o, x) { TK_AT_L3, (o), (x) }
#define L4(o, x) { TK_AT_L4, (o), (x) }
#define PAY(o, x) { TK_AT_PAY, (o), (x) }
#define FIVE                                                     \
	(DDF_KF_SADDR | DDF_KF_DADDR | DDF_KF_PROTO | DDF_KF_SPORT | \
	 DDF_KF_DPORT)
/* hop-by-hop, routing, destination options, first fragment, AH */
#define V6CHAIN \
	.nexts = 5, .next = { TK_HOP, TK_RT, TK_DST, TK_FRAG, TK_AH }, .mf = 1

static const struct tk_case tk_packet_cases[] = {
	{ "v4 TTL differs, ttl ignored", V4(TK_TCP), 0, 0, IG_DEF, 0, 0, 0,
	  { L3(8, 0x01) }, true },
	{ "v4 TTL and checksum differ, both ignored", V4(TK_UDP), 0, 0, IG_DEF,
	  0, 0, 0, { L3(8, 0x3f), L3(10, 0x12), L3(11, 0x34) }, true },
	{ "v4 TTL differs, nothing ignored", V4(TK_TCP), 0, 0, 0, 0, 0, 0,
	  { L3(8, 0x01) }, false },
	{ "v4 checksum differs, nothing ignored", V4(TK_TCP), 0, 0, 0, 0, 0, 0,
	  { L3(11, 0x01) }, false },
	{ "v4 DSCP differs, dscp ignored", V4(TK_TCP), 0, 0,
	  IG_DEF | DDF_KI_DSCP, 0, 0, 0, { L3(1, 0xfc) }, true },
	{ "v4 DSCP differs, not ignored", V4(TK_TCP), 0, 0, IG_DEF, 0, 0, 0,
	  { L3(1, 0xb8) }, false },
	{ "v4 DSCP differs, only ecn ignored", V4(TK_TCP), 0, 0,
	  IG_DEF | DDF_KI_ECN, 0, 0, 0, { L3(1, 0x04) }, false },
	{ "v4 ECN differs, ecn ignored", V4(TK_TCP), 0, 0, IG_DEF | DDF_KI_ECN,
	  0, 0, 0, { L3(1, 0x03) }, true },
	{ "v4 ECN differs, only dscp ignored", V4(TK_TCP), 0, 0,
	  IG_DEF | DDF_KI_DSCP, 0, 0, 0, { L3(1, 0x01) }, false },
	{ "v4 ID differs, ipid ignored", V4(TK_UDP), 0, 0, IG_DEF | DDF_KI_IPID,
	  0, 0, 0, { L3(4, 0x12), L3(5, 0x34) }, true },
	{ "v4 ID differs, not ignored", V4(TK_UDP), 0, 0, IG_DEF, 0, 0, 0,
	  { L3(5, 0x34) }, false },
	{ "v4 ID differs in a first fragment, ipid ignored",
	  V4(TK_UDP, .mf = 1), 0, 0, IG_DEF | DDF_KI_IPID, 0, 0, 0,
	  { L3(5, 0x34) }, false },
	{ "v4 ID differs in a later fragment, ipid ignored",
	  V4(TK_UDP, .frag_off = 100), 0, 0, IG_DEF | DDF_KI_IPID, 0, 0, 0,
	  { L3(5, 0x34) }, false },
	{ "v4 options byte differs", V4(TK_TCP, .ihl = 7), 0, 0, __DDF_KI_ALL,
	  0, 0, 0, { L3(21, 0x80) }, false },
	{ "v4 address differs, all ignored", V4(TK_TCP), 0, 0, __DDF_KI_ALL, 0,
	  0, 0, { L3(15, 0x01) }, false },
	{ "v4 TCP checksum differs, l4csum", V4(TK_TCP), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(16, 0xff), L4(17, 0x01) },
	  true },
	{ "v4 TCP checksum differs, not ignored", V4(TK_TCP), 0, 0, IG_DEF, 0,
	  0, 0, { L4(17, 0x01) }, false },
	{ "v4 TCP urgent pointer differs, l4csum", V4(TK_TCP), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(18, 0x01) }, false },
	{ "v4 TCP window differs, l4csum", V4(TK_TCP), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(15, 0x01) }, false },
	{ "v4 TCP checksum behind options, l4csum", V4(TK_TCP, .ihl = 15), 0,
	  0, IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(16, 0xff) }, true },
	{ "v4 UDP checksum differs, l4csum", V4(TK_UDP), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(6, 0xff), L4(7, 0xff) }, true },
	{ "v4 UDP length differs, l4csum", V4(TK_UDP), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(5, 0x01) }, false },
	{ "v4 UDP-Lite checksum differs, l4csum", V4(TK_UDPLITE), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(6, 0xff) }, true },
	{ "v4 SCTP CRC differs, l4csum", V4(TK_SCTP), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(8, 0x01), L4(11, 0x80) },
	  true },
	{ "v4 SCTP tag differs, l4csum", V4(TK_SCTP), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(7, 0x01) }, false },
	{ "v4 ICMP checksum differs, l4csum", V4(TK_ICMP, .icmp_type = 8), 0,
	  0, IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(2, 0x01) }, true },
	{ "v4 UDP checksum in a first fragment, l4csum", V4(TK_UDP, .mf = 1),
	  0, 0, IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(6, 0x01) }, true },
	{ "v4 bytes at L4+6 of a later fragment, l4csum",
	  V4(TK_UDP, .frag_off = 3), 0, 0, IG_DEF | DDF_KI_L4CSUM, 0, 0, 0,
	  { L4(6, 0x01) }, false },
	{ "v4 AH then TCP checksum, l4csum",
	  V4(TK_TCP, .nexts = 1, .next = { TK_AH }), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(16, 0x01) }, true },
	{ "v4 payload byte differs", V4(TK_UDP), 0, 0, __DDF_KI_ALL, 0, 0, 0,
	  { PAY(50, 0x01) }, false },
	{ "v4 last byte differs", V4(TK_UDP), 0, 0, __DDF_KI_ALL, 0, 0, 0,
	  { PAY(99, 0x01) }, false },
	{ "v4 byte beyond max bytes differs", V4(TK_UDP), 0, 0, IG_DEF, 0, 0,
	  64, { PAY(60, 0x01) }, true },
	{ "v4 last byte within max bytes differs", V4(TK_UDP), 0, 0, IG_DEF, 0,
	  0, 64, { L3(63, 0x01) }, false },
	{ "v6 hop limit differs, ttl ignored", V6(TK_TCP), 0, 0, IG_DEF, 0, 0,
	  0, { L3(7, 0x01) }, true },
	{ "v6 hop limit differs, nothing ignored", V6(TK_TCP), 0, 0, 0, 0, 0, 0,
	  { L3(7, 0x01) }, false },
	{ "v6 DSCP differs, dscp ignored", V6(TK_TCP), 0, 0,
	  IG_DEF | DDF_KI_DSCP, 0, 0, 0, { L3(0, 0x0f), L3(1, 0xc0) }, true },
	{ "v6 DSCP differs, only ecn ignored", V6(TK_TCP), 0, 0,
	  IG_DEF | DDF_KI_ECN, 0, 0, 0, { L3(1, 0x40) }, false },
	{ "v6 ECN differs, ecn ignored", V6(TK_UDP), 0, 0, IG_DEF | DDF_KI_ECN,
	  0, 0, 0, { L3(1, 0x30) }, true },
	{ "v6 ECN differs, only dscp ignored", V6(TK_UDP), 0, 0,
	  IG_DEF | DDF_KI_DSCP, 0, 0, 0, { L3(1, 0x10) }, false },
	{ "v6 flow label differs, flowlabel ignored", V6(TK_UDP), 0, 0,
	  IG_DEF | DDF_KI_FLOWLABEL, 0, 0, 0,
	  { L3(1, 0x0f), L3(2, 0xff), L3(3, 0x01) }, true },
	{ "v6 flow label differs, not ignored", V6(TK_UDP), 0, 0, IG_DEF, 0, 0,
	  0, { L3(3, 0x01) }, false },
	{ "v6 flow label ignored, traffic class differs", V6(TK_UDP), 0, 0,
	  IG_DEF | DDF_KI_FLOWLABEL, 0, 0, 0, { L3(1, 0x10) }, false },
	{ "v6 payload length differs, all ignored", V6(TK_UDP), 0, 0,
	  __DDF_KI_ALL, 0, 0, 0, { L3(5, 0x01) }, false },
	{ "v6 TCP checksum behind the chain, l4csum", V6(TK_TCP, V6CHAIN), 0,
	  0, IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(16, 0x01), L4(17, 0x01) },
	  true },
	{ "v6 UDP checksum, l4csum", V6(TK_UDP), 0, 0, IG_DEF | DDF_KI_L4CSUM,
	  0, 0, 0, { L4(7, 0x01) }, true },
	{ "v6 ICMPv6 checksum, l4csum", V6(TK_ICMPV6, .icmp_type = 128), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(3, 0x01) }, true },
	{ "v6 ICMP (v4 protocol) is no L4 header, l4csum",
	  V6(TK_ICMP, .icmp_type = 8), 0, 0, IG_DEF | DDF_KI_L4CSUM, 0, 0, 0,
	  { L4(3, 0x01) }, false },
	{ "v6 later fragment: bytes at L4+6, l4csum",
	  V6(TK_UDP, .nexts = 1, .next = { TK_FRAG }, .frag_off = 9), 0, 0,
	  IG_DEF | DDF_KI_L4CSUM, 0, 0, 0, { L4(6, 0x01) }, false },
	{ "v6 fragment identification differs, all ignored",
	  V6(TK_UDP, .nexts = 1, .next = { TK_FRAG }, .mf = 1), 0, 0,
	  __DDF_KI_ALL, 0, 0, 0, { L4(-4, 0x01) }, false },
	{ "v6 routing header byte differs", V6(TK_UDP, V6CHAIN), 0, 0,
	  __DDF_KI_ALL, 0, 0, 0, { L3(40 + 8 + 5, 0x01) }, false },
};

static const struct tk_case tk_field_cases[] = {
	{ "5-tuple, payload differs", V4(TK_TCP), 1, FIVE, 0, 0, 0, 0,
	  { PAY(0, 0x01), PAY(99, 0x02) }, true },
	{ "5-tuple, TTL, ID, checksums, seq differ", V4(TK_TCP), 1, FIVE, 0, 0,
	  0, 0, { L3(8, 1), L3(4, 1), L4(4, 1) }, true },
	{ "5-tuple, sport differs", V4(TK_TCP), 1, FIVE, 0, 0, 0, 0,
	  { L4(1, 0x01) }, false },
	{ "5-tuple, dport differs", V4(TK_TCP), 1, FIVE, 0, 0, 0, 0,
	  { L4(2, 0x01) }, false },
	{ "5-tuple, saddr differs", V4(TK_TCP), 1, FIVE, 0, 0, 0, 0,
	  { L3(12, 0x80) }, false },
	{ "5-tuple, daddr differs", V4(TK_TCP), 1, FIVE, 0, 0, 0, 0,
	  { L3(19, 0x01) }, false },
	{ "5-tuple, DSCP differs", V4(TK_UDP), 1, FIVE, 0, 0, 0, 0,
	  { L3(1, 0x04) }, true },
	{ "saddr,daddr, ports differ", V4(TK_UDP), 1,
	  DDF_KF_SADDR | DDF_KF_DADDR, 0, 0, 0, 0, { L4(0, 1), L4(3, 1) },
	  true },
	{ "dport only, sport differs", V4(TK_UDP), 1, DDF_KF_DPORT, 0, 0, 0, 0,
	  { L4(0, 1) }, true },
	{ "UDP-Lite sport differs", V4(TK_UDPLITE), 1, FIVE, 0, 0, 0, 0,
	  { L4(1, 1) }, false },
	{ "SCTP dport differs", V6(TK_SCTP), 1, FIVE, 0, 0, 0, 0,
	  { L4(3, 1) }, false },
	{ "SCTP tag differs", V6(TK_SCTP), 1, FIVE, 0, 0, 0, 0, { L4(4, 1) },
	  true },
	{ "tcpseq, seq differs", V4(TK_TCP), 1, FIVE | DDF_KF_TCPSEQ, 0, 0, 0,
	  0, { L4(7, 1) }, false },
	{ "tcpseq, ack differs", V4(TK_TCP), 1, FIVE | DDF_KF_TCPSEQ, 0, 0, 0,
	  0, { L4(11, 1) }, true },
	{ "tcpack, ack differs", V4(TK_TCP), 1, DDF_KF_TCPACK, 0, 0, 0, 0,
	  { L4(8, 1) }, false },
	{ "tcpseq of UDP: bytes at L4+4 differ", V4(TK_UDP), 1,
	  DDF_KF_TCPSEQ, 0, 0, 0, 0, { L4(4, 1) }, true },
	{ "ipid, ID differs", V4(TK_UDP), 1, FIVE | DDF_KF_IPID, 0, 0, 0, 0,
	  { L3(4, 1) }, false },
	{ "no ipid, ID differs", V4(TK_UDP), 1, FIVE, 0, 0, 0, 0, { L3(4, 1) },
	  true },
	{ "v6 ipid, fragment id differs",
	  V6(TK_UDP, .nexts = 1, .next = { TK_FRAG }, .mf = 1), 1,
	  DDF_KF_IPID, 0, 0, 0, 0, { L4(-1, 1) }, false },
	{ "v6 ipid, flow label differs", V6(TK_UDP), 1, DDF_KF_IPID, 0, 0, 0,
	  0, { L3(3, 1) }, true },
	{ "icmpid, echo id differs", V4(TK_ICMP, .icmp_type = 8), 1,
	  DDF_KF_ICMPID, 0, 0, 0, 0, { L4(5, 1) }, false },
	{ "icmpid, echo seq differs", V4(TK_ICMP, .icmp_type = 8), 1,
	  DDF_KF_ICMPID, 0, 0, 0, 0, { L4(7, 1) }, true },
	{ "icmpid, timestamp id differs", V4(TK_ICMP, .icmp_type = 13), 1,
	  DDF_KF_ICMPID, 0, 0, 0, 0, { L4(4, 1) }, false },
	{ "icmpid of unreachable (no id): bytes differ",
	  V4(TK_ICMP, .icmp_type = 3), 1, DDF_KF_ICMPID, 0, 0, 0, 0,
	  { L4(4, 1) }, true },
	{ "icmpid, ICMPv6 echo reply id differs",
	  V6(TK_ICMPV6, .icmp_type = 129), 1, DDF_KF_ICMPID, 0, 0, 0, 0,
	  { L4(4, 1) }, false },
	{ "icmpid, ICMPv6 type 1 (no id): bytes differ",
	  V6(TK_ICMPV6, .icmp_type = 1), 1, DDF_KF_ICMPID, 0, 0, 0, 0,
	  { L4(4, 1) }, true },
	{ "icmpid, echo becomes reply (id kept)", V4(TK_ICMP, .icmp_type = 8),
	  1, DDF_KF_ICMPID, 0, 0, 0, 0, { L4(0, 8) }, true },
	{ "payload 4:8, byte 3 differs", V4(TK_UDP), 1, DDF_KF_PAYLOAD, 0, 4, 8,
	  0, { PAY(3, 1) }, true },
	{ "payload 4:8, byte 4 differs", V4(TK_UDP), 1, DDF_KF_PAYLOAD, 0, 4, 8,
	  0, { PAY(4, 1) }, false },
	{ "payload 4:8, byte 11 differs", V4(TK_UDP), 1, DDF_KF_PAYLOAD, 0, 4,
	  8, 0, { PAY(11, 1) }, false },
	{ "payload 4:8, byte 12 differs", V4(TK_UDP), 1, DDF_KF_PAYLOAD, 0, 4,
	  8, 0, { PAY(12, 1) }, true },
	{ "payload 0:4, TCP options change the start", V4(TK_TCP, .tcp_doff = 8),
	  1, DDF_KF_PAYLOAD, 0, 0, 4, 0, { L4(20, 1), L4(31, 1) }, true },
	{ "payload 0:4 of ESP: right behind the IP header", V4(TK_ESP), 1,
	  DDF_KF_PAYLOAD, 0, 0, 4, 0, { PAY(3, 1) }, false },
	{ "v6 chain: sport differs", V6(TK_TCP, V6CHAIN), 1, FIVE, 0, 0, 0, 0,
	  { L4(0, 1) }, false },
	{ "v6 chain: payload differs", V6(TK_TCP, V6CHAIN), 1, FIVE, 0, 0, 0,
	  0, { PAY(0, 1) }, true },
	{ "v6 chain: a dst option byte differs", V6(TK_UDP, V6CHAIN), 1, FIVE,
	  0, 0, 0, 0, { L3(40 + 8 + 24 + 6, 1) }, true },
	{ "v6 later fragment: data differs", V6(TK_UDP, .nexts = 1,
	  .next = { TK_FRAG }, .frag_off = 50), 1, FIVE | DDF_KF_PAYLOAD, 0,
	  0, 16, 0, { PAY(0, 1) }, true },
	{ "v6 later fragment: offset differs", V6(TK_UDP, .nexts = 1,
	  .next = { TK_FRAG }, .frag_off = 50), 1, FIVE, 0, 0, 0, 0,
	  { L3(43, 0x08) }, false },
	{ "v6 later fragment: id differs", V6(TK_UDP, .nexts = 1,
	  .next = { TK_FRAG }, .frag_off = 50), 1, DDF_KF_SADDR, 0, 0, 0, 0,
	  { L3(47, 1) }, false },
	{ "v6 later fragment: MF differs", V6(TK_UDP, .nexts = 1,
	  .next = { TK_FRAG }, .frag_off = 50), 1, DDF_KF_SADDR, 0, 0, 0, 0,
	  { L3(43, 1) }, false },
	{ "v4 later fragment: data differs", V4(TK_TCP, .frag_off = 185), 1,
	  FIVE, 0, 0, 0, 0, { L4(0, 1), L4(17, 1) }, true },
	{ "v4 later fragment: offset differs", V4(TK_TCP, .frag_off = 185), 1,
	  FIVE, 0, 0, 0, 0, { L3(7, 2) }, false },
	{ "v4 later fragment: id differs", V4(TK_TCP, .frag_off = 185), 1,
	  FIVE, 0, 0, 0, 0, { L3(4, 2) }, false },
	{ "v4 later fragment: MF differs", V4(TK_TCP, .frag_off = 185), 1,
	  FIVE, 0, 0, 0, 0, { L3(6, 0x20) }, false },
	{ "v4 first fragment vs unfragmented: 5-tuple", V4(TK_TCP, .mf = 1), 1,
	  FIVE, 0, 0, 0, 0, { L3(6, 0x20) }, true },
	{ "v4 first fragment vs later: 5-tuple", V4(TK_TCP, .mf = 1), 1, FIVE,
	  0, 0, 0, 0, { L3(7, 0x10) }, false },
	{ "v4 AH: ports behind it differ", V4(TK_UDP, .nexts = 1,
	  .next = { TK_AH }), 1, FIVE, 0, 0, 0, 0, { L4(1, 1) }, false },
	{ "v4 AH: its sequence differs", V4(TK_UDP, .nexts = 1,
	  .next = { TK_AH }), 1, FIVE, 0, 0, 0, 0, { L4(-13, 1) }, true },
	{ "proto differs (TCP to UDP)", V4(TK_TCP), 1, DDF_KF_PROTO, 0, 0, 0, 0,
	  { L3(9, TK_TCP ^ TK_UDP) }, false },
};
/* clang-format on */

static void tk_mutate(uint8_t *b, const struct tk_out *o,
		      const struct tk_mut *m)
{
	for (int i = 0; i < 3; i++) {
		uint32_t base = m[i].at == TK_AT_L4  ? o->l4off :
				m[i].at == TK_AT_PAY ? o->payoff :
						       0;

		if (m[i].x)
			b[base + m[i].off] ^= m[i].x;
	}
}

static void tk_run_cases(ddf_test_t *t, const struct tk_case *cases,
			 unsigned int n)
{
	uint8_t *a = ddf_test_alloc(t, TK_CAP);
	uint8_t *b = ddf_test_alloc(t, TK_CAP);

	DDF_ASSERT(t, a && b);
	for (unsigned int i = 0; i < n; i++) {
		const struct tk_case *c = &cases[i];
		struct ddf_key_spec spec;
		struct ddf_hash ha, hb;
		struct tk_out o;
		const char *why = "";
		uint32_t len = tk_build(a, &c->pkt, &o);
		int ra, rb;

		ddf_key_spec_default(&spec);
		spec.form = c->form;
		spec.fields = c->fields;
		spec.ignore = c->form ? DDF_KI_DEFAULT : c->ignore;
		spec.payload_off = c->poff;
		spec.payload_len = c->plen;
		if (c->max_bytes)
			spec.max_bytes = c->max_bytes;
		DDF_EXPECT_MSG(t, !ddf_key_spec_validate(&spec, &why),
			       "%s: spec rejected: %s", c->desc, why);
		memcpy(b, a, TK_CAP);
		tk_mutate(b, &o, c->mut);
		ra = tk_hash(t, &spec, a, len, &ha, NULL, c->desc);
		rb = tk_hash(t, &spec, b, len, &hb, NULL, c->desc);
		DDF_EXPECT_MSG(t, ra == DDF_KEY_HASHED && rb == DDF_KEY_HASHED,
			       "%s: results %d %d", c->desc, ra, rb);
		DDF_EXPECT_MSG(t,
			       (ha.h1 == hb.h1 && ha.h2 == hb.h2) == c->equal,
			       "%s: keys %s", c->desc,
			       c->equal ? "differ" : "match");
	}
}

DDF_TEST(ddf_key_packet_cases)
{
	tk_run_cases(t, tk_packet_cases, DDF_ARRAY_SIZE(tk_packet_cases));
}

DDF_TEST(ddf_key_field_cases)
{
	tk_run_cases(t, tk_field_cases, DDF_ARRAY_SIZE(tk_field_cases));
}

/* ---- specs ---- */

DDF_TEST(ddf_key_spec_defaults)
{
	struct ddf_key_spec s;
	const char *why = NULL;

	ddf_key_spec_default(&s);
	DDF_EXPECT_EQ(t, s.form, DDF_KEY_PACKET);
	DDF_EXPECT_EQ(t, s.family, 0);
	DDF_EXPECT_EQ(t, s.max_bytes, 1500);
	DDF_EXPECT_EQ(t, s.ignore, DDF_KI_TTL | DDF_KI_IPV4CSUM);
	DDF_EXPECT_EQ(t, ddf_key_spec_validate(&s, &why), 0);
	DDF_EXPECT(t, why == NULL);
	/* the default spec can switch form */
	s.form = DDF_KEY_FIELDS;
	s.fields = DDF_KF_SADDR;
	DDF_EXPECT_EQ(t, ddf_key_spec_validate(&s, NULL), 0);
	/* fixed layout: it travels over netlink */
	DDF_EXPECT_EQ(t, sizeof(s), 28);
}

struct tk_bad {
	const char *desc;
	struct ddf_key_spec s; /* applied over the default, see below */
	int err;
};

/* clang-format off */
/* Members left zero keep the default; form 1 means the field form. */
static const struct tk_bad tk_bad_specs[] = {
	{ "unknown match bit", { .match = 2 }, DDF_EINVAL },
	{ "protocol without its match bit", { .l4proto = 17 }, DDF_EINVAL },
	{ "family 5", { .family = 5 }, DDF_EINVAL },
	{ "form 3", { .form = 3 }, DDF_EINVAL },
	{ "unknown field bit", { .form = 1, .fields = 1u << 10 }, DDF_EINVAL },
	{ "unknown ignore bit", { .ignore = IG_DEF | 1u << 9 }, DDF_EINVAL },
	{ "unknown tunnel bit", { .decap = 1u << 5 }, DDF_EINVAL },
	{ "a VXLAN port without decap vxlan",
	  { .decap = DDF_KD_GRE, .vxlan_port = 8472 }, DDF_EINVAL },
	{ "a Geneve port without decap geneve",
	  { .geneve_port = 6082 }, DDF_EINVAL },
	{ "max bytes 65536", { .max_bytes = 65536 }, DDF_ERANGE },
	{ "fields in packet form", { .fields = DDF_KF_SADDR }, DDF_EINVAL },
	{ "payload window in packet form", { .payload_len = 4 }, DDF_EINVAL },
	{ "ignore ttl without ipv4csum", { .ignore = DDF_KI_TTL }, DDF_EINVAL },
	{ "ignore dscp without ipv4csum, family 4",
	  { .ignore = DDF_KI_DSCP, .family = 4 }, DDF_EINVAL },
	{ "field form without fields", { .form = 1 }, DDF_EINVAL },
	{ "field form ignoring dscp",
	  { .form = 1, .fields = DDF_KF_SADDR, .ignore = IG_DEF | DDF_KI_DSCP },
	  DDF_EINVAL },
	{ "payload window without the payload field",
	  { .form = 1, .fields = DDF_KF_SADDR, .payload_off = 4 }, DDF_EINVAL },
	{ "payload length 0",
	  { .form = 1, .fields = DDF_KF_PAYLOAD, .payload_off = 4 },
	  DDF_ERANGE },
	{ "payload offset + length 4097",
	  { .form = 1, .fields = DDF_KF_PAYLOAD, .payload_off = 4000,
	    .payload_len = 97 },
	  DDF_ERANGE },
	{ "payload length 65535",
	  { .form = 1, .fields = DDF_KF_PAYLOAD, .payload_len = 65535 },
	  DDF_ERANGE },
	{ "form past frame", { .form = DDF_KEY_FRAME + 1 }, DDF_EINVAL },
	{ "frame form with a family", { .form = DDF_KEY_FRAME, .family = 6 },
	  DDF_EINVAL },
	{ "frame form with a protocol selector",
	  { .form = DDF_KEY_FRAME, .match = DDF_KM_L4PROTO, .l4proto = 17 },
	  DDF_EINVAL },
	{ "frame form with fields",
	  { .form = DDF_KEY_FRAME, .fields = DDF_KF_SADDR }, DDF_EINVAL },
	{ "frame form with a payload window",
	  { .form = DDF_KEY_FRAME, .payload_len = 4 }, DDF_EINVAL },
	{ "frame form ignoring the flow label",
	  { .form = DDF_KEY_FRAME, .ignore = IG_DEF | DDF_KI_FLOWLABEL },
	  DDF_EINVAL },
};
/* clang-format on */

DDF_TEST(ddf_key_bad_specs)
{
	for (unsigned int i = 0; i < DDF_ARRAY_SIZE(tk_bad_specs); i++) {
		const struct tk_bad *c = &tk_bad_specs[i];
		struct ddf_key_spec s;
		const char *why = NULL;
		int err;

		ddf_key_spec_default(&s);
		s.match = c->s.match;
		s.l4proto = c->s.l4proto;
		s.family = c->s.family;
		s.form = c->s.form;
		s.fields = c->s.fields;
		if (c->s.ignore || c->s.family == 4)
			s.ignore = c->s.ignore;
		if (c->s.max_bytes)
			s.max_bytes = c->s.max_bytes;
		s.payload_off = c->s.payload_off;
		s.payload_len = c->s.payload_len;
		s.decap = c->s.decap;
		s.vxlan_port = c->s.vxlan_port;
		s.geneve_port = c->s.geneve_port;
		err = ddf_key_spec_validate(&s, &why);
		DDF_EXPECT_MSG(t, err == c->err, "%s: %d, expected %d", c->desc,
			       err, c->err);
		DDF_EXPECT_MSG(t, why && why[0], "%s: no reason", c->desc);
	}
	/* the edges that are fine */
	{
		struct ddf_key_spec s;

		ddf_key_spec_default(&s);
		s.max_bytes = 1;
		DDF_EXPECT_EQ(t, ddf_key_spec_validate(&s, NULL), 0);
		s.max_bytes = 65535;
		s.family = 6;
		s.ignore = DDF_KI_TTL | DDF_KI_FLOWLABEL; /* no v4 csum: v6 */
		DDF_EXPECT_EQ(t, ddf_key_spec_validate(&s, NULL), 0);
		s.max_bytes = 0;
		DDF_EXPECT_EQ(t, ddf_key_spec_validate(&s, NULL), DDF_ERANGE);
		ddf_key_spec_default(&s);
		s.form = DDF_KEY_FIELDS;
		s.fields = DDF_KF_PAYLOAD | DDF_KF_TCPSEQ;
		s.payload_off = 4000;
		s.payload_len = 96;
		DDF_EXPECT_EQ(t, ddf_key_spec_validate(&s, NULL), 0);
	}
}

/* ---- the byte strings of ddf_key.h, byte for byte ---- */

static bool tk_expect_string(ddf_test_t *t, const struct ddf_key_spec *spec,
			     const uint8_t *pkt, uint32_t len,
			     const uint8_t *want, uint32_t wlen,
			     const char *desc)
{
	struct ddf_hash got, exp = { 0, 0 };
	int r = tk_hash(t, spec, pkt, len, &got, NULL, desc);
	uint8_t *e = ddf_test_alloc(t, wlen + 16);

	if (e)
		nhref_key_hash(want, wlen, tk_key(), DDF_HASH_SIP13, e, &exp);
	DDF_EXPECT_MSG(
		t, r == DDF_KEY_HASHED && got.h1 == exp.h1 && got.h2 == exp.h2,
		"%s: not the documented byte string", desc);
	return got.h1 == exp.h1 && got.h2 == exp.h2;
}

DDF_TEST(ddf_key_encoding)
{
	uint8_t *p = ddf_test_alloc(t, TK_CAP);
	uint8_t *w = ddf_test_alloc(t, TK_CAP);
	struct tk_pkt d = V4N(TK_TCP, 10);
	struct ddf_key_spec s;
	struct tk_out o;
	uint32_t len, n;

	DDF_ASSERT(t, p && w);
	len = tk_build(p, &d, &o);

	/* packet form: 'P', bytes with ttl/csum/l4csum zeroed, length */
	ddf_key_spec_default(&s);
	s.ignore |= DDF_KI_L4CSUM;
	w[0] = 'P';
	memcpy(w + 1, p, len);
	w[1 + 8] = 0;
	w[1 + 10] = 0;
	w[1 + 11] = 0;
	w[1 + 20 + 16] = 0;
	w[1 + 20 + 17] = 0;
	tk_put32(w + 1 + len, len);
	tk_expect_string(t, &s, p, len, w, len + 5, "v4 TCP packet form");

	/* cut at max bytes: the first 30 bytes, then the whole length */
	s.max_bytes = 30;
	tk_put32(w + 1 + 30, len);
	tk_expect_string(t, &s, p, len, w, 35, "v4 TCP packet form, cut");

	/* fields: 'F' 4 mask, saddr daddr proto sport dport payload, 0 */
	ddf_key_spec_default(&s);
	s.form = DDF_KEY_FIELDS;
	s.fields = FIVE | DDF_KF_TCPACK | DDF_KF_ICMPID | DDF_KF_PAYLOAD;
	s.payload_off = 8;
	s.payload_len = 5;
	n = 0;
	w[n++] = 'F';
	w[n++] = 4;
	tk_put32(w + n, s.fields);
	n += 4;
	w[n++] = 1;
	memcpy(w + n, p + 12, 4); /* saddr */
	n += 4;
	w[n++] = 1;
	memcpy(w + n, p + 16, 4); /* daddr */
	n += 4;
	w[n++] = 1;
	w[n++] = TK_TCP;
	w[n++] = 1;
	tk_put16(w + n, 1234);
	n += 2;
	w[n++] = 1;
	tk_put16(w + n, 80);
	n += 2;
	w[n++] = 1;
	tk_put32(w + n, 0x05060708); /* tcpack */
	n += 4;
	w[n++] = 0; /* icmpid: absent in TCP */
	w[n++] = 1;
	tk_put16(w + n, 2); /* payload 8:5 of 10 bytes: 2 of them */
	n += 2;
	w[n++] = p[o.payoff + 8];
	w[n++] = p[o.payoff + 9];
	w[n++] = 0; /* not a later fragment */
	tk_expect_string(t, &s, p, len, w, n, "v4 TCP field form");

	/* v6 later fragment: ipid is the fragment header's, the trailer */
	d = (struct tk_pkt)V6N(TK_UDP, 24, .nexts = 2,
			       .next = { TK_HOP, TK_FRAG }, .frag_off = 0x1234,
			       .mf = 1);
	len = tk_build(p, &d, &o);
	ddf_key_spec_default(&s);
	s.form = DDF_KEY_FIELDS;
	s.fields = DDF_KF_DADDR | DDF_KF_PROTO | DDF_KF_SPORT | DDF_KF_IPID |
		   DDF_KF_PAYLOAD;
	s.payload_len = 1;
	n = 0;
	w[n++] = 'F';
	w[n++] = 6;
	tk_put32(w + n, s.fields);
	n += 4;
	w[n++] = 1;
	memcpy(w + n, p + 24, 16);
	n += 16;
	w[n++] = 1;
	w[n++] = TK_UDP;
	w[n++] = 0; /* sport */
	w[n++] = 1;
	tk_put32(w + n, 0xabcd1234);
	n += 4;
	w[n++] = 0; /* payload */
	w[n++] = 1;
	tk_put32(w + n, 0xabcd1234);
	n += 4;
	tk_put16(w + n, 0x1234);
	n += 2;
	w[n++] = 1; /* MF */
	tk_expect_string(t, &s, p, len, w, n, "v6 later fragment fields");

	/* a walk cut short: proto, L4 fields and v6 ipid are all absent */
	d = (struct tk_pkt)V6(TK_TCP, .nexts = 1, .next = { TK_HOP });
	len = tk_build(p, &d, &o);
	p[41] = 200; /* hop-by-hop length past the end */
	s.fields = DDF_KF_DADDR | DDF_KF_PROTO | DDF_KF_SPORT | DDF_KF_IPID |
		   DDF_KF_TCPSEQ | DDF_KF_PAYLOAD;
	n = 0;
	w[n++] = 'F';
	w[n++] = 6;
	tk_put32(w + n, s.fields);
	n += 4;
	w[n++] = 1;
	memcpy(w + n, p + 24, 16);
	n += 16;
	for (int i = 0; i < 6; i++)
		w[n++] = 0; /* proto sport ipid tcpseq payload, trailer */
	tk_expect_string(t, &s, p, len, w, n, "v6 walk cut short");
}

/*
 * 'P', the first n bytes of p with the bytes at z[0 .. nz) zeroed, len:
 * the packet form's string, into w; its length.
 */
static uint32_t tk_pstring(uint8_t *w, const uint8_t *p, uint32_t len,
			   uint32_t n, const uint32_t *z, uint32_t nz)
{
	w[0] = 'P';
	memcpy(w + 1, p, n);
	for (uint32_t i = 0; i < nz; i++)
		if (z[i] < n)
			w[1 + z[i]] = 0;
	tk_put32(w + 1 + n, len);
	return n + 5;
}

/*
 * Long keys (ddf_key.h): their regions, around every threshold, against
 * the reference (ddf_test_nh_ref.h), which finds the region in the string.
 */
DDF_TEST(ddf_key_long)
{
	/* payload lengths: the region's edge, chunks' and their words' */
	static const int32_t at[] = { -17, -16, -15, -9, -8, -7, -1, 0, 1,
				      7, 8, 9, 15, 16, 17 };
	static const uint32_t edge[] = { DDF_KEY_HEAD + DDF_KEY_NH_OVER,
					 DDF_KEY_HEAD + DDF_NH_CHUNK };
	static const uint32_t pays[] = { 0, 1, 15, 16, 17, 63, 64, 65, 66,
					 200, DDF_NH_CHUNK - 1, DDF_NH_CHUNK,
					 DDF_NH_CHUNK + 1, 1397 };
	uint8_t *p = ddf_test_alloc(t, TK_CAP);
	uint8_t *w = ddf_test_alloc(t, TK_CAP);
	struct tk_pkt d;
	struct ddf_key_spec s;
	struct tk_out o;
	uint32_t len, n, z[8];

	DDF_ASSERT(t, p && w);
	/* packets of every length around the region's start and chunks */
	for (uint32_t i = 0; i < DDF_ARRAY_SIZE(at) * DDF_ARRAY_SIZE(edge);
	     i++) {
		for (int v6 = 0; v6 < 2; v6++) {
			uint32_t hl = v6 ? 40 + 8 : 20 + 20;
			uint32_t pl = edge[i / DDF_ARRAY_SIZE(at)] - hl +
				      (uint32_t)at[i % DDF_ARRAY_SIZE(at)];

			d = v6 ? (struct tk_pkt)V6N(TK_UDP, pl) :
				 (struct tk_pkt)V4N(TK_TCP, pl);
			len = tk_build(p, &d, &o);
			ddf_key_spec_default(&s);
			s.ignore |= DDF_KI_L4CSUM;
			z[0] = v6 ? 7 : 8;
			z[1] = 10;
			z[2] = 11;
			z[3] = o.l4off + (v6 ? 6 : 16);
			z[4] = z[3] + 1;
			n = v6 ? tk_pstring(w, p, len, len, z + 3, 2) :
				 tk_pstring(w, p, len, len, z, 5);
			if (v6)
				w[1 + 7] = 0;
			if (!tk_expect_string(t, &s, p, len, w, n, "packet"))
				DDF_LOG(t, "IPv%d, %u bytes", v6 ? 6 : 4, len);
		}
	}
	/* the packet's bytes around the region's edge, cut by max bytes */
	for (uint32_t mb = DDF_KEY_HEAD + DDF_KEY_NH_OVER - 8;
	     mb <= DDF_KEY_HEAD + DDF_KEY_NH_OVER + 8; mb++) {
		d = (struct tk_pkt)V4N(TK_UDP, 300);
		len = tk_build(p, &d, &o);
		ddf_key_spec_default(&s);
		s.max_bytes = mb;
		z[0] = 8;
		z[1] = 10;
		z[2] = 11;
		n = tk_pstring(w, p, len, mb, z, 3);
		if (!tk_expect_string(t, &s, p, len, w, n, "max bytes"))
			DDF_LOG(t, "max bytes %u", mb);
	}
	/* an L4 checksum behind the head, zeroed in the region */
	d = (struct tk_pkt)V6(TK_TCP, V6CHAIN);
	d.paylen = 900;
	len = tk_build(p, &d, &o);
	ddf_key_spec_default(&s);
	s.ignore = DDF_KI_TTL | DDF_KI_L4CSUM;
	z[0] = 7;
	z[1] = o.l4off + 16;
	z[2] = o.l4off + 17;
	DDF_EXPECT(t, z[1] > DDF_KEY_HEAD);
	n = tk_pstring(w, p, len, len, z, 3);
	tk_expect_string(t, &s, p, len, w, n, "v6 chain, l4csum in the region");

	/* the field form's payload: 64 bytes as they are, 65 and more not */
	d = (struct tk_pkt)V4N(TK_UDP, 1400);
	len = tk_build(p, &d, &o);
	for (uint32_t i = 0; i < DDF_ARRAY_SIZE(pays); i++) {
		uint32_t pl = pays[i] ? pays[i] : 2000; /* 0: beyond the end */

		ddf_key_spec_default(&s);
		s.form = DDF_KEY_FIELDS;
		s.fields = DDF_KF_SPORT | DDF_KF_PAYLOAD;
		s.payload_off = 3;
		s.payload_len = (uint16_t)pl;
		if (pl > 1397)
			pl = 1397; /* what the packet has */
		n = 0;
		w[n++] = 'F';
		w[n++] = 4;
		tk_put32(w + n, s.fields);
		n += 4;
		w[n++] = 1;
		tk_put16(w + n, 5353);
		n += 2;
		w[n++] = 1;
		tk_put16(w + n, pl);
		n += 2;
		memcpy(w + n, p + o.payoff + 3, pl);
		n += pl;
		w[n++] = 0;
		if (!tk_expect_string(t, &s, p, len, w, n, "payload"))
			DDF_LOG(t, "payload 3:%u", s.payload_len);
	}
}

/* ---- what the parser reports ---- */

DDF_TEST(ddf_key_v6_chain)
{
	uint8_t *p = ddf_test_alloc(t, TK_CAP);
	uint8_t *q = ddf_test_alloc(t, TK_CAP);
	struct tk_pkt d = V6(TK_TCP, V6CHAIN);
	struct tk_pkt bare = V6N(TK_TCP, 100);
	struct ddf_key_spec s;
	struct ddf_key_info ki;
	struct ddf_hash h1, h2;
	struct tk_out o, ob;
	uint32_t len, blen;

	DDF_ASSERT(t, p && q);
	len = tk_build(p, &d, &o);
	blen = tk_build(q, &bare, &ob);
	ddf_key_spec_default(&s);
	s.form = DDF_KEY_FIELDS;
	s.fields = FIVE | DDF_KF_TCPSEQ;

	DDF_EXPECT_EQ(t, tk_hash(t, &s, p, len, &h1, &ki, "chain"),
		      DDF_KEY_HASHED);
	/* 40 + hop 8 + routing 24 + dst 16 + fragment 8 + AH 24 */
	DDF_EXPECT_EQ(t, ki.l4off, 120);
	DDF_EXPECT_EQ(t, o.l4off, 120);
	DDF_EXPECT_EQ(t, ki.payoff, 140);
	DDF_EXPECT_EQ(t, ki.proto, TK_TCP);
	DDF_EXPECT_EQ(t, ki.exthdrs, 5);
	DDF_EXPECT_EQ(t, ki.family, 6);
	DDF_EXPECT_EQ(t, ki.len, len);
	DDF_EXPECT_EQ(t, ki.frag_id, 0xabcd1234);
	DDF_EXPECT_EQ(t, ki.flags,
		      DDF_KEY_F_L4 | DDF_KEY_F_L4HDR | DDF_KEY_F_PAYLOAD |
			      DDF_KEY_F_FRAG | DDF_KEY_F_FRAGHDR |
			      DDF_KEY_F_MF);
	/* same addresses, ports and seq as a bare packet: same key */
	DDF_EXPECT_EQ(t, tk_hash(t, &s, q, blen, &h2, &ki, "bare"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, ki.l4off, 40);
	DDF_EXPECT(t, h1.h1 == h2.h1 && h1.h2 == h2.h2);

	/* ESP and no-next-header end the walk: that is the protocol */
	d = (struct tk_pkt)V6(TK_ESP, .nexts = 1, .next = { TK_DST });
	len = tk_build(p, &d, &o);
	tk_hashed(t, &s, p, len, &h1, &ki, "esp");
	DDF_EXPECT_EQ(t, ki.proto, TK_ESP);
	DDF_EXPECT_EQ(t, ki.l4off, 56);
	DDF_EXPECT_EQ(t, ki.payoff, 56);
	DDF_EXPECT_EQ(t, ki.flags, DDF_KEY_F_L4 | DDF_KEY_F_PAYLOAD);
	d = (struct tk_pkt)V6(TK_NONXT, .nexts = 1, .next = { TK_HOP });
	len = tk_build(p, &d, &o);
	tk_hashed(t, &s, p, len, &h1, &ki, "no next header");
	DDF_EXPECT_EQ(t, ki.proto, TK_NONXT);
	DDF_EXPECT_EQ(t, ki.l4off, 48);

	/* more than DDF_KEY_MAX_EXTHDRS headers: the walk gives up */
	d = (struct tk_pkt)V6(TK_UDP, .nexts = 17);
	for (int i = 0; i < 17; i++)
		d.next[i] = TK_DST;
	len = tk_build(p, &d, &o);
	DDF_EXPECT_EQ(t, tk_hash(t, &s, p, len, &h1, &ki, "limit"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, ki.flags, DDF_KEY_F_EXTLIMIT);
	DDF_EXPECT_EQ(t, ki.exthdrs, DDF_KEY_MAX_EXTHDRS);
	d.nexts = 16;
	len = tk_build(p, &d, &o);
	tk_hashed(t, &s, p, len, &h1, &ki, "at the limit");
	DDF_EXPECT(t, ki.flags & DDF_KEY_F_L4HDR);
	DDF_EXPECT_EQ(t, ki.proto, TK_UDP);
}

DDF_TEST(ddf_key_fragments)
{
	uint8_t *p = ddf_test_alloc(t, TK_CAP);
	struct tk_pkt d = V4(TK_UDP, .frag_off = 100, .mf = 1);
	struct ddf_key_spec s;
	struct ddf_key_info ki;
	struct ddf_hash h;
	struct tk_out o;
	uint32_t len;

	DDF_ASSERT(t, p);
	ddf_key_spec_default(&s);
	s.form = DDF_KEY_FIELDS;
	s.fields = __DDF_KF_ALL;
	s.payload_len = 8;

	len = tk_build(p, &d, &o);
	DDF_EXPECT_EQ(t, tk_hash(t, &s, p, len, &h, &ki, "v4 later"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, ki.flags,
		      DDF_KEY_F_L4 | DDF_KEY_F_FRAG | DDF_KEY_F_LATER |
			      DDF_KEY_F_MF);
	DDF_EXPECT_EQ(t, ki.frag_off, 100);
	DDF_EXPECT_EQ(t, ki.frag_id, 0x1111);
	DDF_EXPECT_EQ(t, ki.proto, TK_UDP);
	DDF_EXPECT_EQ(t, ki.l4off, 20);

	/* the last fragment: MF clear, still a fragment */
	d.mf = 0;
	len = tk_build(p, &d, &o);
	tk_hashed(t, &s, p, len, &h, &ki, "v4 last");
	DDF_EXPECT_EQ(t, ki.flags,
		      DDF_KEY_F_L4 | DDF_KEY_F_FRAG | DDF_KEY_F_LATER);

	/* a first fragment has its L4 header */
	d.frag_off = 0;
	d.mf = 1;
	len = tk_build(p, &d, &o);
	tk_hashed(t, &s, p, len, &h, &ki, "v4 first");
	DDF_EXPECT_EQ(t, ki.flags,
		      DDF_KEY_F_L4 | DDF_KEY_F_L4HDR | DDF_KEY_F_PAYLOAD |
			      DDF_KEY_F_FRAG | DDF_KEY_F_MF);

	/* v6: an atomic fragment (offset 0, no MF) is not a fragment */
	d = (struct tk_pkt)V6(TK_TCP, .nexts = 1, .next = { TK_FRAG });
	len = tk_build(p, &d, &o);
	tk_hashed(t, &s, p, len, &h, &ki, "v6 atomic");
	DDF_EXPECT_EQ(t, ki.flags,
		      DDF_KEY_F_L4 | DDF_KEY_F_L4HDR | DDF_KEY_F_PAYLOAD |
			      DDF_KEY_F_FRAGHDR);
	/* v6 later fragment: the headers behind it are not walked */
	d = (struct tk_pkt)V6(TK_DST, .nexts = 2, .next = { TK_HOP, TK_FRAG },
			      .frag_off = 7);
	len = tk_build(p, &d, &o);
	tk_hashed(t, &s, p, len, &h, &ki, "v6 later");
	DDF_EXPECT_EQ(t, ki.proto, TK_DST);
	DDF_EXPECT_EQ(t, ki.l4off, 56);
	DDF_EXPECT_EQ(t, ki.exthdrs, 2);
	DDF_EXPECT_EQ(t, ki.frag_off, 7);
	DDF_EXPECT_EQ(t, ki.flags,
		      DDF_KEY_F_L4 | DDF_KEY_F_FRAG | DDF_KEY_F_LATER |
			      DDF_KEY_F_FRAGHDR);
}

/* A packet cut or broken somewhere: the result and the flags it sets. */
struct tk_trunc {
	const char *desc;
	struct tk_pkt pkt;
	int32_t l3len; /* > 0: this many bytes; <= 0: the length minus it */
	struct tk_mut mut[3];
	int result;
	uint32_t flags; /* must be set */
	uint32_t noflags; /* must be clear */
	uint32_t fields; /* with 5-tuple + payload 0:8: the key equals ... */
	bool same_as_whole; /* ... the whole packet's under these fields */
};

/* clang-format off */
#define NOT_HASHED(d, p, l, m, r) { d, p, l, m, r, 0, 0, 0, false }
#define TK_EMPTY (-100000) /* l3len 0 */

static const struct tk_trunc tk_truncs[] = {
	NOT_HASHED("empty", V4(TK_UDP), TK_EMPTY, {}, DDF_KEY_NOT_IP),
	NOT_HASHED("version 5", V4(TK_UDP), -0, { L3(0, 0x10) },
		   DDF_KEY_NOT_IP),
	NOT_HASHED("v4 in 1 byte", V4(TK_UDP), 1, {}, DDF_KEY_MALFORMED),
	NOT_HASHED("v4 in 19 bytes", V4(TK_UDP), 19, {}, DDF_KEY_MALFORMED),
	NOT_HASHED("v4 IHL 4", V4(TK_UDP), -0, { L3(0, 0x01) },
		   DDF_KEY_MALFORMED),
	NOT_HASHED("v4 IHL 15 in 40 bytes", V4(TK_UDP), 40, { L3(0, 0x0a) },
		   DDF_KEY_MALFORMED),
	NOT_HASHED("v4 total length below IHL", V4N(TK_UDP, 0), -0,
		   { L3(3, 0x1c ^ 0x10) }, DDF_KEY_MALFORMED),
	NOT_HASHED("v6 in 39 bytes", V6(TK_UDP), 39, {}, DDF_KEY_MALFORMED),
	{ "v4 header only", V4(TK_UDP), 20, {}, DDF_KEY_HASHED,
	  DDF_KEY_F_L4 | DDF_KEY_F_TRUNCATED, DDF_KEY_F_L4HDR,
	  DDF_KF_SADDR | DDF_KF_PROTO, true },
	{ "v4 UDP cut at 4 bytes: ports kept", V4(TK_UDP), 24, {},
	  DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, DDF_KEY_F_PAYLOAD,
	  DDF_KF_SPORT | DDF_KF_DPORT, true },
	{ "v4 UDP cut at 3 bytes: sport kept", V4(TK_UDP), 23, {},
	  DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, DDF_KEY_F_PAYLOAD,
	  DDF_KF_SPORT, true },
	{ "v4 UDP cut at 3 bytes: dport lost", V4(TK_UDP), 23, {},
	  DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, 0, DDF_KF_DPORT, false },
	{ "v4 TCP cut inside the header: seq kept", V4(TK_TCP), 30, {},
	  DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, DDF_KEY_F_L4HDR,
	  FIVE | DDF_KF_TCPSEQ, true },
	{ "v4 TCP cut inside the header: ack lost", V4(TK_TCP), 30, {},
	  DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, DDF_KEY_F_L4HDR, DDF_KF_TCPACK,
	  false },
	{ "v4 TCP cut inside the header: payload lost", V4(TK_TCP), 39, {},
	  DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, DDF_KEY_F_PAYLOAD,
	  DDF_KF_PAYLOAD, false },
	{ "v4 TCP cut in its options", V4(TK_TCP, .tcp_doff = 10), 50, {},
	  DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED | DDF_KEY_F_L4, DDF_KEY_F_L4HDR,
	  FIVE, true },
	{ "v4 TCP data offset 4", V4(TK_TCP), -0, { L4(12, 0x10) },
	  DDF_KEY_HASHED, DDF_KEY_F_BADHDR, DDF_KEY_F_PAYLOAD, FIVE, true },
	{ "v4 TCP data offset 15 past the end", V4N(TK_TCP, 8), -0,
	  { L4(12, 0xa0) }, DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED,
	  DDF_KEY_F_PAYLOAD, FIVE, true },
	{ "v4 capture cut in the payload", V4(TK_UDP), -50, {}, DDF_KEY_HASHED,
	  DDF_KEY_F_TRUNCATED | DDF_KEY_F_PAYLOAD, 0,
	  FIVE | DDF_KF_PAYLOAD, true },
	{ "v4 AH cut short", V4(TK_UDP, .nexts = 1, .next = { TK_AH }), 30, {},
	  DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, DDF_KEY_F_L4,
	  DDF_KF_SADDR | DDF_KF_DADDR, true },
	{ "v4 AH cut short: proto lost", V4(TK_UDP, .nexts = 1,
	  .next = { TK_AH }), 30, {}, DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED,
	  DDF_KEY_F_L4, DDF_KF_PROTO, false },
	{ "v6 hop-by-hop length past the end", V6(TK_UDP, .nexts = 1,
	  .next = { TK_HOP }), -0, { L3(41, 0x40) }, DDF_KEY_HASHED,
	  DDF_KEY_F_TRUNCATED, DDF_KEY_F_L4, DDF_KF_DADDR, true },
	{ "v6 routing header cut", V6(TK_UDP, .nexts = 1, .next = { TK_RT }),
	  50, {}, DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, DDF_KEY_F_L4,
	  DDF_KF_SADDR, true },
	{ "v6 fragment header cut", V6(TK_UDP, .nexts = 1,
	  .next = { TK_FRAG }), 47, {}, DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED,
	  DDF_KEY_F_L4 | DDF_KEY_F_FRAG, DDF_KF_SADDR, true },
	{ "v6 payload length past the buffer", V6(TK_UDP), -0,
	  { L3(4, 0x10) }, DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, 0, FIVE,
	  true },
	{ "v6 ICMPv6 cut before the id", V6(TK_ICMPV6, .icmp_type = 128), 45,
	  {}, DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, DDF_KEY_F_L4HDR,
	  DDF_KF_ICMPID, false },
	{ "v6 ICMPv6 cut after the id", V6(TK_ICMPV6, .icmp_type = 128), 46,
	  {}, DDF_KEY_HASHED, DDF_KEY_F_TRUNCATED, DDF_KEY_F_L4HDR,
	  DDF_KF_ICMPID, true },
};
/* clang-format on */

DDF_TEST(ddf_key_truncated)
{
	uint8_t *p = ddf_test_alloc(t, TK_CAP);
	uint8_t *q = ddf_test_alloc(t, TK_CAP);

	DDF_ASSERT(t, p && q);
	for (unsigned int i = 0; i < DDF_ARRAY_SIZE(tk_truncs); i++) {
		const struct tk_trunc *c = &tk_truncs[i];
		struct ddf_key_spec s;
		struct ddf_key_info ki;
		struct ddf_hash h, hw;
		struct tk_out o;
		uint32_t len = tk_build(p, &c->pkt, &o);
		uint32_t cut = len + c->l3len;
		int r;

		if (c->l3len > 0)
			cut = (uint32_t)c->l3len;
		else if (c->l3len == TK_EMPTY)
			cut = 0;

		memcpy(q, p, TK_CAP);
		tk_mutate(p, &o, c->mut);
		ddf_key_spec_default(&s);
		if (c->fields) {
			s.form = DDF_KEY_FIELDS;
			s.fields = c->fields;
			if (c->fields & DDF_KF_PAYLOAD)
				s.payload_len = 8;
		}
		r = tk_hash(t, &s, p, cut, &h, &ki, c->desc);
		DDF_EXPECT_MSG(t, r == c->result, "%s: result %d, expected %d",
			       c->desc, r, c->result);
		DDF_EXPECT_MSG(t,
			       (ki.flags & c->flags) == c->flags &&
				       !(ki.flags & c->noflags),
			       "%s: flags %#x", c->desc, ki.flags);
		if (r != DDF_KEY_HASHED || !c->fields)
			continue;
		tk_hashed(t, &s, q, len, &hw, NULL, c->desc);
		DDF_EXPECT_MSG(
			t, (h.h1 == hw.h1 && h.h2 == hw.h2) == c->same_as_whole,
			"%s: key %s the whole packet's", c->desc,
			c->same_as_whole ? "differs from" : "equals");
	}
}

/* ---- lengths, padding, families ---- */

DDF_TEST(ddf_key_lengths)
{
	uint8_t *p = ddf_test_alloc(t, TK_CAP);
	uint8_t *q = ddf_test_alloc(t, TK_CAP);
	struct tk_pkt d = V4N(TK_UDP, 6);
	struct ddf_key_spec s;
	struct ddf_key_info ki;
	struct ddf_hash h1, h2;
	struct tk_out o;
	uint32_t len;

	DDF_ASSERT(t, p && q);
	/* link-layer padding behind the datagram is not part of the key */
	ddf_key_spec_default(&s);
	len = tk_build(p, &d, &o);
	memcpy(q, p, TK_CAP);
	for (uint32_t i = len; i < 60; i++)
		q[i] = (uint8_t)(0xa0 + i);
	tk_hashed(t, &s, p, len, &h1, NULL, "unpadded");
	tk_hashed(t, &s, q, 60, &h2, &ki, "padded");
	DDF_EXPECT(t, h1.h1 == h2.h1 && h1.h2 == h2.h2);
	DDF_EXPECT_EQ(t, ki.len, len);
	DDF_EXPECT(t, !(ki.flags & DDF_KEY_F_TRUNCATED));

	/* IPv4 total length 0 (BIG TCP): the buffer's length */
	tk_put16(q + 2, 0);
	DDF_EXPECT_EQ(t, tk_hash(t, &s, q, 60, &h2, &ki, "BIG TCP"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, ki.len, 60);
	/* IPv6 payload length 0 behind hop-by-hop (jumbogram) */
	d = (struct tk_pkt)V6(TK_UDP, .nexts = 1, .next = { TK_HOP });
	len = tk_build(p, &d, &o);
	tk_put16(p + 4, 0);
	tk_hashed(t, &s, p, len, &h1, &ki, "jumbo");
	DDF_EXPECT_EQ(t, ki.len, len);
	DDF_EXPECT(t, ki.flags & DDF_KEY_F_PAYLOAD);
	/* ... and without one, 40 bytes: the UDP header lies beyond */
	d = (struct tk_pkt)V6(TK_UDP);
	len = tk_build(p, &d, &o);
	tk_put16(p + 4, 0);
	tk_hashed(t, &s, p, len, &h1, &ki, "v6 length 0");
	DDF_EXPECT_EQ(t, ki.len, 40);
	DDF_EXPECT_EQ(t, ki.flags, DDF_KEY_F_L4 | DDF_KEY_F_TRUNCATED);

	/* max bytes: beyond it only the length counts */
	d = (struct tk_pkt)V4N(TK_UDP, 200);
	len = tk_build(p, &d, &o);
	s.max_bytes = 100;
	tk_hashed(t, &s, p, len, &h1, &ki, "long");
	DDF_EXPECT(t, ki.flags & DDF_KEY_F_CUT);
	/* the same first 100 bytes, one byte shorter (a cut capture) */
	tk_hashed(t, &s, p, len - 1, &h2, &ki, "one shorter");
	DDF_EXPECT(t, h1.h1 != h2.h1);
	s.max_bytes = len;
	tk_hashed(t, &s, p, len, &h2, &ki, "exactly max");
	DDF_EXPECT(t, !(ki.flags & DDF_KEY_F_CUT));

	/* payload OFFSET:LENGTH on short packets: what it has, and n */
	ddf_key_spec_default(&s);
	s.form = DDF_KEY_FIELDS;
	s.fields = DDF_KF_PAYLOAD;
	s.payload_off = 2;
	s.payload_len = 16;
	d = (struct tk_pkt)V4N(TK_UDP, 10);
	len = tk_build(p, &d, &o);
	tk_hashed(t, &s, p, len, &h1, NULL, "10 bytes");
	d.paylen = 12; /* same first 10 bytes, two more */
	len = tk_build(q, &d, &o);
	tk_hashed(t, &s, q, len, &h2, NULL, "12 bytes");
	DDF_EXPECT(t, h1.h1 != h2.h1);
	d.paylen = 20; /* the window [2, 18) full: the rest does not count */
	len = tk_build(p, &d, &o);
	tk_hashed(t, &s, p, len, &h1, NULL, "20 bytes");
	p[o.payoff + 1]++;
	p[o.payoff + 18]++;
	p[o.payoff + 19]++;
	tk_hashed(t, &s, p, len, &h2, NULL, "20 bytes, outside changed");
	DDF_EXPECT(t, h1.h1 == h2.h1);
	p[o.payoff + 17]++;
	tk_hashed(t, &s, p, len, &h2, NULL, "20 bytes, inside changed");
	DDF_EXPECT(t, h1.h1 != h2.h1);
	d.paylen = 2; /* ends right at OFFSET, and before it */
	len = tk_build(p, &d, &o);
	tk_hashed(t, &s, p, len, &h1, NULL, "2 bytes");
	d.paylen = 1;
	len = tk_build(q, &d, &o);
	tk_hashed(t, &s, q, len, &h2, &ki, "1 byte");
	DDF_EXPECT(t, h1.h1 == h2.h1);
	DDF_EXPECT(t, ki.flags & DDF_KEY_F_PAYLOAD);
}

DDF_TEST(ddf_key_families)
{
	uint8_t *p = ddf_test_alloc(t, TK_CAP);
	uint8_t *q = ddf_test_alloc(t, TK_CAP);
	struct tk_pkt d4 = V4(TK_UDP), d6 = V6(TK_UDP);
	struct ddf_key_spec s;
	struct ddf_key_info ki;
	struct ddf_hash h1, h2;
	struct tk_out o;
	uint32_t l4, l6;

	DDF_ASSERT(t, p && q);
	l4 = tk_build(p, &d4, &o);
	l6 = tk_build(q, &d6, &o);
	ddf_key_spec_default(&s);
	s.family = 4;
	DDF_EXPECT_EQ(t, tk_hash(t, &s, p, l4, &h1, &ki, "4 on 4"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, tk_hash(t, &s, q, l6, &h1, &ki, "4 on 6"),
		      DDF_KEY_OTHER_FAMILY);
	DDF_EXPECT_EQ(t, ki.family, 6);
	s.family = 6;
	DDF_EXPECT_EQ(t, tk_hash(t, &s, p, l4, &h1, &ki, "6 on 4"),
		      DDF_KEY_OTHER_FAMILY);
	DDF_EXPECT_EQ(t, tk_hash(t, &s, q, l6, &h1, &ki, "6 on 6"),
		      DDF_KEY_HASHED);

	/* the field form never confuses families: ports only */
	ddf_key_spec_default(&s);
	s.form = DDF_KEY_FIELDS;
	s.fields = DDF_KF_SPORT | DDF_KF_DPORT;
	tk_hashed(t, &s, p, l4, &h1, NULL, "v4 ports");
	tk_hashed(t, &s, q, l6, &h2, NULL, "v6 ports");
	DDF_EXPECT(t, h1.h1 != h2.h1);
	/* ... and different field sets never agree on the same values */
	s.fields = DDF_KF_SPORT;
	tk_hashed(t, &s, p, l4, &h1, NULL, "sport");
	s.fields = DDF_KF_DPORT;
	tk_put16(p + 22, 5353); /* dport := sport */
	tk_hashed(t, &s, p, l4, &h2, NULL, "dport");
	DDF_EXPECT(t, h1.h1 != h2.h1);
	/* SipHash-2-4 gives another hash of the same string */
	tk_hashed(t, &s, p, l4, &h1, NULL, "dport");
	{
		struct ddf_key_flat f = { p, l4 };

		DDF_EXPECT_EQ(t,
			      ddf_key_hash(&s, ddf_key_read_flat, &f, l4,
					   tk_key(), DDF_HASH_SIP24, &h2, NULL),
			      DDF_KEY_HASHED);
		DDF_EXPECT(t, h1.h1 != h2.h1);
		DDF_EXPECT_EQ(t,
			      ddf_key_hash(&s, ddf_key_read_flat, &f, l4,
					   tk_key(), DDF_HASH_SIP13, &h2, NULL),
			      DDF_KEY_HASHED);
		DDF_EXPECT(t, h1.h1 == h2.h1 && h1.h2 == h2.h2);
	}
}

/*
 * Every cut of a few packets under every form: no read leaves the packet
 * (tk_hash() counts), and a reader that fails inside the packet gives
 * DDF_KEY_MALFORMED rather than a hash of what was not read.
 */
struct tk_failer {
	struct tk_reader r;
	uint32_t calls, fail_at; /* the call that fails */
};

static const void *tk_read_fail(void *ctx, uint32_t off, uint32_t len,
				void *buf)
{
	struct tk_failer *f = ctx;

	if (f->calls++ == f->fail_at)
		return NULL;
	return tk_read(&f->r, off, len, buf);
}

DDF_TEST(ddf_key_every_cut)
{
	static const struct tk_pkt pkts[] = {
		V4N(TK_TCP, 90, .ihl = 6, .tcp_doff = 7),
		V6N(TK_UDP, 70, V6CHAIN),
		V6N(TK_ICMPV6, 20, .icmp_type = 128, .nexts = 1,
		    .next = { TK_FRAG }, .frag_off = 3),
		V4N(TK_SCTP, 80, .nexts = 1, .next = { TK_AH }),
	};
	uint8_t *p = ddf_test_alloc(t, TK_CAP);
	uint32_t failing = 0;

	DDF_ASSERT(t, p);
	for (unsigned int i = 0; i < DDF_ARRAY_SIZE(pkts); i++) {
		struct tk_out o;
		uint32_t len = tk_build(p, &pkts[i], &o);

		for (uint32_t cut = 0; cut <= len; cut++) {
			for (int f = 0; f < 3; f++) {
				struct ddf_key_spec s;
				struct ddf_hash h;
				struct tk_failer fr = {
					{ p, cut, 0, 0, 0, true }, 0, cut % 7
				};
				int res;

				ddf_key_spec_default(&s);
				s.ignore = __DDF_KI_ALL;
				s.max_bytes = 100;
				if (f) {
					s.form = DDF_KEY_FIELDS;
					s.ignore = DDF_KI_DEFAULT;
					s.fields = f == 1 ? __DDF_KF_ALL :
							    DDF_KF_PAYLOAD;
					s.payload_off = 5;
					s.payload_len = 70;
				}
				tk_hash(t, &s, p, cut, &h, NULL, "every cut");
				/* fail the k-th read for some k */
				res = ddf_key_hash(&s, tk_read_fail, &fr, cut,
						   tk_key(), DDF_HASH_SIP13, &h,
						   NULL);
				if (fr.calls > fr.fail_at) {
					failing++;
					DDF_EXPECT_MSG(
						t, res == DDF_KEY_MALFORMED,
						"packet %u cut %u form %d: %d after a failed read",
						i, cut, f, res);
				}
				DDF_EXPECT(t, fr.r.bad == 0);
			}
		}
	}
	DDF_EXPECT(t, failing > 1000);
}

/* clang-format off */
/* The protocol selector skips other protocols before hashing. */
DDF_TEST(ddf_key_l4proto_match)
{
	uint8_t *p = ddf_test_alloc(t, TK_CAP);
	struct tk_pkt udp = V4(TK_UDP), tcp = V6(TK_TCP);
	struct tk_pkt later = V4(TK_UDP);
	struct ddf_key_spec s;
	struct ddf_key_info ki;
	struct ddf_hash h1, h2;
	struct tk_out o;
	uint32_t len;

	DDF_ASSERT(t, p);
	ddf_key_spec_default(&s);
	s.match = DDF_KM_L4PROTO;
	s.l4proto = TK_UDP;
	DDF_EXPECT_EQ(t, ddf_key_spec_validate(&s, NULL), 0);
	len = tk_build(p, &udp, &o);
	tk_hashed(t, &s, p, len, &h1, &ki, "udp on udp");
	/* the selector is not part of the key */
	s.match = 0;
	s.l4proto = 0;
	tk_hashed(t, &s, p, len, &h2, &ki, "udp, no selector");
	DDF_EXPECT(t, h1.h1 == h2.h1 && h1.h2 == h2.h2);
	s.match = DDF_KM_L4PROTO;
	s.l4proto = TK_TCP;
	DDF_EXPECT_EQ(t, tk_hash(t, &s, p, len, &h1, &ki, "udp on tcp"),
		      DDF_KEY_SKIPPED);
	DDF_EXPECT_EQ(t, ki.proto, TK_UDP);
	len = tk_build(p, &tcp, &o);
	DDF_EXPECT_EQ(t, tk_hash(t, &s, p, len, &h1, &ki, "v6 tcp on tcp"),
		      DDF_KEY_HASHED);
	/* a non-first fragment has its protocol, not its header */
	later.frag_off = 8;
	later.paylen = 40;
	len = tk_build(p, &later, &o);
	DDF_EXPECT_EQ(t, tk_hash(t, &s, p, len, &h1, &ki, "later on tcp"),
		      DDF_KEY_SKIPPED);
	s.l4proto = TK_UDP;
	DDF_EXPECT_EQ(t, tk_hash(t, &s, p, len, &h1, &ki, "later on udp"),
		      DDF_KEY_HASHED);
	DDF_EXPECT(t, ki.flags & DDF_KEY_F_LATER);
	/* a header walk cut short reaches no protocol */
	tcp.nexts = 1;
	tcp.next[0] = 60;
	len = tk_build(p, &tcp, &o);
	DDF_EXPECT_EQ(t, tk_hash(t, &s, p, 44, &h1, &ki, "cut walk"),
		      DDF_KEY_SKIPPED);
	DDF_EXPECT(t, !(ki.flags & DDF_KEY_F_L4));
}

/*
 * Test that the frame form hashes 'R', every byte shown, the length: no
 * parse (non-IP and empty records hash too), no mask, no max_bytes cut
 */
DDF_TEST(ddf_key_frame)
{
	uint8_t *p = ddf_test_alloc(t, TK_CAP);
	uint8_t *w = ddf_test_alloc(t, TK_CAP);
	struct tk_pkt d = V4N(TK_UDP, 200);
	struct ddf_key_spec s, s2;
	struct ddf_key_info ki;
	struct ddf_hash h1, h2;
	struct tk_out o;
	uint32_t len;

	DDF_ASSERT(t, p && w);
	ddf_key_spec_default(&s);
	s.form = DDF_KEY_FRAME;
	DDF_EXPECT_EQ(t, ddf_key_spec_validate(&s, NULL), 0);
	s.ignore = 0;
	s.max_bytes = 1; /* tolerated, and cuts nothing */
	DDF_EXPECT_EQ(t, ddf_key_spec_validate(&s, NULL), 0);

	/* an Ethernet header in front of an IPv4 packet: 14 + 228 bytes */
	len = tk_build(w, &d, &o);
	memmove(p + 14, w, len);
	memset(p, 0, 14);
	p[12] = 0x08;
	len += 14;
	w[0] = 'R';
	memcpy(w + 1, p, len);
	tk_put32(w + 1 + len, len);
	tk_expect_string(t, &s, p, len, w, len + 5, "frame");
	tk_hashed(t, &s, p, len, &h1, &ki, "frame");
	DDF_EXPECT_EQ(t, ki.len, len);
	DDF_EXPECT_EQ(t, ki.family, 0);

	/* the TTL is a byte like any other */
	p[14 + 8] ^= 1;
	tk_hashed(t, &s, p, len, &h2, NULL, "frame, ttl changed");
	DDF_EXPECT(t, h1.h1 != h2.h1 || h1.h2 != h2.h2);
	p[14 + 8] ^= 1;

	/* the packet form finds no IP header there; an empty record hashes */
	ddf_key_spec_default(&s2);
	DDF_EXPECT_EQ(t, tk_hash(t, &s2, p, len, &h2, NULL, "packet form"),
		      DDF_KEY_NOT_IP);
	w[0] = 'R';
	tk_put32(w + 1, 0);
	tk_expect_string(t, &s, p, 0, w, 5, "empty frame");

	/* a record one byte shorter is another key */
	tk_hashed(t, &s, p, len - 1, &h2, NULL, "frame, cut by one");
	DDF_EXPECT(t, h1.h1 != h2.h1 || h1.h2 != h2.h2);
}

static ddf_case_t ddf_key_cases[] = {
	DDF_CASE(ddf_key_spec_defaults),
	DDF_CASE(ddf_key_bad_specs),
	DDF_CASE(ddf_key_packet_cases),
	DDF_CASE(ddf_key_field_cases),
	DDF_CASE(ddf_key_encoding),
	DDF_CASE(ddf_key_long),
	DDF_CASE(ddf_key_v6_chain),
	DDF_CASE(ddf_key_fragments),
	DDF_CASE(ddf_key_truncated),
	DDF_CASE(ddf_key_lengths),
	DDF_CASE(ddf_key_families),
	DDF_CASE(ddf_key_l4proto_match),
	DDF_CASE(ddf_key_every_cut),
	DDF_CASE(ddf_key_frame),
	DDF_CASES_END
};
/* clang-format on */

DDF_SUITE(ddf_key, ddf_key_cases);
