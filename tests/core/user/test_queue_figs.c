// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The claims of "Approaching Optimal Duplicate Detection in a Sliding
 * Window", section 6, on its Figures 5 and 6 (which print no numbers), a
 * smaller run of `ddfbench reproduce queue-fig5` and `queue-fig6`: M =
 * 100,000 bits, a uniform stream from 2^18, FPR^w + FNR^w with w the
 * window (a key is a duplicate when its last occurrence is among the last
 * w). Figure 5: of queues of L = 10 QHT, SQF and Cuckoo subfilters (the
 * QHT paper's benchmark shapes), the QHT's errs least at every window.
 * Figure 6: the best L of a queuing QHT (k = 4, s = 8) depends on w.
 */
#include <stdlib.h>
#include <string.h>
#include "ddf_hash.h"
#include "ddf_test_user.h"

#define QF_BITS 100000
#define QF_U (1u << 18)

static bool qf_error(ddf_test_t *t, struct ddf_params *p, uint64_t w,
		     uint64_t n, uint64_t *last, double *err)
{
	struct ddf_filter *f = ddf_test_filter(t, p);
	uint64_t rng = 66, c[4] = { 0 }, i;
	uint64_t salt1 = ddf_test_rand(&rng), salt2 = ddf_test_rand(&rng);

	if (!f)
		return false;
	memset(last, 0, QF_U * sizeof(*last));
	for (i = 1; i <= n; i++) {
		uint64_t e = ddf_test_rand(&rng) & (QF_U - 1);
		struct ddf_hash h = { ddf_fmix64(e ^ salt1),
				      ddf_fmix64(e ^ salt2) };
		bool in = last[e] && i - last[e] <= w;
		bool said = ddf_filter_test_and_insert(f, &h, 0);

		last[e] = i;
		c[in ? 2 : 0]++;
		c[in ? 3 : 1] += in ? !said : said;
	}
	*err = 100.0 * c[1] / c[0] + 100.0 * c[3] / c[2];
	return true;
}

static uint64_t qf_pow2_le(uint64_t x)
{
	uint64_t p = 1;

	while (p * 2 <= x)
		p *= 2;
	return p;
}

DDF_TEST(queue_fig5_qht_best)
{
	static const uint64_t ws[] = { 1000, 3000, 10000 };
	static const uint32_t inner[] = { DDF_KIND_QHT, DDF_KIND_SQF,
					  DDF_KIND_CUCKOO };
	uint64_t *last = calloc(QF_U, sizeof(*last)), bits = QF_BITS / 10;
	unsigned int wi, fi;

	DDF_ASSERT(t, last);
	for (wi = 0; wi < DDF_ARRAY_SIZE(ws); wi++) {
		double err[3];

		for (fi = 0; fi < 3; fi++) {
			struct ddf_params p = { .kind = DDF_KIND_QUEUE,
						.subfilters = 10,
						.window = ws[wi], .k = 1,
						.inner_kind = inner[fi],
						.fp_bits = 3,
						.m = qf_pow2_le(bits / 3),
						.rng_seed = 5 };

			if (fi == 0) {
				p.m = bits / 3;
				p.rng_seed = 0;
			} else if (fi == 1) {
				p.fp_bits = 2;
				p.cell_bits = 3;
			}
			DDF_ASSERT(t, qf_error(t, &p, ws[wi], 400000, last,
					       &err[fi]));
		}
		DDF_LOG(t, "w=%llu: queue of QHT %.2f, SQF %.2f, Cuckoo %.2f",
			(unsigned long long)ws[wi], err[0], err[1], err[2]);
		DDF_EXPECT(t, err[0] <= err[1] && err[0] <= err[2]);
	}
	free(last);
}

DDF_TEST(queue_fig6_best_l_moves)
{
	static const uint32_t Ls[] = { 2, 4, 8, 16 };
	static const uint64_t ws[] = { 1000, 50000 };
	uint64_t *last = calloc(QF_U, sizeof(*last));
	uint32_t best[2];
	unsigned int wi, li;

	DDF_ASSERT(t, last);
	for (wi = 0; wi < 2; wi++) {
		double lo = 1e9;

		for (li = 0; li < DDF_ARRAY_SIZE(Ls); li++) {
			struct ddf_params p = { .kind = DDF_KIND_QUEUE,
						.inner_kind = DDF_KIND_QHT,
						.subfilters = Ls[li],
						.window = ws[wi], .k = 4,
						.fp_bits = 8,
						.m = QF_BITS / Ls[li] / 32 };
			double err;

			DDF_ASSERT(t, qf_error(t, &p, ws[wi], 200000, last,
					       &err));
			DDF_LOG(t, "w=%llu L=%u: %.2f",
				(unsigned long long)ws[wi], Ls[li], err);
			if (err < lo) {
				lo = err;
				best[wi] = Ls[li];
			}
		}
	}
	DDF_LOG(t, "best L: %u at w=1000, %u at w=50000", best[0], best[1]);
	DDF_EXPECT(t, best[0] != best[1]);
	free(last);
}

static ddf_case_t ddf_queue_figs_cases[] = {
	DDF_CASE(queue_fig5_qht_best),
	DDF_CASE(queue_fig6_best_l_moves),
	DDF_CASES_END,
};

DDF_SUITE(ddf_queue_figs, ddf_queue_figs_cases);
