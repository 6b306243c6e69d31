// SPDX-License-Identifier: GPL-2.0
/*
 * nf_ddf_xdp_frame: the key of an XDP buffer, built here by hand as a
 * driver builds a multi-buffer frame (a linear part in a page, then page
 * fragments in its skb_shared_info), must be the key that a netdev
 * ingress hook gives the skb of the same frame (nf_ddf_skb_hash_frame()),
 * and the key of the frame as one flat buffer: result, hash and info.
 * Junk lies behind every piece in its page, so a read past a fragment's
 * end changes the hash and shows.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <net/xdp.h>

#include "../../nf_ddf/nf_ddf_skb.h"
#include "../../nf_ddf/nf_ddf_xdp_frame.h"

#define NXF_LEN 9014u /* MTU 9000 and an Ethernet header */
#define NXF_FRAGS 17u /* the most a case asks for */
#define NXF_FRAG_OFF 16u /* where a fragment starts in its page */

static const struct ddf_sipkey nxf_sipkey = { 0x1122334455667788ull,
					      0x99aabbccddeeff00ull };
static struct ddf_key_secret nxf_key; /* from nxf_sipkey, for each case */

struct nxf_case {
	const char *desc;
	u32 len; /* of the frame */
	u32 head; /* bytes in the linear part */
	u32 frags[NXF_FRAGS]; /* then these; 0 ends the list ... */
	/* ... and what is left goes into one more fragment */
};

static const struct nxf_case nxf_cases[] = {
	{ "linear, 1514 bytes", 1514, 1514, { 0 } },
	{ "linear part and a page, as veth", NXF_LEN, 3000, { 4064 } },
	{ "the linear part ends in the IP header", NXF_LEN, 30, { 4000, 4000 } },
	{ "the linear part is the MAC header", NXF_LEN, 14, { 1, 4000, 4000 } },
	{ "17 fragments of 1 byte and up", NXF_LEN, 1000,
	  { 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987,
	    1597 } },
};

KUNIT_ARRAY_PARAM_DESC(nxf, nxf_cases, desc);

static void nxf_put16(u32 v, u8 *p)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

/* A frame of len bytes: IPv4 or IPv6 UDP with a random payload. */
static void nxf_frame(u8 *f, u32 len, bool v6)
{
	u32 h = v6 ? 40 : 20, ip = len - ETH_HLEN;
	u8 *p = f + ETH_HLEN;

	get_random_bytes(f, len);
	f[0] &= 0xfe;
	nxf_put16(v6 ? ETH_P_IPV6 : ETH_P_IP, f + 12);
	memset(p, 0, h + 8);
	if (v6) {
		p[0] = 0x60;
		nxf_put16(ip - 40, p + 4);
		p[6] = IPPROTO_UDP;
		p[7] = 64;
		p[8] = 0x20;
		p[23] = 1;
		p[24] = 0x20;
		p[39] = 2;
	} else {
		p[0] = 0x45;
		nxf_put16(ip, p + 2);
		nxf_put16(0x4000, p + 6);
		p[8] = 64;
		p[9] = IPPROTO_UDP;
		p[12] = 10;
		p[15] = 1;
		p[16] = 10;
		p[19] = 2;
	}
	nxf_put16(40000, p + h);
	nxf_put16(5000, p + h + 2);
	nxf_put16(ip - h, p + h + 4);
}

static void nxf_spec(struct ddf_key_spec *s, int k)
{
	ddf_key_spec_default(s);
	if (k == 1) { /* the whole packet */
		s->max_bytes = DDF_KEY_MAX_BYTES_MAX;
		s->ignore |= DDF_KI_IPID | DDF_KI_L4CSUM;
	} else if (k == 2) { /* the whole frame */
		s->form = DDF_KEY_FRAME;
	}
}

struct nxf_bufs {
	struct page *head;
	struct page *frag[NXF_FRAGS];
	u32 nfrags;
	struct xdp_rxq_info rxq;
	struct xdp_buff xdp;
};

static void nxf_free(struct nxf_bufs *b)
{
	u32 i;

	for (i = 0; i < b->nfrags; i++)
		put_page(b->frag[i]);
	if (b->head)
		put_page(b->head);
}

/*
 * The frame as a driver hands it to XDP: the linear part behind
 * XDP_PACKET_HEADROOM in one page, each fragment in a page of its own,
 * junk around both.
 */
static int nxf_xdp(struct kunit *test, const struct nxf_case *c, const u8 *f,
		   struct nxf_bufs *b)
{
	u32 off = c->head, n, i;
	struct skb_shared_info *sinfo;
	u8 *p;

