/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A key spec, the link and the reader of a fuzz input, from its first
 * FK_HDR bytes, as the kernel would take them, and the report of a
 * difference between two keys of a frame (fuzz_key.c, fuzz_xdp.c).
 */
#ifndef FUZZ_KEY_SPEC_H
#define FUZZ_KEY_SPEC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddf_key.h"

/*
 * The header's layout (bytes): 0 form:2 hash:1 link:2 reader:2; 1-2 fields:11
 * family:2 match:1 max_bytes_sel:2; 3-4 ignore:10 decap:6; 5 vxlan_sel:2
 * geneve_sel:2 pieces:4; 6-7 payload_off; 8-9 payload_len; 10-11
 * max_bytes; 12-13 a tunnel port; 14-15 the taken-out tag's TCI; 16-23
 * the pieces' lengths; 24 l4proto; 25 a short max_bytes; 26 the tag's TPID:1
 * a second match bit:1 l4proto without match:1 max_bytes bit 16:1 why:1.
 */

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

static uint16_t fk_port(unsigned int sel, uint16_t alt, uint16_t dflt,
		       uint16_t raw)
{
	const uint16_t p[4] = { 0, alt, dflt, raw };

	return p[sel & 3];
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
	const char *why = NULL;
	static const uint8_t fam[4] = { 0, 4, 6, 5 };
	uint16_t w1 = fk_le16(d + 1), w3 = fk_le16(d + 3), raw = fk_le16(d + 12);
	int link = d[0] >> 3 & 3;

	ddf_key_spec_default(s);
	s->form = d[0] & 3;
	c->hashfn = d[0] >> 2 & 1 ? DDF_HASH_SIP24 : DDF_HASH_SIP13;
	c->reader = d[0] >> 5 & 3;
	s->fields = w1 & 0x7ff;
	s->family = fam[w1 >> 11 & 3];
	/* a second match bit and a protocol without one: refused */
	s->match = (w1 >> 13 & 1) | (d[26] & 2);
	s->l4proto = s->match || (d[26] & 4) ? d[24] : 0;
	switch (w1 >> 14) {
	case 1: /* up to twice the most: the excess refused */
		s->max_bytes = fk_le16(d + 10) | (uint32_t)(d[26] & 8) << 13;
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
	/* a port of the rule's own, the default's, or any */
	s->vxlan_port = fk_port(d[5] & 3, 8472, DDF_KEY_VXLAN_PORT, raw);
	s->geneve_port = fk_port(d[5] >> 2 & 3, 6082, DDF_KEY_GENEVE_PORT, raw);
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
	return ddf_key_spec_validate(s, d[26] & 16 ? &why : NULL) == 0;
}

/*
 * A whole input's case: its header decoded (fk_decode) and the frame
 * behind it copied into a heap block of exactly its length, where ASan
 * sees any read past its end. NULL for an input the targets skip; the
 * caller frees the block.
 */
static uint8_t *fk_case_of(struct fk_case *c, const uint8_t *data,
			   size_t size)
{
	uint8_t *b;

	if (size < FK_HDR || size - FK_HDR > 65535 || !fk_decode(c, data))
		return NULL;
	c->len = (uint32_t)(size - FK_HDR);
	b = malloc(c->len ? c->len : 1);
	if (!b)
		abort();
	memcpy(b, data + FK_HDR, c->len);
	c->b = b;
	return b;
}

static void fk_fail(const struct fk_case *c, const char *why, int ra,
		    const struct ddf_hash *ha, const struct ddf_key_info *ka,
		    int rb, const struct ddf_hash *hb,
		    const struct ddf_key_info *kb)
{
	const struct ddf_key_spec *s = &c->s;
	const struct ddf_key_info *k[2] = { ka, kb };
	const struct ddf_hash *h[2] = { ha, hb };
	int r[2] = { ra, rb };

	fprintf(stderr, "%s\n  spec: form %u fields %#x ignore %#x max_bytes %u payload %u:%u family %u match %#x l4proto %u decap %#x vxlan_port %u geneve_port %u hash %u\n  link %s type %u tag %#x/%#x reader %d pieces %u len %u\n",
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

#endif /* FUZZ_KEY_SPEC_H */
