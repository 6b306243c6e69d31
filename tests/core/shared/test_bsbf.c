// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * RSBF, BSBF, BSBFSD and RLBSBF (arXiv:1212.3964): what each inserts and
 * what each forgets, the RSBF phases and its threshold p*, the PRNG, and
 * parameter checking.
 *
 * Several tests set exact bit patterns through the layout of ddf_bsbf.h
 * (parts, load counters, the RSBF stream position), then insert one key
 * whose k bits are all 0 and count what the insertion took away.
 */
#include "ddf_test_util.h"
#include "ddf_bsbf.h"

static const uint32_t kinds[] = { DDF_KIND_RSBF, DDF_KIND_BSBF,
				  DDF_KIND_BSBFSD, DDF_KIND_RLBSBF };

static struct ddf_bsbf *make(ddf_test_t *t, uint32_t kind, uint32_t k,
			     uint64_t s, uint32_t p_star, uint64_t seed)
{
	struct ddf_params p = { .kind = kind, .k = k, .m = s,
				.rng_seed = seed };

	if (kind == DDF_KIND_RSBF)
		p.p_star = p_star; /* the others reject it */
	return (struct ddf_bsbf *)ddf_test_filter(t, &p);
}

static struct ddf_filter *flt(struct ddf_bsbf *b)
{
	return &b->hdr;
}

static uint64_t part_bits(struct ddf_bsbf *b, uint32_t i)
{
	return b->hdr.type->segment_bits(flt(b), i);
}

static bool bit_at(struct ddf_bsbf *b, uint32_t i, uint64_t j)
{
	return ddf_aword_read(&ddf_bsbf_part(b, i)[j >> 6]) >> (j & 63) & 1;
}

static void set_bit_at(struct ddf_bsbf *b, uint32_t i, uint64_t j)
{
	ddf_aword *w = &ddf_bsbf_part(b, i)[j >> 6];

	ddf_aword_set(w, ddf_aword_read(w) | 1ull << (j & 63));
}

/* The words of every part (and the load counters) are equal. */
static bool same_bits(struct ddf_bsbf *a, struct ddf_bsbf *b)
{
	uint64_t w, n = a->k * a->words;

	for (w = 0; w < n; w++)
		if (ddf_aword_read(&ddf_bsbf_part(a, 0)[w]) !=
		    ddf_aword_read(&ddf_bsbf_part(b, 0)[w]))
			return false;
	for (w = 0; w < a->k; w++)
		if (ddf_aword_read(&ddf_bsbf_load(a)[w]) !=
		    ddf_aword_read(&ddf_bsbf_load(b)[w]))
			return false;
	return true;
}

DDF_TEST(bsbf_types_registered)
{
	static const char *const names[] = { "rsbf", "bsbf", "bsbfsd",
					     "rlbsbf" };
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(kinds); i++) {
		const struct ddf_filter_type *ty =
			ddf_filter_type_by_name(names[i]);

		DDF_ASSERT(t, ty);
		ddf_test_expect_type(t, ty, kinds[i]);
		DDF_EXPECT(t, ty->segment_bits);
	}
}

/*
 * Resets come before sets, so a key is found right after its insertion:
 * always for BSBF, BSBFSD and RLBSBF, and for RSBF in phases 1 and 3
 * (phase 2 inserts with probability s / i only).
 */
DDF_TEST(bsbf_inserted_key_found)
{
	static const uint32_t ks[] = { 1, 2, 3, 5 };
	uint64_t seed = 11, n, s = 512, missed, checked;
	unsigned int i, j;

	for (i = 0; i < DDF_ARRAY_SIZE(kinds); i++) {
		for (j = 0; j < DDF_ARRAY_SIZE(ks); j++) {
			/* p* = 1/4: phase 3 from position 4s + 1 */
			struct ddf_bsbf *b = make(t, kinds[i], ks[j], s,
						  1u << 30, seed);

			DDF_ASSERT(t, b);
			missed = 0;
			checked = 0;
			for (n = 1; n <= 6000; n++) {
				struct ddf_hash h = ddf_test_key(&seed);

				ddf_filter_test_and_insert(flt(b), &h, 0);
				if (kinds[i] == DDF_KIND_RSBF && n > s &&
				    n < b->phase3)
					continue;
				checked++;
				missed += !ddf_filter_lookup(flt(b), &h, 0);
			}
			DDF_EXPECT_MSG(t, !missed && checked > 3000,
				       "%s k=%u: %llu of %llu keys lost",
				       ddf_kind_name(kinds[i]), ks[j],
				       (unsigned long long)missed,
				       (unsigned long long)checked);
		}
	}
}

