// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Keys over the link layer and tunnels (ddf_key.h, "Link layer" and
 * "Tunnels"): frames built here with VLAN tags (in the frame or taken out
 * by the link), QinQ, MPLS, and IP packets inside VXLAN, Geneve, GRE,
 * ERSPAN I/II/III and GTP-U, each compared with the key of the packet it
 * carries keyed alone, and with the byte strings the header promises.
 * Every read is checked against the frame's length, at every cut.
 */
#include "ddf_test.h"
#include "ddf_test_nh_ref.h"
#include "ddf_key.h"

#define TL_CAP 512u

static const struct ddf_sipkey tl_sipkey = { 0x0011223344556677ull,
					     0x8899aabbccddeeffull };
static struct ddf_key_secret tl_secret; /* from tl_sipkey: tl_key() */

static const struct ddf_key_secret *tl_key(void)
{
	if (!tl_secret.nh.k[0])
		ddf_key_secret_init(&tl_secret, &tl_sipkey);
	return &tl_secret;
}

/* The hash of the key string w[0, n), as defined (ddf_test_nh_ref.h). */
static void tl_ref(ddf_test_t *t, struct ddf_hash *h, const uint8_t *w,
		   uint32_t n)
{
	uint8_t *e = ddf_test_alloc(t, n + 16);

	*h = (struct ddf_hash){ 0, 0 };
	if (e)
		nhref_key_hash(w, n, tl_key(), DDF_HASH_SIP13, e, h);
}

static void tl_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void tl_put32(uint8_t *p, uint32_t v)
{
	tl_put16(p, v >> 16);
	tl_put16(p + 2, v);
}

/* ---- builders: each appends at b + n and returns the new length ---- */

static uint32_t tl_eth(uint8_t *b, uint32_t n, uint8_t macs, uint16_t type)
{
	for (int i = 0; i < 12; i++)
		b[n + i] = (uint8_t)(macs + i);
	b[n] = (uint8_t)(b[n] & 0xfe); /* unicast */
	tl_put16(b + n + 12, type);
	return n + 14;
}

/* A tag inserted at the end of the MACs (or at b + n for a tag chain). */
static uint32_t tl_tag(uint8_t *b, uint32_t n, uint16_t tci, uint16_t type)
{
	tl_put16(b + n, tci);
	tl_put16(b + n + 2, type);
	return n + 4;
}

/* IPv4 + UDP + paylen bytes; *ipoff: where the IP header went. */
static uint32_t tl_ip4udp(uint8_t *b, uint32_t n, uint8_t ttl, uint16_t sport,
			  uint16_t dport, uint32_t paylen, uint8_t seed)
{
	uint8_t *ip = b + n;
	uint32_t len = 28 + paylen;

	ip[0] = 0x45;
	ip[1] = 0;
	tl_put16(ip + 2, len);
	tl_put16(ip + 4, 0x1234);
	tl_put16(ip + 6, 0x4000); /* DF */
	ip[8] = ttl;
	ip[9] = 17;
	tl_put16(ip + 10, (uint32_t)0xa000 + ttl); /* follows the TTL */
	tl_put32(ip + 12, 0xc0000201);
	tl_put32(ip + 16, 0xc6336402);
	tl_put16(ip + 20, sport);
	tl_put16(ip + 22, dport);
	tl_put16(ip + 24, 8 + paylen);
	tl_put16(ip + 26, 0);
	for (uint32_t i = 0; i < paylen; i++)
		ip[28 + i] = (uint8_t)(seed + i * 13);
	return n + len;
}

/* An IPv4 header for a payload of plen bytes of protocol proto at b + n. */
static uint32_t tl_ip4(uint8_t *b, uint32_t n, uint8_t proto, uint32_t plen,
		       uint8_t ttl, uint32_t saddr)
{
	uint8_t *ip = b + n;

	ip[0] = 0x45;
	ip[1] = 0;
	tl_put16(ip + 2, 20 + plen);
	tl_put16(ip + 4, (uint32_t)saddr & 0xffff);
	tl_put16(ip + 6, 0);
	ip[8] = ttl;
	ip[9] = proto;
	tl_put16(ip + 10, 0);
	tl_put32(ip + 12, saddr);
	tl_put32(ip + 16, 0x0a0000fe);
	return n + 20;
}

