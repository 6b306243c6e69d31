/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * SipHash (Aumasson, Bernstein): SipHash-2-4 and SipHash-1-3 with 64- and
 * 128-bit output, for keys of any byte length, in one shot or streamed.
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

/*
 * Streaming SipHash-c-d, for messages that are never whole in memory (a
 * packet key read piece by piece): ddf_sip_init(), ddf_sip_update() any
 * number of times with the message cut anywhere, then the final that
 * matches out128 at init. The result equals the one-shot function's over
 * the concatenated pieces. c = 1, 2 and d = 3, 4 run unrolled; other round
 * counts (1..255) work, more slowly. The state holds no pointers: copy it
 * to fork a hash after a common prefix.
 */
struct ddf_sipstate {
	uint64_t v0, v1, v2, v3;
	uint64_t tail; /* the pending len % 8 bytes, little-endian */
	uint32_t len; /* bytes so far, mod 2^32 (SipHash uses mod 256) */
	uint8_t c, d; /* compression and finalisation rounds */
	uint8_t wide; /* 128-bit output */
	uint8_t reserved;
};

void ddf_sip_init(struct ddf_sipstate *s, const struct ddf_sipkey *key,
		  unsigned int c, unsigned int d, bool out128);
void ddf_sip_update(struct ddf_sipstate *s, const void *data, size_t len);
/* For a state begun with out128 false. */
uint64_t ddf_sip_final64(struct ddf_sipstate *s);
/* For a state begun with out128 true; out as in ddf_siphash*_128. */
void ddf_sip_final128(struct ddf_sipstate *s, uint64_t out[2]);

#endif /* DDF_SIPHASH_H */
