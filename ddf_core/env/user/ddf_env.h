/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ddf_core environment for userspace (and for the freestanding compile
 * check). Everything the core needs from its surroundings comes from here,
 * so the core itself never includes a system header.
 */
#ifndef DDF_ENV_H
#define DDF_ENV_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

/* Only these four library functions may be referenced by the core. */
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#define DDF_CACHE_ALIGNED __attribute__((__aligned__(64)))
#define DDF_ALWAYS_INLINE inline __attribute__((__always_inline__))
#define DDF_NOINLINE __attribute__((__noinline__))
#define DDF_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define DDF_LIKELY(x) __builtin_expect(!!(x), 1)
#define DDF_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* A trap, not abort(): the freestanding core may not call into libc. */
#define DDF_BUG_ON(x)                     \
	do {                              \
		if (DDF_UNLIKELY(x))       \
			__builtin_trap(); \
	} while (0)

static inline uint64_t ddf_div64(uint64_t a, uint64_t b)
{
	return a / b;
}

static inline uint64_t ddf_mod64(uint64_t a, uint64_t b)
{
	return a % b;
}

/* a 128-bit integer for NH's products (ddf_nh.h), where the compiler has it */
#ifdef __SIZEOF_INT128__
#define DDF_HAVE_INT128 1
typedef unsigned __int128 ddf_u128;
#endif

/* high 64 bits of a 64x64 product */
static inline uint64_t ddf_mulhi64(uint64_t a, uint64_t b)
{
#ifdef DDF_HAVE_INT128
	return (uint64_t)(((ddf_u128)a * b) >> 64);
#else
	uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
	uint64_t mid = (al * bl >> 32) + (uint32_t)(al * bh) + (uint32_t)(ah * bl);

	return ah * bh + (al * bh >> 32) + (ah * bl >> 32) + (mid >> 32);
#endif
}

/* A 64-bit word shared between CPUs. */
typedef struct {
	uint64_t v;
} ddf_aword;

static inline uint64_t ddf_aword_read(const ddf_aword *w)
{
	return __atomic_load_n(&w->v, __ATOMIC_RELAXED);
}

static inline uint64_t ddf_aword_read_acquire(const ddf_aword *w)
{
	return __atomic_load_n(&w->v, __ATOMIC_ACQUIRE);
}

static inline void ddf_aword_set(ddf_aword *w, uint64_t v)
{
	__atomic_store_n(&w->v, v, __ATOMIC_RELAXED);
}

static inline void ddf_aword_set_release(ddf_aword *w, uint64_t v)
{
	__atomic_store_n(&w->v, v, __ATOMIC_RELEASE);
}

static inline void ddf_aword_or(ddf_aword *w, uint64_t mask)
{
	__atomic_fetch_or(&w->v, mask, __ATOMIC_RELAXED);
}

/*
 * Fully ordered, as the kernel's atomic64_fetch_add(): a ticket is taken
 * before the generation is read (ddf_age.h), on any architecture.
 */
static inline uint64_t ddf_aword_fetch_add(ddf_aword *w, uint64_t n)
{
	return __atomic_fetch_add(&w->v, n, __ATOMIC_SEQ_CST);
}

/*
 * On failure *old is updated with the current value, as try_cmpxchg does;
 * fully ordered on success and unordered on failure, as the kernel's.
 */
static inline bool ddf_aword_try_cmpxchg(ddf_aword *w, uint64_t *old,
					 uint64_t new)
{
	return __atomic_compare_exchange_n(&w->v, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/*
 * The caller's ticket slot (ddf_age.h). A program whose threads each
 * insert through a slot of their own points ddf_env_slot_fn at a function
 * giving the calling thread's (a thread-local of the program's); unset,
 * every insert takes its ticket from the shared counter. A plain pointer,
 * weak so that the header defines it: the core itself needs no TLS.
 */
__attribute__((weak)) uint32_t (*ddf_env_slot_fn)(void);

static inline uint32_t ddf_env_slot(void)
{
	return ddf_env_slot_fn ? ddf_env_slot_fn() : UINT32_MAX;
}

static inline void ddf_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static inline void ddf_prefetch_w(const void *p)
{
	__builtin_prefetch(p, 1, 3);
}

static inline void ddf_prefetch(const void *p)
{
	__builtin_prefetch(p, 0, 3);
}

#endif /* DDF_ENV_H */
