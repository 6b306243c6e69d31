// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The packet key (ddf_core/ddf_key.c, ddf_key_fast.h, ddf_key_link.h)
 * over frames of any bytes and length under any rule spec the uapi takes.
 * The input's first FK_HDR bytes are the spec, the link, the reader and
 * the pieces a multi-buffer frame is cut into; the rest is the frame,
 * copied into a heap block of exactly its length (each piece into its
 * own), so that AddressSanitizer stops a read past it. A spec the
 * kernel's checks refuse (nf_ddf_parse.c: ddf_key_spec_validate() and
 * the IP hooks' own) is dropped at once. For every other one:
 *
 * - the general walk's result is a result, and its hash that of the key's
 *   string (key_string.c) hashed by the plain reference
 *   (ddf_test_nh_ref.h), with the same info;
 * - the fast path gives the general walk's answer or refuses and writes
 *   nothing; the entry point gives it, flat, through a reader callback
 *   (in place or copying) and through the reader over pieces;
 * - the bytes the spec's ignore words mask, changed, change neither the
 *   result nor the hash.
 *
 * Any difference aborts, with the spec and both answers on stderr.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddf_key_priv.h"
#include "ddf_key_segs.h"
#include "../core/ddf_test_nh_ref.h"
#include "../core/user/key_string.h"

#define FK_HDR 27u
#define FK_MAXCUTS 8u
#define FK_POISON 0xa5

/* The rule a fuzz input stands for: its spec and how its frames come. */
struct fk_case {
	struct ddf_key_spec s;
	struct ddf_key_link lk;
	const struct ddf_key_link *lkp; /* NULL: an IP hook's packet */
	uint32_t hashfn;
	int reader; /* 0 flat, 1 callback in place, 2 copying, 3 pieces */
	uint32_t npieces, piece[FK_MAXCUTS]; /* lengths; the last takes the rest */
	const uint8_t *b; /* the frame, a heap block of exactly len bytes */
	uint32_t len;
};

static uint16_t fk_le16(const uint8_t *d)
{
	return (uint16_t)(d[0] | d[1] << 8);
}

static const struct ddf_key_secret *fk_secret(void)
{
	static struct ddf_key_secret ks;
	static bool done;

	if (!done) {
		ddf_key_secret_init(&ks, &(struct ddf_sipkey){
						 0x0706050403020100ull,
						 0x0f0e0d0c0b0a0908ull });
		done = true;
	}
	return &ks;
}

/*
 * The spec and the rest from the header, as the kernel would take them:
 * false for a spec it refuses.
 */
static bool fk_decode(struct fk_case *c, const uint8_t *d)
{
	struct ddf_key_spec *s = &c->s;
	static const uint8_t fam[4] = { 0, 4, 6, 5 };
	uint16_t w1 = fk_le16(d + 1), w3 = fk_le16(d + 3), raw = fk_le16(d + 12);
	int link = d[0] >> 3 & 3;

	ddf_key_spec_default(s);
	s->form = d[0] & 3;
	c->hashfn = d[0] >> 2 & 1 ? DDF_HASH_SIP24 : DDF_HASH_SIP13;
	c->reader = d[0] >> 5 & 3;
	s->fields = w1 & 0x7ff;
	s->family = fam[w1 >> 11 & 3];
	s->match = w1 >> 13 & 1;
	s->l4proto = s->match ? d[24] : 0;
	switch (w1 >> 14) {
	case 1:
		s->max_bytes = fk_le16(d + 10);
		break;
	case 2:
		s->max_bytes = 1 + d[25] % 96;
		break;
	case 3:
		s->max_bytes = DDF_KEY_MAX_BYTES_MAX;
		break;
	}
	s->ignore = w3 & 0x3ff;
	s->decap = w3 >> 10;
	s->payload_off = fk_le16(d + 6) & 0x1fff;
	s->payload_len = fk_le16(d + 8) & 0x1fff;
	switch (d[5] & 3) {
	case 1: s->vxlan_port = 8472; break;
	case 2: s->vxlan_port = DDF_KEY_VXLAN_PORT; break;
	case 3: s->vxlan_port = raw; break;
	}
	switch (d[5] >> 2 & 3) {
	case 1: s->geneve_port = 6082; break;
	case 2: s->geneve_port = DDF_KEY_GENEVE_PORT; break;
	case 3: s->geneve_port = raw; break;
	}
	c->npieces = 1 + (d[5] >> 4) % FK_MAXCUTS;
	for (uint32_t i = 0; i < FK_MAXCUTS; i++)
		c->piece[i] = d[16 + i];

	memset(&c->lk, 0, sizeof(c->lk));
	c->lkp = &c->lk;
	if (link == 0) {
		/* an IP hook: no link layer, no frame form, no L2 ignore */
		c->lkp = NULL;
		if (s->form == DDF_KEY_FRAME || (s->ignore & DDF_KI_L2))
			return false;
	} else if (link == 3) {
		c->lk.type = DDF_LINK_NONE;
	} else {
		c->lk.type = DDF_LINK_ETHER;
		if (link == 2) {
			c->lk.vlan_proto = d[26] & 1 ? 0x88a8 : 0x8100;
			c->lk.vlan_tci = fk_le16(d + 14);
		}
	}
	return ddf_key_spec_validate(s, NULL) == 0;
}

