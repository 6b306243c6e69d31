// SPDX-License-Identifier: GPL-2.0
/*
 * ddf_core_kunit: the core's shared tests (tests/core/shared/, built with
 * DDF_TEST_KUNIT) as KUnit suites, plus the kernel environment's own suite:
 * the helpers ddf_core/env/kernel/ddf_env.h maps onto kernel primitives.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "ddf_env.h"

struct ddf_env_div_case {
	const char *desc;
	u64 a, b, quot, rem, mulhi;
};

static const struct ddf_env_div_case ddf_env_div_cases[] = {
	{ "zero dividend", 0, 7, 0, 0, 0 },
	{ "exact", 42, 7, 6, 0, 0 },
	{ "remainder", 43, 7, 6, 1, 0 },
	{ "divisor above 32 bits", 1ull << 40, (1ull << 33) + 1, 127, 8589934465ull, 512 },
	{ "largest dividend", U64_MAX, 3, 6148914691236517205ull, 0, 2 },
	{ "largest divisor", U64_MAX, U64_MAX, 1, 0, U64_MAX - 1 },
	{ "dividend below divisor", 5, U64_MAX, 0, 5, 4 },
};

static void ddf_env_div_desc(const struct ddf_env_div_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ddf_env_div, ddf_env_div_cases, ddf_env_div_desc);

static void ddf_env_div_test(struct kunit *test)
{
	const struct ddf_env_div_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ddf_div64(c->a, c->b), c->quot);
	KUNIT_EXPECT_EQ(test, ddf_mod64(c->a, c->b), c->rem);
	KUNIT_EXPECT_EQ(test, ddf_mulhi64(c->a, c->b), c->mulhi);
}

static void ddf_env_aword_test(struct kunit *test)
{
	ddf_aword w;
	u64 old;

	/* Arrange */
	ddf_aword_set(&w, 0x0f);

	/* Act and assert, one operation at a time */
	ddf_aword_or(&w, 0xf0);
	KUNIT_EXPECT_EQ(test, ddf_aword_read(&w), 0xffull);
	KUNIT_EXPECT_EQ(test, ddf_aword_fetch_add(&w, 1), 0xffull);
	KUNIT_EXPECT_EQ(test, ddf_aword_read_acquire(&w), 0x100ull);

	old = 0x1;
	KUNIT_EXPECT_FALSE(test, ddf_aword_try_cmpxchg(&w, &old, 0x2));
	KUNIT_EXPECT_EQ(test, old, 0x100ull);
	KUNIT_EXPECT_TRUE(test, ddf_aword_try_cmpxchg(&w, &old, U64_MAX));
	ddf_aword_set_release(&w, ddf_aword_read(&w) + 1);
	KUNIT_EXPECT_EQ(test, ddf_aword_read(&w), 0ull);
}

static struct kunit_case ddf_env_cases[] = {
	KUNIT_CASE_PARAM(ddf_env_div_test, ddf_env_div_gen_params),
	KUNIT_CASE(ddf_env_aword_test),
	{}
};

static struct kunit_suite ddf_env_suite = {
	.name = "ddf_env",
	.test_cases = ddf_env_cases,
};

kunit_test_suite(ddf_env_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of the ddf filter core");
