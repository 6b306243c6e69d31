// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * NH (ddf_nh.h) against its plain definition (ddf_test_nh_ref.h): digests
 * worked out by hand, every chunk length at every word width, the
 * portable product against unsigned __int128's, the NH key's derivation,
 * and collisions counted. At w = 8 and 16 bits the bound 2^-w is large
 * enough to count: structured pairs (a bit flipped, high bits, words
 * swapped, a carry across words, zero runs moved, equal sums, zeros
 * against one word, random) each under a fresh key collide at most at
 * the bound, within six standard deviations of a binomial count there;
 * pairs that differ in one word collide at exactly 2^-w, so their count
 * must also reach the bound's (a test that counts nothing fails). The
 * 64-bit instance over the same pairs collides never.
 */
#include "ddf_test.h"
#include "ddf_test_nh_ref.h"

/* structured pairs per narrow width: fewer in a kernel under emulation */
#ifdef DDF_TEST_KUNIT
#define NHC_PAIRS 400000u
#else
#define NHC_PAIRS 10000000u
#endif
#define NHC_WORDS 16u /* words of a message at most */

static void nh_fill(uint8_t *p, uint32_t n, uint64_t *rng)
{
	uint64_t r = 0;

	for (uint32_t i = 0; i < n; i++, r >>= 8) {
		if (!(i & 7))
			r = ddf_test_rand(rng);
		p[i] = (uint8_t)r;
	}
}

static bool nh_eq(const uint64_t a[2], const uint64_t b[2])
{
	return a[0] == b[0] && a[1] == b[1];
}

DDF_TEST(ddf_nh_by_hand)
{
	static const uint64_t zero[4];
	static const uint64_t k12[2] = { 1, 2 };
	static const uint64_t k11[2] = { 1, 1 };
	struct ddf_nh_key key;
	uint8_t m[16];
	uint64_t h[2], r[2];

	/* (2^64 - 1)^2 = 2^128 - 2^65 + 1, plus 16 bytes */
	memset(&key, 0, sizeof(key));
	memset(m, 0xff, sizeof(m));
	ddf_nh64(&key, m, 16, h);
	DDF_EXPECT(t, h[0] == 17 && h[1] == 0xfffffffffffffffeull);
	ddf_nh64_portable(&key, m, 16, h);
	DDF_EXPECT(t, h[0] == 17 && h[1] == 0xfffffffffffffffeull);
	nhref(64, key.k, m, 16, r);
	DDF_EXPECT(t, r[0] == 17 && r[1] == 0xfffffffffffffffeull);

	/* "abc": word 0x636261, a zero word; keys 1 and 2; plus 3 */
	key.k[0] = 1;
	key.k[1] = 2;
	ddf_nh64(&key, "abc", 3, h);
	DDF_EXPECT(t, h[0] == 0x636262ull * 2 + 3 && h[1] == 0);
	nhref(64, k12, (const uint8_t *)"abc", 3, r);
	DDF_EXPECT(t, nh_eq(h, r));

	/* 8-bit words 2, 3, 5, 7 under a zero key: 2 * 3 + 5 * 7 + 4 */
	memcpy(m, "\x02\x03\x05\x07", 4);
	ddf_nh_narrow(8, zero, m, 4, h);
	DDF_EXPECT(t, h[0] == 45 && h[1] == 0);
	nhref(8, zero, m, 4, r);
	DDF_EXPECT(t, nh_eq(h, r));

	/* 16-bit words 0xffff + 1 wrap to 0: only the length is left */
	ddf_nh_narrow(16, k11, m + 4, 0, h);
	DDF_EXPECT(t, h[0] == 0 && h[1] == 0);
	memset(m, 0xff, 4);
	ddf_nh_narrow(16, k11, m, 4, h);
	DDF_EXPECT(t, h[0] == 4 && h[1] == 0);

	/* mod 2^16 at w = 8: 255 * 255 * 2 + 4 = 130054 -> 64518 */
	memset(m, 0xff, 4);
	ddf_nh_narrow(8, zero, m, 4, h);
	DDF_EXPECT(t, h[0] == 130054 - 65536);
}

