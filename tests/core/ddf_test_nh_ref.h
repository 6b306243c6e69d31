/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * NH as defined (ddf_core/ddf_nh.h), and a key's hash as ddf_key.h
 * defines it ("Long keys"), written the plain and slow way for the tests
 * to hold the core's code against: words built byte by byte, the padding
 * spelled out, the arithmetic on 16-bit limbs, so that neither the core's
 * 128-bit product nor its carries are borrowed; the key string's region
 * found by reading the string, the string with digests for its chunks
 * built whole in memory and given to SipHash in one piece.
 */
#ifndef DDF_TEST_NH_REF_H
#define DDF_TEST_NH_REF_H

#include "ddf_hash.h"
#include "ddf_key.h"
#include "ddf_nh.h"

/* A number mod 2^128: eight 16-bit limbs, the least significant first. */
struct nhref_num {
	uint32_t l[8];
};

static inline void nhref_from64(struct nhref_num *a, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		a->l[i] = i < 4 ? (uint32_t)(v >> (16 * i)) & 0xffff : 0;
}

/* a += b, mod 2^128 */
static inline void nhref_add(struct nhref_num *a, const struct nhref_num *b)
{
	uint32_t carry = 0;

	for (int i = 0; i < 8; i++) {
		uint32_t s = a->l[i] + b->l[i] + carry;

		a->l[i] = s & 0xffff;
		carry = s >> 16;
	}
}

/* x * y for x, y below 2^64, schoolbook on the limbs: below 2^128. */
static inline void nhref_mul(struct nhref_num *r, uint64_t x, uint64_t y)
{
	struct nhref_num a, b;

	nhref_from64(&a, x);
	nhref_from64(&b, y);
	for (int i = 0; i < 8; i++)
		r->l[i] = 0;
	for (int i = 0; i < 4; i++) {
		uint32_t carry = 0;

		for (int j = 0; j < 4; j++) {
			uint32_t t = a.l[i] * b.l[j] + r->l[i + j] + carry;

			r->l[i + j] = t & 0xffff;
			carry = t >> 16;
		}
		for (int k = i + 4; k < 8 && carry; k++) {
			uint32_t t = r->l[k] + carry;

			r->l[k] = t & 0xffff;
			carry = t >> 16;
		}
	}
}

/* Byte i of the message padded with zeros. */
static inline uint8_t nhref_byte(const uint8_t *m, uint32_t len, uint32_t i)
{
	return i < len ? m[i] : 0;
}

/* Word i of w bits, little-endian, of the zero-padded message. */
static inline uint64_t nhref_word(const uint8_t *m, uint32_t len, uint32_t i,
				  unsigned int w)
{
	uint64_t v = 0;

	for (unsigned int j = 0; j < w / 8; j++)
		v |= (uint64_t)nhref_byte(m, len, i * (w / 8) + j) << (8 * j);
	return v;
}

/* (a + b) mod 2^w */
static inline uint64_t nhref_addw(uint64_t a, uint64_t b, unsigned int w)
{
	uint64_t s = a + b; /* mod 2^64 */

	return w == 64 ? s : s & ((1ull << w) - 1);
}

/*
 * The digest of m[0, len) with w-bit words under the key words k (their
 * low w bits): the words the bytes fill, one more if their count is odd,
 * the sum of the pairs' products, plus len, mod 2^2w; out[0] the low 64
 * bits, out[1] the high.
 */
static inline void nhref(unsigned int w, const uint64_t *k, const uint8_t *m,
			 uint32_t len, uint64_t out[2])
{
	uint32_t words = (len + w / 8 - 1) / (w / 8);
	struct nhref_num sum, p;

	if (words % 2)
		words++;
	nhref_from64(&sum, 0);
	for (uint32_t i = 0; i < words; i += 2) {
		nhref_mul(&p, nhref_addw(nhref_word(m, len, i, w), k[i], w),
			  nhref_addw(nhref_word(m, len, i + 1, w), k[i + 1], w));
		nhref_add(&sum, &p);
	}
	nhref_from64(&p, len);
	nhref_add(&sum, &p);
	for (unsigned int i = 0; i < 8; i++) /* mod 2^2w */
		if (i >= 2 * w / 16)
			sum.l[i] = 0;
	out[0] = out[1] = 0;
	for (int i = 0; i < 8; i++)
		out[i / 4] |= (uint64_t)sum.l[i] << (16 * (i % 4));
}