/* IPv6 + UDP + payload */
static uint32_t tl_ip6udp(uint8_t *b, uint32_t n, uint8_t hop,
			  uint32_t paylen)
{
	uint8_t *ip = b + n;

	for (int i = 0; i < 40 + 8; i++)
		ip[i] = 0;
	ip[0] = 0x60;
	tl_put16(ip + 4, 8 + paylen);
	ip[6] = 17;
	ip[7] = hop;
	ip[8] = 0x20;
	ip[9] = 0x01;
	ip[23] = 1;
	ip[24] = 0x20;
	ip[25] = 0x01;
	ip[39] = 2;
	tl_put16(ip + 40, 5000);
	tl_put16(ip + 42, 53);
	tl_put16(ip + 44, 8 + paylen);
	for (uint32_t i = 0; i < paylen; i++)
		ip[48 + i] = (uint8_t)(i * 3 + 1);
	return n + 48 + paylen;
}

/* ---- hashing with a bounds-checking reader ---- */

struct tl_reader {
	const uint8_t *data;
	uint32_t len, bad;
};

static const void *tl_read(void *ctx, uint32_t off, uint32_t len, void *buf)
{
	struct tl_reader *r = ctx;

	if (off > r->len || len > r->len - off || len > DDF_KEY_READ_MAX) {
		r->bad++;
		return NULL;
	}
	memcpy(buf, r->data + off, len);
	return buf;
}

static int tl_hash(ddf_test_t *t, const struct ddf_key_spec *s,
		   const struct ddf_key_link *lk, const uint8_t *f, uint32_t n,
		   struct ddf_hash *h, struct ddf_key_info *ki, const char *desc)
{
	struct tl_reader r = { f, n, 0 };
	struct ddf_key_info k;
	int ret;

	*h = (struct ddf_hash){ 0, 0 };
	ret = ddf_key_hash_link(s, lk, tl_read, &r, n, tl_key(), DDF_HASH_SIP13,
				h, ki ? ki : &k);
	DDF_EXPECT_MSG(t, r.bad == 0, "%s: %u reads outside the frame", desc,
		       r.bad);
	return ret;
}

static const struct ddf_key_link tl_ether = { DDF_LINK_ETHER, 0, 0 };

static bool tl_same(const struct ddf_hash *a, const struct ddf_hash *b)
{
	return a->h1 == b->h1 && a->h2 == b->h2;
}

/* Both hash, and agree (same) or not. */
static void tl_expect(ddf_test_t *t, const struct ddf_key_spec *s,
		      const struct ddf_key_link *la, const uint8_t *a,
		      uint32_t na, const struct ddf_key_link *lb,
		      const uint8_t *b, uint32_t nb, bool same,
		      const char *desc)
{
	struct ddf_hash ha, hb;
	int ra = tl_hash(t, s, la, a, na, &ha, NULL, desc);
	int rb = tl_hash(t, s, lb, b, nb, &hb, NULL, desc);

	DDF_EXPECT_MSG(t, ra == DDF_KEY_HASHED && rb == DDF_KEY_HASHED,
		       "%s: results %d, %d", desc, ra, rb);
	DDF_EXPECT_MSG(t, tl_same(&ha, &hb) == same, "%s: keys %s", desc,
		       same ? "differ" : "match");
}

static void tl_spec(struct ddf_key_spec *s, uint32_t decap, uint32_t ignore)
{
	ddf_key_spec_default(s);
	s->decap = decap;
	s->ignore |= ignore;
}

/* ---- cases ---- */

