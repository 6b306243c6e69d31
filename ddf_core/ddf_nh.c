// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * NH out of line (ddf_nh.h has the definition, the bound and the inline
 * code the key's hash uses): the 64-bit instance with each product, and
 * the narrow instances the tests count collisions of. One source for all
 * of them: the word width is a constant in each call below.
 */
#include "ddf_nh.h"

void ddf_nh64(const struct ddf_nh_key *key, const void *m, uint32_t len,
	      uint64_t out[2])
{
	ddf_nh_w(key->k, m, len, 64, false, out);
}

void ddf_nh64_portable(const struct ddf_nh_key *key, const void *m,
		       uint32_t len, uint64_t out[2])
{
	ddf_nh_w(key->k, m, len, 64, true, out);
}

void ddf_nh_narrow(unsigned int w, const uint64_t *k, const void *m,
		   uint32_t len, uint64_t out[2])
{
	if (w == 8)
		ddf_nh_w(k, m, len, 8, true, out);
	else if (w == 16)
		ddf_nh_w(k, m, len, 16, true, out);
	else
		ddf_nh_w(k, m, len, 32, true, out);
}
