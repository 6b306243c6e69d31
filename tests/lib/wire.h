/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Big-endian fields and the Internet checksum, for the test tools that
 * build packets byte by byte (tests/netns/ddfpkt.c, tests/robust/malpkt.c).
 */
#ifndef DDF_TEST_WIRE_H
#define DDF_TEST_WIRE_H

#include <stddef.h>
#include <stdint.h>

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static inline void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

/* The Internet checksum (RFC 1071) of big-endian words; odd tail last. */
static inline uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t s = sum;

	for (; len > 1; p += 2, len -= 2)
		s += (uint32_t)p[0] << 8 | p[1];
	if (len)
		s += (uint32_t)p[0] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

static inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

#endif /* DDF_TEST_WIRE_H */