/* An untagged frame keys as its IP packet at an IP hook; a tag adds 'Q'. */
DDF_TEST(ddf_link_plain_and_tagged)
{
	uint8_t *f = ddf_test_alloc(t, 4 * TL_CAP);
	uint8_t *g, *w, *ip;
	struct ddf_key_spec s;
	struct ddf_hash h1, h2;
	struct ddf_key_info ki;
	struct tl_reader r;
	uint32_t n, m, ipn;

	DDF_ASSERT(t, f);
	g = f + TL_CAP;
	w = f + 2 * TL_CAP;
	tl_spec(&s, 0, 0);
	n = tl_eth(f, 0, 0x10, 0x0800);
	n = tl_ip4udp(f, n, 64, 1000, 2000, 40, 1);
	ip = f + 14;
	ipn = n - 14;
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, f, n, &h1, &ki, "untagged"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, ki.l3off, 14);
	DDF_EXPECT_EQ(t, ki.vlans, 0);
	r = (struct tl_reader){ ip, ipn, 0 };
	DDF_EXPECT_EQ(t, ddf_key_hash(&s, tl_read, &r, ipn, tl_key(),
				      DDF_HASH_SIP13, &h2, NULL),
		      DDF_KEY_HASHED);
	DDF_EXPECT_MSG(t, tl_same(&h1, &h2),
		       "an untagged frame keys as its IP packet");

	/* 802.1Q VID 10 in the frame: 'Q', 1, VID, then the 'P' string */
	m = tl_eth(g, 0, 0x10, 0x8100);
	m = tl_tag(g, m, 0x200a, 0x0800); /* PCP 1, VID 10 */
	m = tl_ip4udp(g, m, 64, 1000, 2000, 40, 1);
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, g, m, &h1, &ki, "tagged"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, ki.vlans, 1);
	DDF_EXPECT_EQ(t, ki.l3off, 18);
	w[0] = 'Q';
	w[1] = 1;
	tl_put16(w + 2, 10);
	w[4] = 'P';
	memcpy(w + 5, ip, ipn);
	w[5 + 8] = 0; /* TTL */
	w[5 + 10] = 0; /* header checksum */
	w[5 + 11] = 0;
	tl_put32(w + 5 + ipn, ipn);
	tl_ref(t, &h2, w, 9 + ipn);
	DDF_EXPECT_MSG(t, tl_same(&h1, &h2), "the VLAN prefix 'Q' 1 VID");

	/*
	 * The field form behind the prefix, whose 4 bytes are still pending
	 * in the stream: a payload short enough to be copied with the other
	 * fields (3 bytes) and one that is streamed after them (90 of 100).
	 */
	for (uint32_t plen = 3, pay = 40; plen <= 90; plen += 87, pay += 60) {
		uint32_t k = 4;

		m = tl_eth(g, 0, 0x10, 0x8100);
		m = tl_tag(g, m, 0x200a, 0x0800);
		m = tl_ip4udp(g, m, 64, 1000, 2000, pay, 1);
		s.form = DDF_KEY_FIELDS;
		s.fields = DDF_KF_SADDR | DDF_KF_DPORT | DDF_KF_PAYLOAD;
		s.payload_off = 0;
		s.payload_len = (uint16_t)plen;
		DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, g, m, &h1, NULL,
					 "tagged fields"),
			      DDF_KEY_HASHED);
		w[k++] = 'F';
		w[k++] = 4;
		tl_put32(w + k, s.fields);
		k += 4;
		w[k++] = 1;
		memcpy(w + k, g + 18 + 12, 4); /* saddr */
		k += 4;
		w[k++] = 1;
		tl_put16(w + k, 2000);
		k += 2;
		w[k++] = 1;
		tl_put16(w + k, plen);
		k += 2;
		memcpy(w + k, g + 18 + 28, plen);
		k += plen;
		w[k++] = 0; /* not a later fragment */
		tl_ref(t, &h2, w, k);
		DDF_EXPECT_MSG(t, tl_same(&h1, &h2),
			       "'Q' 1 VID, then the field string, payload %u",
			       plen);
	}
	tl_spec(&s, 0, 0);
	m = tl_eth(g, 0, 0x10, 0x8100);
	m = tl_tag(g, m, 0x200a, 0x0800);
	m = tl_ip4udp(g, m, 64, 1000, 2000, 40, 1);

	/* the same tag taken out by the link keys the same */
	{
		struct ddf_key_link lk = { DDF_LINK_ETHER, 0x8100, 0x200a };

		tl_expect(t, &s, &tl_ether, g, m, &lk, f, n, true,
			  "tag in the frame, tag taken out");
		lk.vlan_tci = 0x0014; /* VID 20 */
		tl_expect(t, &s, &tl_ether, g, m, &lk, f, n, false,
			  "VID 10 against VID 20");
		tl_expect(t, &s, &tl_ether, f, n, &lk, f, n, false,
			  "untagged against VID 20");
		s.ignore |= DDF_KI_VLAN;
		tl_expect(t, &s, &tl_ether, g, m, &lk, f, n, true,
			  "ignore vlan: VID 10 against VID 20");
		tl_expect(t, &s, &tl_ether, f, n, &lk, f, n, true,
			  "ignore vlan: untagged against VID 20");
	}
	/* another TTL still matches; another MAC too (key packet) */
	tl_spec(&s, 0, 0);
	m = tl_eth(g, 0, 0x40, 0x0800);
	m = tl_ip4udp(g, m, 61, 1000, 2000, 40, 1);
	tl_expect(t, &s, &tl_ether, f, n, &tl_ether, g, m, true,
		  "other MACs and TTL");
	/* the field form takes the prefix too */
	s.form = DDF_KEY_FIELDS;
	s.fields = DDF_KF_SADDR | DDF_KF_DPORT;
	{
		struct ddf_key_link lk = { DDF_LINK_ETHER, 0x8100, 0x0005 };

		tl_expect(t, &s, &tl_ether, f, n, &lk, f, n, false,
			  "fields: untagged against VID 5");
	}
}

