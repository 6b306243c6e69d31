// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-tune: the shapes `tune memory` and `tune speed` choose for
 * apbbf, beside the other rules tune speed could have had, timed in one
 * process with their rounds interleaved, so that a machine shared with
 * other work slows every candidate alike and the ratios within a run
 * hold (docs/tuning.md).
 *
 *   ddf_tune FPR WINDOW [ROUNDS]
 *
 * Candidates, each within 2x the least memory meeting FPR:
 *   memory  the least memory (tune memory)
 *   speed   what tune speed chooses (ddf_size_apbf.c)
 *   lines   the fewest lines per new key, then atomic words, then bytes
 *   atomics the fewest atomic words, then lines, then bytes
 * Each is filled with WINDOW + WINDOW / 8 distinct keys; then each round
 * times 2^18 test-and-inserts of fresh keys (hashes precomputed) on every
 * candidate in turn. Printed: ns per op, the median of ROUNDS (default 7).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_size.h"

#define OPS (1u << 18)
#define MAXC 4

struct cand {
	const char *name;
	struct ddf_params p;
	uint64_t bytes;
	double fpr;
	struct ddf_filter *f;
	double ns[64];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* rank by (first, second, bytes): 0 lines first, 1 atomics first */
static bool better(int rule, const struct ddf_params *a, uint64_t ba,
		   const struct cand *b)
{
	uint32_t x[2] = { ddf_apbf_lines(a), ddf_apbf_atomics(a) };
	uint32_t y[2] = { ddf_apbf_lines(&b->p), ddf_apbf_atomics(&b->p) };
	int i = rule, j = !rule;

	if (x[i] != y[i])
		return x[i] < y[i];
	if (x[j] != y[j])
		return x[j] < y[j];
	return ba < b->bytes;
}

static void by_rule(int rule, uint64_t window, double fpr, uint64_t bound,
		    struct cand *c)
{
	static const uint32_t shapes[][2] = {
		{ 512, 8 }, { 512, 4 }, { 64, 8 }, { 64, 4 }
	};
	bool found = false;

	for (int s = 0; s < 4; s++)
		for (uint32_t k = 1; k <= 8; k++)
			for (uint32_t l = 1; l <= 4 * k + 8; l++) {
				struct ddf_params p = {
					.kind = DDF_KIND_APBBF, .k = k, .l = l,
					.window = window, .cpus = 1,
					.block_bits = shapes[s][0],
					.block_hashes = shapes[s][1],
				};
				const char *why;
				uint64_t bytes;

				if (ddf_params_resolve(&p, &why))
					continue;
				bytes = ddf_filter_memsize(&p);
				if (bytes > bound || ddf_apbf_fpr(&p) > fpr)
					continue;
				if (!found || better(rule, &p, bytes, c)) {
					c->p = p;
					c->bytes = bytes;
					found = true;
				}
			}
}

int main(int argc, char **argv)
{
	struct cand c[MAXC] = { { .name = "memory" }, { .name = "speed" },
				{ .name = "lines" },
				{ .name = "atomics" } };
	struct ddf_hash *hs;
	uint64_t window, seed = 1;
	uint32_t rounds = 7, n = 0;
	double fpr;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s FPR WINDOW [ROUNDS]\n", argv[0]);
		return 2;
	}
	fpr = strtod(argv[1], NULL);
	window = strtoull(argv[2], NULL, 0);
	if (argc == 4)
		rounds = strtoul(argv[3], NULL, 0);
	if (rounds < 1 || rounds > 64)
		rounds = 7;
	for (int t = 0; t < 2; t++) {
		struct ddf_size_req req = { .kind = DDF_KIND_APBBF,
					    .window = window, .fpr = fpr,
					    .cpus = 1, .tune = t };
		struct ddf_size_report rep;
		const char *why = NULL;

		if (ddf_size(&req, &c[t].p, &rep, &why)) {
			fprintf(stderr, "size: %s\n", why);
			return 1;
		}
		c[t].bytes = rep.bytes;
	}
	by_rule(0, window, fpr, 2 * c[0].bytes, &c[2]);
	by_rule(1, window, fpr, 2 * c[0].bytes, &c[3]);
	/* one filter per distinct shape; a rule that agrees shares it */
	for (int i = 0; i < MAXC; i++) {
		c[i].fpr = ddf_apbf_fpr(&c[i].p);
		for (int j = 0; j < i; j++)
			if (!memcmp(&c[i].p, &c[j].p, sizeof(c[i].p)))
				c[i].f = c[j].f;
		if (!c[i].f) {
			void *mem = calloc(1, c[i].bytes);

			c[i].f = mem ? ddf_filter_init(mem, c[i].bytes,
						       &c[i].p, 0) : NULL;
			if (!c[i].f) {
				fprintf(stderr, "no memory for %llu bytes\n",
					(unsigned long long)c[i].bytes);
				return 1;
			}
			for (uint64_t k = 0; k < window + window / 8; k++) {
				struct ddf_hash h = { rnd(&seed), rnd(&seed) };

				ddf_filter_insert(c[i].f, &h, 0);
			}
			n++;
		}
	}
	hs = malloc(OPS * sizeof(*hs));
	if (!hs)
		return 1;
	for (uint32_t r = 0; r < rounds; r++)
		for (int i = 0; i < MAXC; i++) {
			uint64_t dups = 0;
			double t0;

			for (uint32_t k = 0; k < OPS; k++)
				hs[k] = (struct ddf_hash){ rnd(&seed),
							   rnd(&seed) };
			t0 = now_s();
			for (uint32_t k = 0; k < OPS; k++)
				dups += ddf_filter_test_and_insert(c[i].f,
								   &hs[k], 0);
			c[i].ns[r] = (now_s() - t0) * 1e9 / OPS;
			if (dups == OPS + 1)
				puts("");
		}
	for (int i = 0; i < MAXC; i++) {
		struct ddf_params *p = &c[i].p;

		qsort(c[i].ns, rounds, sizeof(double), cmp_double);
		printf("fpr %g window %llu %-7s k=%u l=%u %u/%u bytes %llu (%.2fx) lines %u atomics %u rate %.3g ns %.1f (%.2fx)\n",
		       fpr, (unsigned long long)window, c[i].name, p->k, p->l,
		       p->block_bits, p->block_hashes,
		       (unsigned long long)c[i].bytes,
		       (double)c[i].bytes / c[0].bytes, ddf_apbf_lines(p),
		       ddf_apbf_atomics(p), c[i].fpr, c[i].ns[rounds / 2],
		       c[i].ns[rounds / 2] / c[0].ns[rounds / 2]);
	}
	return 0;
}