/* Every width, every length: the core's code against the definition. */
DDF_TEST(ddf_nh_reference)
{
	uint64_t rng = 0x6e68726566ull, h[2], hp[2], hi[2], r[2];
	struct ddf_nh_key *key = ddf_test_alloc(t, sizeof(*key));
	uint8_t *m = ddf_test_alloc(t, DDF_NH_CHUNK);
	uint32_t bad = 0;

	DDF_ASSERT(t, key && m);
	for (int round = 0; round < 6; round++) {
		/* random; then bytes and keys that make every sum carry */
		nh_fill((uint8_t *)key->k, sizeof(key->k), &rng);
		nh_fill(m, DDF_NH_CHUNK, &rng);
		if (round == 4) {
			memset(m, 0xff, DDF_NH_CHUNK);
			memset(key->k, 0xff, sizeof(key->k));
		} else if (round == 5) {
			memset(m, 0xff, DDF_NH_CHUNK);
			for (uint32_t i = 0; i < DDF_NH_KEY_WORDS; i++)
				key->k[i] = i & 1 ? ~0ull : 1;
		}
		for (uint32_t len = 1; len <= DDF_NH_CHUNK; len++) {
			nhref(64, key->k, m, len, r);
			ddf_nh64(key, m, len, h);
			ddf_nh64_portable(key, m, len, hp);
			ddf_nh(key, m, len, hi);
			if (!nh_eq(h, r) || !nh_eq(hp, r) || !nh_eq(hi, r)) {
				if (!bad++)
					DDF_LOG(t, "round %d length %u: %016llx%016llx, reference %016llx%016llx",
						round, len,
						(unsigned long long)h[1],
						(unsigned long long)h[0],
						(unsigned long long)r[1],
						(unsigned long long)r[0]);
			}
		}
		for (unsigned int w = 8; w <= 32; w *= 2) {
			for (uint32_t len = 0; len <= 2 * NHC_WORDS * w / 8;
			     len++) {
				nhref(w, key->k, m, len, r);
				ddf_nh_narrow(w, key->k, m, len, h);
				if (!nh_eq(h, r) && !bad++)
					DDF_LOG(t, "w %u length %u differs",
						w, len);
			}
		}
	}
	DDF_EXPECT_EQ(t, bad, 0);
}

/* The portable product against unsigned __int128's, where there is one. */
DDF_TEST(ddf_nh_portable_product)
{
	static const uint64_t edge[] = { 0, 1, 2, 0xffffffffull,
					 0x100000000ull, 0xfffffffffffffffeull,
					 ~0ull, 0x8000000000000000ull,
					 0x7fffffffffffffffull,
					 0xffffffff00000001ull };
	uint64_t rng = 0x706f72746162ull;
	uint32_t bad = 0, n = 0;

	for (uint32_t i = 0; i < 2000000; i++) {
		uint64_t a = ddf_test_rand(&rng), b = ddf_test_rand(&rng);
		uint64_t lo = ddf_test_rand(&rng), hi = ddf_test_rand(&rng);
		struct ddf_nh_sum p = { 0 }, q = { 0 };
		uint64_t d[2], e[2];

		if (i < DDF_ARRAY_SIZE(edge) * DDF_ARRAY_SIZE(edge)) {
			a = edge[i % DDF_ARRAY_SIZE(edge)];
			b = edge[i / DDF_ARRAY_SIZE(edge)];
			if (i & 1)
				lo = ~0ull;
		} else if (i & 1) {
			a >>= a & 63; /* short operands too */
			b >>= b & 63;
		}
		/* a sum to start from, then a * b */
		p.lo = q.lo = lo;
		p.hi = q.hi = hi;
#ifdef DDF_HAVE_INT128
		q.v = (ddf_u128)hi << 64 | lo;
#endif
		ddf_nh_madd(&p, a, b, true);
		ddf_nh_madd(&q, a, b, false);
		ddf_nh_digest(&p, 0, 64, true, d);
		ddf_nh_digest(&q, 0, 64, false, e);
		bad += d[0] != e[0] || d[1] != e[1];
		n++;
	}
	DDF_EXPECT_EQ(t, bad, 0);
#ifdef DDF_HAVE_INT128
	DDF_LOG(t, "%u products, portable against unsigned __int128", n);
#else
	DDF_LOG(t, "%u products; no unsigned __int128 here: the portable product was compared with itself",
		n);
#endif
}

/* The key words: SipHash-2-4 of "NH", six zeros, the pair's index. */
DDF_TEST(ddf_nh_key_derivation)
{
	struct ddf_sipkey sk = { 0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull };
	struct ddf_nh_key *a = ddf_test_alloc(t, sizeof(*a));
	struct ddf_nh_key *b = ddf_test_alloc(t, sizeof(*b));
	uint8_t in[16] = { 'N', 'H' };
	uint32_t same = 0;
	uint64_t h[2];

	DDF_ASSERT(t, a && b);
	ddf_nh_key_derive(a, &sk);
	for (uint32_t i = 0; i < DDF_NH_KEY_WORDS / 2; i++) {
		in[8] = (uint8_t)i;
		ddf_siphash24_128(&sk, in, sizeof(in), h);
		DDF_EXPECT(t, a->k[2 * i] == h[0] && a->k[2 * i + 1] == h[1]);
	}
	sk.k1 ^= 1;
	ddf_nh_key_derive(b, &sk);
	for (uint32_t i = 0; i < DDF_NH_KEY_WORDS; i++)
		same += a->k[i] == b->k[i];
	DDF_EXPECT_EQ(t, same, 0);
}