/* QinQ and MPLS: the tags' order, the labels skipped. */
DDF_TEST(ddf_link_qinq_mpls)
{
	uint8_t *f = ddf_test_alloc(t, 3 * TL_CAP);
	uint8_t *g, *u;
	struct ddf_key_spec s;
	struct ddf_key_info ki;
	struct ddf_hash h;
	uint32_t n, m, k;
	struct ddf_key_link outer = { DDF_LINK_ETHER, 0x88a8, 100 };

	DDF_ASSERT(t, f);
	g = f + TL_CAP;
	u = f + 2 * TL_CAP;
	tl_spec(&s, 0, 0);
	/* 802.1ad 100, 802.1Q 7 in the frame */
	n = tl_eth(f, 0, 1, 0x88a8);
	n = tl_tag(f, n, 100, 0x8100);
	n = tl_tag(f, n, 7, 0x0800);
	n = tl_ip4udp(f, n, 64, 1, 2, 20, 9);
	/* the outer one taken out by the link */
	m = tl_eth(g, 0, 1, 0x8100);
	m = tl_tag(g, m, 7, 0x0800);
	m = tl_ip4udp(g, m, 64, 1, 2, 20, 9);
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, f, n, &h, &ki, "qinq"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, ki.vlans, 2);
	tl_expect(t, &s, &tl_ether, f, n, &outer, g, m, true,
		  "QinQ in the frame, outer tag taken out");
	outer.vlan_tci = 7;
	tl_expect(t, &s, &tl_ether, f, n, &outer, g, m, false,
		  "QinQ: the tags' order counts");
	/* MPLS, two labels, then IPv4: keys as the untagged frame */
	k = tl_eth(u, 0, 1, 0x0800);
	k = tl_ip4udp(u, k, 64, 1, 2, 20, 9);
	m = tl_eth(g, 0, 3, 0x8847);
	tl_put32(g + m, 0x00010040); /* label 16 */
	tl_put32(g + m + 4, 0x00020140); /* label 32, bottom of stack */
	m = tl_ip4udp(g, m + 8, 63, 1, 2, 20, 9);
	tl_expect(t, &s, &tl_ether, u, k, &tl_ether, g, m, true,
		  "MPLS labels skipped to IPv4");
	/* a stack with no bottom label in the frame: no IP packet */
	g[m - 48 - 8 + 6] = 0x00; /* clear the bottom bit of label 2 */
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, g, m, &h, &ki, "no bottom"),
		      DDF_KEY_HASHED);
	DDF_EXPECT(t, ki.flags & DDF_KEY_F_NONIP);
}

