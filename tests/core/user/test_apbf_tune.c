// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tune speed|memory for APBF/APBBF sizing (docs/tuning.md): tune memory is
 * the least-memory shape the sizing chose before tunes existed, tune speed
 * meets the target within twice that memory, and each is the best shape
 * of its rule over every candidate, found here by brute force.
 */
#include "ddf_test_user.h"

/*
 * ddfctl size ... cpus 1 before tunes existed (the least-memory search):
 * kind, window, fpr, k, l, m, B, b, bytes.
 */
static const struct {
	uint32_t kind;
	uint64_t window;
	double fpr;
	uint32_t k, l;
	uint64_t m;
	uint32_t B, b;
	uint64_t bytes;
} least[] = {
	{ DDF_KIND_APBF, 10000, 1e-3, 15, 61, 3550, 0, 0, 35008 },
	{ DDF_KIND_APBF, 10000, 1e-6, 26, 106, 3564, 0, 0, 60096 },
	{ DDF_KIND_APBF, 10000, 1e-9, 32, 30, 15420, 0, 0, 125504 },
	{ DDF_KIND_APBF, 1000000, 1e-3, 15, 68, 318245, 0, 0, 3344384 },
	{ DDF_KIND_APBF, 1000000, 1e-6, 26, 112, 334928, 0, 0, 5827392 },
	{ DDF_KIND_APBF, 1000000, 1e-9, 32, 30, 1538906, 0, 0, 12120704 },
	{ DDF_KIND_APBF, 100000000, 1e-3, 15, 68, 31824172, 0, 0, 334156544 },
	{ DDF_KIND_APBF, 100000000, 1e-6, 26, 112, 33491168, 0, 0, 581914560 },
	{ DDF_KIND_APBF, 100000000, 1e-9, 32, 30, 153887502, 0, 0,
	  1211866496 },
	{ DDF_KIND_APBBF, 10000, 1e-3, 4, 24, 19, 512, 4, 35776 },
	{ DDF_KIND_APBBF, 10000, 1e-6, 6, 19, 36, 512, 4, 60416 },
	{ DDF_KIND_APBBF, 10000, 1e-9, 5, 28, 41, 512, 8, 89728 },
	{ DDF_KIND_APBBF, 1000000, 1e-3, 2, 16, 2841, 512, 8, 3455168 },
	{ DDF_KIND_APBBF, 1000000, 1e-6, 6, 18, 3772, 512, 4, 6035712 },
	{ DDF_KIND_APBBF, 1000000, 1e-9, 5, 28, 4058, 512, 8, 8830720 },
	{ DDF_KIND_APBBF, 100000000, 1e-3, 2, 16, 284001, 512, 8, 345345728 },
	{ DDF_KIND_APBBF, 100000000, 1e-6, 6, 18, 377178, 512, 4, 603485312 },
	{ DDF_KIND_APBBF, 100000000, 1e-9, 5, 28, 405716, 512, 8, 882838528 },
};

static int size_tuned(uint32_t kind, uint64_t window, double fpr,
		      uint32_t tune, struct ddf_params *p,
		      struct ddf_size_report *rep)
{
	struct ddf_size_req req = { .kind = kind, .window = window,
				    .fpr = fpr, .cpus = 1, .tune = tune };
	const char *why = NULL;

	return ddf_size(&req, p, rep, &why);
}

/* tune memory (and a request naming no tune) is the old least memory */
DDF_TEST(memory_is_least_memory)
{
	for (unsigned int i = 0; i < DDF_ARRAY_SIZE(least); i++) {
		struct ddf_size_report rep;
		struct ddf_params p, q;

		DDF_ASSERT(t, !size_tuned(least[i].kind, least[i].window,
					  least[i].fpr, DDF_TUNE_MEMORY, &p,
					  &rep));
		DDF_EXPECT_MSG(t, p.k == least[i].k && p.l == least[i].l &&
				  p.m == least[i].m &&
				  p.block_bits == least[i].B &&
				  p.block_hashes == least[i].b &&
				  rep.bytes == least[i].bytes,
			       "%s %llu %g: k=%u l=%u m=%llu B=%u b=%u %llu bytes",
			       ddf_kind_name(least[i].kind),
			       (unsigned long long)least[i].window,
			       least[i].fpr, p.k, p.l, (unsigned long long)p.m,
			       p.block_bits, p.block_hashes,
			       (unsigned long long)rep.bytes);
		{
			struct ddf_size_req req = {
				.kind = least[i].kind,
				.window = least[i].window,
				.fpr = least[i].fpr, .cpus = 1,
			};
			const char *why = NULL;

			DDF_ASSERT(t, !ddf_size(&req, &q, NULL, &why));
			DDF_EXPECT(t, !memcmp(&p, &q, sizeof(p)));
		}
	}
}

/*
 * The rule of tune speed, written out again: (lines + atomics, lines,
 * bytes, rate), lowest first. Negative: a before b.
 */
