/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The fast path of the packet key, for the common frame. Included by
 * ddf_key.c alone (as ddf_key_link.h): ddf_key_hash_link() tries it first.
 *
 * What it takes: a frame whole in memory (a NULL reader with a
 * ddf_key_flat: a linear skb, an XDP buffer, a pcap record), starting
 * with an untagged Ethernet header of ethertype IPv4 or IPv6 (no tag
 * taken out of it either) or with the IP header itself; IPv4 without
 * options (IHL 5) and not a fragment (offset 0, MF clear), or IPv6 whose
 * next header is the L4 header; TCP (data offset 5 or more) or UDP whose
 * header lies whole inside the IP length; that length neither 0 nor above
 * the bytes there are; a key of form packet or fields, any ignore mask or
 * field set, a payload window of at most DDF_KEY_NH_OVER bytes; and no
 * tunnel the spec opens (a UDP packet to one of its ports). Every other frame, and any frame read through a reader, takes
 * the general walk (ddf_key.c), which is the definition of the key.
 *
 * Why it is equal: for such a frame every question the general walk asks
 * has one answer, known from a few header bytes. The link walk finds no
 * tag and no label and the IP header at 14 (or 0); the parse finds no
 * truncation, no fragment, no extension header, the L4 header whole; so
 * ddf_key_info is the same few values each time (below), every field of
 * the field form is present or absent by the protocol alone, the ignored
 * bytes lie at fixed places in the first eight words, and the decap walk
 * ends at the first question. The fast path answers them once, reads the
 * frame in place with no bounds check per read (the checks above cover
 * every byte it reads), and feeds the same byte string to the same
 * SipHash state: the pieces the strings are built of (ddf_key_priv.h)
 * are shared, the masks are written out as word masks, and a long
 * packet's region goes through the same NH (ddf_nh.h), whole chunks read
 * in place. A field key whose payload window may be a region is left to
 * the general walk (a rare key: the common ones take a few payload
 * bytes). A frame that fails any check, or a check the general walk
 * answers otherwise (a version nibble the ethertype disagrees with), goes
 * to the general walk untouched: the fast path returns an answer only
 * when it has all of it.
 *
 * The proof is the differential test (tests/core/user/test_key_diff.c,
 * in every make check-core, 10^8 frames in make soak-key): it drives both
 * over generated and crafted frames, every form, ignore mask and field
 * set, tunnels, tags, labels, options, fragments, extension headers,
 * truncations at every byte and the reader callback, and fails on the
 * first difference in the result, the hash or any info field.
 */
#ifndef DDF_KEY_FAST_H
#define DDF_KEY_FAST_H

#include "ddf_key_priv.h"

/* What the fast parse found: the frame's IP and L4 headers, the info. */
struct ddf_fast_pkt {
	const uint8_t *ip, *l4;
	struct ddf_key_info ki;
};

/*
 * The checks that need no byte of the frame: the entry point tries the
 * fast path only when they pass, so that the other frames (a reader's, a
 * tagged one, any under a field key whose payload window may be a
 * region) pay no more for it than these few tests.
 */
static DDF_ALWAYS_INLINE bool ddf_fast_may(const struct ddf_key_spec *s,
					   const struct ddf_key_link *lk,
					   ddf_key_read_t read)
{
	return !read &&
	       (s->form == DDF_KEY_PACKET || s->form == DDF_KEY_FIELDS) &&
	       s->payload_len <= DDF_KEY_NH_OVER &&
	       !(lk && lk->type == DDF_LINK_ETHER && lk->vlan_proto);
}

/* Whether a UDP packet to dport is a tunnel s opens. */
static bool ddf_fast_tunnel(const struct ddf_key_spec *s, uint16_t dport)
{
	uint16_t vx = s->vxlan_port ? s->vxlan_port : DDF_KEY_VXLAN_PORT;
	uint16_t gn = s->geneve_port ? s->geneve_port : DDF_KEY_GENEVE_PORT;

	return ((s->decap & DDF_KD_VXLAN) && dport == vx) ||
	       ((s->decap & DDF_KD_GENEVE) && dport == gn) ||
	       ((s->decap & DDF_KD_GTPU) && dport == DDF_KEY_GTPU_PORT);
}

/*
 * The checks above, and the general walk's info for the frame: a
 * DDF_KEY_* result, or DDF_KEY_FAST_NONE for a frame that is not ours.
 */