/* ---- collisions counted ---- */

enum {
	NHC_FLIP, /* one bit of one byte */
	NHC_HIGH, /* the high half of one word */
	NHC_ZERO1, /* all zeros against one word set */
	NHC_SWAP, /* two different words swapped */
	NHC_CARRY, /* ..., 2^w - 1, x, ... against ..., 0, x + 1, ... */
	NHC_ZRUN, /* a run of zero words moved */
	NHC_EQSUM, /* +d on one word, -d on another: the same word sum */
	NHC_RANDOM,
	__NHC_TYPES
};

static const char *const nhc_name[__NHC_TYPES] = {
	"bit flipped", "high bits", "zeros against one word", "words swapped",
	"carry across words", "zero run moved", "equal sums", "random"
};

static uint64_t nhc_get(const uint8_t *m, uint32_t i, unsigned int b)
{
	uint64_t v = 0;

	for (unsigned int j = 0; j < b; j++)
		v |= (uint64_t)m[i * b + j] << (8 * j);
	return v;
}

static void nhc_set(uint8_t *m, uint32_t i, unsigned int b, uint64_t v)
{
	for (unsigned int j = 0; j < b; j++)
		m[i * b + j] = (uint8_t)(v >> (8 * j));
}

static uint32_t nhc_below(uint64_t *rng, uint32_t n)
{
	return (uint32_t)(ddf_test_rand(rng) % n);
}

/*
 * A pair of type ty of nw whole words of w bits into a and c; their byte
 * length (whole words, or at 16 bits sometimes a byte less, so that the
 * padding is in play where it leaves the difference alone).
 */
static uint32_t nhc_pair(int ty, unsigned int w, uint32_t nw, uint8_t *a,
			 uint8_t *c, uint64_t *rng)
{
	unsigned int b = w / 8;
	uint64_t mask = (1ull << w) - 1, x, d;
	uint32_t len = nw * b, i, j, r, at, to, k;
	uint8_t z[NHC_WORDS * 2];

	nh_fill(a, len, rng);
	switch (ty) {
	case NHC_FLIP:
		memcpy(c, a, len);
		i = nhc_below(rng, len);
		c[i] ^= (uint8_t)(1u << nhc_below(rng, 8));
		break;
	case NHC_HIGH:
		memcpy(c, a, len);
		i = nhc_below(rng, nw);
		d = 1 + nhc_below(rng, (uint32_t)(mask >> (w / 2)));
		nhc_set(c, i, b, nhc_get(a, i, b) ^ d << (w / 2));
		break;
	case NHC_ZERO1:
		memset(a, 0, len);
		memset(c, 0, len);
		nhc_set(c, nhc_below(rng, nw), b,
			1 + nhc_below(rng, (uint32_t)mask));
		break;
	case NHC_SWAP:
		i = nhc_below(rng, nw);
		j = (i + 1 + nhc_below(rng, nw - 1)) % nw;
		nhc_set(a, j, b,
			nhc_get(a, i, b) ^ (1 + nhc_below(rng, (uint32_t)mask)));
		memcpy(c, a, len);
		nhc_set(c, i, b, nhc_get(a, j, b));
		nhc_set(c, j, b, nhc_get(a, i, b));
		break;
	case NHC_CARRY:
		i = nhc_below(rng, nw - 1);
		x = nhc_get(a, i + 1, b);
		if (x == mask)
			x--;
		nhc_set(a, i, b, mask);
		nhc_set(a, i + 1, b, x);
		memcpy(c, a, len);
		nhc_set(c, i, b, 0);
		nhc_set(c, i + 1, b, x + 1);
		break;
	case NHC_ZRUN:
		/* nonzero words z; a run of r zeros from word at (a), to (c) */
		r = 1 + nhc_below(rng, nw - 1);
		at = nhc_below(rng, nw - r + 1);
		to = (at + 1 + nhc_below(rng, nw - r)) % (nw - r + 1);
		memcpy(z, a, len);
		for (i = 0; i < nw - r; i++)
			if (!nhc_get(z, i, b))
				nhc_set(z, i, b, 1);
		for (i = 0, j = 0, k = 0; i < nw; i++) {
			nhc_set(a, i, b, i >= at && i < at + r ? 0 :
					 nhc_get(z, j++, b));
			nhc_set(c, i, b, i >= to && i < to + r ? 0 :
					 nhc_get(z, k++, b));
		}
		break;
	case NHC_EQSUM:
		i = nhc_below(rng, nw);
		j = (i + 1 + nhc_below(rng, nw - 1)) % nw;
		d = 1 + nhc_below(rng, (uint32_t)mask);
		memcpy(c, a, len);
		nhc_set(c, i, b, (nhc_get(a, i, b) + d) & mask);
		nhc_set(c, j, b, (nhc_get(a, j, b) - d) & mask);
		break;
	default:
		do
			nh_fill(c, len, rng);
		while (!memcmp(a, c, len));
		break;
	}
	/* a byte less: the last byte must be one the pair shares */
	if (w == 16 && a[len - 1] == c[len - 1] && (ddf_test_rand(rng) & 1) &&
	    memcmp(a, c, len - 1))
		len--;
	return len;
}