/* Phase 1: the first s elements are all inserted and nothing is reset. */
DDF_TEST(rsbf_phase1_keeps_everything)
{
	uint64_t s = 300, seed = 5, start, n;
	struct ddf_bsbf *b = make(t, DDF_KIND_RSBF, 2, s, 0, 1);
	uint64_t prev0 = 0, prev1 = 0, lost = 0, shrank = 0;
	struct ddf_hash h;

	DDF_ASSERT(t, b);
	start = seed;
	for (n = 0; n < s; n++) {
		h = ddf_test_key(&seed);
		ddf_filter_test_and_insert(flt(b), &h, 0);
		shrank += part_bits(b, 0) < prev0 || part_bits(b, 1) < prev1;
		prev0 = part_bits(b, 0);
		prev1 = part_bits(b, 1);
	}
	seed = start;
	for (n = 0; n < s; n++) {
		h = ddf_test_key(&seed);
		lost += !ddf_filter_lookup(flt(b), &h, 0);
	}
	DDF_EXPECT_EQ(t, lost, 0);
	DDF_EXPECT_EQ(t, shrank, 0);
	DDF_EXPECT_EQ(t, ddf_aword_read(&b->pos), s);
}

/*
 * Phase 2: an element reported distinct at position i is inserted with
 * probability s / i. Fresh keys in windows of doubling positions; the
 * expected insertions are the sum of s / i over the distinct reports (Q32).
 * Tolerance: 4 standard deviations of a sum of Bernoullis, at most
 * sqrt(expected); we allow 4 sqrt(E) + 3 through isqrt below.
 */
static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

DDF_TEST(rsbf_insert_probability_s_over_i)
{
	/* s = 256, p* = 1/32: phase 3 from position 8193 */
	static const uint64_t edges[] = { 257, 513, 1025, 2049, 4097, 8193,
					  12001 };
	uint64_t s = 256, seed = 77, pos = 0;
	struct ddf_bsbf *b = make(t, DDF_KIND_RSBF, 2, s, 1u << 27, 3);
	unsigned int w;

	DDF_ASSERT(t, b);
	DDF_ASSERT(t, b->phase3 == 8193);
	while (pos < 256) {
		struct ddf_hash h = ddf_test_key(&seed);

		ddf_filter_test_and_insert(flt(b), &h, 0);
		pos++;
	}
	for (w = 0; w + 1 < DDF_ARRAY_SIZE(edges); w++) {
		uint64_t reported = 0, inserted = 0, exp_q32 = 0, e, tol;

		for (; pos + 1 < edges[w + 1]; pos++) {
			struct ddf_hash h = ddf_test_key(&seed);

			if (ddf_filter_test_and_insert(flt(b), &h, 0))
				continue;
			reported++;
			inserted += ddf_filter_lookup(flt(b), &h, 0);
			exp_q32 += pos + 1 >= 8193 ? 1ull << 32 :
				   ddf_div64(s << 32, pos + 1);
		}
		e = exp_q32 >> 32;
		tol = 4 * isqrt(e) + 3;
		DDF_LOG(t, "positions %llu..%llu: %llu of %llu inserted, "
			"s/i predicts %llu",
			(unsigned long long)edges[w],
			(unsigned long long)edges[w + 1] - 1,
			(unsigned long long)inserted,
			(unsigned long long)reported, (unsigned long long)e);
		DDF_EXPECT_MSG(t, inserted + tol >= e && inserted <= e + tol,
			       "window %u: %llu inserted, expected %llu+-%llu",
			       w, (unsigned long long)inserted,
			       (unsigned long long)e, (unsigned long long)tol);
		if (edges[w] >= 8193)
			DDF_EXPECT_EQ(t, inserted, reported);
	}
}

