/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ddf_core environment for the kernel: the same names as the userspace
 * environment, mapped onto kernel primitives.
 */
#ifndef DDF_ENV_H
#define DDF_ENV_H

#include <linux/types.h>
#include <linux/string.h>
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/prefetch.h>
#include <linux/smp.h>
#include <asm/processor.h>

#define DDF_LIKELY(x) likely(x)
#define DDF_UNLIKELY(x) unlikely(x)
#define DDF_BUG_ON(x) WARN_ON_ONCE(x)
#define DDF_CACHE_ALIGNED __aligned(64)
#define DDF_ALWAYS_INLINE __always_inline
#define DDF_NOINLINE noinline
#define DDF_ARRAY_SIZE(a) ARRAY_SIZE(a)

static inline u64 ddf_div64(u64 a, u64 b)
{
	return div64_u64(a, b);
}

static inline u64 ddf_mod64(u64 a, u64 b)
{
	u64 rem;

	div64_u64_rem(a, b, &rem);
	return rem;
}

/* a 128-bit integer for NH's products (ddf_nh.h), where the arch has it */
#ifdef CONFIG_ARCH_SUPPORTS_INT128
#define DDF_HAVE_INT128 1
#define ddf_u128 __uint128_t /* a name, as ddf_aword below */
#endif

static inline u64 ddf_mulhi64(u64 a, u64 b)
{
	return mul_u64_u64_shr(a, b, 64);
}

/* a name, not a typedef: the core's word is the kernel's atomic64_t */
#define ddf_aword atomic64_t

static inline u64 ddf_aword_read(const ddf_aword *w)
{
	return (u64)atomic64_read(w);
}

static inline u64 ddf_aword_read_acquire(const ddf_aword *w)
{
	return (u64)atomic64_read_acquire(w);
}

static inline void ddf_aword_set(ddf_aword *w, u64 v)
{
	atomic64_set(w, (s64)v);
}

static inline void ddf_aword_set_release(ddf_aword *w, u64 v)
{
	atomic64_set_release(w, (s64)v);
}

static inline void ddf_aword_or(ddf_aword *w, u64 mask)
{
	atomic64_or((s64)mask, w);
}

static inline u64 ddf_aword_fetch_add(ddf_aword *w, u64 n)
{
	return (u64)atomic64_fetch_add((s64)n, w);
}

static inline bool ddf_aword_try_cmpxchg(ddf_aword *w, u64 *old, u64 new)
{
	return atomic64_try_cmpxchg(w, (s64 *)old, (s64)new);
}

/*
 * The caller's ticket slot (ddf_age.h): its CPU. Filters are entered with
 * bottom halves disabled, so no other insert runs on this CPU meanwhile;
 * raw_, because KUnit cases call from process context, one at a time.
 */
static inline u32 ddf_env_slot(void)
{
	return raw_smp_processor_id();
}

static inline void ddf_cpu_relax(void)
{
	cpu_relax();
}

static inline void ddf_prefetch_w(const void *p)
{
	prefetchw(p);
}

static inline void ddf_prefetch(const void *p)
{
	prefetch(p);
}

#endif /* DDF_ENV_H */