struct nhc_count {
	uint64_t pairs[__NHC_TYPES], coll[__NHC_TYPES], coll64;
};

static void nhc_run(unsigned int w, uint32_t npairs, struct nhc_count *n,
		    struct ddf_nh_key *k64, uint64_t *rng)
{
	uint8_t a[NHC_WORDS * 2], c[NHC_WORDS * 2];
	uint64_t k[NHC_WORDS], ha[2], hc[2];

	memset(n, 0, sizeof(*n));
	for (uint32_t p = 0; p < npairs; p++) {
		int ty = (int)(p % __NHC_TYPES);
		uint32_t nw = 2 + nhc_below(rng, NHC_WORDS - 1), len;

		len = nhc_pair(ty, w, nw, a, c, rng);
		/* a fresh key for every pair: the bound is over the key */
		nh_fill((uint8_t *)k, sizeof(k), rng);
		ddf_nh_narrow(w, k, a, len, ha);
		ddf_nh_narrow(w, k, c, len, hc);
		n->pairs[ty]++;
		n->coll[ty] += nh_eq(ha, hc);
		if (!(p & 4095))
			nh_fill((uint8_t *)k64->k, sizeof(k64->k), rng);
		ddf_nh64(k64, a, len, ha);
		ddf_nh64(k64, c, len, hc);
		n->coll64 += nh_eq(ha, hc);
	}
}

/* floor(sqrt(x)) */
static uint64_t nhc_isqrt(uint64_t x)
{
	uint64_t r = 0;

	for (uint64_t bit = 1ull << 62; bit; bit >>= 2) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

DDF_TEST(ddf_nh_collisions)
{
	struct ddf_nh_key *k64 = ddf_test_alloc(t, sizeof(*k64));
	struct nhc_count *n = ddf_test_alloc(t, sizeof(*n));
	uint64_t rng = 0x636f6c6cull;

	DDF_ASSERT(t, k64 && n);
	for (unsigned int w = 8; w <= 16; w *= 2) {
		uint64_t total = 0;

		nhc_run(w, NHC_PAIRS, n, k64, &rng);
		for (int ty = 0; ty < __NHC_TYPES; ty++) {
			/* the bound's count, and 6 sigma of a binomial there */
			uint64_t mu = n->pairs[ty] >> w;
			uint64_t tol = 6 * nhc_isqrt(mu) + 6;
			bool exact = ty <= NHC_ZERO1;

			DDF_LOG(t, "w %u, %s: %llu of %llu pairs collide; the bound 2^-%u: %llu (+- %llu)",
				w, nhc_name[ty],
				(unsigned long long)n->coll[ty],
				(unsigned long long)n->pairs[ty], w,
				(unsigned long long)mu,
				(unsigned long long)tol);
			DDF_EXPECT_MSG(t, n->coll[ty] <= mu + tol,
				       "w %u, %s: %llu collisions, above the bound %llu + %llu",
				       w, nhc_name[ty],
				       (unsigned long long)n->coll[ty],
				       (unsigned long long)mu,
				       (unsigned long long)tol);
			/* one word differs: exactly 2^-w, so the count is seen */
			DDF_EXPECT_MSG(t, !exact || n->coll[ty] + tol >= mu,
				       "w %u, %s: %llu collisions, expected %llu",
				       w, nhc_name[ty],
				       (unsigned long long)n->coll[ty],
				       (unsigned long long)mu);
			total += n->pairs[ty];
		}
		DDF_LOG(t, "w 64 over the same %llu pairs: %llu collisions",
			(unsigned long long)total,
			(unsigned long long)n->coll64);
		DDF_EXPECT_EQ(t, n->coll64, 0);
	}
}

/* clang-format off */
static ddf_case_t ddf_nh_cases[] = {
	DDF_CASE(ddf_nh_by_hand),
	DDF_CASE(ddf_nh_reference),
	DDF_CASE(ddf_nh_portable_product),
	DDF_CASE(ddf_nh_key_derivation),
	DDF_CASE(ddf_nh_collisions),
	DDF_CASES_END
};
/* clang-format on */

DDF_SUITE(ddf_nh, ddf_nh_cases);