/*
 * p* is a threshold (Algorithm 1: "if (s/iter) < p*"): at the position
 * where s / i == p* the insertion is still drawn with probability p*; one
 * position later every distinct report is inserted. s = 1024, p* = 1/32:
 * i = 32768 draws, i = 32769 always inserts.
 */
DDF_TEST(rsbf_p_star_is_a_threshold)
{
	uint64_t s = 1024, seed = 99, at = 0, trials = 640, n;
	uint64_t after = 0, after_reported = 0;
	struct ddf_bsbf *b = make(t, DDF_KIND_RSBF, 2, s, 1u << 27, 8);

	DDF_ASSERT(t, b);
	DDF_ASSERT(t, b->phase3 == 32769);
	for (n = 0; n < trials; n++) {
		struct ddf_hash h = ddf_test_key(&seed);

		ddf_aword_set(&b->pos, 32767); /* next element: i = 32768 */
		if (!ddf_filter_test_and_insert(flt(b), &h, 0))
			at += ddf_filter_lookup(flt(b), &h, 0);
		h = ddf_test_key(&seed);
		ddf_aword_set(&b->pos, 32768); /* i = 32769 */
		if (ddf_filter_test_and_insert(flt(b), &h, 0))
			continue;
		after_reported++;
		after += ddf_filter_lookup(flt(b), &h, 0);
	}
	/* about 640 * (1 - FPR) / 32, some 16, drawn at s / i = p* */
	DDF_EXPECT_MSG(t, at >= 4 && at <= 45, "%llu inserted at s/i = p*",
		       (unsigned long long)at);
	/* one position later, every distinct report */
	DDF_EXPECT(t, after_reported > trials / 2);
	DDF_EXPECT_EQ(t, after, after_reported);
}

/* Phase 3 swaps a 1 for a 0 in each part: the loads stay constant. */
DDF_TEST(rsbf_phase3_loads_constant)
{
	uint64_t s = 2048, seed = 21, n, l0, l1, l2, changed = 0;
	struct ddf_bsbf *b = make(t, DDF_KIND_RSBF, 3, s, 1u << 31, 4);

	DDF_ASSERT(t, b);
	DDF_ASSERT(t, b->phase3 == 2 * s + 1);
	for (n = 0; n < 2 * s; n++) {
		struct ddf_hash h = ddf_test_key(&seed);

		ddf_filter_test_and_insert(flt(b), &h, 0);
	}
	l0 = part_bits(b, 0);
	l1 = part_bits(b, 1);
	l2 = part_bits(b, 2);
	for (n = 0; n < 4000; n++) {
		struct ddf_hash h = ddf_test_key(&seed);

		ddf_filter_test_and_insert(flt(b), &h, 0);
		changed += part_bits(b, 0) != l0 || part_bits(b, 1) != l1 ||
			   part_bits(b, 2) != l2;
	}
	DDF_EXPECT_EQ(t, changed, 0);
	DDF_EXPECT(t, l0 > s / 4 && l1 > s / 4 && l2 > s / 4);
}

/*
 * What one insertion resets. Part i holds L(i) set bits, the key's bits
 * are all 0; after the insertion part i lost 0 or 1 set bits besides
 * gaining the key's bit. Over many insertions from the same state, the
 * share of insertions that took a set bit from part i is
 *   BSBF, RSBF phase 2   L(i) / s       one random bit of every part
 *   BSBFSD               L(i) / (k s)   one random bit of one random part
 *   RLBSBF               (L(i) / s)^2   with probability L(i) / s, a
 *                                        random bit of part i
 *   RSBF phase 3         1              a set bit, exactly one
 * Shares in per mille; the tolerance of 60 is 4 standard deviations for
 * 1000 insertions at a share of 1/2 (none where the share is 0 or 1).
 */
