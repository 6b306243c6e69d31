// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * APBF and APBBF decide bit for bit as they did when these digests were
 * recorded: for each shape, a seeded stream of test-and-inserts, plain
 * inserts and lookups (new keys, keys seen in and beyond the window; in
 * time mode also idle gaps, lagging timestamps and lookups ahead of the
 * last insert) is folded into one digest of the answers and one of the
 * filter's bit array, taken at every half window.
 *
 * The shapes are what `ddfbench size --window 20000` chose at fp rates
 * 1e-3 and 1e-6 for APBF and for each APBBF block (64 or 512 bits, 4 or 8
 * bits set); one of them has l > 32, past the hashes a probe keeps. A
 * change to the hot path that moves a single bit or answer fails here, in
 * userspace and in the kernel alike.
 */
#include "ddf_test_util.h"

struct digest_case {
	const char *what;
	uint32_t kind, time, k, l, B, b;
	uint64_t m;
	uint64_t answers, bits; /* expected digests */
};

static const struct digest_case digest_cases[] = {
	{ "apbf 1e-3 count", DDF_KIND_APBF, 0, 15, 66, 0, 0, 6579,
	  0x1d8065f8758184eeull, 0xb2db8388cb587491ull },
	{ "apbf 1e-3 time", DDF_KIND_APBF, 1, 15, 66, 0, 0, 6579,
	  0x991bf97b48b6e571ull, 0x74b21329daf931deull },
	{ "apbf 1e-6 count", DDF_KIND_APBF, 0, 26, 105, 0, 0, 7165,
	  0xe949b64c34e8f5beull, 0x5031f3cbab9bc586ull },
	{ "apbf 1e-6 time", DDF_KIND_APBF, 1, 26, 105, 0, 0, 7165,
	  0x8a42c8e9349f04e9ull, 0x7735ec8855d102c9ull },
	{ "apbbf 64/4 1e-3 count", DDF_KIND_APBBF, 0, 4, 24, 64, 4, 311,
	  0x67703ec9da338e6bull, 0xcfb713de81f80c1aull },
	{ "apbbf 64/4 1e-3 time", DDF_KIND_APBBF, 1, 4, 24, 64, 4, 311,
	  0xe11b6a7e65a8046dull, 0x6c443639b4defb70ull },
	{ "apbbf 64/4 1e-6 count", DDF_KIND_APBBF, 0, 7, 34, 64, 4, 384,
	  0x3f164a64c3773d6cull, 0x178420bdefe7794aull },
	{ "apbbf 64/4 1e-6 time", DDF_KIND_APBBF, 1, 7, 34, 64, 4, 384,
	  0xa94e3a0d0d58b7b4ull, 0x3f779c4cd18787a3ull },
	{ "apbbf 64/8 1e-3 count", DDF_KIND_APBBF, 0, 2, 5, 64, 8, 1542,
	  0x6f56c77e1974e08cull, 0x952c6b759ee3c1b8ull },
	{ "apbbf 64/8 1e-3 time", DDF_KIND_APBBF, 1, 2, 5, 64, 8, 1542,
	  0xca9af001d53e8eb8ull, 0x52d618a7dee7ad4dull },
	{ "apbbf 64/8 1e-6 count", DDF_KIND_APBBF, 0, 4, 24, 64, 8, 643,
	  0xe527c802bfac91a6ull, 0xa1365b46885a67cfull },
	{ "apbbf 64/8 1e-6 time", DDF_KIND_APBBF, 1, 4, 24, 64, 8, 643,
	  0x6778d6a4068105f1ull, 0x6481c5ab407adf45ull },
	{ "apbbf 512/4 1e-3 count", DDF_KIND_APBBF, 0, 4, 24, 512, 4, 38,
	  0x21651aafe6cf4a2eull, 0xe91d77ca77e663c6ull },
	{ "apbbf 512/4 1e-3 time", DDF_KIND_APBBF, 1, 4, 24, 512, 4, 38,
	  0x4104374d528cd25eull, 0x85e50eb92dcc05abull },
	{ "apbbf 512/4 1e-6 count", DDF_KIND_APBBF, 0, 6, 19, 512, 4, 72,
	  0x0375defba3b775d8ull, 0x12f695cdd21fc970ull },
	{ "apbbf 512/4 1e-6 time", DDF_KIND_APBBF, 1, 6, 19, 512, 4, 72,
	  0x1f479d682960d6bbull, 0xc78b40ab2638279cull },
	{ "apbbf 512/8 1e-3 count", DDF_KIND_APBBF, 0, 2, 16, 512, 8, 57,
	  0xa36528efdee6789bull, 0x75b9ac381ef11f00ull },
	{ "apbbf 512/8 1e-3 time", DDF_KIND_APBBF, 1, 2, 16, 512, 8, 57,
	  0xf53f2dafcaab547bull, 0xb45b9359b25b45d1ull },
	{ "apbbf 512/8 1e-6 count", DDF_KIND_APBBF, 0, 3, 9, 512, 8, 152,
	  0x576e2718f3d12ff0ull, 0xf5e44cfda87daf39ull },
	{ "apbbf 512/8 1e-6 time", DDF_KIND_APBBF, 1, 3, 9, 512, 8, 152,
	  0xc9fbf9c0acfc7bd0ull, 0xdeb308fba2ee73e6ull },
};

