// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The reader over a packet in pieces (ddf_key_segs.h), as nf_ddf reads a
 * multi-buffer XDP frame: every range of a packet cut into pieces of every
 * kind (empty, one byte, longer than a read), read forwards and backwards,
 * gives the packet's bytes, in place when one piece holds them; nothing
 * past the packet, past its last piece or in a piece that cannot be read
 * is given. Junk lies behind every piece, so a read past a piece's end
 * shows. Keys over the pieces are the keys over the whole frame: jumbo
 * frames of both families, VLAN-tagged, in VXLAN, and not IP, under every
 * key form, cut at random places, hash alike with the same info.
 */
#include "ddf_test.h"
#include "ddf_key.h"
#include "ddf_key_segs.h"

#define TS_MAXSEG 20u /* pieces of a packet: 6.12 allows 18 in XDP */
#define TS_JUNK 64u /* junk behind every piece */
#define TS_CAP 9100u /* a frame: MTU 9000, Ethernet header, tags */
#define TS_SMALL 300u /* the packet of the reader's own cases */
#define TS_BUF 160u /* the reader's buffer in those cases */
/* the packet, its pieces with their junk, the buffer */
#define TS_SMALL_ALLOC (2 * TS_SMALL + TS_MAXSEG * TS_JUNK + TS_BUF)

static const struct ddf_sipkey ts_sipkey = { 0x0123456789abcdefull,
					     0xfedcba9876543210ull };
static struct ddf_key_secret ts_secret; /* from ts_sipkey: ts_key() */

static const struct ddf_key_secret *ts_key(void)
{
	if (!ts_secret.nh.k[0])
		ddf_key_secret_init(&ts_secret, &ts_sipkey);
	return &ts_secret;
}

struct ts_pkt {
	const uint8_t *piece[TS_MAXSEG];
	uint32_t n[TS_MAXSEG];
	uint32_t start[TS_MAXSEG]; /* offset of each piece in the packet */
	uint32_t count;
	uint32_t dead; /* the piece that cannot be read; TS_MAXSEG: none */
	uint32_t calls; /* of ts_seg */
};

static const uint8_t *ts_seg(void *pkt, uint32_t i, uint32_t *len)
{
	struct ts_pkt *p = pkt;

	p->calls++;
	if (i >= p->count || i == p->dead)
		return NULL;
	*len = p->n[i];
	return p->piece[i];
}

/*
 * frame's len bytes cut at cuts[0..ncuts) (ascending, within len) into
 * ncuts + 1 pieces, copied to arena (room for len + TS_MAXSEG * TS_JUNK
 * bytes), each followed by junk.
 */
static void ts_cut(struct ts_pkt *p, uint8_t *arena, const uint8_t *frame,
		   uint32_t len, const uint32_t *cuts, uint32_t ncuts)
{
	uint32_t from = 0;

	for (uint32_t i = 0; i <= ncuts; i++) {
		uint32_t to = i < ncuts ? cuts[i] : len;

		p->piece[i] = arena;
		p->n[i] = to - from;
		p->start[i] = from;
		memcpy(arena, frame + from, to - from);
		arena += to - from;
		memset(arena, 0xa5 ^ (int)i, TS_JUNK);
		arena += TS_JUNK;
		from = to;
	}
	p->count = ncuts + 1;
	p->dead = TS_MAXSEG;
	p->calls = 0;
}

/* Whether one piece holds [off, off + len) (len > 0): where, else NULL. */
static const uint8_t *ts_in_place(const struct ts_pkt *p, uint32_t off,
				  uint32_t len)
{
	for (uint32_t i = 0; i < p->count; i++)
		if (p->start[i] <= off && off + len <= p->start[i] + p->n[i])
			return p->piece[i] + (off - p->start[i]);
	return NULL;
}

static bool ts_equal(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	return !memcmp(a, b, n);
}

