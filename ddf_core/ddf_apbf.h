/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Generation sizes of APBF and APBBF, shared by the filters and the sizing
 * code (integer arithmetic: the kernel uses it too).
 */
#ifndef DDF_APBF_H
#define DDF_APBF_H

#include "ddf_filter.h"

#define DDF_LN2_Q32 2977044471ull /* floor(ln 2 * 2^32) */
#define DDF_INV_LN2_Q32 6196328018ull /* floor(2^32 / ln 2) */
#define DDF_APBF_MAX_M (1ull << 32) /* bits per slice */
#define DDF_APBBF_MAX_SEG_BITS (1ull << 36)

/* APBF, section 5.2: g = floor(m ln2 / k) */
static inline uint64_t ddf_apbf_gen(uint64_t m, uint32_t k)
{
	return ddf_div64((m * DDF_LN2_Q32) >> 32, k);
}

struct ddf_apbbf_shape {
	uint32_t B, b;
	uint64_t c_q32; /* ln2 / -ln(1 - b/B), Q32 */
	uint64_t inv_c_q32; /* 1 / that, Q32 */
};

static inline const struct ddf_apbbf_shape *ddf_apbbf_shape(uint32_t B,
							     uint32_t b)
{
	static const struct ddf_apbbf_shape shapes[] = {
		{ 64, 4, 46128179253ull, 399901846ull },
		{ 64, 8, 22294715971ull, 827404309ull },
		{ 512, 4, 379571224368ull, 48598900ull },
		{ 512, 8, 189038417013ull, 97581985ull },
	};

	for (unsigned int i = 0; i < DDF_ARRAY_SIZE(shapes); i++)
		if (shapes[i].B == B && shapes[i].b == b)
			return &shapes[i];
	return NULL;
}

/*
 * APBBF: the g at which each B/b-bit part of a block reaches fill 1/2,
 * g = floor(nb ln2 / (k -ln(1 - b/B))); see ddf_apbbf.c.
 */
static inline uint64_t ddf_apbbf_gen(uint64_t nb, uint32_t k,
				     const struct ddf_apbbf_shape *s)
{
	return ddf_div64(ddf_mul_shr32(nb, s->c_q32), k);
}

#endif /* DDF_APBF_H */