/* Frames with no IP packet, and the frame form. */
DDF_TEST(ddf_link_frames)
{
	uint8_t *f = ddf_test_alloc(t, 3 * TL_CAP);
	uint8_t *g, *w;
	struct ddf_key_spec s;
	struct ddf_key_info ki;
	struct ddf_hash h1, h2;
	uint32_t n, m;
	struct ddf_key_link lk = { DDF_LINK_ETHER, 0x8100, 0x300a };

	DDF_ASSERT(t, f);
	g = f + TL_CAP;
	w = f + 2 * TL_CAP;
	/* ARP: keyed whole, as the frame form would */
	tl_spec(&s, 0, 0);
	n = tl_eth(f, 0, 5, 0x0806);
	for (int i = 0; i < 28; i++)
		f[n + i] = (uint8_t)i;
	n += 28;
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, f, n, &h1, &ki, "arp"),
		      DDF_KEY_HASHED);
	DDF_EXPECT(t, ki.flags & DDF_KEY_F_NONIP);
	w[0] = 'R';
	memcpy(w + 1, f, n);
	tl_put32(w + 1 + n, n);
	tl_ref(t, &h2, w, 5 + n);
	DDF_EXPECT_MSG(t, tl_same(&h1, &h2), "a non-IP frame: 'R' string");
	/* ignore mac: two senders' ARP frames match */
	memcpy(g, f, n);
	g[3] ^= 0x55;
	g[9] ^= 0x55;
	tl_expect(t, &s, &tl_ether, f, n, &tl_ether, g, n, false,
		  "arp, other MACs");
	s.ignore |= DDF_KI_MAC;
	tl_expect(t, &s, &tl_ether, f, n, &tl_ether, g, n, true,
		  "arp, other MACs, ignore mac");
	/* an IP selector skips a frame with no IP packet */
	tl_spec(&s, 0, 0);
	s.match = DDF_KM_L4PROTO;
	s.l4proto = 17;
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, f, n, &h1, NULL, "arp+udp"),
		      DDF_KEY_SKIPPED);

	/* frame form: the taken-out tag goes back behind the MACs */
	tl_spec(&s, 0, 0);
	s.form = DDF_KEY_FRAME;
	m = tl_eth(g, 0, 1, 0x0800);
	m = tl_ip4udp(g, m, 64, 1, 2, 30, 4);
	n = tl_eth(f, 0, 1, 0x8100);
	n = tl_tag(f, n, 0x300a, 0x0800);
	n = tl_ip4udp(f, n, 64, 1, 2, 30, 4);
	tl_expect(t, &s, &tl_ether, f, n, &lk, g, m, true,
		  "frame form: tag in the frame, tag taken out");
	w[0] = 'R';
	memcpy(w + 1, f, n);
	tl_put32(w + 1 + n, n);
	tl_ref(t, &h2, w, 5 + n);
	tl_hash(t, &s, &lk, g, m, &h1, NULL, "frame, taken-out tag");
	DDF_EXPECT_MSG(t, tl_same(&h1, &h2), "frame form: the wire's bytes");
	/* another TTL is another frame */
	g[14 + 8] = 63;
	tl_expect(t, &s, &tl_ether, f, n, &lk, g, m, false,
		  "frame form: TTL counts");
	g[14 + 8] = 64;
	/* ignore vlan: tagged and untagged frames match, in both forms */
	s.ignore |= DDF_KI_VLAN;
	tl_expect(t, &s, &tl_ether, f, n, &tl_ether, g, m, true,
		  "frame form, ignore vlan");
	tl_hash(t, &s, &tl_ether, g, m, &h1, NULL, "untagged frame");
	w[0] = 'R';
	memcpy(w + 1, g, m);
	tl_put32(w + 1 + m, m);
	tl_ref(t, &h2, w, 5 + m);
	DDF_EXPECT_MSG(t, tl_same(&h1, &h2), "ignore vlan: untagged bytes");
	s.ignore |= DDF_KI_MAC;
	memcpy(w, g, m);
	w[0] ^= 0xf0;
	w[11] ^= 0x0f;
	tl_expect(t, &s, &tl_ether, w, m, &lk, g, m, true,
		  "frame form, ignore vlan,mac");
	/* ethertype IPv4 over an IPv6 packet: malformed */
	tl_spec(&s, 0, 0);
	m = tl_eth(g, 0, 1, 0x0800);
	m = tl_ip6udp(g, m, 64, 8);
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, g, m, &h1, NULL, "4 != 6"),
		      DDF_KEY_MALFORMED);
	tl_put16(g + 12, 0x86dd);
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, g, m, &h1, NULL, "ipv6"),
		      DDF_KEY_HASHED);
}

/* The tunnels, each against its inner packet keyed alone. */
enum {
	TL_VXLAN,
	TL_GENEVE_ETH,
	TL_GENEVE_IP,
	TL_GRE_IP,
	TL_GRETAP,
	TL_ERSPAN1,
	TL_ERSPAN2,
	TL_ERSPAN3,
	TL_GTPU,
	TL_NTUN
};

static const char *const tl_tun_names[TL_NTUN] = {
	"vxlan", "geneve (ethernet)", "geneve (ip)", "gre (ip)", "gretap",
	"erspan I", "erspan II", "erspan III", "gtp-u",
};

static const uint32_t tl_tun_decap[TL_NTUN] = {
	DDF_KD_VXLAN, DDF_KD_GENEVE, DDF_KD_GENEVE, DDF_KD_GRE, DDF_KD_GRE,
	DDF_KD_ERSPAN, DDF_KD_ERSPAN, DDF_KD_ERSPAN, DDF_KD_GTPU,
};

/*
 * Wrap the n bytes at in (an Ethernet frame, or for the IP tunnels the IP
 * packet behind its 14-byte Ethernet header) in tunnel kind over IPv4
 * over Ethernet, with outer headers that vary with v. Returns the length.
 */