#define WINDOW_NS 10000000ull /* 10 ms */

static uint64_t fold(uint64_t acc, uint64_t x)
{
	return ddf_fmix64(acc ^ ddf_fmix64(x + 0x9e3779b97f4a7c15ull));
}

/*
 * The bit array is the tail of the filter's memory (the header before it
 * holds pointers): nseg segments of whole cache lines.
 */
static uint64_t fold_bits(uint64_t acc, const struct ddf_test_made *mk,
			  const struct ddf_params *p)
{
	uint64_t seg_bits = p->kind == DDF_KIND_APBBF ?
			    p->m * p->block_bits : p->m;
	uint64_t words = (uint64_t)(p->k + p->l + 1) *
			 ddf_align_up((seg_bits + 63) / 64, 8);
	const uint64_t *w = (const uint64_t *)(mk->mem + mk->size - words * 8);

	for (uint64_t i = 0; i < words; i++)
		acc = fold(acc, w[i]);
	return acc;
}

static struct ddf_hash digest_key(uint64_t j)
{
	return ddf_test_key_at(0xd16e57ull ^ (j * 0x9e3779b97f4a7c15ull));
}

/* Run the case's stream; *answers and *bits get its two digests. */
static int digest_run(ddf_test_t *t, const struct digest_case *c,
		      uint64_t *answers, uint64_t *bits)
{
	struct ddf_params p = { .kind = c->kind, .k = c->k, .l = c->l,
				.m = c->m, .block_bits = c->B,
				.block_hashes = c->b };
	uint64_t rng = c->m * 131 + c->k, keys = 0, now = 1000, win, n;
	uint64_t gen_ns = WINDOW_NS / c->l;
	uint64_t yes = 0;
	struct ddf_test_made mk;
	struct ddf_stats st;

	if (c->time) {
		p.flags = DDF_PF_TIME;
		p.window_ns = WINDOW_NS;
	}
	mk = ddf_test_make(t, &p, now);
	if (!mk.f)
		return -1;
	win = p.window;
	n = 3 * win;
	*answers = 0;
	*bits = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t r = ddf_test_rand(&rng), op = r & 15, at = now;
		uint64_t back = (r >> 8) % (2 * win) + 1;
		struct ddf_hash h;
		int ans = 2;

		if (c->time) {
			/* about a window per win keys; now and then a gap */
			uint64_t gap = (r >> 40) % 1024 == 0 && op == 15 ?
				       (r >> 20) % (3 * WINDOW_NS) :
				       (r >> 20) % (2 * WINDOW_NS / win);

			now += gap;
			at = now;
			/* a CPU whose clock lags up to two generations */
			if (op == 14 && now > 2 * gen_ns)
				at = now - (r >> 24) % (2 * gen_ns);
		}
		/* op 0-3: a key seen before (up to two windows back) */
		h = op < 4 && back <= keys ? digest_key(keys - back) :
					     digest_key(keys++);
		if (op == 0 || op == 4) {
			/* time mode: look a generation or so ahead */
			ans = ddf_filter_lookup(mk.f, &h, c->time ?
						now + (r >> 32) % (2 * gen_ns) :
						0);
		} else if (op == 5) {
			ddf_filter_insert(mk.f, &h, at);
		} else {
			ans = ddf_filter_test_and_insert(mk.f, &h, at);
		}
		*answers = fold(*answers, (uint64_t)ans << 8 | op);
		yes += ans == 1;
		if ((i + 1) % (win / 2) == 0 || i == n - 1)
			*bits = fold_bits(*bits, &mk, &p);
	}
	ddf_filter_stats(mk.f, &st);
	DDF_LOG(t, "%s: %llu ops, %llu answers yes, %llu generations",
		c->what, (unsigned long long)n, (unsigned long long)yes,
		(unsigned long long)st.generation);
	return 0;
}

DDF_TEST(apbf_digests_unchanged)
{
	for (unsigned int i = 0; i < DDF_ARRAY_SIZE(digest_cases); i++) {
		const struct digest_case *c = &digest_cases[i];
		uint64_t answers, bits;

		DDF_ASSERT_MSG(t, !digest_run(t, c, &answers, &bits),
			       "%s: cannot make the filter", c->what);
		DDF_EXPECT_MSG(t, answers == c->answers && bits == c->bits,
			       "%s: answers 0x%016llx bits 0x%016llx, recorded 0x%016llx 0x%016llx",
			       c->what, (unsigned long long)answers,
			       (unsigned long long)bits,
			       (unsigned long long)c->answers,
			       (unsigned long long)c->bits);
	}
}

static ddf_case_t ddf_apbf_digest_cases[] = {
	DDF_CASE(apbf_digests_unchanged),
	DDF_CASES_END
};

DDF_SUITE(ddf_apbf_digest, ddf_apbf_digest_cases);