/*
 * The header's layout (bytes): 0 form:2 hash:1 link:2 reader:2; 1-2 fields:11
 * family:2 match:1 max_bytes_sel:2; 3-4 ignore:10 decap:6; 5 vxlan_sel:2
 * geneve_sel:2 pieces:4; 6-7 payload_off; 8-9 payload_len; 10-11
 * max_bytes; 12-13 a tunnel port; 14-15 the taken-out tag's TCI; 16-23
 * the pieces' lengths; 24 l4proto; 25 a short max_bytes; 26 the tag's TPID.
 */

static void fk_fail(const struct fk_case *c, const char *why, int ra,
		    const struct ddf_hash *ha, const struct ddf_key_info *ka,
		    int rb, const struct ddf_hash *hb,
		    const struct ddf_key_info *kb)
{
	const struct ddf_key_spec *s = &c->s;
	const struct ddf_key_info *k[2] = { ka, kb };
	const struct ddf_hash *h[2] = { ha, hb };
	int r[2] = { ra, rb };

	fprintf(stderr, "fuzz_key: %s\n  spec: form %u fields %#x ignore %#x max_bytes %u payload %u:%u family %u match %#x l4proto %u decap %#x vxlan_port %u geneve_port %u hash %u\n  link %s type %u tag %#x/%#x reader %d pieces %u len %u\n",
		why, s->form, s->fields, s->ignore, s->max_bytes,
		s->payload_off, s->payload_len, s->family, s->match,
		s->l4proto, s->decap, s->vxlan_port, s->geneve_port, c->hashfn,
		c->lkp ? "given" : "NULL", c->lk.type, c->lk.vlan_proto,
		c->lk.vlan_tci, c->reader, c->npieces, c->len);
	for (int i = 0; i < 2; i++)
		fprintf(stderr, "  %s: result %d hash %016llx%016llx len %u l4off %u payoff %u frag_id %u frag_off %u flags %#x family %u proto %u exthdrs %u vlans %u l3off %u decaps %u\n",
			i ? "other" : "general walk", r[i],
			(unsigned long long)h[i]->h1,
			(unsigned long long)h[i]->h2, k[i]->len, k[i]->l4off,
			k[i]->payoff, k[i]->frag_id, k[i]->frag_off,
			k[i]->flags, k[i]->family, k[i]->proto, k[i]->exthdrs,
			k[i]->vlans, k[i]->l3off, k[i]->decaps);
	abort();
}

static bool fk_same(int ra, const struct ddf_hash *ha,
		    const struct ddf_key_info *ka, int rb,
		    const struct ddf_hash *hb, const struct ddf_key_info *kb)
{
	if (ra != rb || memcmp(ka, kb, sizeof(*ka)))
		return false;
	return ra != DDF_KEY_HASHED || (ha->h1 == hb->h1 && ha->h2 == hb->h2);
}

/* ---- readers: a callback (the contract checked), the pieces ---- */

struct fk_reader {
	const uint8_t *data;
	uint32_t len;
	bool copy;
};