#define CENSUS_S 1024
#define CENSUS_K 3
#define CENSUS_TRIALS 1000

struct census_case {
	const char *what;
	uint32_t kind;
	uint64_t pos; /* RSBF: stream position before the insertion */
	uint32_t permille[CENSUS_K];
	bool one_part; /* at most one part loses a bit per insertion */
};

static void census(ddf_test_t *t, const struct census_case *c)
{
	static const uint64_t loads[CENSUS_K] = { 256, 512, 768 };
	uint64_t seed = 1234, lost[CENSUS_K] = { 0 }, inserted = 0, n, j;
	/* p* = 2^-32: phase 3 only where the case puts the position */
	struct ddf_bsbf *b = make(t, c->kind, CENSUS_K, CENSUS_S,
				  c->kind == DDF_KIND_RSBF ? 1 : 0, 42);
	ddf_aword *save;
	struct ddf_hash h;
	uint32_t i;

	DDF_ASSERT(t, b);
	if (c->pos == ~0ull)
		ddf_aword_set(&b->pos, b->phase3 - 1);
	else
		ddf_aword_set(&b->pos, c->pos);
	h = ddf_test_key(&seed);
	for (i = 0; i < CENSUS_K; i++) {
		uint64_t key_bit = ddf_bsbf_index(b, &h, i);

		while (part_bits(b, i) < loads[i]) {
			j = ddf_test_rand(&seed) % CENSUS_S;
			if (j != key_bit)
				set_bit_at(b, i, j);
		}
		ddf_aword_set(&ddf_bsbf_load(b)[i], loads[i]);
	}
	save = ddf_test_alloc(t, CENSUS_K * b->words * sizeof(ddf_aword));
	DDF_ASSERT(t, save);
	for (j = 0; j < CENSUS_K * b->words; j++)
		ddf_aword_set(&save[j],
			      ddf_aword_read(&ddf_bsbf_part(b, 0)[j]));

	for (n = 0; n < CENSUS_TRIALS; n++) {
		uint32_t parts = 0;

		for (j = 0; j < CENSUS_K * b->words; j++)
			ddf_aword_set(&ddf_bsbf_part(b, 0)[j],
				      ddf_aword_read(&save[j]));
		for (i = 0; i < CENSUS_K; i++)
			ddf_aword_set(&ddf_bsbf_load(b)[i], loads[i]);
		if (c->pos != ~0ull)
			ddf_aword_set(&b->pos, c->pos);
		else
			ddf_aword_set(&b->pos, b->phase3 - 1);

		DDF_EXPECT(t, !ddf_filter_test_and_insert(flt(b), &h, 0));
		if (!ddf_filter_lookup(flt(b), &h, 0))
			continue; /* RSBF phase 2 did not draw it */
		inserted++;
		for (i = 0; i < CENSUS_K; i++) {
			uint64_t now = part_bits(b, i);
			uint64_t took = loads[i] + 1 - now;

			DDF_EXPECT_MSG(t, now <= loads[i] + 1 && took <= 1,
				       "%s: part %u went from %llu to %llu",
				       c->what, i,
				       (unsigned long long)loads[i],
				       (unsigned long long)now);
			DDF_EXPECT_EQ(t, ddf_aword_read(&ddf_bsbf_load(b)[i]),
				      c->kind == DDF_KIND_RLBSBF ? now :
								   loads[i]);
			lost[i] += took;
			parts += took;
		}
		if (c->one_part)
			DDF_EXPECT_MSG(t, parts <= 1,
				       "%s: %u parts lost a bit at once",
				       c->what, parts);
	}
	DDF_ASSERT_MSG(t, inserted > CENSUS_TRIALS * 9 / 10,
		       "%s: only %llu insertions", c->what,
		       (unsigned long long)inserted);
	for (i = 0; i < CENSUS_K; i++) {
		uint64_t got = ddf_div64(lost[i] * 1000, inserted);
		uint64_t want = c->permille[i];
		/* 0 and 1000 are certainties: no tolerance */
		uint64_t tol = want % 1000 ? 60 : 0;

		DDF_LOG(t, "%s: part %u (load %llu/%u) lost a bit in %llu "
			"per mille, expected %llu",
			c->what, i, (unsigned long long)loads[i], CENSUS_S,
			(unsigned long long)got, (unsigned long long)want);
		DDF_EXPECT_MSG(t, got + tol >= want && got <= want + tol,
			       "%s: part %u: %llu per mille, expected %llu",
			       c->what, i, (unsigned long long)got,
			       (unsigned long long)want);
	}
}