static uint32_t tl_wrap(uint8_t *b, int kind, const uint8_t *in, uint32_t n,
			uint8_t v)
{
	bool ip_inside = kind == TL_GENEVE_IP || kind == TL_GRE_IP ||
			 kind == TL_GTPU;
	uint32_t hl, o = tl_eth(b, 0, (uint8_t)(0x20 + v), 0x0800), ipo = o;
	uint8_t *h;

	if (ip_inside) {
		in += 14;
		n -= 14;
	}
	switch (kind) {
	case TL_VXLAN:
	case TL_GENEVE_ETH:
	case TL_GENEVE_IP:
	case TL_GTPU:
		hl = kind == TL_GTPU ? 16 : kind == TL_VXLAN ? 8 : 16;
		o = tl_ip4(b, o, 17, 8 + hl + n, (uint8_t)(64 - v),
			   0x0a000001u + v);
		tl_put16(b + o, 40000u + v);
		tl_put16(b + o + 2, kind == TL_VXLAN ? 4789 :
				   kind == TL_GTPU ? 2152 : 6081);
		tl_put16(b + o + 4, 8 + hl + n);
		tl_put16(b + o + 6, 0);
		h = b + o + 8;
		memset(h, 0, hl);
		if (kind == TL_VXLAN) {
			h[0] = 0x08;
			tl_put32(h + 4, 0x00123400);
		} else if (kind == TL_GTPU) {
			h[0] = 0x34; /* version 1, PT, E */
			h[1] = 0xff;
			tl_put16(h + 2, 8 + n);
			tl_put32(h + 4, 0xabcd);
			h[11] = 0x85; /* PDU session container */
			h[12] = 1; /* 4 bytes */
			h[15] = 0; /* no next */
		} else {
			h[0] = 2; /* 8 bytes of options */
			tl_put16(h + 2, kind == TL_GENEVE_IP ? 0x0800 : 0x6558);
			tl_put32(h + 4, 0x00777700);
			tl_put16(h + 8, 0x0102);
			h[11] = 1; /* an option of 4 bytes of data */
		}
		o += 8 + hl;
		break;
	default: /* GRE */
		hl = kind == TL_ERSPAN1 ? 4 : kind == TL_GRE_IP ? 12 :
		     kind == TL_GRETAP ? 8 : kind == TL_ERSPAN2 ? 16 : 28;
		o = tl_ip4(b, o, 47, hl + n, (uint8_t)(64 - v), 0x0a000001u + v);
		h = b + o;
		memset(h, 0, hl);
		switch (kind) {
		case TL_ERSPAN1:
			tl_put16(h + 2, 0x88be);
			break;
		case TL_GRE_IP: /* checksum and key */
			tl_put16(h, 0xa000);
			tl_put16(h + 2, 0x0800);
			tl_put32(h + 8, 77 + v);
			break;
		case TL_GRETAP: /* sequence */
			tl_put16(h, 0x1000);
			tl_put16(h + 2, 0x6558);
			tl_put32(h + 4, 1000u + v);
			break;
		case TL_ERSPAN2:
			tl_put16(h, 0x1000);
			tl_put16(h + 2, 0x88be);
			tl_put32(h + 4, v);
			h[8] = 0x10; /* version 1 */
			h[11] = v;
			break;
		default: /* ERSPAN III with its platform subheader */
			tl_put16(h, 0x1000);
			tl_put16(h + 2, 0x22eb);
			tl_put32(h + 4, v);
			h[8] = 0x20; /* version 2 */
			tl_put32(h + 12, 0x11111111u * v); /* timestamp */
			h[19] = 0x01; /* O */
			break;
		}
		o += hl;
		break;
	}
	memcpy(b + o, in, n);
	(void)ipo;
	return o + n;
}