static int speed_rank(uint32_t la, uint32_t aa, uint64_t ba, double fa,
		      uint32_t lb, uint32_t ab, uint64_t bb, double fb)
{
	if (la + aa != lb + ab)
		return la + aa < lb + ab ? -1 : 1;
	if (la != lb)
		return la < lb ? -1 : 1;
	if (ba != bb)
		return ba < bb ? -1 : 1;
	return fa < fb ? -1 : fa > fb;
}

struct cand {
	struct ddf_params p;
	uint64_t bytes;
	double fpr;
	bool found;
};

/*
 * Every (block shape, k, l) the sizing may take, resolved for the window:
 * the least memory meeting fpr, and the best by speed_rank within twice it.
 */
static void brute_force(uint32_t kind, uint64_t window, double fpr,
			struct cand *mem, struct cand *fast)
{
	static const uint32_t shapes[][2] = {
		{ 512, 8 }, { 512, 4 }, { 64, 8 }, { 64, 4 }
	};
	bool blocked = kind == DDF_KIND_APBBF;
	uint32_t kmax = blocked ? 8 : 32;

	mem->found = fast->found = false;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t s = 0; s < (blocked ? 4u : 1u); s++)
			for (uint32_t k = 1; k <= kmax; k++)
				for (uint32_t l = 1; l <= 4 * k + 8; l++) {
					struct ddf_params p = {
						.kind = kind, .window = window,
						.cpus = 1, .k = k, .l = l,
					};
					const char *why;
					struct cand c;

					if (blocked) {
						p.block_bits = shapes[s][0];
						p.block_hashes = shapes[s][1];
					}
					if (ddf_params_resolve(&p, &why))
						continue;
					c.p = p;
					c.bytes = ddf_filter_memsize(&p);
					c.fpr = ddf_apbf_fpr(&p);
					if (c.fpr > fpr)
						continue;
					if (!pass) {
						if (!mem->found ||
						    c.bytes < mem->bytes ||
						    (c.bytes == mem->bytes &&
						     c.fpr < mem->fpr)) {
							*mem = c;
							mem->found = true;
						}
						continue;
					}
					if (c.bytes > 2 * mem->bytes)
						continue;
					if (!fast->found ||
					    speed_rank(ddf_apbf_lines(&c.p),
						       ddf_apbf_atomics(&c.p),
						       c.bytes, c.fpr,
						       ddf_apbf_lines(&fast->p),
						       ddf_apbf_atomics(&fast->p),
						       fast->bytes, fast->fpr) < 0) {
						*fast = c;
						fast->found = true;
					}
				}
}

static bool same_shape(const struct ddf_params *a, const struct ddf_params *b)
{
	return a->k == b->k && a->l == b->l && a->m == b->m &&
	       a->block_bits == b->block_bits &&
	       a->block_hashes == b->block_hashes;
}

/* Both tunes are the best shape of their rule among all candidates. */
DDF_TEST(tunes_match_brute_force)
{
	static const uint64_t windows[] = { 10000, 10000000 };
	static const double fprs[] = { 1e-3, 1e-6, 1e-9 };
	static const uint32_t kinds[] = { DDF_KIND_APBF, DDF_KIND_APBBF };

	for (unsigned int ki = 0; ki < 2; ki++)
		for (unsigned int wi = 0; wi < 2; wi++)
			for (unsigned int fi = 0; fi < 3; fi++) {
				struct ddf_params pm, ps;
				struct ddf_size_report rm, rs;
				struct cand mem = { 0 }, fast = { 0 };

				brute_force(kinds[ki], windows[wi], fprs[fi],
					    &mem, &fast);
				DDF_ASSERT(t, mem.found && fast.found);
				DDF_ASSERT(t, !size_tuned(kinds[ki],
							  windows[wi],
							  fprs[fi],
							  DDF_TUNE_MEMORY,
							  &pm, &rm));
				DDF_ASSERT(t, !size_tuned(kinds[ki],
							  windows[wi],
							  fprs[fi],
							  DDF_TUNE_SPEED,
							  &ps, &rs));
				DDF_EXPECT_MSG(t, same_shape(&pm, &mem.p),
					       "%s %llu %g memory: k=%u l=%u, brute force k=%u l=%u",
					       ddf_kind_name(kinds[ki]),
					       (unsigned long long)windows[wi],
					       fprs[fi], pm.k, pm.l, mem.p.k,
					       mem.p.l);
				DDF_EXPECT_MSG(t, same_shape(&ps, &fast.p),
					       "%s %llu %g speed: k=%u l=%u B=%u b=%u, brute force k=%u l=%u B=%u b=%u",
					       ddf_kind_name(kinds[ki]),
					       (unsigned long long)windows[wi],
					       fprs[fi], ps.k, ps.l,
					       ps.block_bits, ps.block_hashes,
					       fast.p.k, fast.p.l,
					       fast.p.block_bits,
					       fast.p.block_hashes);
			}
}

/*
 * Over a grid of windows and rates: tune speed meets the target (its rate
 * recomputed from the params), within twice tune memory's bytes, and
 * touches no more lines plus atomic words than tune memory.
 */