static const void *fk_read(void *ctx, uint32_t off, uint32_t len, void *buf)
{
	const struct fk_reader *r = ctx;

	/* the key asks only inside the packet, at most DDF_KEY_READ_MAX */
	if (off > r->len || len > r->len - off || len > DDF_KEY_READ_MAX) {
		fprintf(stderr, "fuzz_key: read of %u at %u, packet of %u\n",
			len, off, r->len);
		abort();
	}
	if (!r->copy)
		return r->data + off;
	memcpy(buf, r->data + off, len);
	return buf;
}

struct fk_pieces {
	uint8_t *p[FK_MAXCUTS];
	uint32_t n[FK_MAXCUTS], count;
};

static const uint8_t *fk_seg(void *pkt, uint32_t i, uint32_t *len)
{
	const struct fk_pieces *ps = pkt;

	if (i >= ps->count)
		return NULL;
	*len = ps->n[i];
	return ps->p[i];
}

/* The frame in c->npieces heap blocks, each exactly its piece's length. */
static void fk_cut(struct fk_pieces *ps, const struct fk_case *c)
{
	uint32_t at = 0;

	ps->count = c->npieces;
	for (uint32_t i = 0; i < ps->count; i++) {
		uint32_t n = i + 1 < ps->count ? c->piece[i] : c->len - at;

		if (n > c->len - at)
			n = c->len - at;
		ps->p[i] = malloc(n ? n : 1);
		if (!ps->p[i])
			abort();
		memcpy(ps->p[i], c->b + at, n);
		ps->n[i] = n;
		at += n;
	}
}

static void fk_uncut(struct fk_pieces *ps)
{
	for (uint32_t i = 0; i < ps->count; i++)
		free(ps->p[i]);
}

/* ---- the ignore words: the bytes they mask, changed ---- */

static void fk_flip(uint8_t *b, uint32_t len, uint32_t at, uint8_t bits,
		    bool *changed)
{
	if (at < len && bits) {
		b[at] ^= bits;
		*changed = true;
	}
}

/*
 * Change in b (a copy of the frame) and *lk every bit the spec's ignore
 * words mask in the packet the general walk keyed (kg): the IP header's
 * (ddf_key_mask_ip()), the L4 checksum, the MACs and the VLAN tags (those
 * the link walk takes as tags). False when there is none.
 */
