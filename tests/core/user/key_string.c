// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The key's byte string (ddf_key.h) as the general walk builds it, for
 * the differential test (test_key_diff.c) to hash by the definition
 * (ddf_test_nh_ref.h) beside the core's hash. ddf_key.c is compiled here
 * once more, its entry points renamed, with no region (every byte of the
 * string goes to SipHash as it stands, as below the regions' threshold),
 * and each word SipHash compresses recorded: the words, the last one's
 * bytes, are the string.
 */
#include <stdint.h>

/* every word SipHash compresses in this file goes through kstr_tap() */
static void kstr_tap(uint64_t m);
#define DDF_SIP_TAP(m) kstr_tap(m)

#include "key_string.h"

static struct {
	uint8_t *buf;
	uint32_t cap, words;
	uint64_t last;
	bool over;
} kstr;

static void kstr_tap(uint64_t m)
{
	if (kstr.words && kstr.words * 8 <= kstr.cap) {
		for (unsigned int i = 0; i < 8; i++)
			kstr.buf[(kstr.words - 1) * 8 + i] =
				(uint8_t)(kstr.last >> (8 * i));
	} else if (kstr.words) {
		kstr.over = true;
	}
	kstr.last = m;
	kstr.words++;
}

/*
 * No region: the constant's uses below are all in ddf_key.c (its sum with
 * DDF_KEY_HEAD still fits). Comparisons with it are then always false.
 */
#undef DDF_KEY_NH_OVER
#define DDF_KEY_NH_OVER 0x7fffffffu
#pragma GCC diagnostic ignored "-Wtype-limits"
#ifdef __clang__
#pragma clang diagnostic ignored "-Wtautological-constant-out-of-range-compare"
#endif
#define ddf_key_spec_validate kstr_spec_validate
#define ddf_key_secret_init kstr_secret_init
#define ddf_key_general kstr_general
#define ddf_key_fast kstr_fast
#define ddf_key_hash_link kstr_hash_link
#define ddf_key_hash kstr_hash
#include "ddf_key.c"

int key_string(const struct ddf_key_spec *spec, const struct ddf_key_link *lk,
	       const uint8_t *frame, uint32_t len, uint8_t *buf, uint32_t cap,
	       uint32_t *slen, struct ddf_key_info *ki)
{
	static struct ddf_key_secret ks; /* the string does not depend on it */
	struct ddf_key_flat flat = { frame, len };
	struct ddf_hash h;
	int r;

	kstr.buf = buf;
	kstr.cap = cap;
	kstr.words = 0;
	kstr.over = false;
	r = kstr_general(spec, lk, NULL, &flat, len, &ks, DDF_HASH_SIP13, &h,
			 ki);
	*slen = 0;
	if (r != DDF_KEY_HASHED)
		return r;
	if (kstr.over || !kstr.words)
		return -1;
	/* the last word: the string's last len % 8 bytes, len % 256 on top */
	*slen = (kstr.words - 1) * 8 + (uint32_t)(kstr.last >> 56 & 7);
	if (*slen > cap)
		return -1;
	for (uint32_t i = (kstr.words - 1) * 8; i < *slen; i++)
		buf[i] = (uint8_t)(kstr.last >> (8 * (i % 8)));
	return r;
}