DDF_TEST(ddf_link_tunnels)
{
	uint8_t *in = ddf_test_alloc(t, 4 * TL_CAP);
	uint8_t *a, *b, *c;
	struct ddf_key_spec s, plain;
	struct ddf_key_info ki;
	struct ddf_hash h1, h2;
	uint32_t n, na, nb, nc;

	DDF_ASSERT(t, in);
	a = in + TL_CAP;
	b = in + 2 * TL_CAP;
	c = in + 3 * TL_CAP;
	n = tl_eth(in, 0, 0x60, 0x0800);
	n = tl_ip4udp(in, n, 64, 1111, 2222, 50, 7);
	tl_spec(&plain, 0, 0);
	for (int k = 0; k < TL_NTUN; k++) {
		const char *nm = tl_tun_names[k];
		bool ip_inside = k == TL_GENEVE_IP || k == TL_GRE_IP ||
				 k == TL_GTPU;
		struct ddf_key_link none = { DDF_LINK_NONE, 0, 0 };

		tl_spec(&s, tl_tun_decap[k], 0);
		na = tl_wrap(a, k, in, n, 1);
		nb = tl_wrap(b, k, in, n, 2);
		/* without decap the two wrappers differ */
		tl_expect(t, &plain, &tl_ether, a, na, &tl_ether, b, nb, false,
			  nm);
		/* with it they match, and match the inner packet alone */
		tl_expect(t, &s, &tl_ether, a, na, &tl_ether, b, nb, true, nm);
		DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, a, na, &h1, &ki, nm),
			      DDF_KEY_HASHED);
		DDF_EXPECT_MSG(t, ki.decaps == 1, "%s: %u tunnels opened", nm,
			       ki.decaps);
		/* the bytes counted are the outer packet's, as at IP hooks */
		DDF_EXPECT_MSG(t, ki.len == na - 14, "%s: len %u of %u", nm,
			       ki.len, na - 14);
		if (ip_inside)
			tl_hash(t, &plain, &none, in + 14, n - 14, &h2, NULL, nm);
		else
			tl_hash(t, &plain, &tl_ether, in, n, &h2, NULL, nm);
		DDF_EXPECT_MSG(t, tl_same(&h1, &h2),
			       "%s: not the inner packet's key", nm);
		/* at an IP hook the same (the reader starts at the outer IP) */
		tl_hash(t, &s, &none, a + 14, na - 14, &h2, NULL, nm);
		DDF_EXPECT_MSG(t, tl_same(&h1, &h2), "%s: at an IP hook", nm);
		/* only the tunnels asked for are opened */
		tl_spec(&s, __DDF_KD_ALL & ~tl_tun_decap[k], 0);
		tl_hash(t, &s, &tl_ether, a, na, &h2, &ki, nm);
		tl_hash(t, &plain, &tl_ether, a, na, &h1, NULL, nm);
		DDF_EXPECT_MSG(t, tl_same(&h1, &h2) && !ki.decaps,
			       "%s: opened without being asked", nm);
		/* every cut of the frame: no read outside, a result */
		tl_spec(&s, __DDF_KD_ALL, 0);
		for (uint32_t cut = 0; cut <= na; cut++) {
			int r = tl_hash(t, &s, &tl_ether, a, cut, &h1, &ki, nm);

			DDF_EXPECT_MSG(t, r == DDF_KEY_HASHED ||
					  r == DDF_KEY_MALFORMED,
				       "%s cut at %u: result %d", nm, cut, r);
		}
	}

	/* two levels: VXLAN inside GRE (IP) */
	tl_spec(&s, DDF_KD_VXLAN | DDF_KD_GRE, 0);
	na = tl_wrap(a, TL_VXLAN, in, n, 1);
	nb = tl_wrap(b, TL_GRE_IP, a, na, 3);
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, b, nb, &h1, &ki, "2 levels"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, ki.decaps, 2);
	tl_hash(t, &plain, &tl_ether, in, n, &h2, NULL, "inner");
	DDF_EXPECT_MSG(t, tl_same(&h1, &h2), "two levels: the innermost key");
	/* three: the third stays closed, the second level's packet is keyed */
	nc = tl_wrap(c, TL_GRE_IP, b, nb, 4);
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, c, nc, &h1, &ki, "3 levels"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, ki.decaps, 2);
	tl_hash(t, &plain, &tl_ether, a, na, &h2, NULL, "level 2");
	DDF_EXPECT_MSG(t, tl_same(&h1, &h2), "three levels: the second's key");

	/* a bad VXLAN header (no I flag) keys the outer packet */
	tl_spec(&s, DDF_KD_VXLAN, 0);
	na = tl_wrap(a, TL_VXLAN, in, n, 1);
	a[14 + 20 + 8] = 0;
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, a, na, &h1, &ki, "no I"),
		      DDF_KEY_HASHED);
	DDF_EXPECT(t, ki.flags & DDF_KEY_F_BADTUNNEL);
	tl_hash(t, &plain, &tl_ether, a, na, &h2, NULL, "outer");
	DDF_EXPECT_MSG(t, tl_same(&h1, &h2), "bad VXLAN: the outer key");
	/* an inner IPv4 header cut short: the outer packet too */
	a[14 + 20 + 8] = 0x08;
	a[14 + 20 + 16 + 14] = 0x46; /* IHL 6 */
	a[14 + 20 + 16 + 14 + 3] = 21; /* total length below it */
	a[14 + 20 + 16 + 14 + 2] = 0;
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, a, na, &h1, &ki, "bad in"),
		      DDF_KEY_HASHED);
	DDF_EXPECT(t, ki.flags & DDF_KEY_F_BADTUNNEL);
	DDF_EXPECT_EQ(t, ki.decaps, 0);
	tl_hash(t, &plain, &tl_ether, a, na, &h2, NULL, "outer");
	DDF_EXPECT_MSG(t, tl_same(&h1, &h2), "bad inner IP: the outer key");
	/* a family selector applies to the inner packet */
	na = tl_wrap(a, TL_VXLAN, in, n, 1);
	s.family = 6;
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, a, na, &h1, NULL, "fam 6"),
		      DDF_KEY_OTHER_FAMILY);
	/* another port: not VXLAN unless the spec says so */
	tl_spec(&s, DDF_KD_VXLAN, 0);
	tl_put16(a + 14 + 20 + 2, 8472);
	tl_hash(t, &s, &tl_ether, a, na, &h1, &ki, "8472");
	DDF_EXPECT_EQ(t, ki.decaps, 0);
	s.vxlan_port = 8472;
	tl_hash(t, &s, &tl_ether, a, na, &h1, &ki, "8472");
	DDF_EXPECT_EQ(t, ki.decaps, 1);
	/* an ARP frame inside: keyed whole, the outer packet's bytes counted */
	tl_spec(&s, DDF_KD_VXLAN, 0);
	n = tl_eth(in, 0, 5, 0x0806);
	for (int i = 0; i < 28; i++)
		in[n + i] = (uint8_t)i;
	n += 28;
	na = tl_wrap(a, TL_VXLAN, in, n, 1);
	DDF_EXPECT_EQ(t, tl_hash(t, &s, &tl_ether, a, na, &h1, &ki, "arp in"),
		      DDF_KEY_HASHED);
	DDF_EXPECT_EQ(t, ki.decaps, 1);
	DDF_EXPECT(t, ki.flags & DDF_KEY_F_NONIP);
	DDF_EXPECT_EQ(t, ki.len, na - 14);
}