DDF_TEST(bsbf_reset_census)
{
	static const struct census_case cases[] = {
		{ "BSBF: one random bit in each part", DDF_KIND_BSBF, 0,
		  { 250, 500, 750 }, false },
		{ "BSBFSD: one random bit of one random part",
		  DDF_KIND_BSBFSD, 0, { 83, 167, 250 }, true },
		{ "RLBSBF: reset with probability L(i)/s", DDF_KIND_RLBSBF, 0,
		  { 63, 250, 563 }, false },
		{ "RSBF phase 1: nothing reset (i = s)", DDF_KIND_RSBF,
		  CENSUS_S - 1, { 0, 0, 0 }, false },
		{ "RSBF phase 2: one random bit in each part (i = s + 1)",
		  DDF_KIND_RSBF, CENSUS_S, { 250, 500, 750 }, false },
		{ "RSBF phase 3: one set bit of each part", DDF_KIND_RSBF,
		  ~0ull, { 1000, 1000, 1000 }, false },
	};
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(cases); i++)
		census(t, &cases[i]);
}

/* RSBF phase 3 leaves a part alone where the key's bit is already 1. */
DDF_TEST(rsbf_phase3_only_zero_parts)
{
	uint64_t seed = 31, n, moved = 0, kept = 0, j;
	struct ddf_bsbf *b = make(t, DDF_KIND_RSBF, 2, 512, 1u << 31, 6);
	struct ddf_hash h;

	DDF_ASSERT(t, b);
	for (n = 0; n < 1024; n++) { /* phases 1 and 2 */
		h = ddf_test_key(&seed);
		ddf_filter_test_and_insert(flt(b), &h, 0);
	}
	DDF_ASSERT(t, ddf_aword_read(&b->pos) + 1 >= b->phase3);
	for (n = 0; n < 300; n++) {
		uint64_t w, before[8], same = 0;

		h = ddf_test_key(&seed);
		j = ddf_bsbf_index(b, &h, 0);
		if (!bit_at(b, 0, j) || bit_at(b, 1, ddf_bsbf_index(b, &h, 1)))
			continue;
		/* part 0 holds the key's bit, part 1 does not */
		for (w = 0; w < 8; w++)
			before[w] = ddf_aword_read(&ddf_bsbf_part(b, 0)[w]);
		DDF_EXPECT(t, !ddf_filter_test_and_insert(flt(b), &h, 0));
		for (w = 0; w < 8; w++)
			same += before[w] ==
				ddf_aword_read(&ddf_bsbf_part(b, 0)[w]);
		kept += same == 8;
		moved++;
	}
	DDF_EXPECT(t, moved > 30);
	DDF_EXPECT_EQ(t, kept, moved);
}

/*
 * Only an element reported distinct is inserted (Algorithms 2 to 4, and
 * the text of section 3 for RSBF): a reported duplicate changes no bit.
 */