static DDF_ALWAYS_INLINE int ddf_fast_parse(struct ddf_fast_pkt *f,
					    const struct ddf_key_spec *s,
					    const struct ddf_key_link *lk,
					    const uint8_t *d, uint32_t len)
{
	struct ddf_key_info *ki = &f->ki;
	uint32_t base = 0, hl, l4hl, tot;
	const uint8_t *ip;
	uint8_t ver, proto;

	if (lk && lk->type == DDF_LINK_ETHER) {
		uint16_t type;

		if (len < 15)
			return DDF_KEY_FAST_NONE;
		type = ddf_key_be16(d + 12);
		if (type == DDF_ETH_IPV4)
			ver = 4;
		else if (type == DDF_ETH_IPV6)
			ver = 6;
		else
			return DDF_KEY_FAST_NONE;
		base = 14;
		if (d[14] >> 4 != ver) /* malformed: the general walk says so */
			return DDF_KEY_FAST_NONE;
	} else {
		if (!len)
			return DDF_KEY_FAST_NONE;
		ver = d[0] >> 4;
		if (ver != 4 && ver != 6)
			return DDF_KEY_FAST_NONE;
	}
	ip = d + base;
	len -= base;
	memset(ki, 0, sizeof(*ki));
	ki->family = ver;
	ki->l3off = base;
	if (s->family && s->family != ver)
		return DDF_KEY_OTHER_FAMILY;
	if (ver == 4) {
		/* IHL 5; no fragment offset, no more fragments */
		if (len < 20 || ip[0] != 0x45 || (ddf_key_be16(ip + 6) & 0x3fff))
			return DDF_KEY_FAST_NONE;
		hl = 20;
		tot = ddf_key_be16(ip + 2);
		ki->frag_id = ddf_key_be16(ip + 4);
		proto = ip[9];
	} else {
		if (len < 40)
			return DDF_KEY_FAST_NONE;
		hl = 40;
		tot = 40 + (uint32_t)ddf_key_be16(ip + 4);
		proto = ip[6];
	}
	if (proto == DDF_IPPROTO_TCP)
		l4hl = 20;
	else if (proto == DDF_IPPROTO_UDP)
		l4hl = 8;
	else
		return DDF_KEY_FAST_NONE;
	/* whole (a stated 0, BIG TCP's, is below hl + l4hl too) */
	if (tot > len || tot < hl + l4hl)
		return DDF_KEY_FAST_NONE;
	f->ip = ip;
	f->l4 = ip + hl;
	if (proto == DDF_IPPROTO_TCP) {
		l4hl = (uint32_t)(f->l4[12] >> 4) * 4;
		if (l4hl < 20 || tot < hl + l4hl)
			return DDF_KEY_FAST_NONE;
	} else if (s->decap && ddf_fast_tunnel(s, ddf_key_be16(f->l4 + 2))) {
		return DDF_KEY_FAST_NONE;
	}
	ki->len = tot;
	ki->l4off = hl;
	ki->payoff = hl + l4hl;
	ki->flags = DDF_KEY_F_L4 | DDF_KEY_F_L4HDR | DDF_KEY_F_PAYLOAD;
	ki->proto = proto;
	if ((s->match & DDF_KM_L4PROTO) && proto != s->l4proto)
		return DDF_KEY_SKIPPED;
	return DDF_KEY_HASHED;
}

/* Zero byte o of the packet (byte o + 1 of the stream, behind 'P'). */
static DDF_ALWAYS_INLINE void ddf_fast_clear(uint64_t m[8], uint32_t o)
{
	o++;
	m[o / 8] &= ~(0xffull << (8 * (o % 8)));
}

/*
 * The packet form's and-masks of the stream's first 8 words ('P' and the
 * packet's first 63 bytes), where the ignored bytes lie (ddf_key.h,
 * "Ignored fields"; never a fragment here, so ignore ipid always applies
 * to IPv4). The L4 checksum lies inside the first 60 bytes.
 */