/*
 * Long frames in the frame form ("Long keys"): the region starts behind
 * the string's first 63 bytes, which hold the MACs, the tag put back (or
 * not, with ignore vlan) and the frame's next bytes; every length around
 * the region's edge and a chunk's, tagged in the frame, tag taken out.
 */
DDF_TEST(ddf_link_frames_long)
{
	static const uint32_t pays[] = { 60, 80, 81, 82, 83, 84, 85, 86, 100,
					 450, 470, 471, 472, 473, 474, 475 };
	uint8_t *f = ddf_test_alloc(t, 2 * TL_CAP);
	uint8_t *w = ddf_test_alloc(t, 2 * TL_CAP);
	struct ddf_key_link lk = { DDF_LINK_ETHER, 0x8100, 0x300a };
	struct ddf_hash h1, h2;
	struct ddf_key_spec s;
	uint32_t n, k, sn;

	DDF_ASSERT(t, f && w);
	for (uint32_t i = 0; i < DDF_ARRAY_SIZE(pays); i++) {
		for (int v = 0; v < 8; v++) {
			bool inframe = v & 1, out = v & 2, igvlan = v & 4;

			tl_spec(&s, 0, igvlan ? DDF_KI_VLAN : 0);
			s.form = DDF_KEY_FRAME;
			s.ignore = igvlan ? DDF_KI_VLAN : 0;
			n = tl_eth(f, 0, 3, inframe ? 0x8100 : 0x0800);
			if (inframe)
				n = tl_tag(f, n, 0x0123, 0x0800);
			n = tl_ip4udp(f, n, 64, 7, 9, pays[i], (uint8_t)v);
			/* the string: MACs, the tags the key keeps, the rest */
			k = 0;
			w[k++] = 'R';
			memcpy(w + k, f, 12);
			k += 12;
			if (out && !igvlan) {
				tl_put16(w + k, 0x8100);
				tl_put16(w + k + 2, 0x300a);
				k += 4;
			}
			sn = inframe && igvlan ? 16 : 12;
			memcpy(w + k, f + sn, n - sn);
			k += n - sn;
			tl_put32(w + k, k - 1);
			tl_ref(t, &h2, w, k + 4);
			tl_hash(t, &s, out ? &lk : &tl_ether, f, n, &h1, NULL,
				"a long frame");
			DDF_EXPECT_MSG(t, tl_same(&h1, &h2),
				       "frame of %u bytes, variant %d: not the string's hash",
				       n, v);
		}
	}
}

static ddf_case_t ddf_link_cases[] = {
	DDF_CASE(ddf_link_plain_and_tagged),
	DDF_CASE(ddf_link_qinq_mpls),
	DDF_CASE(ddf_link_frames),
	DDF_CASE(ddf_link_frames_long),
	DDF_CASE(ddf_link_tunnels),
	DDF_CASES_END
};

DDF_SUITE(ddf_link, ddf_link_cases);
