// SPDX-License-Identifier: GPL-2.0
/*
 * nf_ddf_skb_key: the packet key read from real sk_buffs. The same bytes
 * hashed by nf_ddf_skb_hash() from an skb, whatever its shape (linear head
 * plus one page fragment, many small fragments, a frag_list), and by
 * ddf_key_hash() from a flat buffer must give the same result, hash and
 * info. Behind every piece of a packet, in the same buffer but outside the
 * skb, lie junk bytes, so a read past skb->len or past a fragment's end
 * changes the hash and shows. nf_ddf_skb_family_ok() holds a packet to its
 * hook's family, and nf_ddf_skb_hash_pf() hashes as nf_ddf_skb_hash() a
 * packet it holds, and says not IP of the others.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/in.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <net/ipv6.h>

#include "../../nf_ddf/nf_ddf_skb.h"

#define NSK_CAP 512u /* the largest packet plus padding */
#define NSK_ALL (-1) /* cut: keep the whole packet */
#define NSK_HEADROOM 32u
#define NSK_SLACK 64u /* junk room behind each piece */
#define NSK_PAGE_OFF 200u /* where the single page fragment starts */
#define NSK_ETH 14u /* nhoff behind an Ethernet header */

static struct ddf_key_secret nsk_secret;

static const u8 nsk_seed[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

/* Two Ethernet headers that differ in every byte. */
static const u8 nsk_eth[2][NSK_ETH] = {
	{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00,
	  0x02, 0x08, 0x00 },
	{ 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x0f, 0x1e, 0x2d,
	  0x3c, 0x86, 0xdd },
};

/* ---- packets ---- */

/* A packet to build; unset members take the builder's defaults. */
struct nsk_pkt {
	u8 family; /* 4 or 6 */
	u8 proto; /* L4 protocol */
	u8 ihl; /* IPv4 header words; 0: 5 */
	u8 nexts; /* extension headers (AH for IPv4) ... */
	u8 next[4]; /* ... of these types, in order */
	u16 frag_off; /* 8-byte units: IPv4 or the fragment header */
	bool mf; /* more fragments */
	bool zlen; /* IP length field 0: BIG TCP, jumbogram */
	u8 tcp_doff; /* 0: 5 */
	u8 icmp_type;
	u16 paylen; /* bytes behind the L4 header */
};

static void nsk_put16(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static void nsk_put32(u8 *p, u32 v)
{
	nsk_put16(p, v >> 16);
	nsk_put16(p + 2, v);
}

/* An extension header of type t at h; its length. */
static u32 nsk_ext(u8 *h, u8 t, const struct nsk_pkt *d)
{
	switch (t) {
	case NEXTHDR_HOP: /* PadN of 4 */
		h[2] = 1;
		h[3] = 4;
		return 8;
	case NEXTHDR_DEST: /* PadN of 12 */
		h[1] = 1;
		h[2] = 1;
		h[3] = 12;
		return 16;
	case NEXTHDR_ROUTING: /* segment routing, no segments left */
		h[1] = 2;
		h[2] = 4;
		return 24;
	case NEXTHDR_FRAGMENT:
		nsk_put16(h + 2, (u32)d->frag_off << 3 | (d->mf ? 1 : 0));
		nsk_put32(h + 4, 0xcafe0001);
		return 8;
	default: /* AH: (4 + 2) * 4 bytes */
		h[1] = 4;
		nsk_put32(h + 4, 0x1000); /* SPI */
		nsk_put32(h + 8, 1); /* sequence */
		memset(h + 12, 0xa7, 12); /* ICV */
		return 24;
	}
}

/* The L4 header of d at h; its length. */
static u32 nsk_l4(u8 *h, const struct nsk_pkt *d)
{
	u32 doff = d->tcp_doff ? d->tcp_doff : 5;

	switch (d->proto) {
	case IPPROTO_TCP:
		nsk_put16(h, 12345);
		nsk_put16(h + 2, 80);
		nsk_put32(h + 4, 0x01020304); /* seq */
		nsk_put32(h + 8, 0x05060708); /* ack */
		h[12] = (u8)(doff << 4);
		h[13] = 0x18;
		nsk_put16(h + 14, 512);
		nsk_put16(h + 16, 0xabcd); /* checksum: not computed */
		memset(h + 20, 1, doff * 4 - 20); /* NOP options */
		return doff * 4;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		nsk_put16(h, 5353);
		nsk_put16(h + 2, 53);
		nsk_put16(h + 4, 8 + d->paylen);
		nsk_put16(h + 6, 0x5a5a);
		return 8;
	case IPPROTO_SCTP:
		nsk_put16(h, 2905);
		nsk_put16(h + 2, 2905);
		nsk_put32(h + 4, 0x11223344); /* verification tag */
		nsk_put32(h + 8, 0x99887766); /* CRC32c */
		return 12;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		h[0] = d->icmp_type;
		nsk_put16(h + 2, 0x1357);
		nsk_put16(h + 4, 0x4242); /* identifier */
		nsk_put16(h + 6, 7); /* sequence */
		return 8;
	default:
		return 0;
	}
}

/* Build d into b (NSK_CAP bytes); its length, and where L4 starts. */
static u32 nsk_build(const struct nsk_pkt *d, u8 *b, u32 *l4off)
{
	u32 off, len, i;
	u8 *nh;

	memset(b, 0, NSK_CAP);
	if (d->family == 4) {
		off = (d->ihl ? d->ihl : 5) * 4u;
		b[0] = (u8)(0x40 | off / 4);
		b[1] = 0xb9; /* DSCP 0x2e, ECN 1 */
		nsk_put16(b + 4, 0x1234);
		nsk_put16(b + 6, (d->mf ? 0x2000 : 0) | d->frag_off);
		b[8] = 64;
		nsk_put16(b + 10, 0xbeef); /* checksum: not computed */
		nsk_put32(b + 12, 0x0a000001);
		nsk_put32(b + 16, 0xc0a80102);
		memset(b + 20, 1, off - 20); /* NOP options */
		nh = b + 9;
	} else {
		b[0] = 0x6b; /* traffic class 0xb9, flow label 0x12345 */
		b[1] = 0x91;
		b[2] = 0x23;
		b[3] = 0x45;
		b[7] = 64;
		for (i = 8; i < 40; i++)
			b[i] = (u8)(0x20 + i);
		nh = b + 6;
		off = 40;
	}
	for (i = 0; i < d->nexts; i++) {
		*nh = d->next[i];
		nh = b + off;
		off += nsk_ext(b + off, d->next[i], d);
	}
	*nh = d->proto;
	*l4off = off;
	if (!d->frag_off)
		off += nsk_l4(b + off, d);
	for (i = 0; i < d->paylen; i++)
		b[off + i] = (u8)(i * 7 + 3);
	len = off + d->paylen;
	if (d->family == 4)
		nsk_put16(b + 2, d->zlen ? 0 : len);
	else
		nsk_put16(b + 4, d->zlen ? 0 : len - 40);
	return len;
}

/* ---- skbs ---- */

enum nsk_layout {
	NSK_PAGE, /* the rest in one page fragment */
	NSK_PAGES, /* the rest in fragments of 1, 2, 3, 5, 8 ... bytes */
	NSK_FRAGLIST, /* the rest in the linear area of a frag_list skb */
	__NSK_LAYOUT_MAX
};

static const char *const nsk_layout_name[] = {
	[NSK_PAGE] = "page fragment",
	[NSK_PAGES] = "many fragments",
	[NSK_FRAGLIST] = "frag_list",
};

/* What to build and hash. */
struct nsk_job {
	const struct ddf_key_spec *spec;
	const u8 *pre; /* nhoff bytes before the IP packet, or NULL */
	u32 nhoff;
	const u8 *pkt; /* skb->len is nhoff + len */
	u32 len;
	u32 split; /* bytes of pkt in the linear area */
	enum nsk_layout layout;
	u8 seed; /* of the junk behind every piece */
};

struct nsk_res {
	int ret;
	struct ddf_hash h;
	struct ddf_key_info ki;
	u32 headlen;
};

static void nsk_junk(u8 *p, u32 n, u8 seed)
{
	for (u32 i = 0; i < n; i++)
		p[i] = (u8)(seed ^ (i * 37 + 0x5b));
}

/* The rest of the packet, from pkt, as page fragments. */
static bool nsk_add_pages(struct sk_buff *skb, const struct nsk_job *j)
{
	u32 rest = j->len - j->split, off = 0, poff = 16, a = 1, b = 2, n;
	const u8 *src = j->pkt + j->split;
	struct page *page;
	u8 *p;
	int i;

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return false;
	p = page_address(page);
	nsk_junk(p, PAGE_SIZE, j->seed + 1);
	if (j->layout == NSK_PAGE) {
		memcpy(p + NSK_PAGE_OFF, src, rest);
		skb_add_rx_frag(skb, 0, page, NSK_PAGE_OFF, rest, PAGE_SIZE);
		return true;
	}
	/* one page, a reference per fragment, junk between fragments */
	for (i = 0; off < rest; i++) {
		n = min(a, rest - off);
		if (i == MAX_SKB_FRAGS - 1)
			n = rest - off;
		if (i)
			get_page(page);
		memcpy(p + poff, src + off, n);
		skb_add_rx_frag(skb, i, page, poff, n, n);
		off += n;
		poff += n + 16;
		b += a;
		a = b - a;
	}
	return true;
}

/*
 * An skb holding j->pre and j->pkt: pre and the first split bytes of pkt
 * in the linear area, the rest as j->layout says.
 */
static struct sk_buff *nsk_skb(const struct nsk_job *j)
{
	u32 rest = j->len - j->split;
	struct sk_buff *skb, *tail;

	skb = alloc_skb(NSK_HEADROOM + j->nhoff + j->split + NSK_SLACK,
			GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, NSK_HEADROOM);
	if (j->nhoff)
		skb_put_data(skb, j->pre, j->nhoff);
	if (j->split)
		skb_put_data(skb, j->pkt, j->split);
	nsk_junk(skb_tail_pointer(skb), skb_tailroom(skb), j->seed);
	if (!rest)
		return skb;
	if (j->layout != NSK_FRAGLIST) {
		if (nsk_add_pages(skb, j))
			return skb;
		kfree_skb(skb);
		return NULL;
	}
	tail = alloc_skb(rest + NSK_SLACK, GFP_KERNEL);
	if (!tail) {
		kfree_skb(skb);
		return NULL;
	}
	skb_put_data(tail, j->pkt + j->split, rest);
	nsk_junk(skb_tail_pointer(tail), skb_tailroom(tail), j->seed + 2);
	skb_shinfo(skb)->frag_list = tail;
	skb->len += rest;
	skb->data_len += rest;
	skb->truesize += tail->truesize;
	return skb;
}

/* Hash the job's skb; 0 or -ENOMEM. */
static int nsk_run(const struct nsk_job *j, struct nsk_res *r)
{
	struct sk_buff *skb = nsk_skb(j);

	if (!skb)
		return -ENOMEM;
	memset(&r->h, 0x5a, sizeof(r->h));
	r->ret = nf_ddf_skb_hash(j->spec, skb, j->nhoff, &nsk_secret,
				 DDF_HASH_SIP13, &r->h, &r->ki);
	r->headlen = skb_headlen(skb);
	kfree_skb(skb);
	return 0;
}

/* The reference: the same bytes as a flat buffer. */
static void nsk_flat(const struct ddf_key_spec *spec, const u8 *pkt, u32 len,
		     struct nsk_res *r)
{
	struct ddf_key_flat f = { .data = pkt, .len = len };

	memset(&r->h, 0x5a, sizeof(r->h));
	r->ret = ddf_key_hash(spec, ddf_key_read_flat, &f, len, &nsk_secret,
			      DDF_HASH_SIP13, &r->h, &r->ki);
	r->headlen = len;
}

static bool nsk_same(const struct nsk_res *a, const struct nsk_res *b)
{
	return a->ret == b->ret && !memcmp(&a->ki, &b->ki, sizeof(a->ki)) &&
	       a->h.h1 == b->h.h1 && a->h.h2 == b->h.h2;
}

/* Hash the job's skb and expect ref; false (and a failure) if not. */
static bool nsk_expect(struct kunit *test, const char *what,
		       const struct nsk_job *j, const struct nsk_res *ref,
		       struct nsk_res *out)
{
	struct nsk_res r;

	if (nsk_run(j, &r)) {
		KUNIT_FAIL(test, "%s: out of memory", what);
		return false;
	}
	if (out)
		*out = r;
	if (nsk_same(&r, ref))
		return true;
	KUNIT_FAIL(test,
		   "%s: %s skb, nhoff %u, %u bytes linear: result %d, flags %#x, len %u, hash %016llx; flat buffer: %d, %#x, %u, %016llx",
		   what,
		   j->split == j->len ? "linear" : nsk_layout_name[j->layout],
		   j->nhoff, r.headlen,
		   r.ret, r.ki.flags, r.ki.len, r.h.h1, ref->ret, ref->ki.flags,
		   ref->ki.len, ref->h.h1);
	return false;
}

/* Every layout and every split of j's packet against ref. */
static bool nsk_sweep(struct kunit *test, const char *what,
		      const struct nsk_job *tmpl, const struct nsk_res *ref,
		      u8 seed)
{
	struct nsk_job j = *tmpl;

	for (j.layout = 0; j.layout < __NSK_LAYOUT_MAX; j.layout++) {
		for (j.split = 0; j.split <= j.len; j.split++) {
			/* a linear skb is the same for every layout */
			if (j.split == j.len && j.layout)
				continue;
			j.seed = (u8)(seed + j.split * 3 + j.layout);
			if (!nsk_expect(test, what, &j, ref, NULL))
				return false;
		}
	}
	return true;
}

static int nsk_suite_init(struct kunit_suite *suite)
{
	struct ddf_sipkey sk;

	ddf_sipkey_from_bytes(&sk, nsk_seed);
	ddf_key_secret_init(&nsk_secret, &sk);
	return 0;
}

/* ---- (a) every split of well-formed packets, under several specs ---- */

struct nsk_pkt_case {
	const char *desc;
	struct nsk_pkt pkt;
};

static const struct nsk_pkt_case nsk_pkt_cases[] = {
	{ "IPv4 UDP", { 4, IPPROTO_UDP, .paylen = 64 } },
	{ "IPv4 TCP with options", { 4, IPPROTO_TCP, .tcp_doff = 8, .paylen = 40 } },
	{ "IPv4 options, TCP", { 4, IPPROTO_TCP, .ihl = 7, .paylen = 24 } },
	{ "IPv4 ICMP echo", { 4, IPPROTO_ICMP, .icmp_type = 8, .paylen = 56 } },
	{ "IPv4 SCTP", { 4, IPPROTO_SCTP, .paylen = 20 } },
	{ "IPv4 first fragment", { 4, IPPROTO_UDP, .mf = true, .paylen = 48 } },
	{ "IPv4 later fragment", { 4, IPPROTO_UDP, .frag_off = 6, .paylen = 40 } },
	{ "IPv4 AH, TCP", { 4, IPPROTO_TCP, .nexts = 1, .next = { IPPROTO_AH }, .paylen = 20 } },
	{ "IPv4 total length 0 (BIG TCP)", { 4, IPPROTO_TCP, .zlen = true, .paylen = 30 } },
	{ "IPv6 UDP", { 6, IPPROTO_UDP, .paylen = 64 } },
	{ "IPv6 hop-by-hop, dstopts, routing, TCP",
	  { 6, IPPROTO_TCP, .nexts = 3,
	    .next = { NEXTHDR_HOP, NEXTHDR_DEST, NEXTHDR_ROUTING }, .paylen = 32 } },
	{ "IPv6 ICMPv6 echo", { 6, IPPROTO_ICMPV6, .icmp_type = 128, .paylen = 40 } },
	{ "IPv6 first fragment",
	  { 6, IPPROTO_UDP, .nexts = 1, .next = { NEXTHDR_FRAGMENT }, .mf = true,
	    .paylen = 48 } },
	{ "IPv6 later fragment",
	  { 6, IPPROTO_UDP, .nexts = 1, .next = { NEXTHDR_FRAGMENT },
	    .frag_off = 10, .paylen = 40 } },
	{ "IPv6 AH, UDP-Lite",
	  { 6, IPPROTO_UDPLITE, .nexts = 1, .next = { IPPROTO_AH }, .paylen = 24 } },
	{ "IPv6 jumbogram (payload length 0)",
	  { 6, IPPROTO_UDP, .nexts = 1, .next = { NEXTHDR_HOP }, .zlen = true,
	    .paylen = 30 } },
	{ "IPv4 ESP", { 4, IPPROTO_ESP, .paylen = 36 } },
};

KUNIT_ARRAY_PARAM_DESC(nsk_pkt, nsk_pkt_cases, desc);

#define NSK_5TUPLE \
	(DDF_KF_SADDR | DDF_KF_DADDR | DDF_KF_PROTO | DDF_KF_SPORT | DDF_KF_DPORT)

static const struct ddf_key_spec nsk_specs[] = {
	{ .ignore = DDF_KI_DEFAULT, .max_bytes = DDF_KEY_MAX_BYTES_DEFAULT },
	{ .ignore = __DDF_KI_ALL, .max_bytes = DDF_KEY_MAX_BYTES_DEFAULT },
	{ .ignore = DDF_KI_DEFAULT, .max_bytes = 37 },
	{ .form = DDF_KEY_FIELDS, .fields = __DDF_KF_ALL, .payload_off = 3,
	  .payload_len = 40, .max_bytes = DDF_KEY_MAX_BYTES_DEFAULT },
	{ .form = DDF_KEY_FIELDS, .fields = NSK_5TUPLE,
	  .max_bytes = DDF_KEY_MAX_BYTES_DEFAULT },
	{ .form = DDF_KEY_FIELDS, .ignore = DDF_KI_DEFAULT,
	  .fields = DDF_KF_IPID | DDF_KF_TCPSEQ | DDF_KF_TCPACK | DDF_KF_ICMPID,
	  .max_bytes = DDF_KEY_MAX_BYTES_DEFAULT },
};

static void nsk_split_test(struct kunit *test)
{
	const struct nsk_pkt_case *c = test->param_value;
	struct nsk_job j = { 0 };
	struct nsk_res ref;
	char what[64];
	u32 l4off;
	u8 *pkt;

	/* Arrange */
	pkt = kunit_kzalloc(test, NSK_CAP, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	j.pkt = pkt;
	j.len = nsk_build(&c->pkt, pkt, &l4off);

	for (u32 s = 0; s < ARRAY_SIZE(nsk_specs); s++) {
		j.spec = &nsk_specs[s];
		snprintf(what, sizeof(what), "spec %u", s);
		KUNIT_ASSERT_EQ_MSG(test, ddf_key_spec_validate(j.spec, NULL), 0,
				    "%s", what);
		nsk_flat(j.spec, pkt, j.len, &ref);
		KUNIT_ASSERT_EQ_MSG(test, ref.ret, DDF_KEY_HASHED, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, ref.ki.len, j.len, "%s", what);

		/* Act and assert */
		if (!nsk_sweep(test, what, &j, &ref, (u8)s))
			return;
	}
}

/* ---- (b) cut and inconsistent headers, padding, bytes behind len ---- */

struct nsk_patch {
	u16 at;
	u8 val;
};

struct nsk_cut_case {
	const char *desc;
	struct nsk_pkt pkt;
	int cut; /* the skb holds the first cut bytes; NSK_ALL: all */
	u8 npatch;
	struct nsk_patch patch[2]; /* bytes set after building */
	u16 pad; /* junk bytes behind the packet inside skb->len */
	int result;
	u16 set, clear; /* info.flags that must be set, clear */
	u16 len; /* expected info.len, with DDF_KEY_HASHED */
};

#define NSK_V4UDP(n) { 4, IPPROTO_UDP, .paylen = (n) }
#define NSK_V4TCP(n) { 4, IPPROTO_TCP, .paylen = (n) }
#define NSK_V6UDP(n) { 6, IPPROTO_UDP, .paylen = (n) }

static const struct nsk_cut_case nsk_cut_cases[] = {
	{ "empty", NSK_V4UDP(8), 0, .result = DDF_KEY_NOT_IP },
	{ "IPv4, 1 byte", NSK_V4UDP(8), 1, .result = DDF_KEY_MALFORMED },
	{ "IPv4, 19 bytes", NSK_V4UDP(8), 19, .result = DDF_KEY_MALFORMED },
	{ "IPv4 header only, length says 36", NSK_V4UDP(8), 20,
	  .result = DDF_KEY_HASHED, .set = DDF_KEY_F_L4 | DDF_KEY_F_TRUNCATED,
	  .clear = DDF_KEY_F_L4HDR | DDF_KEY_F_PAYLOAD, .len = 20 },
	{ "IPv4 IHL 15 beyond the packet", NSK_V4UDP(4), NSK_ALL, 1,
	  { { 0, 0x4f } }, .result = DDF_KEY_MALFORMED },
	{ "IPv4 IHL 6 beyond the cut", { 4, IPPROTO_UDP, .ihl = 6, .paylen = 8 },
	  22, .result = DDF_KEY_MALFORMED },
	{ "IPv4 IHL 4", NSK_V4UDP(8), NSK_ALL, 1, { { 0, 0x44 } },
	  .result = DDF_KEY_MALFORMED },
	{ "IPv4 total length 19", NSK_V4UDP(8), NSK_ALL, 2,
	  { { 2, 0 }, { 3, 19 } }, .result = DDF_KEY_MALFORMED },
	{ "version 5", NSK_V4UDP(8), NSK_ALL, 1, { { 0, 0x55 } },
	  .result = DDF_KEY_NOT_IP },
	{ "TCP header cut after 10 bytes", NSK_V4TCP(20), 30,
	  .result = DDF_KEY_HASHED, .set = DDF_KEY_F_L4 | DDF_KEY_F_TRUNCATED,
	  .clear = DDF_KEY_F_L4HDR | DDF_KEY_F_PAYLOAD, .len = 30 },
	{ "TCP data offset 15 beyond the packet", NSK_V4TCP(10), NSK_ALL, 1,
	  { { 32, 0xf0 } }, .result = DDF_KEY_HASHED,
	  .set = DDF_KEY_F_L4 | DDF_KEY_F_TRUNCATED,
	  .clear = DDF_KEY_F_L4HDR | DDF_KEY_F_PAYLOAD, .len = 50 },
	{ "TCP data offset 4", NSK_V4TCP(10), NSK_ALL, 1, { { 32, 0x40 } },
	  .result = DDF_KEY_HASHED, .set = DDF_KEY_F_L4 | DDF_KEY_F_BADHDR,
	  .clear = DDF_KEY_F_L4HDR | DDF_KEY_F_TRUNCATED, .len = 50 },
	{ "IPv4 cut in the payload (snap length)", NSK_V4UDP(100), 60,
	  .result = DDF_KEY_HASHED,
	  .set = DDF_KEY_F_TRUNCATED | DDF_KEY_F_L4HDR | DDF_KEY_F_PAYLOAD,
	  .len = 60 },
	{ "IPv4 with link-layer padding", NSK_V4UDP(4), NSK_ALL, .pad = 14,
	  .result = DDF_KEY_HASHED, .set = DDF_KEY_F_L4HDR,
	  .clear = DDF_KEY_F_TRUNCATED, .len = 32 },
	{ "IPv6, 39 bytes", NSK_V6UDP(8), 39, .result = DDF_KEY_MALFORMED },
	{ "IPv6 hop-by-hop header cut",
	  { 6, IPPROTO_UDP, .nexts = 1, .next = { NEXTHDR_HOP }, .paylen = 8 },
	  44, .result = DDF_KEY_HASHED, .set = DDF_KEY_F_TRUNCATED,
	  .clear = DDF_KEY_F_L4, .len = 44 },
	{ "IPv6 fragment header cut",
	  { 6, IPPROTO_UDP, .nexts = 1, .next = { NEXTHDR_FRAGMENT }, .paylen = 8 },
	  47, .result = DDF_KEY_HASHED, .set = DDF_KEY_F_TRUNCATED,
	  .clear = DDF_KEY_F_L4 | DDF_KEY_F_FRAGHDR, .len = 47 },
	{ "IPv6 UDP header cut", NSK_V6UDP(8), 45, .result = DDF_KEY_HASHED,
	  .set = DDF_KEY_F_L4 | DDF_KEY_F_TRUNCATED,
	  .clear = DDF_KEY_F_L4HDR | DDF_KEY_F_PAYLOAD, .len = 45 },
	{ "IPv6 with link-layer padding",
	  { 6, IPPROTO_ICMPV6, .icmp_type = 128, .paylen = 8 }, NSK_ALL,
	  .pad = 6, .result = DDF_KEY_HASHED, .set = DDF_KEY_F_L4HDR,
	  .clear = DDF_KEY_F_TRUNCATED, .len = 56 },
};

KUNIT_ARRAY_PARAM_DESC(nsk_cut, nsk_cut_cases, desc);

static void nsk_cut_test(struct kunit *test)
{
	const struct nsk_cut_case *c = test->param_value;
	struct ddf_key_spec specs[2];
	struct nsk_job j = { 0 };
	struct nsk_res ref;
	u8 *pkt, *flat;
	u32 len, l4off;

	/* Arrange: pkt is what the skb holds, flat the same with zero pad */
	pkt = kunit_kzalloc(test, NSK_CAP, GFP_KERNEL);
	flat = kunit_kzalloc(test, NSK_CAP, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	KUNIT_ASSERT_NOT_NULL(test, flat);
	len = nsk_build(&c->pkt, pkt, &l4off);
	for (u32 i = 0; i < c->npatch; i++)
		pkt[c->patch[i].at] = c->patch[i].val;
	if (c->cut != NSK_ALL)
		len = c->cut;
	KUNIT_ASSERT_LE(test, len + c->pad, NSK_CAP);
	memset(pkt + len, 0, NSK_CAP - len);
	memcpy(flat, pkt, len);
	nsk_junk(pkt + len, c->pad, 0x33);
	ddf_key_spec_default(&specs[0]);
	ddf_key_spec_default(&specs[1]);
	specs[1].form = DDF_KEY_FIELDS;
	specs[1].fields = __DDF_KF_ALL;
	specs[1].payload_len = 64;
	j.pkt = pkt;
	j.len = len + c->pad;

	for (u32 s = 0; s < ARRAY_SIZE(specs); s++) {
		j.spec = &specs[s];
		nsk_flat(j.spec, flat, len + c->pad, &ref);

		/* the documented result, from the flat buffer */
		KUNIT_EXPECT_EQ(test, ref.ret, c->result);
		KUNIT_EXPECT_EQ(test, ref.ki.flags & c->set, c->set);
		KUNIT_EXPECT_EQ(test, ref.ki.flags & c->clear, 0);
		if (c->result == DDF_KEY_HASHED)
			KUNIT_EXPECT_EQ(test, ref.ki.len, c->len);

		/* the same from every skb, whatever lies behind its bytes */
		if (!nsk_sweep(test, s ? "fields" : "packet", &j, &ref, 0x10) ||
		    !nsk_sweep(test, s ? "fields" : "packet", &j, &ref, 0xc7))
			return;
	}
}

/* ---- (c) masked fields, in a page fragment ---- */

struct nsk_mask_case {
	const char *desc;
	struct nsk_pkt pkt;
	u32 ignore; /* the DDF_KI_ bit */
	u16 at; /* the field's first byte: L3 offset, or L4 offset with l4 */
	bool l4;
	u8 x[2]; /* xor into the bytes at, at + 1 */
	bool masked; /* whether the bit hides the change */
};

#define NSK_V6TCPX \
	{ 6, IPPROTO_TCP, .nexts = 3, \
	  .next = { NEXTHDR_HOP, NEXTHDR_DEST, NEXTHDR_ROUTING }, .paylen = 16 }

static const struct nsk_mask_case nsk_mask_cases[] = {
	{ "IPv4 TTL", NSK_V4UDP(16), DDF_KI_TTL, 8, false, { 0x01 }, true },
	{ "IPv6 hop limit", NSK_V6UDP(16), DDF_KI_TTL, 7, false, { 0x80 }, true },
	{ "IPv4 header checksum", NSK_V4UDP(16), DDF_KI_IPV4CSUM, 10, false,
	  { 0x12, 0x34 }, true },
	{ "IPv4 DSCP", NSK_V4UDP(16), DDF_KI_DSCP, 1, false, { 0x84 }, true },
	{ "IPv4 ECN", NSK_V4UDP(16), DDF_KI_ECN, 1, false, { 0x03 }, true },
	{ "IPv6 DSCP, byte 0", NSK_V6UDP(16), DDF_KI_DSCP, 0, false, { 0x09 },
	  true },
	{ "IPv6 DSCP, byte 1", NSK_V6UDP(16), DDF_KI_DSCP, 1, false, { 0xc0 },
	  true },
	{ "IPv6 ECN", NSK_V6UDP(16), DDF_KI_ECN, 1, false, { 0x30 }, true },
	{ "IPv4 identification", NSK_V4UDP(16), DDF_KI_IPID, 4, false,
	  { 0x12, 0x34 }, true },
	{ "IPv4 identification of a fragment",
	  { 4, IPPROTO_UDP, .mf = true, .paylen = 16 }, DDF_KI_IPID, 4, false,
	  { 0x12, 0x34 }, false },
	{ "IPv6 flow label, bytes 1-2", NSK_V6UDP(16), DDF_KI_FLOWLABEL, 1,
	  false, { 0x0f, 0xff }, true },
	{ "IPv6 flow label, bytes 2-3", NSK_V6UDP(16), DDF_KI_FLOWLABEL, 2,
	  false, { 0x01, 0x80 }, true },
	{ "TCP checksum", NSK_V4TCP(16), DDF_KI_L4CSUM, 16, true,
	  { 0xff, 0x01 }, true },
	{ "UDP checksum", NSK_V4UDP(16), DDF_KI_L4CSUM, 6, true,
	  { 0x01, 0x10 }, true },
	{ "ICMP checksum", { 4, IPPROTO_ICMP, .icmp_type = 8, .paylen = 16 },
	  DDF_KI_L4CSUM, 2, true, { 0x80, 0x08 }, true },
	{ "SCTP CRC32c", { 4, IPPROTO_SCTP, .paylen = 16 }, DDF_KI_L4CSUM, 10,
	  true, { 0x01, 0x02 }, true },
	{ "ICMPv6 checksum", { 6, IPPROTO_ICMPV6, .icmp_type = 129, .paylen = 16 },
	  DDF_KI_L4CSUM, 2, true, { 0x40, 0x04 }, true },
	{ "TCP checksum behind IPv6 extension headers", NSK_V6TCPX,
	  DDF_KI_L4CSUM, 16, true, { 0x10, 0x01 }, true },
	{ "UDP checksum behind IPv6 AH",
	  { 6, IPPROTO_UDP, .nexts = 1, .next = { IPPROTO_AH }, .paylen = 16 },
	  DDF_KI_L4CSUM, 6, true, { 0x02, 0x20 }, true },
	{ "data of a later fragment where a checksum would be",
	  { 4, IPPROTO_TCP, .frag_off = 3, .paylen = 40 }, DDF_KI_L4CSUM, 16,
	  true, { 0x01, 0x01 }, false },
	{ "ipv4csum on IPv6 (the source address)", NSK_V6UDP(16),
	  DDF_KI_IPV4CSUM, 10, false, { 0x01, 0x01 }, false },
	{ "flowlabel on IPv4 (ECN)", NSK_V4UDP(16), DDF_KI_FLOWLABEL, 1, false,
	  { 0x01 }, false },
};

KUNIT_ARRAY_PARAM_DESC(nsk_mask, nsk_mask_cases, desc);

static bool nsk_hash_eq(const struct nsk_res *a, const struct nsk_res *b)
{
	return a->h.h1 == b->h.h1 && a->h.h2 == b->h.h2;
}

static void nsk_mask_test(struct kunit *test)
{
	const struct nsk_mask_case *c = test->param_value;
	const u32 v4hdr = DDF_KI_TTL | DDF_KI_DSCP | DDF_KI_ECN | DDF_KI_IPID;
	struct ddf_key_spec specs[2]; /* with the bit, without it */
	struct nsk_res fa, fb, ra, rb;
	struct nsk_job ja = { 0 }, jb;
	u32 len, l4off, at, width;
	u8 *pkt, *flip;

	/* Arrange: the packet, and a copy with the field changed */
	pkt = kunit_kzalloc(test, NSK_CAP, GFP_KERNEL);
	flip = kunit_kzalloc(test, NSK_CAP, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	KUNIT_ASSERT_NOT_NULL(test, flip);
	len = nsk_build(&c->pkt, pkt, &l4off);
	at = c->at + (c->l4 ? l4off : 0);
	width = c->x[1] ? 2 : 1;
	KUNIT_ASSERT_LE(test, at + width, len);
	memcpy(flip, pkt, len);
	flip[at] ^= c->x[0];
	if (width > 1)
		flip[at + 1] ^= c->x[1];

	ddf_key_spec_default(&specs[0]);
	specs[0].ignore = c->ignore;
	if (c->ignore & v4hdr)
		specs[0].ignore |= DDF_KI_IPV4CSUM;
	specs[1] = specs[0];
	specs[1].ignore &= ~c->ignore;

	ja.pre = nsk_eth[c->pkt.family == 6];
	ja.nhoff = NSK_ETH;
	ja.pkt = pkt;
	ja.len = len;
	jb = ja;
	jb.pkt = flip;

	for (u32 s = 0; s < ARRAY_SIZE(specs); s++) {
		bool same = s == 0 && c->masked;
		const char *what = s ? "without the bit" : "with the bit";

		KUNIT_ASSERT_EQ(test, ddf_key_spec_validate(&specs[s], NULL), 0);
		ja.spec = &specs[s];
		jb.spec = &specs[s];
		nsk_flat(ja.spec, pkt, len, &fa);
		nsk_flat(jb.spec, flip, len, &fb);
		KUNIT_ASSERT_EQ(test, fa.ret, DDF_KEY_HASHED);
		KUNIT_ASSERT_EQ(test, fb.ret, DDF_KEY_HASHED);

		/* the field in a fragment, then across the boundary */
		for (ja.split = at; ja.split < at + width; ja.split++) {
			for (ja.layout = 0; ja.layout < __NSK_LAYOUT_MAX;
			     ja.layout++) {
				jb.split = ja.split;
				jb.layout = ja.layout;
				jb.seed = ja.seed + 1;

				/* Act */
				if (!nsk_expect(test, what, &ja, &fa, &ra) ||
				    !nsk_expect(test, what, &jb, &fb, &rb))
					return;

				/* Assert */
				KUNIT_EXPECT_LE(test, ra.headlen,
						NSK_ETH + ja.split);
				KUNIT_EXPECT_EQ_MSG(test, nsk_hash_eq(&ra, &rb),
						    same,
						    "%s, %s skb, %u bytes linear",
						    what,
						    nsk_layout_name[ja.layout],
						    ra.headlen);
			}
		}
	}
}

/* ---- (d) the packet behind a link-layer header ---- */

/* Hash j's skb at offset nhoff instead of j->nhoff; the result. */
static int nsk_at(struct kunit *test, const struct nsk_job *j, u32 nhoff,
		  struct ddf_key_info *ki)
{
	struct sk_buff *skb = nsk_skb(j);
	struct ddf_hash h;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	ret = nf_ddf_skb_hash(j->spec, skb, nhoff, &nsk_secret, DDF_HASH_SIP13,
			      &h, ki);
	kfree_skb(skb);
	return ret;
}

static void nsk_nhoff_test(struct kunit *test)
{
	static const struct nsk_pkt pkts[] = {
		NSK_V4TCP(24),
		NSK_V6TCPX,
	};
	struct ddf_key_spec spec;
	struct nsk_job j = { 0 };
	struct ddf_key_info ki;
	struct nsk_res ref;
	u32 l4off;
	u8 *pkt;

	pkt = kunit_kzalloc(test, NSK_CAP, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	ddf_key_spec_default(&spec);
	j.spec = &spec;
	j.pkt = pkt;
	j.nhoff = NSK_ETH;

	for (u32 p = 0; p < ARRAY_SIZE(pkts); p++) {
		j.len = nsk_build(&pkts[p], pkt, &l4off);
		nsk_flat(&spec, pkt, j.len, &ref);
		KUNIT_ASSERT_EQ(test, ref.ret, DDF_KEY_HASHED);

		/* the Ethernet header's bytes are not part of the key */
		for (u32 e = 0; e < ARRAY_SIZE(nsk_eth); e++) {
			j.pre = nsk_eth[e];
			if (!nsk_sweep(test, "nhoff 14", &j, &ref, (u8)e))
				return;
		}
	}

	/* nhoff 12, on the EtherType 0x0800: version 0, not IP */
	j.len = nsk_build(&pkts[0], pkt, &l4off);
	j.pre = nsk_eth[0];
	KUNIT_EXPECT_EQ(test, nsk_at(test, &j, 12, &ki), DDF_KEY_NOT_IP);
	KUNIT_EXPECT_EQ(test, ki.family, 0);

	/* 10 bytes of IPv4 behind the Ethernet header: malformed */
	j.len = 10;
	nsk_flat(&spec, pkt, j.len, &ref);
	KUNIT_EXPECT_EQ(test, ref.ret, DDF_KEY_MALFORMED);
	if (!nsk_sweep(test, "nhoff 14, 10 bytes", &j, &ref, 0))
		return;

	/* nothing behind nhoff: not IP */
	j.len = 0;
	nsk_flat(&spec, pkt, 0, &ref);
	KUNIT_EXPECT_EQ(test, ref.ret, DDF_KEY_NOT_IP);
	nsk_expect(test, "nhoff at the end", &j, &ref, NULL);

	/* nhoff beyond the end: not IP, nothing read */
	j.nhoff = 8;
	KUNIT_EXPECT_EQ(test, nsk_at(test, &j, NSK_ETH, &ki), DDF_KEY_NOT_IP);
	KUNIT_EXPECT_EQ(test, ki.len, 0);
}

/* ---- (e) the protocol selector ---- */

struct nsk_proto_case {
	const char *desc;
	struct nsk_pkt pkt;
	int cut;
	u8 l4proto;
	int result;
};

static const struct nsk_proto_case nsk_proto_cases[] = {
	{ "IPv4 UDP, udp", NSK_V4UDP(16), NSK_ALL, IPPROTO_UDP, DDF_KEY_HASHED },
	{ "IPv4 UDP, tcp", NSK_V4UDP(16), NSK_ALL, IPPROTO_TCP, DDF_KEY_SKIPPED },
	{ "IPv4 ICMP, icmp", { 4, IPPROTO_ICMP, .icmp_type = 8, .paylen = 8 },
	  NSK_ALL, IPPROTO_ICMP, DDF_KEY_HASHED },
	{ "IPv4 ICMP, icmpv6", { 4, IPPROTO_ICMP, .icmp_type = 8, .paylen = 8 },
	  NSK_ALL, IPPROTO_ICMPV6, DDF_KEY_SKIPPED },
	{ "IPv4 ESP, esp", { 4, IPPROTO_ESP, .paylen = 16 }, NSK_ALL,
	  IPPROTO_ESP, DDF_KEY_HASHED },
	{ "IPv4 later fragment of UDP, udp",
	  { 4, IPPROTO_UDP, .frag_off = 4, .paylen = 16 }, NSK_ALL,
	  IPPROTO_UDP, DDF_KEY_HASHED },
	{ "IPv4 cut to 10 bytes, udp", NSK_V4UDP(16), 10, IPPROTO_UDP,
	  DDF_KEY_MALFORMED },
	{ "IPv6 TCP behind extension headers, tcp", NSK_V6TCPX, NSK_ALL,
	  IPPROTO_TCP, DDF_KEY_HASHED },
	{ "IPv6 TCP behind extension headers, udp", NSK_V6TCPX, NSK_ALL,
	  IPPROTO_UDP, DDF_KEY_SKIPPED },
	{ "IPv6 TCP behind extension headers, hop-by-hop", NSK_V6TCPX,
	  NSK_ALL, NEXTHDR_HOP, DDF_KEY_SKIPPED },
	{ "IPv6 hop-by-hop header cut, hop-by-hop", NSK_V6TCPX, 44, NEXTHDR_HOP,
	  DDF_KEY_SKIPPED },
	{ "IPv6 ICMPv6, icmpv6", { 6, IPPROTO_ICMPV6, .icmp_type = 128, .paylen = 8 },
	  NSK_ALL, IPPROTO_ICMPV6, DDF_KEY_HASHED },
	{ "IPv6 later fragment of UDP, udp",
	  { 6, IPPROTO_UDP, .nexts = 1, .next = { NEXTHDR_FRAGMENT },
	    .frag_off = 10, .paylen = 16 }, NSK_ALL, IPPROTO_UDP, DDF_KEY_HASHED },
	{ "IPv6 later fragment of UDP, fragment",
	  { 6, IPPROTO_UDP, .nexts = 1, .next = { NEXTHDR_FRAGMENT },
	    .frag_off = 10, .paylen = 16 }, NSK_ALL, NEXTHDR_FRAGMENT,
	  DDF_KEY_SKIPPED },
};

KUNIT_ARRAY_PARAM_DESC(nsk_proto, nsk_proto_cases, desc);

static void nsk_proto_test(struct kunit *test)
{
	const struct nsk_proto_case *c = test->param_value;
	struct ddf_key_spec specs[2];
	struct nsk_job j = { 0 };
	struct nsk_res ref;
	u32 l4off;
	u8 *pkt;

	pkt = kunit_kzalloc(test, NSK_CAP, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	j.pkt = pkt;
	j.len = nsk_build(&c->pkt, pkt, &l4off);
	if (c->cut != NSK_ALL)
		j.len = c->cut;
	ddf_key_spec_default(&specs[0]);
	specs[0].match = DDF_KM_L4PROTO;
	specs[0].l4proto = c->l4proto;
	specs[1] = specs[0];
	specs[1].form = DDF_KEY_FIELDS;
	specs[1].fields = NSK_5TUPLE;

	for (u32 s = 0; s < ARRAY_SIZE(specs); s++) {
		j.spec = &specs[s];
		KUNIT_ASSERT_EQ(test, ddf_key_spec_validate(j.spec, NULL), 0);
		nsk_flat(j.spec, pkt, j.len, &ref);
		KUNIT_EXPECT_EQ(test, ref.ret, c->result);
		if (c->result != DDF_KEY_HASHED) {
			/* out is not written without a hash */
			KUNIT_EXPECT_EQ(test, ref.h.h1, 0x5a5a5a5a5a5a5a5aull);
			KUNIT_EXPECT_EQ(test, ref.h.h2, 0x5a5a5a5a5a5a5a5aull);
		}
		if (!nsk_sweep(test, s ? "fields" : "packet", &j, &ref, 0x77))
			return;
	}
}

/* ---- (f) the hook's family ---- */

/*
 * A raw socket hands the output hooks any bytes, so the hook's family, not
 * the version nibble, says what a packet must be: an IPv4 packet in an
 * IPv6 hook, an IPv6 one in an IPv4 hook and version 5 in either are not
 * of the family, wherever their first byte lies (the linear area, a page
 * fragment, a frag_list). Other families and an empty packet pass.
 */
static void nsk_family_test(struct kunit *test)
{
	static const struct nsk_pkt pkts[] = { NSK_V4TCP(24), NSK_V6TCPX };
	static const u8 pfs[] = { NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_INET,
				  NFPROTO_UNSPEC };
	static const enum nsk_layout layouts[] = { NSK_PAGE, NSK_FRAGLIST };
	struct ddf_key_spec spec;
	struct nsk_job j = { 0 };
	struct sk_buff *skb;
	u32 l4off;
	u8 *pkt;

	pkt = kunit_kzalloc(test, NSK_CAP, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	ddf_key_spec_default(&spec);
	j.spec = &spec;
	j.pkt = pkt;
	j.pre = nsk_eth[0];
	/* IPv4, IPv6, and the IPv4 packet made version 5 */
	for (u32 p = 0; p <= ARRAY_SIZE(pkts); p++) {
		u8 ver;

		j.len = nsk_build(&pkts[p % ARRAY_SIZE(pkts)], pkt, &l4off);
		if (p == ARRAY_SIZE(pkts))
			pkt[0] = 0x55;
		ver = pkt[0] >> 4;
		for (u32 k = 0; k < 2 * 2 * ARRAY_SIZE(layouts); k++) {
			j.nhoff = k & 1 ? NSK_ETH : 0;
			j.split = k & 2 ? j.len : 0;
			j.layout = layouts[k / 4];
			skb = nsk_skb(&j);
			KUNIT_ASSERT_NOT_NULL(test, skb);
			for (u32 f = 0; f < ARRAY_SIZE(pfs); f++) {
				bool want = pfs[f] == NFPROTO_IPV4 ? ver == 4 :
					    pfs[f] == NFPROTO_IPV6 ? ver == 6 :
					    true;

				struct ddf_hash h0, h1;
				int r0, r1;

				KUNIT_EXPECT_EQ_MSG(test,
						    nf_ddf_skb_family_ok(skb, j.nhoff, pfs[f]),
						    want,
						    "version %u, family %u, nhoff %u, %u bytes linear, %s",
						    ver, pfs[f], j.nhoff, j.split,
						    nsk_layout_name[j.layout]);
				r0 = nf_ddf_skb_hash(&spec, skb, j.nhoff,
						     &nsk_secret, DDF_HASH_SIP13,
						     &h0, NULL);
				r1 = nf_ddf_skb_hash_pf(&spec, skb, j.nhoff,
							pfs[f], &nsk_secret,
							DDF_HASH_SIP13, &h1);
				KUNIT_EXPECT_EQ_MSG(test, r1,
						    want ? r0 : DDF_KEY_NOT_IP,
						    "hash_pf: version %u, family %u, nhoff %u, %u bytes linear, %s",
						    ver, pfs[f], j.nhoff, j.split,
						    nsk_layout_name[j.layout]);
				if (want && r0 == DDF_KEY_HASHED && r1 == r0)
					KUNIT_EXPECT_EQ(test,
							memcmp(&h0, &h1, sizeof(h0)),
							0);
			}
			kfree_skb(skb);
		}
	}

	/* nothing behind nhoff: the key says not IP */
	j.len = 0;
	j.split = 0;
	j.nhoff = NSK_ETH;
	skb = nsk_skb(&j);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_TRUE(test, nf_ddf_skb_family_ok(skb, NSK_ETH, NFPROTO_IPV4));
	KUNIT_EXPECT_TRUE(test, nf_ddf_skb_family_ok(skb, NSK_ETH, NFPROTO_IPV6));
	{
		struct ddf_hash h;

		KUNIT_EXPECT_EQ(test,
				nf_ddf_skb_hash_pf(&spec, skb, NSK_ETH,
						   NFPROTO_IPV4, &nsk_secret,
						   DDF_HASH_SIP13, &h),
				DDF_KEY_NOT_IP);
	}
	kfree_skb(skb);
}

static struct kunit_case nsk_cases[] = {
	KUNIT_CASE_PARAM(nsk_split_test, nsk_pkt_gen_params),
	KUNIT_CASE_PARAM(nsk_cut_test, nsk_cut_gen_params),
	KUNIT_CASE_PARAM(nsk_mask_test, nsk_mask_gen_params),
	KUNIT_CASE(nsk_nhoff_test),
	KUNIT_CASE_PARAM(nsk_proto_test, nsk_proto_gen_params),
	KUNIT_CASE(nsk_family_test),
	{}
};

static struct kunit_suite nsk_suite = {
	.name = "nf_ddf_skb_key",
	.suite_init = nsk_suite_init,
	.test_cases = nsk_cases,
};

kunit_test_suite(nsk_suite);