static bool fk_mutate(const struct fk_case *c, const struct ddf_key_info *kg,
		      uint8_t *b, struct ddf_key_link *lk)
{
	uint32_t ig = c->s.ignore, len = c->len, l3 = kg->l3off;
	bool ch = false;

	if (c->lkp && c->lk.type == DDF_LINK_ETHER) {
		if (ig & DDF_KI_MAC)
			for (uint32_t i = 0; i < 12; i++)
				fk_flip(b, len, i, 0xff, &ch);
		if (ig & DDF_KI_VLAN) {
			uint32_t n = 0, off = 14;
			uint16_t type;

			if (lk->vlan_proto) {
				lk->vlan_tci ^= 0xffff;
				ch = true;
				n++;
			}
			type = len >= 14 ? ddf_key_be16(b + 12) : 0;
			while ((type == 0x8100 || type == 0x88a8 ||
				type == 0x9100) && n < DDF_KEY_MAX_VLANS &&
			       off + 4 <= len) {
				fk_flip(b, len, off, 0xff, &ch);
				fk_flip(b, len, off + 1, 0xff, &ch);
				type = ddf_key_be16(b + off + 2);
				off += 4;
				n++;
			}
		}
	}
	if (c->s.form == DDF_KEY_FRAME || (kg->flags & DDF_KEY_F_NONIP))
		return ch;
	if (kg->family == 4) {
		fk_flip(b, len, l3 + 1, (ig & DDF_KI_DSCP ? 0xfc : 0) |
					(ig & DDF_KI_ECN ? 0x03 : 0), &ch);
		if ((ig & DDF_KI_IPID) && !(kg->flags & DDF_KEY_F_FRAG)) {
			fk_flip(b, len, l3 + 4, 0xff, &ch);
			fk_flip(b, len, l3 + 5, 0xff, &ch);
		}
		if (ig & DDF_KI_TTL)
			fk_flip(b, len, l3 + 8, 0xff, &ch);
		if (ig & DDF_KI_IPV4CSUM) {
			fk_flip(b, len, l3 + 10, 0xff, &ch);
			fk_flip(b, len, l3 + 11, 0xff, &ch);
		}
	} else if (kg->family == 6) {
		/* version:4 tclass:8 flow:20; tclass = dscp:6 ecn:2 */
		fk_flip(b, len, l3, ig & DDF_KI_DSCP ? 0x0f : 0, &ch);
		fk_flip(b, len, l3 + 1, (ig & DDF_KI_DSCP ? 0xc0 : 0) |
					(ig & DDF_KI_ECN ? 0x30 : 0) |
					(ig & DDF_KI_FLOWLABEL ? 0x0f : 0), &ch);
		if (ig & DDF_KI_FLOWLABEL) {
			fk_flip(b, len, l3 + 2, 0xff, &ch);
			fk_flip(b, len, l3 + 3, 0xff, &ch);
		}
		if (ig & DDF_KI_TTL)
			fk_flip(b, len, l3 + 7, 0xff, &ch);
	}
	if ((ig & DDF_KI_L4CSUM) && (kg->flags & DDF_KEY_F_L4) &&
	    !(kg->flags & DDF_KEY_F_LATER)) {
		uint32_t at = 0, n = 0;

		switch (kg->proto) {
		case DDF_IPPROTO_TCP: at = 16, n = 2; break;
		case DDF_IPPROTO_UDP:
		case DDF_IPPROTO_UDPLITE: at = 6, n = 2; break;
		case DDF_IPPROTO_SCTP: at = 8, n = 4; break;
		case DDF_IPPROTO_ICMP:
			if (kg->family == 4)
				at = 2, n = 2;
			break;
		case DDF_IPPROTO_ICMPV6:
			if (kg->family == 6)
				at = 2, n = 2;
			break;
		}
		for (uint32_t i = 0; i < n; i++)
			fk_flip(b, len, l3 + kg->l4off + at + i, 0xff, &ch);
	}
	return ch;
}

/* ---- the checks ---- */

static void fk_reference(const struct fk_case *c, int rg,
			 const struct ddf_hash *hg,
			 const struct ddf_key_info *kg)
{
	uint32_t cap = c->len + 4096 + 256, n = 0;
	uint8_t *str = malloc(cap), *e = malloc(cap + 16);
	struct ddf_hash hr = { 0, 0 };
	struct ddf_key_info ks;
	int rs;

	if (!str || !e)
		abort();
	rs = key_string(&c->s, c->lkp, c->b, c->len, str, cap, &n, &ks);
	if (rs != rg || memcmp(&ks, kg, sizeof(ks)))
		fk_fail(c, "the walk that writes the string differs", rg, hg,
			kg, rs, &hr, &ks);
	if (rg == DDF_KEY_HASHED) {
		nhref_key_hash(str, n, fk_secret(), c->hashfn, e, &hr);
		if (hr.h1 != hg->h1 || hr.h2 != hg->h2)
			fk_fail(c, "the general walk's hash is not the reference's",
				rg, hg, kg, rs, &hr, &ks);
	}
	free(str);
	free(e);
}

