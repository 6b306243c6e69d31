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
#include "fuzz_key_spec.h"

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

		/* (offset, length) of the checksum in the L4 header */
		if (kg->proto == DDF_IPPROTO_TCP)
			at = 16, n = 2;
		else if (kg->proto == DDF_IPPROTO_UDP ||
			 kg->proto == DDF_IPPROTO_UDPLITE)
			at = 6, n = 2;
		else if (kg->proto == DDF_IPPROTO_SCTP)
			at = 8, n = 4;
		else if ((kg->proto == DDF_IPPROTO_ICMP && kg->family == 4) ||
			 (kg->proto == DDF_IPPROTO_ICMPV6 && kg->family == 6))
			at = 2, n = 2;
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

	b = fk_case_of(&c, data, size);
	if (!b)
		return 0;
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
	/* with no info asked for (the module's hooks; an IP hook's call) */
	hp = poison;
	if ((c.lkp ? ddf_key_hash_link(&c.s, c.lkp, NULL, &flat, c.len, ks,
				       c.hashfn, &hp, NULL) :
		     ddf_key_hash(&c.s, NULL, &flat, c.len, ks, c.hashfn, &hp,
				  NULL)) != rg ||
	    memcmp(&hp, &hg, sizeof(hp)))
		fk_fail(&c, "the entry point without info differs", rg, &hg,
			&kg, rf, &hp, &kg);
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