static DDF_ALWAYS_INLINE void ddf_fast_masks(uint64_t m[8], uint32_t ig,
					     const struct ddf_key_info *ki)
{
	uint32_t cs;

	for (int i = 0; i < 8; i++)
		m[i] = ~0ull;
	if (ki->family == 4) {
		/* packet bytes 0..6 are stream bytes 1..7 of word 0 */
		if (ig & DDF_KI_DSCP)
			m[0] &= ~(0xfcull << 16);
		if (ig & DDF_KI_ECN)
			m[0] &= ~(0x03ull << 16);
		if (ig & DDF_KI_IPID)
			m[0] &= ~(0xffffull << 40);
		if (ig & DDF_KI_TTL)
			m[1] &= ~(0xffull << 8);
		if (ig & DDF_KI_IPV4CSUM)
			m[1] &= ~(0xffffull << 24);
	} else {
		/* version:4 tclass:8 flow:20; tclass = dscp:6 ecn:2 */
		if (ig & DDF_KI_DSCP)
			m[0] &= ~(0x0full << 8 | 0xc0ull << 16);
		if (ig & DDF_KI_ECN)
			m[0] &= ~(0x30ull << 16);
		if (ig & DDF_KI_FLOWLABEL)
			m[0] &= ~(0x0full << 16 | 0xffffull << 24);
		if (ig & DDF_KI_TTL)
			m[1] &= ~0xffull;
	}
	if (ig & DDF_KI_L4CSUM) {
		cs = ki->l4off + (ki->proto == DDF_IPPROTO_TCP ? 16 : 6);
		ddf_fast_clear(m, cs);
		ddf_fast_clear(m, cs + 1);
	}
}

/*
 * A long packet's string (ddf_key.h, "Long keys"): 'P' and its first 31
 * bytes, the head, are the stream's first 4 words, masked as above; then
 * each chunk of the region, [DDF_KEY_HEAD, n), as its NH digest, two
 * words of the stream, read in place; then the length. The L4 checksum,
 * inside the first 60 bytes, may lie in the region's first 4 words: with
 * ignore l4csum those are masked (m[4..7]) in a copy NH reads first. Out
 * of line, with its own stream and a copy of the packet's info, so that
 * the short packet's code keeps its state in registers as before.
 */
static DDF_ALWAYS_INLINE void ddf_fast_long_c(const uint8_t *ip,
					      const struct ddf_key_info *ki,
					      uint32_t n, uint32_t ignore,
					      const struct ddf_key_secret *key,
					      int c, int d, uint64_t h[2])
{
	enum { hw = (DDF_KEY_HEAD + 1) / 8 }; /* the head's words */
	const uint8_t *r = ip + DDF_KEY_HEAD;
	struct ddf_sipstate st;
	uint64_t m[8], dg[2];
	uint8_t w[8 * (8 - hw)];
	uint32_t off, k;

	ddf_fast_masks(m, ignore, ki);
	ddf_sip_start(&st, &key->sip, true);
	ddf_sip_compress(&st, ('P' | ddf_sip_load_le64(ip) << 8) & m[0], c);
	for (uint32_t i = 1; i < hw; i++)
		ddf_sip_compress(&st, ddf_sip_load_le64(ip + 8 * i - 1) & m[i],
				 c);
	k = n - DDF_KEY_HEAD < DDF_NH_CHUNK ? n - DDF_KEY_HEAD : DDF_NH_CHUNK;
	if (ignore & DDF_KI_L4CSUM) {
		for (uint32_t i = 0; i < sizeof(w); i++)
			w[i] = (uint8_t)(r[i] & (m[hw + i / 8] >> (8 * (i % 8))));
		ddf_nh_split(&key->nh, w, sizeof(w), r + sizeof(w),
			     k - sizeof(w), dg);
	} else {
		ddf_nh(&key->nh, r, k, dg);
	}
	ddf_sip_compress(&st, dg[0], c);
	ddf_sip_compress(&st, dg[1], c);
	for (off = DDF_KEY_HEAD + k; off < n; off += DDF_NH_CHUNK) {
		ddf_nh(&key->nh, ip + off,
		       n - off < DDF_NH_CHUNK ? n - off : DDF_NH_CHUNK, dg);
		ddf_sip_compress(&st, dg[0], c);
		ddf_sip_compress(&st, dg[1], c);
	}
	/* 'P', the head, 16 bytes a chunk: whole words; then the length */
	st.len = DDF_KEY_HEAD + 1 +
		 (n - DDF_KEY_HEAD + DDF_NH_CHUNK - 1) / DDF_NH_CHUNK * 16;
	st.tail = 0;
	ddf_key_push_be(&st, ki->len, 4, c);
	ddf_sip_finish(&st, st.tail, st.len & 0xff, c, d, true, h);
}

static DDF_NOINLINE void ddf_fast_long(const uint8_t *ip,
				       struct ddf_key_info ki, uint32_t n,
				       uint32_t ignore,
				       const struct ddf_key_secret *key,
				       uint32_t hashfn, struct ddf_hash *out)
{
	uint64_t h[2];

	if (hashfn == DDF_HASH_SIP24)
		ddf_fast_long_c(ip, &ki, n, ignore, key, 2, 4, h);
	else
		ddf_fast_long_c(ip, &ki, n, ignore, key, 1, 3, h);
	out->h1 = h[0];
	out->h2 = h[1];
}