DDF_TEST(bsbf_duplicate_changes_nothing)
{
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(kinds); i++) {
		/* RSBF: p* = 2^-32, phase 2 from i = 401 to the end */
		struct ddf_bsbf *a = make(t, kinds[i], 2, 400, 1, 12);
		struct ddf_bsbf *b = make(t, kinds[i], 2, 400, 1, 12);
		uint64_t seed = 6, n, dups = 0, wrote = 0;

		DDF_ASSERT(t, a && b);
		for (n = 0; n < 3000; n++) {
			struct ddf_hash h = ddf_test_key(&seed);

			ddf_filter_test_and_insert(flt(a), &h, 0);
			ddf_filter_test_and_insert(flt(b), &h, 0);
			if (n < 400 || !ddf_filter_lookup(flt(a), &h, 0))
				continue;
			/* the same key again, in one of the two copies */
			dups++;
			DDF_EXPECT(t,
				   ddf_filter_test_and_insert(flt(a), &h, 0));
			ddf_aword_fetch_add(&b->pos, 1);
			wrote += !same_bits(a, b);
		}
		DDF_EXPECT_MSG(t, dups > 200 && !wrote,
			       "%s: %llu of %llu duplicates changed bits",
			       ddf_kind_name(kinds[i]),
			       (unsigned long long)wrote,
			       (unsigned long long)dups);
	}
}

/* Tables 1 and 2 agree at k = 1: so do BSBF and BSBFSD, draw for draw. */
DDF_TEST(bsbfsd_is_bsbf_at_k1)
{
	uint64_t seed = 8, n, differ = 0;
	struct ddf_bsbf *a = make(t, DDF_KIND_BSBF, 1, 700, 0, 55);
	struct ddf_bsbf *b = make(t, DDF_KIND_BSBFSD, 1, 700, 0, 55);
	struct ddf_bsbf *c = make(t, DDF_KIND_BSBF, 2, 350, 0, 55);
	struct ddf_bsbf *d = make(t, DDF_KIND_BSBFSD, 2, 350, 0, 55);

	DDF_ASSERT(t, a && b && c && d);
	for (n = 0; n < 5000; n++) {
		struct ddf_hash h = ddf_test_key(&seed);

		differ += ddf_filter_test_and_insert(flt(a), &h, 0) !=
			  ddf_filter_test_and_insert(flt(b), &h, 0);
		ddf_filter_test_and_insert(flt(c), &h, 0);
		ddf_filter_test_and_insert(flt(d), &h, 0);
	}
	DDF_EXPECT_EQ(t, differ, 0);
	DDF_EXPECT(t, same_bits(a, b));
	DDF_EXPECT(t, !same_bits(c, d)); /* k = 2: different filters */
}

/* The same seed and stream give the same answers and the same bits. */
DDF_TEST(bsbf_seed_reproducible)
{
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(kinds); i++) {
		struct ddf_bsbf *a = make(t, kinds[i], 2, 256, 1u << 29, 1);
		struct ddf_bsbf *b = make(t, kinds[i], 2, 256, 1u << 29, 1);
		struct ddf_bsbf *c = make(t, kinds[i], 2, 256, 1u << 29, 2);
		uint64_t seed = 3, n, differ = 0, answers = 0;

		DDF_ASSERT(t, a && b && c);
		for (n = 0; n < 4000; n++) {
			struct ddf_hash h = ddf_test_key(&seed);
			bool x = ddf_filter_test_and_insert(flt(a), &h, 0);
			bool y = ddf_filter_test_and_insert(flt(b), &h, 0);
			bool z = ddf_filter_test_and_insert(flt(c), &h, 0);

			differ += x != y;
			answers += x != z;
		}
		DDF_EXPECT_MSG(t, !differ && same_bits(a, b),
			       "%s: same seed, %llu answers differ",
			       ddf_kind_name(kinds[i]),
			       (unsigned long long)differ);
		DDF_EXPECT_MSG(t, answers && !same_bits(a, c),
			       "%s: another seed, the same filter",
			       ddf_kind_name(kinds[i]));
	}
}

