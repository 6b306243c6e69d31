/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * NH as defined (ddf_core/ddf_nh.h), written the plain and slow way for
 * the tests to hold the core's code against: words built byte by byte,
 * the padding spelled out, and the arithmetic on 16-bit limbs, so that
 * neither the core's 128-bit product nor its carries are borrowed.
 */
#ifndef DDF_TEST_NH_REF_H
#define DDF_TEST_NH_REF_H

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

#endif /* DDF_TEST_NH_REF_H */