/*
 * 'P', the packet's first n bytes masked, its length. The tag is the
 * stream's first byte, so word k of the stream (k >= 1) is the 8 bytes
 * at packet offset 8k - 1: each is one load from the packet, the first 8
 * masked, the rest as they are, and the last 0..7 bytes are pending once.
 * (A long packet takes ddf_fast_long() instead.)
 */
static DDF_ALWAYS_INLINE bool ddf_fast_packet(struct ddf_fast_pkt *f,
					      struct ddf_sipstate *st,
					      const struct ddf_key_spec *s,
					      const struct ddf_key_secret *key,
					      uint32_t hashfn,
					      struct ddf_hash *out, int rounds)
{
	const uint8_t *d = f->ip;
	uint32_t n = f->ki.len, nw, r, i;
	uint64_t m[8], w;

	if (n > s->max_bytes) {
		f->ki.flags |= DDF_KEY_F_CUT;
		n = s->max_bytes;
	}
	if (n > DDF_KEY_HEAD && n - DDF_KEY_HEAD > DDF_KEY_NH_OVER) {
		ddf_fast_long(f->ip, f->ki, n, s->ignore, key, hashfn, out);
		return false;
	}
	ddf_fast_masks(m, s->ignore, &f->ki);
	nw = (n + 1) / 8; /* whole words of the stream */
	r = (n + 1) % 8;
	if (!nw) {
		/* n < 7: 'P' and n bytes (the packet is longer: 28 or more) */
		w = ('P' | ddf_sip_load_le64(d) << 8) & m[0];
		w &= ~0ull >> (8 * (8 - r));
		goto tail;
	}
	/* word 0: 'P' and bytes 0..6 (8 bytes there: the packet has 28) */
	ddf_sip_compress(st, ('P' | ddf_sip_load_le64(d) << 8) & m[0], rounds);
	for (i = 1; i < nw && i < 8; i++)
		ddf_sip_compress(st, ddf_sip_load_le64(d + 8 * i - 1) & m[i],
				 rounds);
#pragma GCC unroll 4
	for (; i < nw; i++)
		ddf_sip_compress(st, ddf_sip_load_le64(d + 8 * i - 1), rounds);
	w = ddf_sip_partial(d + 8 * nw - 1, r);
	if (nw < 8)
		w &= m[nw];
tail:
	st->len = n + 1;
	st->tail = w;
	ddf_key_push_be(st, f->ki.len, 4, rounds);
	return true;
}

/* The bytes of the payload window s asks for that the packet has. */
static DDF_ALWAYS_INLINE uint32_t ddf_fast_paylen(const struct ddf_key_info *ki,
						  const struct ddf_key_spec *s)
{
	uint32_t avail = ki->len - ki->payoff, n = 0;

	if (s->payload_off < avail)
		n = avail - s->payload_off;
	return n < s->payload_len ? n : s->payload_len;
}

/* 0x01 and the n bytes at p (present, inside the packet): one piece. */
static DDF_ALWAYS_INLINE void ddf_fast_field(struct ddf_key_fbuf *kb,
					     const uint8_t *p, uint32_t n)
{
	ddf_fbuf_put(kb, 1, 1);
	ddf_fbuf_copy(kb, p, n);
}

/*
 * The field form's string (ddf_key.h): the addresses, protocol, ports and
 * IPv4 identification are present, TCP's sequence and acknowledgement
 * numbers with TCP, the ICMP identifier and the IPv6 fragment
 * identification never, the payload by its window; no fragment trailer.
 */