/* ---- a key's hash ---- */

static inline uint32_t nhref_be(const uint8_t *p, unsigned int n)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * The region of the key string s[0, len) as ddf_key.h writes strings:
 * [*at, *at + *n) of s; false when it has none. The VLAN prefix ('Q', a
 * count, two bytes each) is skipped; 'P' and 'R' strings end with their
 * 4-byte length, the region is their bytes from the 64th on, when there
 * are more than 64 of them; an 'F' string is read field by field (the
 * mask says which, the family their sizes), the region is the payload
 * when it holds more than 64 bytes.
 */
static inline bool nhref_region(const uint8_t *s, uint32_t len, uint32_t *at,
				uint32_t *n)
{
	/* value bytes of the field of bit b: saddr .. icmpid, by family */
	static const uint8_t v4[] = { 4, 4, 1, 2, 2, 2, 4, 4, 2 };
	static const uint8_t v6[] = { 16, 16, 1, 2, 2, 4, 4, 4, 2 };
	uint32_t i = 0, mask, body;
	uint8_t fam;

	if (len >= 2 && s[0] == 'Q')
		i = 2 + 2u * s[1];
	if (i + 5 > len)
		return false;
	if (s[i] == 'P' || s[i] == 'R') {
		body = len - i - 5;
		if (body <= DDF_KEY_HEAD || body - DDF_KEY_HEAD <= DDF_KEY_NH_OVER)
			return false;
		*at = i + 1 + DDF_KEY_HEAD;
		*n = body - DDF_KEY_HEAD;
		return true;
	}
	if (s[i] != 'F' || i + 6 > len)
		return false;
	fam = s[i + 1];
	mask = nhref_be(s + i + 2, 4);
	i += 6;
	for (unsigned int b = 0; b < 10 && i < len; b++) {
		if (!(mask & (1u << b)))
			continue;
		if (!s[i++])
			continue; /* absent */
		if (b < 9) {
			i += fam == 6 ? v6[b] : v4[b];
			continue;
		}
		*n = nhref_be(s + i, 2); /* the payload: its count, its bytes */
		*at = i + 2;
		return *n > DDF_KEY_NH_OVER;
	}
	return false;
}

/*
 * The hash of the key string s[0, len) under ks with SipHash fn (enum
 * ddf_hash_fn): the string with each chunk of its region replaced by the
 * chunk's digest (its low word, then its high one, little-endian), hashed
 * whole. e: room for len + 16 bytes.
 */
static inline void nhref_key_hash(const uint8_t *s, uint32_t len,
				  const struct ddf_key_secret *ks, uint32_t fn,
				  uint8_t *e, struct ddf_hash *out)
{
	uint32_t at, n, el = 0;
	uint64_t dg[2];

	if (!nhref_region(s, len, &at, &n)) {
		ddf_hash_key(out, fn, &ks->sip, s, len);
		return;
	}
	memcpy(e, s, at);
	el = at;
	for (uint32_t c = 0; c < n; c += DDF_NH_CHUNK) {
		uint32_t cl = n - c < DDF_NH_CHUNK ? n - c : DDF_NH_CHUNK;

		nhref(64, ks->nh.k, s + at + c, cl, dg);
		for (unsigned int j = 0; j < 16; j++)
			e[el++] = (uint8_t)(dg[j / 8] >> (8 * (j % 8)));
	}
	memcpy(e + el, s + at + n, len - at - n);
	el += len - at - n;
	ddf_hash_key(out, fn, &ks->sip, e, el);
}

#endif /* DDF_TEST_NH_REF_H */