/* Read [off, off + len) of the packet p cuts from frame (plen bytes). */
static void ts_check_read(ddf_test_t *t, struct ddf_key_segs *s,
			  const struct ts_pkt *p, const uint8_t *frame,
			  uint32_t plen, uint32_t off, uint32_t len,
			  uint8_t *buf)
{
	const uint8_t *got = ddf_key_read_segs(s, off, len, buf);
	const uint8_t *place;

	if (off > plen || len > plen - off) {
		DDF_EXPECT_MSG(t, !got, "[%u, +%u) past the packet's %u bytes",
			       off, len, plen);
		return;
	}
	DDF_EXPECT_MSG(t, got, "[%u, +%u) of %u bytes: NULL", off, len, plen);
	if (!got || !len)
		return;
	DDF_EXPECT_MSG(t, ts_equal(got, frame + off, len),
		       "[%u, +%u): other bytes", off, len);
	place = ts_in_place(p, off, len);
	DDF_EXPECT_MSG(t, got == (place ? place : buf),
		       "[%u, +%u): %s expected", off, len,
		       place ? "in place" : "a copy into buf");
}

static void ts_pattern(uint8_t *f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		f[i] = (uint8_t)(i * 7 + 3);
}

/* Every range, forwards then backwards, over pieces of every kind. */
DDF_TEST(ddf_key_segs_every_range)
{
	static const uint32_t cuts[] = { 0, 10, 10, 11, 111, 200, 200, 299 };
	uint8_t *f = ddf_test_alloc(t, TS_SMALL_ALLOC);
	struct ts_pkt *p = ddf_test_alloc(t, sizeof(*p));
	uint8_t *arena, *buf;
	struct ddf_key_segs s;

	DDF_ASSERT(t, f && p);
	arena = f + TS_SMALL;
	buf = arena + TS_SMALL + TS_MAXSEG * TS_JUNK;
	ts_pattern(f, TS_SMALL);
	ts_cut(p, arena, f, TS_SMALL, cuts, DDF_ARRAY_SIZE(cuts));
	ddf_key_segs_init(&s, ts_seg, p, TS_SMALL);
	for (uint32_t off = 0; off <= TS_SMALL + 2; off++)
		for (uint32_t len = 0; len <= TS_BUF; len += 1 + len / 16)
			ts_check_read(t, &s, p, f, TS_SMALL, off, len, buf);
	for (uint32_t off = TS_SMALL + 2; off-- > 0;)
		for (uint32_t len = TS_BUF; len > 0; len -= 1 + len / 16)
			ts_check_read(t, &s, p, f, TS_SMALL, off, len, buf);
	/* ranges whose end wraps around 32 bits */
	DDF_EXPECT(t, !ddf_key_read_segs(&s, 10, 0xffffffffu, buf));
	DDF_EXPECT(t, !ddf_key_read_segs(&s, 0xffffffffu, 2, buf));
}

/*
 * A packet longer than its pieces, or with a piece that cannot be read:
 * what lies before is read, nothing at or behind the gap, and going back
 * works afterwards.
 */
DDF_TEST(ddf_key_segs_gaps)
{
	static const uint32_t cuts[] = { 21, 121, 221 };
	uint8_t *f = ddf_test_alloc(t, TS_SMALL_ALLOC);
	struct ts_pkt *p = ddf_test_alloc(t, sizeof(*p));
	uint8_t *arena, *buf;
	struct ddf_key_segs s;

	DDF_ASSERT(t, f && p);
	arena = f + TS_SMALL;
	buf = arena + TS_SMALL + TS_MAXSEG * TS_JUNK;
	ts_pattern(f, TS_SMALL);

	/* pieces for 250 bytes of a packet of 300 */
	ts_cut(p, arena, f, 250, cuts, DDF_ARRAY_SIZE(cuts));
	ddf_key_segs_init(&s, ts_seg, p, TS_SMALL);
	ts_check_read(t, &s, p, f, 250, 200, 50, buf);
	DDF_EXPECT(t, !ddf_key_read_segs(&s, 200, 51, buf));
	DDF_EXPECT(t, !ddf_key_read_segs(&s, 250, 1, buf));
	DDF_EXPECT(t, !ddf_key_read_segs(&s, 299, 1, buf));
	ts_check_read(t, &s, p, f, 250, 0, 64, buf);
	ts_check_read(t, &s, p, f, 250, 249, 1, buf);

	/* the second piece cannot be read: the first can, nothing else */
	ts_cut(p, arena, f, TS_SMALL, cuts, DDF_ARRAY_SIZE(cuts));
	p->dead = 1;
	ddf_key_segs_init(&s, ts_seg, p, TS_SMALL);
	ts_check_read(t, &s, p, f, TS_SMALL, 0, 21, buf);
	DDF_EXPECT(t, !ddf_key_read_segs(&s, 20, 2, buf));
	DDF_EXPECT(t, !ddf_key_read_segs(&s, 21, 1, buf));
	DDF_EXPECT(t, !ddf_key_read_segs(&s, 130, 10, buf));
	ts_check_read(t, &s, p, f, TS_SMALL, 5, 10, buf);

	/* not even the first */
	p->dead = 0;
	ddf_key_segs_init(&s, ts_seg, p, TS_SMALL);
	DDF_EXPECT(t, !ddf_key_read_segs(&s, 0, 1, buf));
	DDF_EXPECT(t, !ddf_key_read_segs(&s, 150, 1, buf));
}