static DDF_ALWAYS_INLINE void ddf_fast_fields(struct ddf_fast_pkt *f,
					      struct ddf_sipstate *st,
					      const struct ddf_key_spec *s,
					      int rounds)
{
	const struct ddf_key_info *ki = &f->ki;
	uint32_t fl = s->fields, alen = ki->family == 6 ? 16 : 4;
	bool tcp = ki->proto == DDF_IPPROTO_TCP;
	const uint8_t *ip = f->ip, *l4 = f->l4;
	uint8_t buf[DDF_KEY_FBUF] DDF_NOINIT; /* every byte read is written first */
	struct ddf_key_fbuf kb = { buf, 0 };

	ddf_fbuf_put(&kb, 'F' | (uint64_t)ki->family << 8, 2);
	ddf_key_put_be32(kb.b + kb.n, fl);
	kb.n += 4;
	if (fl & DDF_KF_SADDR)
		ddf_fast_field(&kb, ip + (alen == 16 ? 8 : 12), alen);
	if (fl & DDF_KF_DADDR)
		ddf_fast_field(&kb, ip + (alen == 16 ? 24 : 16), alen);
	if (fl & DDF_KF_PROTO)
		ddf_fbuf_put(&kb, 1 | (uint64_t)ki->proto << 8, 2);
	if (fl & DDF_KF_SPORT)
		ddf_fast_field(&kb, l4, 2);
	if (fl & DDF_KF_DPORT)
		ddf_fast_field(&kb, l4 + 2, 2);
	if (fl & DDF_KF_IPID) {
		if (alen == 4)
			ddf_fast_field(&kb, ip + 4, 2);
		else
			ddf_fbuf_put(&kb, 0, 1);
	}
	if (fl & DDF_KF_TCPSEQ) {
		if (tcp)
			ddf_fast_field(&kb, l4 + 4, 4);
		else
			ddf_fbuf_put(&kb, 0, 1);
	}
	if (fl & DDF_KF_TCPACK) {
		if (tcp)
			ddf_fast_field(&kb, l4 + 8, 4);
		else
			ddf_fbuf_put(&kb, 0, 1);
	}
	if (fl & DDF_KF_ICMPID)
		ddf_fbuf_put(&kb, 0, 1);
	if (fl & DDF_KF_PAYLOAD) {
		uint32_t n = ddf_fast_paylen(ki, s);

		ddf_fbuf_put(&kb, 1 | (uint64_t)(n >> 8 & 0xff) << 8 |
				  (uint64_t)(n & 0xff) << 16, 3);
		if (n > DDF_KEY_READ_MAX) {
			/* too long for the buffer: streamed in place */
			ddf_fbuf_flush(&kb, st, rounds);
			ddf_sip_stream(st, ip + ki->payoff + s->payload_off, n,
				       rounds);
			ddf_fbuf_begin(&kb, st);
		} else if (n) {
			ddf_fbuf_copy(&kb, ip + ki->payoff + s->payload_off, n);
		}
	}
	ddf_fbuf_put(&kb, 0, 1); /* no fragment trailer */
	ddf_fbuf_flush(&kb, st, rounds);
}

/* The form's string with the stream's rounds a constant, as ddf_key.c. */
static DDF_ALWAYS_INLINE bool ddf_fast_string(struct ddf_fast_pkt *f,
					      struct ddf_sipstate *st,
					      const struct ddf_key_spec *s,
					      const struct ddf_key_secret *key,
					      uint32_t hashfn,
					      struct ddf_hash *out, int rounds)
{
	if (s->form == DDF_KEY_FIELDS) {
		ddf_fast_fields(f, st, s, rounds);
		return true;
	}
	return ddf_fast_packet(f, st, s, key, hashfn, out, rounds);
}

/*
 * ddf_key_hash_link() for the frames above (ddf_fast_may() passed): the
 * same result, hash and info; DDF_KEY_FAST_NONE, with out and info
 * untouched, for every other.
 */
static DDF_ALWAYS_INLINE int
ddf_fast_hash(const struct ddf_key_spec *spec, const struct ddf_key_link *lk,
	      ddf_key_read_t read, void *ctx, uint32_t len,
	      const struct ddf_key_secret *key, uint32_t hashfn,
	      struct ddf_hash *out, struct ddf_key_info *info)
{
	struct ddf_fast_pkt f DDF_NOINIT;
	struct ddf_sipstate st DDF_NOINIT;
	uint64_t h[2];
	int ret;

	ret = ddf_fast_parse(&f, spec, lk,
			     ((const struct ddf_key_flat *)ctx)->data, len);
	if (ret == DDF_KEY_FAST_NONE)
		return ret;
	if (ret == DDF_KEY_HASHED) {
		if (hashfn == DDF_HASH_SIP24) {
			ddf_sip_init(&st, &key->sip, 2, 4, true);
			if (ddf_fast_string(&f, &st, spec, key, hashfn, out, 2)) {
				ddf_sip_finish(&st, st.tail, st.len & 0xff, 2,
					       4, true, h);
				out->h1 = h[0];
				out->h2 = h[1];
			}
		} else {
			ddf_sip_init(&st, &key->sip, 1, 3, true);
			if (ddf_fast_string(&f, &st, spec, key, hashfn, out, 1)) {
				ddf_sip_finish(&st, st.tail, st.len & 0xff, 1,
					       3, true, h);
				out->h1 = h[0];
				out->h2 = h[1];
			}
		}
	}
	if (info)
		*info = f.ki;
	return ret;
}

#endif /* DDF_KEY_FAST_H */
