/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A tiny test-case layer: the core's tests are written once against these
 * macros and run both under KUnit (DDF_TEST_KUNIT, in a kernel module) and
 * under the userspace runner of `make check-core`.
 *
 * Rules for tests in tests/core/shared/: use only ddf_core and this header
 * (no libc), keep memory modest (they run in a VM), and use the ASSERT forms
 * only directly inside the test function (they return from it).
 */
#ifndef DDF_TEST_H
#define DDF_TEST_H

#ifdef DDF_TEST_KUNIT

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>

typedef struct kunit ddf_test_t;
typedef struct kunit_case ddf_case_t; /* element of a case table */

#define DDF_TEST(fn) static void fn(struct kunit *t)
#define DDF_CASE(fn) KUNIT_CASE(fn)
#define DDF_CASES_END {}
#define DDF_SUITE(sname, cases)                            \
	static struct kunit_suite sname##_suite = {        \
		.name = #sname,                            \
		.test_cases = cases,                       \
	};                                                 \
	kunit_test_suite(sname##_suite)

#define DDF_EXPECT(t, c) KUNIT_EXPECT_TRUE(t, c)
#define DDF_EXPECT_MSG(t, c, ...) KUNIT_EXPECT_TRUE_MSG(t, c, __VA_ARGS__)
#define DDF_EXPECT_EQ(t, a, b) KUNIT_EXPECT_EQ(t, a, b)
#define DDF_ASSERT(t, c) KUNIT_ASSERT_TRUE(t, c)
#define DDF_ASSERT_MSG(t, c, ...) KUNIT_ASSERT_TRUE_MSG(t, c, __VA_ARGS__)
#define DDF_LOG(t, ...) kunit_info(t, __VA_ARGS__)

static void ddf_test_kvfree(void *p)
{
	kvfree(p);
}

/* Zeroed, freed when the test ends. */
static inline void *ddf_test_alloc(struct kunit *t, size_t size)
{
	void *p = kvzalloc(size, GFP_KERNEL);

	if (!p)
		return NULL;
	if (kunit_add_action_or_reset(t, ddf_test_kvfree, p))
		return NULL;
	return p;
}

#else /* userspace runner */

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

struct ddf_test;
typedef struct ddf_test ddf_test_t;

struct ddf_test_case {
	const char *name;
	void (*fn)(struct ddf_test *t);
};

typedef struct ddf_test_case ddf_case_t; /* element of a case table */

struct ddf_test_suite {
	const char *name;
	const struct ddf_test_case *cases;
	struct ddf_test_suite *next;
};

void ddf_test_register(struct ddf_test_suite *s);
void ddf_test_fail(struct ddf_test *t, const char *file, int line,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void ddf_test_log(struct ddf_test *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void *ddf_test_alloc(struct ddf_test *t, size_t size);

#define DDF_TEST(fn) static void fn(struct ddf_test *t)
#define DDF_CASE(fn) { #fn, fn }
#define DDF_CASES_END { 0, 0 }
#define DDF_SUITE(sname, cases)                                          \
	static struct ddf_test_suite sname##_suite = { #sname, cases, 0 }; \
	__attribute__((constructor)) static void sname##_register(void)  \
	{                                                                \
		ddf_test_register(&sname##_suite);                       \
	}

#define DDF_EXPECT(t, c)                                                 \
	do {                                                             \
		if (!(c))                                                \
			ddf_test_fail(t, __FILE__, __LINE__, "%s", #c); \
	} while (0)
#define DDF_EXPECT_MSG(t, c, ...)                                          \
	do {                                                               \
		if (!(c))                                                  \
			ddf_test_fail(t, __FILE__, __LINE__, __VA_ARGS__); \
	} while (0)
#define DDF_EXPECT_EQ(t, a, b)                                             \
	do {                                                               \
		long long _a = (long long)(a), _b = (long long)(b);        \
		if (_a != _b)                                              \
			ddf_test_fail(t, __FILE__, __LINE__,               \
				      "%s == %s (%lld != %lld)", #a, #b, _a, \
				      _b);                                 \
	} while (0)
#define DDF_ASSERT(t, c)                                                 \
	do {                                                             \
		if (!(c)) {                                              \
			ddf_test_fail(t, __FILE__, __LINE__, "%s", #c); \
			return;                                          \
		}                                                        \
	} while (0)
#define DDF_ASSERT_MSG(t, c, ...)                                          \
	do {                                                               \
		if (!(c)) {                                                \
			ddf_test_fail(t, __FILE__, __LINE__, __VA_ARGS__); \
			return;                                            \
		}                                                          \
	} while (0)
#define DDF_LOG(t, ...) ddf_test_log(t, __VA_ARGS__)

#endif /* DDF_TEST_KUNIT */

/* A small deterministic PRNG for tests (splitmix64). */
static inline uint64_t ddf_test_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif /* DDF_TEST_H */
