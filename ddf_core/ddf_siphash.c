// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * SipHash-c-d (J.-P. Aumasson, D. J. Bernstein, "SipHash: a fast short-input
 * PRF", 2012), with the 64-bit output of the paper and the 128-bit output of
 * the reference implementation, in one shot or streamed. Every packet is
 * hashed here, so the rounds count is a compile-time constant in each
 * one-shot function. The round code and the streaming functions are
 * inline in ddf_siphash.h, so that other core files (ddf_key.c) stream
 * without calling across files.
 */
#include "ddf_siphash.h"

/* SipHash-c-d of data[0..len) under key, in one shot. */
static DDF_ALWAYS_INLINE void ddf_siphash(const struct ddf_sipkey *key,
					  const void *data, size_t len, int c,
					  int d, bool wide, uint64_t *out)
{
	const uint8_t *in = data;
	struct ddf_sipstate s;

	ddf_sip_start(&s, key, wide);
	ddf_sip_words(&s, in, len / 8, c);
	ddf_sip_finish(&s, ddf_sip_partial(in + (len & ~(size_t)7), len & 7),
		       len, c, d, wide, out);
}

void ddf_sipkey_from_bytes(struct ddf_sipkey *key, const uint8_t bytes[16])
{
	key->k0 = ddf_sip_load_le64(bytes);
	key->k1 = ddf_sip_load_le64(bytes + 8);
}

uint64_t ddf_siphash24_64(const struct ddf_sipkey *key, const void *data,
			  size_t len)
{
	uint64_t h;

	ddf_siphash(key, data, len, 2, 4, false, &h);
	return h;
}

uint64_t ddf_siphash13_64(const struct ddf_sipkey *key, const void *data,
			  size_t len)
{
	uint64_t h;

	ddf_siphash(key, data, len, 1, 3, false, &h);
	return h;
}

void ddf_siphash24_128(const struct ddf_sipkey *key, const void *data,
		       size_t len, uint64_t out[2])
{
	ddf_siphash(key, data, len, 2, 4, true, out);
}

void ddf_siphash13_128(const struct ddf_sipkey *key, const void *data,
		       size_t len, uint64_t out[2])
{
	ddf_siphash(key, data, len, 1, 3, true, out);
}