/* Reading a frame front to back asks for each piece once, not per read. */
DDF_TEST(ddf_key_segs_forwards)
{
	static const uint32_t cuts[] = { 3500, 3500, 7596 };
	uint8_t *f = ddf_test_alloc(t, 2 * TS_CAP + TS_MAXSEG * TS_JUNK + 64);
	struct ts_pkt *p = ddf_test_alloc(t, sizeof(*p));
	uint8_t *buf;
	struct ddf_key_segs s;

	DDF_ASSERT(t, f && p);
	buf = f + 2 * TS_CAP + TS_MAXSEG * TS_JUNK;
	ts_pattern(f, 9014);
	ts_cut(p, f + TS_CAP, f, 9014, cuts, DDF_ARRAY_SIZE(cuts));
	ddf_key_segs_init(&s, ts_seg, p, 9014);
	for (uint32_t off = 0; off < 9014; off += DDF_KEY_READ_MAX) {
		uint32_t n = 9014 - off < DDF_KEY_READ_MAX ? 9014 - off :
							     DDF_KEY_READ_MAX;

		ts_check_read(t, &s, p, f, 9014, off, n, buf);
	}
	DDF_EXPECT_EQ(t, p->calls, 4);
}

/* ---- keys over pieces against keys over the whole frame ---- */

