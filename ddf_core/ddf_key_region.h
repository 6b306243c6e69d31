/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A long key's region read through the key's reader (ddf_key.h, "Long
 * keys"): for the general walk (ddf_key.c) and the frame form
 * (ddf_key_link.h); the fast path reads its packets in place
 * (ddf_key_fast.h). Included by ddf_key.c alone, as those are.
 */
#ifndef DDF_KEY_REGION_H
#define DDF_KEY_REGION_H

#include "ddf_key_priv.h"

/*
 * The region [off, end) of the reader (ddf_key.h, "Long keys") into st
 * with c rounds: each chunk of DDF_NH_CHUNK bytes, the last one shorter,
 * as its NH digest. A packet whole in memory is read in place a chunk at
 * a time; through a reader a chunk is read DDF_KEY_READ_MAX bytes at a
 * time (a multiple of a pair of words, as the chunk is of the reads), so
 * NH takes whole pairs but at a chunk's end. The bytes of [zoff, zoff +
 * zlen) of the reader (zlen 0: none) are hashed as zeros: a checksum that
 * ignore l4csum masks, where it lies this far in. False when a read fails.
 * Out of line: the walks that may call it keep their short keys' code.
 */
static DDF_NOINLINE bool ddf_key_region(struct ddf_key_pkt *p,
					struct ddf_sipstate *st, uint32_t off,
					uint32_t end, uint32_t zoff,
					uint32_t zlen, int c)
{
	const struct ddf_nh_key *nk = p->nh;
	uint64_t dg[2];

	if (end > p->flen)
		return false;
	while (off < end) {
		uint32_t n = end - off < DDF_NH_CHUNK ? end - off : DDF_NH_CHUNK;
		struct ddf_nh_sum sum = { 0 };
		bool zero = zlen && zoff < off + n && zoff + zlen > off;

		if (!p->read && !zero) {
			ddf_nh(nk, ((const struct ddf_key_flat *)p->ctx)->data +
					   off, n, dg);
			goto digest;
		}
		for (uint32_t r = 0; r < n; r += DDF_KEY_READ_MAX) {
			uint32_t k = n - r < DDF_KEY_READ_MAX ? n - r :
								 DDF_KEY_READ_MAX;
			const uint8_t *d = ddf_key_rd(p, off + r, k);
			uint32_t at = off + r;

			if (!d)
				return false;
			if (zero && zoff < at + k && zoff + zlen > at) {
				if (d != p->buf)
					memcpy(p->buf, d, k);
				for (uint32_t i = 0; i < k; i++)
					if (at + i >= zoff && at + i < zoff + zlen)
						p->buf[i] = 0;
				d = p->buf;
			}
			ddf_nh_pairs(&sum, nk->k + r / 8, d, k / 16, 64,
				     DDF_NH_DEFAULT_PORTABLE);
			if (k % 16)
				ddf_nh_tail(&sum, nk->k + r / 8 + 2 * (k / 16),
					    d + 16 * (k / 16), k % 16, 64,
					    DDF_NH_DEFAULT_PORTABLE);
		}
		ddf_nh_digest(&sum, n, 64, DDF_NH_DEFAULT_PORTABLE, dg);
digest:
		if (c == 1) { /* the default's rounds, unrolled */
			ddf_sip_push(st, dg[0], 8, 1);
			ddf_sip_push(st, dg[1], 8, 1);
		} else {
			ddf_sip_push(st, dg[0], 8, c);
			ddf_sip_push(st, dg[1], 8, c);
		}
		off += n;
	}
	return true;
}

#endif /* DDF_KEY_REGION_H */