DDF_TEST(speed_meets_target_within_2x)
{
	static const double fprs[] = { 1e-2, 1e-4, 1e-6, 1e-9 };
	static const uint32_t kinds[] = { DDF_KIND_APBF, DDF_KIND_APBBF };

	for (unsigned int ki = 0; ki < 2; ki++)
		for (uint64_t w = 1000; w <= 100000000; w *= 10)
			for (unsigned int fi = 0; fi < 4; fi++) {
				struct ddf_params pm, ps;
				struct ddf_size_report rm, rs;
				double fpr;

				DDF_ASSERT(t, !size_tuned(kinds[ki], w,
							  fprs[fi],
							  DDF_TUNE_MEMORY,
							  &pm, &rm));
				DDF_ASSERT(t, !size_tuned(kinds[ki], w,
							  fprs[fi],
							  DDF_TUNE_SPEED,
							  &ps, &rs));
				fpr = ddf_apbf_fpr(&ps);
				DDF_EXPECT_MSG(t, fpr <= fprs[fi] &&
						  rs.fpr == fpr,
					       "%s %llu %g: rate %g",
					       ddf_kind_name(kinds[ki]),
					       (unsigned long long)w,
					       fprs[fi], fpr);
				DDF_EXPECT(t, ps.window >= w);
				DDF_EXPECT_EQ(t, rs.bytes,
					      ddf_filter_memsize(&ps));
				DDF_EXPECT_MSG(t, rs.bytes <= 2 * rm.bytes,
					       "%s %llu %g: %llu bytes, memory %llu",
					       ddf_kind_name(kinds[ki]),
					       (unsigned long long)w,
					       fprs[fi],
					       (unsigned long long)rs.bytes,
					       (unsigned long long)rm.bytes);
				DDF_EXPECT(t, rs.lines + rs.atomics <=
						      rm.lines + rm.atomics);
				DDF_EXPECT_EQ(t, rs.lines,
					      ddf_apbf_lines(&ps));
				DDF_EXPECT_EQ(t, rs.atomics,
					      ddf_apbf_atomics(&ps));
			}
}

/* Lines and atomic words of a few shapes, counted by hand. */
DDF_TEST(lines_and_atomics)
{
	struct ddf_params p = { .kind = DDF_KIND_APBBF, .k = 6, .l = 18,
				.block_bits = 512, .block_hashes = 4 };

	/* inserts write segments 0..5, a query probes 18, 12, 6 (and 0) */
	DDF_EXPECT_EQ(t, ddf_apbf_lines(&p), 9);
	DDF_EXPECT_EQ(t, ddf_apbf_atomics(&p), 24);
	p.k = 2;
	p.l = 3;
	p.block_bits = 64;
	p.block_hashes = 8;
	/* writes 0, 1; probes 3 (then 1) */
	DDF_EXPECT_EQ(t, ddf_apbf_lines(&p), 3);
	DDF_EXPECT_EQ(t, ddf_apbf_atomics(&p), 2);
	p.kind = DDF_KIND_APBF;
	p.k = 4;
	p.l = 3;
	DDF_EXPECT_EQ(t, ddf_apbf_lines(&p), 4);
	DDF_EXPECT_EQ(t, ddf_apbf_atomics(&p), 4);
}

/* Memory per tracked packet at 1e-6, tune memory: at most 6.1 bytes. */
DDF_TEST(memory_per_packet_1e6)
{
	for (uint64_t w = 10000; w <= 100000000; w *= 10) {
		struct ddf_size_report rep;
		struct ddf_params p;
		double per;

		DDF_ASSERT(t, !size_tuned(DDF_KIND_APBBF, w, 1e-6,
					  DDF_TUNE_MEMORY, &p, &rep));
		per = (double)rep.bytes / w;
		DDF_LOG(t, "apbbf 1e-6 tune memory, window %llu: %.3f bytes per tracked packet",
			(unsigned long long)w, per);
		DDF_EXPECT_MSG(t, per <= 6.1, "window %llu: %.3f bytes",
			       (unsigned long long)w, per);
	}
}

/* A tune other than speed or memory, or a shape it cannot meet, fails. */
DDF_TEST(tune_rejects)
{
	struct ddf_size_req req = { .kind = DDF_KIND_APBBF, .window = 1000,
				    .fpr = 1e-3, .tune = 7 };
	struct ddf_params p;
	const char *why = NULL;

	DDF_EXPECT(t, ddf_size(&req, &p, NULL, &why) == DDF_EINVAL && why);
	/* a fixed k and l: speed chooses the block among them */
	req.tune = DDF_TUNE_SPEED;
	req.k = 3;
	req.l = 5;
	DDF_ASSERT(t, !ddf_size(&req, &p, NULL, &why));
	DDF_EXPECT(t, p.k == 3 && p.l == 5);
}

static ddf_case_t cases[] = {
	DDF_CASE(memory_is_least_memory), DDF_CASE(tunes_match_brute_force),
	DDF_CASE(speed_meets_target_within_2x), DDF_CASE(lines_and_atomics),
	DDF_CASE(memory_per_packet_1e6), DDF_CASE(tune_rejects),
	DDF_CASES_END
};

DDF_SUITE(ddf_apbf_tune, cases);
