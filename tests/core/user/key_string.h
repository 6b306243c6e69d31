/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The key's byte string as the general walk builds it (key_string.c),
 * for the tests that hash it by the definition.
 */
#ifndef KEY_STRING_H
#define KEY_STRING_H

#include "ddf_key.h"

/*
 * The string of the frame[0, len) under spec (over lk, as
 * ddf_key_hash_link()) into buf (cap bytes), its length in *slen: the
 * general walk's result (*slen 0 but for DDF_KEY_HASHED), -1 when buf is
 * too small; ki as the walk fills it.
 */
int key_string(const struct ddf_key_spec *spec, const struct ddf_key_link *lk,
	       const uint8_t *frame, uint32_t len, uint8_t *buf, uint32_t cap,
	       uint32_t *slen, struct ddf_key_info *ki);

#endif /* KEY_STRING_H */
