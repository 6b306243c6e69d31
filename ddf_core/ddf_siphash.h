/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * SipHash (Aumasson, Bernstein): SipHash-2-4 and SipHash-1-3 with 64- and
 * 128-bit output, for keys of any byte length.
 */
#ifndef DDF_SIPHASH_H
#define DDF_SIPHASH_H

#include "ddf_env.h"

struct ddf_sipkey {
	uint64_t k0, k1; /* little-endian halves of the 16-byte key */
};

/* Load a 16-byte key given as bytes (as the reference implementation). */
void ddf_sipkey_from_bytes(struct ddf_sipkey *key, const uint8_t bytes[16]);

uint64_t ddf_siphash24_64(const struct ddf_sipkey *key, const void *data,
			  size_t len);
uint64_t ddf_siphash13_64(const struct ddf_sipkey *key, const void *data,
			  size_t len);
/* out[0] is the first 8 output bytes read little-endian, out[1] the next. */
void ddf_siphash24_128(const struct ddf_sipkey *key, const void *data,
		       size_t len, uint64_t out[2]);
void ddf_siphash13_128(const struct ddf_sipkey *key, const void *data,
		       size_t len, uint64_t out[2]);

#endif /* DDF_SIPHASH_H */