	b->head = alloc_page(GFP_KERNEL);
	if (!b->head)
		return -ENOMEM;
	p = page_address(b->head);
	memset(p, 0xa5, PAGE_SIZE);
	xdp_init_buff(&b->xdp, PAGE_SIZE, &b->rxq);
	xdp_prepare_buff(&b->xdp, p, XDP_PACKET_HEADROOM, c->head, false);
	KUNIT_ASSERT_LE(test, XDP_PACKET_HEADROOM + c->head,
			(u32)((u8 *)xdp_get_shared_info_from_buff(&b->xdp) - p));
	memcpy(b->xdp.data, f, c->head);
	sinfo = xdp_get_shared_info_from_buff(&b->xdp);
	sinfo->nr_frags = 0;
	sinfo->xdp_frags_size = 0;
	for (i = 0; off < c->len; i++) {
		n = i < NXF_FRAGS && c->frags[i] ? c->frags[i] : c->len - off;
		KUNIT_ASSERT_LT(test, i, (u32)MAX_SKB_FRAGS);
		KUNIT_ASSERT_LE(test, NXF_FRAG_OFF + n, (u32)PAGE_SIZE);
		b->frag[i] = alloc_page(GFP_KERNEL);
		if (!b->frag[i])
			return -ENOMEM;
		b->nfrags++;
		p = page_address(b->frag[i]);
		memset(p, 0x5a ^ i, PAGE_SIZE);
		memcpy(p + NXF_FRAG_OFF, f + off, n);
		skb_frag_fill_page_desc(&sinfo->frags[i], b->frag[i],
					NXF_FRAG_OFF, n);
		sinfo->nr_frags++;
		sinfo->xdp_frags_size += n;
		off += n;
	}
	if (sinfo->nr_frags)
		xdp_buff_set_frags_flag(&b->xdp);
	return 0;
}

/*
 * The same frame as an skb at netdev ingress of an Ethernet device: data
 * at the network header, the MAC header in front, the same fragments.
 */
static struct sk_buff *nxf_skb(const struct nxf_case *c, const u8 *f,
			       struct nxf_bufs *b, struct net_device *dev)
{
	struct skb_shared_info *sinfo = xdp_get_shared_info_from_buff(&b->xdp);
	struct sk_buff *skb = alloc_skb(c->head + 64, GFP_KERNEL);
	u32 i;

	if (!skb)
		return NULL;
	skb_put_data(skb, f, c->head);
	memset(skb_tail_pointer(skb), 0xc3, skb_tailroom(skb));
	for (i = 0; i < sinfo->nr_frags; i++) {
		get_page(b->frag[i]);
		skb_add_rx_frag(skb, i, b->frag[i], NXF_FRAG_OFF,
				skb_frag_size(&sinfo->frags[i]), PAGE_SIZE);
	}
	skb->dev = dev;
	skb_reset_mac_header(skb);
	__skb_pull(skb, ETH_HLEN);
	skb_reset_network_header(skb);
	return skb;
}

static void nxf_test(struct kunit *test)
{
	static const struct ddf_key_link ether = { DDF_LINK_ETHER, 0, 0 };
	const struct nxf_case *c = test->param_value;
	struct ddf_key_info kx, kf, ks;
	struct ddf_hash hx, hf, hs;
	struct net_device *dev;
	struct ddf_key_flat flat;
	struct ddf_key_spec s;
	struct nxf_bufs *b;
	struct sk_buff *skb;
	int rx, rf, rs, k;
	u8 *f;

	ddf_key_secret_init(&nxf_key, &nxf_sipkey);
	f = kunit_kzalloc(test, c->len, GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	dev = alloc_etherdev(0);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	for (int v6 = 0; v6 < 2; v6++) {
		nxf_frame(f, c->len, v6);
		if (nxf_xdp(test, c, f, b)) {
			nxf_free(b);
			free_netdev(dev);
			KUNIT_FAIL(test, "out of memory");
			return;
		}
		KUNIT_EXPECT_EQ(test, xdp_get_buff_len(&b->xdp), c->len);
		KUNIT_EXPECT_EQ(test, xdp_buff_has_frags(&b->xdp),
				c->head < c->len);
		skb = nxf_skb(c, f, b, dev);
		KUNIT_EXPECT_NOT_NULL(test, skb);
		for (k = 0; skb && k < 3; k++) {
			nxf_spec(&s, k);
			rx = nf_ddf_xdp_hash(&s, &ether, &b->xdp, &nxf_key,
					     DDF_HASH_SIP13, &hx, &kx);
			flat.data = f;
			flat.len = c->len;
			rf = ddf_key_hash_link(&s, &ether, NULL, &flat, c->len,
					       &nxf_key, DDF_HASH_SIP13, &hf,
					       &kf);
			rs = nf_ddf_skb_hash_frame(&s, skb, &nxf_key,
						   DDF_HASH_SIP13, &hs, &ks);
			KUNIT_EXPECT_EQ_MSG(test, rx, DDF_KEY_HASHED,
					    "IPv%d, spec %d", v6 ? 6 : 4, k);
			KUNIT_EXPECT_EQ(test, rx, rf);
			KUNIT_EXPECT_EQ(test, rx, rs);
			KUNIT_EXPECT_TRUE_MSG(test,
					      !memcmp(&hx, &hf, sizeof(hx)) &&
					      !memcmp(&kx, &kf, sizeof(kx)),
					      "IPv%d, spec %d: XDP and flat differ",
					      v6 ? 6 : 4, k);
			KUNIT_EXPECT_TRUE_MSG(test,
					      !memcmp(&hx, &hs, sizeof(hx)) &&
					      !memcmp(&kx, &ks, sizeof(kx)),
					      "IPv%d, spec %d: XDP and ingress differ",
					      v6 ? 6 : 4, k);
		}
		kfree_skb(skb);
		nxf_free(b);
		memset(b, 0, sizeof(*b));
	}
	free_netdev(dev);
}

static struct kunit_case nxf_test_cases[] = {
	KUNIT_CASE_PARAM(nxf_test, nxf_gen_params),
	{}
};

static struct kunit_suite nxf_suite = {
	.name = "nf_ddf_xdp_frame",
	.test_cases = nxf_test_cases,
};

kunit_test_suite(nxf_suite);
