#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# apbbf worst-case fp rate of the paper's layout and of the interleaved one
# (docs/tuning.md), by Monte Carlo over the blocks' loads: each generation
# puts Poisson(g / nb) keys in a key's block; the paper's layout draws a
# segment's generations apart, the interleaved one shares them between
# the segments they wrote (one group for all). 64-bit blocks, 8 bits.
# Usage: tests/bench/layout_model.py K L SAMPLES
import math, random, sys
k, l, B, b, S = int(sys.argv[1]), int(sys.argv[2]), 64, 8, int(sys.argv[3])
lam = math.log(2) / (k * -math.log(1 - b / B))
part = B // b
def pois(rng, lam):
    L, n, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p < L:
            return n
        n += 1
def run_prob(ps):
    # P(some k consecutive segments all match), segments independent given ps
    dist = [1.0] + [0.0] * (k - 1)   # current run length
    hit = 0.0
    for p in ps:
        nd = [0.0] * k
        for r, q in enumerate(dist):
            if not q: continue
            if r + 1 == k: hit += q * p
            else: nd[r + 1] += q * p
            nd[0] += q * (1 - p)
        dist = nd
    return hit
pm = lambda n: (1 - (1 - 1 / part) ** n) ** b
rng = random.Random(1)
nseg = k + l
res = {}
for layout in ("paper", "interleaved"):
    tot = 0.0
    for s in range(S):
        if layout == "interleaved":
            c = [pois(rng, lam) for _ in range(nseg + k)]
            ns = [sum(c[a] for a in range(max(0, j - k + 1), j + 1)) for j in range(nseg)]
        else:
            ns = [sum(pois(rng, lam) for t in range(min(j + 1, k))) for j in range(nseg)]
        tot += run_prob([pm(n) for n in ns])
    res[layout] = tot / S
print(f"k={k} l={l} {B}/{b} lambda={lam:.3f}: paper {res['paper']:.3g} interleaved {res['interleaved']:.3g} ratio {res['interleaved']/res['paper']:.2f}")