/* RLBSBF's counters follow the parts exactly; lookup changes nothing. */
DDF_TEST(bsbf_counters_and_lookup)
{
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(kinds); i++) {
		struct ddf_bsbf *a = make(t, kinds[i], 3, 1000, 1u << 30, 9);
		struct ddf_bsbf *b = make(t, kinds[i], 3, 1000, 1u << 30, 9);
		uint64_t seed = 4, n;
		uint32_t j;

		DDF_ASSERT(t, a && b);
		for (n = 0; n < 8000; n++) {
			struct ddf_hash h = ddf_test_key(&seed);

			ddf_filter_test_and_insert(flt(a), &h, 0);
			ddf_filter_test_and_insert(flt(b), &h, 0);
			h = ddf_test_key(&seed);
			ddf_filter_lookup(flt(b), &h, 0);
		}
		DDF_EXPECT_MSG(t, same_bits(a, b), "%s: lookup wrote",
			       ddf_kind_name(kinds[i]));
		DDF_EXPECT_EQ(t, ddf_aword_read(&a->pos),
			      kinds[i] == DDF_KIND_RSBF ? 8000 : 0);
		for (j = 0; j < 3; j++)
			DDF_EXPECT_EQ(t, ddf_aword_read(&ddf_bsbf_load(a)[j]),
				      kinds[i] == DDF_KIND_RLBSBF ?
					      part_bits(a, j) : 0);
	}
}

DDF_TEST(bsbf_stats)
{
	struct ddf_bsbf *b = make(t, DDF_KIND_RSBF, 2, 128, 0, 1);
	struct ddf_stats st;
	struct ddf_hash h = { 1, 2 };

	DDF_ASSERT(t, b);
	ddf_filter_insert(flt(b), &h, 0);
	ddf_filter_insert(flt(b), &h, 0);
	ddf_filter_stats(flt(b), &st);
	DDF_EXPECT_EQ(t, st.inserts, 2);
	DDF_EXPECT_EQ(t, st.fill_ppm, 1000000 / 128); /* 2 of 256 bits */
	DDF_EXPECT_EQ(t, st.window, 0);
	DDF_EXPECT_EQ(t, st.bytes, ddf_filter_memsize(&b->hdr.params));
	DDF_EXPECT_EQ(t, part_bits(b, 0), 1);
	DDF_EXPECT_EQ(t, part_bits(b, 2), 0); /* no such part */
}

/* Defaults: k = 2 (section 6.3), p* = 0.03 (section 6) for RSBF only. */
DDF_TEST(bsbf_resolve_defaults)
{
	unsigned int i;

	for (i = 0; i < DDF_ARRAY_SIZE(kinds); i++) {
		struct ddf_params p = { .kind = kinds[i], .m = 1000 };
		const char *why = NULL;

		DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
		DDF_EXPECT_EQ(t, p.k, 2);
		DDF_EXPECT_EQ(t, p.p_star, kinds[i] == DDF_KIND_RSBF ?
						   DDF_RSBF_P_STAR_DEFAULT :
						   0);
		/* resolving twice changes nothing */
		DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
		DDF_EXPECT_EQ(t, p.k, 2);
	}
	/* s / i < 0.03 from i = 33334 on when s = 1000 */
	{
		struct ddf_bsbf *b = make(t, DDF_KIND_RSBF, 2, 1000, 0, 0);

		DDF_ASSERT(t, b);
		DDF_EXPECT_EQ(t, b->phase3, 33334);
	}
	/* the largest part that fits the memory limit is accepted */
	{
		uint64_t fixed = DDF_BSBF_HDR_BYTES + ddf_bsbf_load_bytes(2);
		struct ddf_params p = {
			.kind = DDF_KIND_BSBF, .k = 2,
			.m = (DDF_MAX_BYTES - fixed) / 2 * 8,
		};
		const char *why = NULL;

		DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), 0);
		DDF_EXPECT(t, ddf_filter_memsize(&p) > 0);
		p.m += 64;
		DDF_EXPECT_EQ(t, ddf_params_resolve(&p, &why), DDF_EFBIG);
	}
}

