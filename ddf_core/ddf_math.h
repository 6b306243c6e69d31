/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Elementary functions for the sizing code, without libm: the core must
 * build freestanding, and libm's last bit differs between hosts. Accurate
 * to a few ulp over the ranges sizing uses, and the same bits on every CPU
 * as long as no multiply and add are fused (ddf_size.h).
 * Floating point: userspace only (the kernel receives resolved integers).
 */
#ifndef DDF_MATH_H
#define DDF_MATH_H

#include "ddf_env.h"

#define DDF_LN2 0.69314718055994530942

static inline double ddf_ldexp_int(double x, int e)
{
	/* scale by 2^e in steps that stay inside the exponent range */
	while (e > 1000) {
		x *= 0x1p1000;
		e -= 1000;
	}
	while (e < -1000) {
		x *= 0x1p-1000;
		e += 1000;
	}
	{
		uint64_t bits = (uint64_t)(e + 1023) << 52;
		double s;

		memcpy(&s, &bits, sizeof(s));
		return x * s;
	}
}

static inline double ddf_exp(double x)
{
	double r, term, sum;
	int n;

	if (x > 709.0)
		return 1.0 / 0.0;
	if (x < -745.0)
		return 0.0;
	/* x = n ln2 + r, |r| <= ln2 / 2 */
	n = (int)(x / DDF_LN2 + (x >= 0 ? 0.5 : -0.5));
	r = x - n * DDF_LN2;
	term = 1.0;
	sum = 1.0;
	for (int i = 1; i < 20; i++) {
		term *= r / i;
		sum += term;
	}
	return ddf_ldexp_int(sum, n);
}

static inline double ddf_log(double x)
{
	uint64_t bits;
	double f, s, s2, term, sum;
	int e;

	if (!(x > 0.0))
		return x == 0.0 ? -1.0 / 0.0 : 0.0 / 0.0;
	memcpy(&bits, &x, sizeof(bits));
	e = (int)((bits >> 52) & 0x7ff);
	if (!e) /* subnormal: normalise first */
		return ddf_log(x * 0x1p54) - 54 * DDF_LN2;
	e -= 1023;
	bits = (bits & ((1ull << 52) - 1)) | (1023ull << 52);
	memcpy(&f, &bits, sizeof(f));
	if (f > 1.41421356237309504880) {
		f *= 0.5;
		e++;
	}
	/* log f = 2 atanh(s), s = (f - 1) / (f + 1), |s| < 0.172 */
	s = (f - 1.0) / (f + 1.0);
	s2 = s * s;
	term = s;
	sum = 0.0;
	for (int i = 1; i < 40; i += 2) {
		sum += term / i;
		term *= s2;
	}
	return 2.0 * sum + e * DDF_LN2;
}

static inline double ddf_pow(double x, double y)
{
	if (y == 0.0)
		return 1.0;
	if (x == 0.0)
		return 0.0;
	return ddf_exp(y * ddf_log(x));
}

/* x to a whole power, by squaring: a few products, where ddf_pow() sums series */
static inline double ddf_powu(double x, uint32_t n)
{
	double r = 1.0;

	for (; n; n >>= 1, x *= x)
		if (n & 1)
			r *= x;
	return r;
}

static inline double ddf_sqrt(double x)
{
	double r;

	if (!(x > 0.0))
		return 0.0;
	r = x > 1.0 ? x : 1.0;
	for (int i = 0; i < 200; i++) {
		double n = 0.5 * (r + x / r);

		if (n == r)
			break;
		r = n;
	}
	return r;
}

#endif /* DDF_MATH_H */
