/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the callgrind benchmarks (hotpath.c, keypath.c) share to build
 * their frames: callgrind's markers (empty without valgrind's header), a
 * fixed-seed xorshift, and big-endian stores.
 */
#ifndef DDF_BENCH_FRAME_H
#define DDF_BENCH_FRAME_H

#include <stdint.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

#endif