static void ts_put16(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static uint32_t ts_eth(uint8_t *b, uint8_t macs, bool tag, uint16_t type)
{
	uint32_t n = 12;

	for (uint32_t i = 0; i < 12; i++)
		b[i] = (uint8_t)(macs + i * 5);
	b[0] &= 0xfe;
	if (tag) {
		ts_put16(b + 12, 0x8100);
		ts_put16(b + 14, 0x0064);
		n = 16;
	}
	ts_put16(b + n, type);
	return n + 2;
}

/*
 * At b, len bytes behind a link header: an IP packet of family fam (4 or
 * 6) with UDP to dport and a random payload, or (fam 0) random bytes.
 */
static void ts_ip(uint8_t *b, uint8_t fam, uint16_t dport, uint32_t len,
		  uint64_t *rng)
{
	uint32_t h = fam == 6 ? 40 : 20, i = fam ? h + 8 : 0;

	for (; i < len; i++)
		b[i] = (uint8_t)ddf_test_rand(rng);
	if (!fam)
		return;
	memset(b, 0, h + 8);
	if (fam == 4) {
		b[0] = 0x45;
		ts_put16(b + 2, len);
		ts_put16(b + 4, 0x4242);
		ts_put16(b + 6, 0x4000);
		b[8] = 64;
		b[9] = 17;
		ts_put16(b + 10, 0xbeef);
		b[12] = 10;
		b[15] = 1;
		b[16] = 10;
		b[19] = 2;
	} else {
		b[0] = 0x60;
		ts_put16(b + 4, len - 40);
		b[6] = 17;
		b[7] = 64;
		b[8] = 0x20;
		b[9] = 0x01;
		b[23] = 1;
		b[24] = 0x20;
		b[25] = 0x01;
		b[39] = 2;
	}
	ts_put16(b + h, 40000);
	ts_put16(b + h + 2, dport);
	ts_put16(b + h + 4, len - h);
	ts_put16(b + h + 6, 0x1234);
}

/*
 * Frame kind k of len bytes (at most TS_CAP; a tunnel's at least 120) at
 * f; its length.
 */
static uint32_t ts_frame(uint8_t *f, uint32_t k, uint32_t len, uint64_t *rng)
{
	uint32_t n;

	if (k == 3 && len < 120)
		len = 120;

	switch (k) {
	case 0: /* IPv4 */
		n = ts_eth(f, 1, false, 0x0800);
		ts_ip(f + n, 4, 5000, len - n, rng);
		break;
	case 1: /* IPv6 on VLAN 100 */
		n = ts_eth(f, 2, true, 0x86dd);
		ts_ip(f + n, 6, 5000, len - n, rng);
		break;
	case 2: /* not IP */
		n = ts_eth(f, 3, false, 0x88b5);
		ts_ip(f + n, 0, 0, len - n, rng);
		break;
	default: /* IPv4 in VXLAN in IPv4 */
		n = ts_eth(f, 4, false, 0x0800);
		ts_ip(f + n, 4, DDF_KEY_VXLAN_PORT, len - n, rng);
		n += 28;
		memset(f + n, 0, 8);
		f[n] = 0x08; /* I: a VNI */
		f[n + 6] = 7;
		n += 8;
		n += ts_eth(f + n, 5, false, 0x0800);
		ts_ip(f + n, 4, 53, len - n, rng);
		break;
	}
	return len;
}

static void ts_spec(struct ddf_key_spec *s, uint32_t k)
{
	ddf_key_spec_default(s);
	switch (k) {
	case 0: /* the default: the first 1500 bytes */
		break;
	case 1: /* all of the packet, the fields copies change masked */
		s->max_bytes = DDF_KEY_MAX_BYTES_MAX;
		s->ignore |= DDF_KI_IPID | DDF_KI_L4CSUM | DDF_KI_DSCP;
		break;
	case 2: /* fields with the payload at the end of its reach */
		s->form = DDF_KEY_FIELDS;
		s->fields = DDF_KF_SADDR | DDF_KF_DADDR | DDF_KF_DPORT |
			    DDF_KF_PAYLOAD;
		s->payload_off = 3990;
		s->payload_len = DDF_KEY_PAYLOAD_MAX - 3990;
		break;
	case 3: /* the whole frame */
		s->form = DDF_KEY_FRAME;
		break;
	case 4: /* the whole frame but its addresses and tags */
		s->form = DDF_KEY_FRAME;
		s->ignore |= DDF_KI_MAC | DDF_KI_VLAN;
		break;
	default: /* the packet in the tunnel, all of it */
		s->max_bytes = DDF_KEY_MAX_BYTES_MAX;
		s->decap = DDF_KD_VXLAN;
		break;
	}
}

#define TS_SPECS 6u
#define TS_KINDS 4u

/* Random cuts of len, ascending, some equal, some at 0 or len. */
static uint32_t ts_cuts(uint32_t *cuts, uint32_t len, uint64_t *rng)
{
	uint32_t n = (uint32_t)(ddf_test_rand(rng) % (TS_MAXSEG - 1));

	for (uint32_t i = 0; i < n; i++) {
		uint64_t r = ddf_test_rand(rng);
		uint32_t c = (uint32_t)(r % (len + 1)), j = i;

		if (r >> 60 == 0 && i)
			c = cuts[i - 1]; /* an empty piece */
		for (; j > 0 && cuts[j - 1] > c; j--)
			cuts[j] = cuts[j - 1];
		cuts[j] = c;
	}
	return n;
}

static int ts_hash(const struct ddf_key_spec *s, ddf_key_read_t read,
		   void *ctx, uint32_t len, struct ddf_hash *h,
		   struct ddf_key_info *ki)
{
	static const struct ddf_key_link ether = { DDF_LINK_ETHER, 0, 0 };

	*h = (struct ddf_hash){ 0, 0 };
	memset(ki, 0x5a, sizeof(*ki));
	return ddf_key_hash_link(s, &ether, read, ctx, len, ts_key(),
				 DDF_HASH_SIP13, h, ki);
}

DDF_TEST(ddf_key_segs_keys)
{
	static const uint32_t lens[] = { 60, 1514, 3520, 4110, 8000, 9014,
					 9018 };
	uint8_t *f = ddf_test_alloc(t, 2 * TS_CAP + TS_MAXSEG * TS_JUNK);
	struct ts_pkt *p = ddf_test_alloc(t, sizeof(*p));
	uint32_t cuts[TS_MAXSEG], runs = 0;
	uint64_t rng = 0x5e65;

	DDF_ASSERT(t, f && p);
	for (uint32_t k = 0; k < TS_KINDS; k++) {
		for (uint32_t l = 0; l < DDF_ARRAY_SIZE(lens); l++) {
			uint32_t len = ts_frame(f, k, lens[l], &rng);

			for (uint32_t sk = 0; sk < TS_SPECS; sk++) {
				struct ddf_key_flat flat = { f, len };
				struct ddf_key_info ka, kb;
				struct ddf_hash ha, hb;
				struct ddf_key_spec s;
				int ra, rb;

				ts_spec(&s, sk);
				DDF_ASSERT(t, !ddf_key_spec_validate(&s, NULL));
				ra = ts_hash(&s, NULL, &flat, len, &ha, &ka);
				for (uint32_t r = 0; r < 12; r++) {
					struct ddf_key_segs sg;
					uint32_t nc = ts_cuts(cuts, len, &rng);

					ts_cut(p, f + TS_CAP, f, len, cuts, nc);
					ddf_key_segs_init(&sg, ts_seg, p, len);
					rb = ts_hash(&s, ddf_key_read_segs, &sg,
						     len, &hb, &kb);
					DDF_EXPECT_MSG(t, ra == rb && ha.h1 == hb.h1 &&
							   ha.h2 == hb.h2 &&
							   !memcmp(&ka, &kb, sizeof(ka)),
						       "kind %u, %u bytes, spec %u, %u pieces: result %d/%d, hash or info differ",
						       k, len, sk, nc + 1, ra, rb);
					runs++;
				}
			}
		}
	}
	DDF_LOG(t, "%u frames cut in pieces keyed as whole", runs);
}

/*
 * The bytes of the last piece count: two jumbo frames that differ only in
 * their last byte, one piece of which it is alone in, key apart.
 */
DDF_TEST(ddf_key_segs_tail)
{
	uint8_t *f = ddf_test_alloc(t, 2 * TS_CAP + TS_MAXSEG * TS_JUNK);
	struct ts_pkt *p = ddf_test_alloc(t, sizeof(*p));
	uint32_t cuts[2] = { 3520, 9013 };
	struct ddf_key_info ka, kb;
	struct ddf_key_spec s;
	struct ddf_hash ha, hb;
	struct ddf_key_segs sg;
	uint64_t rng = 7;

	DDF_ASSERT(t, f && p);
	ts_frame(f, 0, 9014, &rng);
	for (uint32_t sk = 1; sk <= 3; sk += 2) {
		ts_spec(&s, sk);
		ts_cut(p, f + TS_CAP, f, 9014, cuts, 2);
		ddf_key_segs_init(&sg, ts_seg, p, 9014);
		DDF_EXPECT_EQ(t, ts_hash(&s, ddf_key_read_segs, &sg, 9014, &ha,
					 &ka),
			      DDF_KEY_HASHED);
		f[9013] ^= 1;
		ts_cut(p, f + TS_CAP, f, 9014, cuts, 2);
		ddf_key_segs_init(&sg, ts_seg, p, 9014);
		DDF_EXPECT_EQ(t, ts_hash(&s, ddf_key_read_segs, &sg, 9014, &hb,
					 &kb),
			      DDF_KEY_HASHED);
		DDF_EXPECT_MSG(t, ha.h1 != hb.h1 || ha.h2 != hb.h2,
			       "spec %u: the last byte does not count", sk);
		DDF_EXPECT_EQ(t, ka.len, kb.len);
		if (sk == 1)
			DDF_EXPECT_EQ(t, ka.len, 9000);
	}
}

static ddf_case_t ddf_key_segs_cases[] = {
	DDF_CASE(ddf_key_segs_every_range),
	DDF_CASE(ddf_key_segs_gaps),
	DDF_CASE(ddf_key_segs_forwards),
	DDF_CASE(ddf_key_segs_keys),
	DDF_CASE(ddf_key_segs_tail),
	DDF_CASES_END
};

DDF_SUITE(ddf_key_segs, ddf_key_segs_cases);