DDF_TEST(bsbf_bad_params)
{
	static const struct {
		const char *what;
		struct ddf_params p;
		int err;
		bool rsbf_ok; /* RSBF accepts it */
	} cases[] = {
		{ "no m", { .k = 2 }, DDF_EINVAL, false },
		{ "k above 64", { .k = 65, .m = 64 }, DDF_ERANGE, false },
		{ "time flag",
		  { .flags = DDF_PF_TIME, .window_ns = 1000000000, .m = 64 },
		  DDF_EINVAL, false },
		{ "unknown flag", { .flags = 0x80, .m = 64 }, DDF_EINVAL,
		  false },
		{ "window_ns in count mode", { .window_ns = 1000000, .m = 64 },
		  DDF_EINVAL, false },
		{ "a window", { .window = 1000, .m = 64 }, DDF_EINVAL, false },
		{ "APBF l", { .l = 4, .m = 64 }, DDF_EINVAL, false },
		{ "APBBF block_bits", { .block_bits = 64, .m = 64 }, DDF_EINVAL,
		  false },
		{ "APBBF block_hashes", { .block_hashes = 4, .m = 64 },
		  DDF_EINVAL, false },
		{ "QHT fp_bits", { .fp_bits = 8, .m = 64 }, DDF_EINVAL, false },
		{ "SBF cell_bits", { .cell_bits = 3, .m = 64 }, DDF_EINVAL,
		  false },
		{ "SBF decrements", { .decrements = 10, .m = 64 }, DDF_EINVAL,
		  false },
		{ "queue inner_kind", { .inner_kind = DDF_KIND_BSBF, .m = 64 },
		  DDF_EINVAL, false },
		{ "queue subfilters", { .subfilters = 4, .m = 64 }, DDF_EINVAL,
		  false },
		{ "p* on a BSBF variant", { .p_star = 1u << 27, .m = 64 },
		  DDF_EINVAL, true },
		{ "m above the memory limit",
		  { .k = 1, .m = DDF_MAX_BYTES * 8 },
		  DDF_EFBIG, false },
		{ "k * m above the memory limit",
		  { .k = 64, .m = DDF_MAX_BYTES / 8 }, DDF_EFBIG, false },
		{ "m that overflows the bit count", { .k = 1, .m = ~0ull },
		  DDF_EFBIG, false },
	};
	unsigned int i, j;

	for (j = 0; j < DDF_ARRAY_SIZE(kinds); j++) {
		for (i = 0; i < DDF_ARRAY_SIZE(cases); i++) {
			struct ddf_params p = cases[i].p;
			bool ok = kinds[j] == DDF_KIND_RSBF && cases[i].rsbf_ok;
			const char *why = NULL;
			int err;

			p.kind = kinds[j];
			err = ddf_params_resolve(&p, &why);
			DDF_EXPECT_MSG(t, err == (ok ? 0 : cases[i].err),
				       "%s, %s: error %d, expected %d",
				       ddf_kind_name(kinds[j]), cases[i].what,
				       err, ok ? 0 : cases[i].err);
			if (!ok)
				DDF_EXPECT_MSG(t, why && why[0],
					       "%s, %s: no reason given",
					       ddf_kind_name(kinds[j]),
					       cases[i].what);
			if (cases[i].err == DDF_EFBIG)
				DDF_EXPECT_EQ(t, ddf_filter_memsize(&p), 0);
		}
	}
}

static ddf_case_t ddf_bsbf_cases[] = {
	DDF_CASE(bsbf_types_registered),
	DDF_CASE(bsbf_inserted_key_found),
	DDF_CASE(rsbf_phase1_keeps_everything),
	DDF_CASE(rsbf_insert_probability_s_over_i),
	DDF_CASE(rsbf_p_star_is_a_threshold),
	DDF_CASE(rsbf_phase3_loads_constant),
	DDF_CASE(bsbf_reset_census),
	DDF_CASE(rsbf_phase3_only_zero_parts),
	DDF_CASE(bsbf_duplicate_changes_nothing),
	DDF_CASE(bsbfsd_is_bsbf_at_k1),
	DDF_CASE(bsbf_seed_reproducible),
	DDF_CASE(bsbf_counters_and_lookup),
	DDF_CASE(bsbf_stats),
	DDF_CASE(bsbf_resolve_defaults),
	DDF_CASE(bsbf_bad_params),
	DDF_CASES_END,
};

DDF_SUITE(ddf_bsbf, ddf_bsbf_cases);