static void fk_ignore(const struct fk_case *c, int rg,
		      const struct ddf_hash *hg, const struct ddf_key_info *kg)
{
	struct fk_case m = *c;
	struct ddf_key_info km, kw = *kg;
	struct ddf_key_flat flat;
	struct ddf_hash hm = { 0, 0 };
	uint8_t *b;
	int rm;

	if (rg != DDF_KEY_HASHED || !c->s.ignore)
		return;
	b = malloc(c->len ? c->len : 1);
	if (!b)
		abort();
	memcpy(b, c->b, c->len);
	m.b = b;
	if (fk_mutate(c, kg, b, &m.lk)) {
		flat.data = b;
		flat.len = c->len;
		rm = ddf_key_hash_link(&m.s, m.lkp, NULL, &flat, m.len,
				       fk_secret(), m.hashfn, &hm, &km);
		/* the IPv4 identification is info whether ignored or not */
		km.frag_id = kw.frag_id = 0;
		if (!fk_same(rg, hg, &kw, rm, &hm, &km))
			fk_fail(c, "a byte the ignore words mask changed the key",
				rg, hg, kg, rm, &hm, &km);
	}
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ddf_key_secret *ks = fk_secret();
	struct ddf_key_info kg, kf, kp, poison_ki;
	struct ddf_hash hg, hf, hp, poison;
	struct ddf_key_flat flat;
	struct fk_case c;
	uint8_t *b;
	int rg, rf;

	if (size < FK_HDR || size - FK_HDR > 65535 || !fk_decode(&c, data))
		return 0;
	c.len = (uint32_t)(size - FK_HDR);
	b = malloc(c.len ? c.len : 1);
	if (!b)
		abort();
	memcpy(b, data + FK_HDR, c.len);
	c.b = b;
	flat.data = b;
	flat.len = c.len;
	memset(&poison, FK_POISON, sizeof(poison));
	memset(&poison_ki, FK_POISON, sizeof(poison_ki));

	hg = poison;
	rg = ddf_key_general(&c.s, c.lkp, NULL, &flat, c.len, ks, c.hashfn,
			     &hg, &kg);
	if (rg < DDF_KEY_HASHED || rg > DDF_KEY_SKIPPED)
		fk_fail(&c, "no result", rg, &hg, &kg, rg, &hg, &kg);
	if (rg != DDF_KEY_HASHED && memcmp(&hg, &poison, sizeof(hg)))
		fk_fail(&c, "a hash written with no key", rg, &hg, &kg, rg,
			&hg, &kg);
	fk_reference(&c, rg, &hg, &kg);

	/* the fast path: the general walk's answer, or none and no write */
	hf = poison;
	kf = poison_ki;
	rf = ddf_key_fast(&c.s, c.lkp, NULL, &flat, c.len, ks, c.hashfn, &hf,
			  &kf);
	if (rf == DDF_KEY_FAST_NONE) {
		if (memcmp(&hf, &poison, sizeof(hf)) ||
		    memcmp(&kf, &poison_ki, sizeof(kf)))
			fk_fail(&c, "the fast path refused but wrote", rg, &hg,
				&kg, rf, &hf, &kf);
	} else if (!fk_same(rg, &hg, &kg, rf, &hf, &kf) ||
		   (rf != DDF_KEY_HASHED && memcmp(&hf, &poison, sizeof(hf)))) {
		fk_fail(&c, "the fast path differs from the general walk", rg,
			&hg, &kg, rf, &hf, &kf);
	}

	/* the entry point: flat, then through the input's reader */
	hp = poison;
	rf = ddf_key_hash_link(&c.s, c.lkp, NULL, &flat, c.len, ks, c.hashfn,
			       &hp, &kp);
	if (!fk_same(rg, &hg, &kg, rf, &hp, &kp))
		fk_fail(&c, "the entry point differs from the general walk",
			rg, &hg, &kg, rf, &hp, &kp);
	if (c.reader) {
		struct fk_reader rd = { b, c.len, c.reader == 2 };
		struct ddf_key_segs segs;
		struct fk_pieces ps = { .count = 0 };
		ddf_key_read_t read = fk_read;
		void *ctx = &rd;

		if (c.reader == 3) {
			fk_cut(&ps, &c);
			ddf_key_segs_init(&segs, fk_seg, &ps, c.len);
			read = ddf_key_read_segs;
			ctx = &segs;
		}
		if (ddf_key_fast(&c.s, c.lkp, read, ctx, c.len, ks, c.hashfn,
				 &hf, &kf) != DDF_KEY_FAST_NONE)
			fk_fail(&c, "the fast path took a reader's frame", rg,
				&hg, &kg, rf, &hf, &kf);
		hp = poison;
		rf = ddf_key_hash_link(&c.s, c.lkp, read, ctx, c.len, ks,
				       c.hashfn, &hp, &kp);
		if (!fk_same(rg, &hg, &kg, rf, &hp, &kp))
			fk_fail(&c, "the reader's key differs from the flat frame's",
				rg, &hg, &kg, rf, &hp, &kp);
		fk_uncut(&ps);
	}
	fk_ignore(&c, rg, &hg, &kg);
	free(b);
	return 0;
}
