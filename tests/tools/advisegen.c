// SPDX-License-Identifier: GPL-2.0
/*
 * ddf_advisegen: two capture ports' captures with copies whose delays and
 * differences are known, for the tests of ddfctl advise.
 *
 *   ddf_advisegen [outer] N FILE1 FILE2
 *
 * N packets (N >= 100) leave every 20 us, alternately on port 1 (FILE1)
 * and port 2 (FILE2); pcap, Ethernet, nanosecond timestamps, tagged VLAN
 * 10. Packet i has no copy when i % 3 == 0, else a copy on the other port
 * delay_i ns later (1 us + a hash of i, under 300 us), and when i % 5 == 0
 * a second copy on its own port 400 us + delay_i later. Packet i % 97 == 0
 * is an ARP request, whose copy has other MAC addresses; packet i % 89 == 0
 * a datagram inside VXLAN whose copy has an outer TTL one lower (the same
 * tunnel a hop older: ttl and ipv4csum of the outer header); every other
 * packet is an IPv4 UDP datagram (i % 8 == 5: IPv6) whose first copy
 * differs by i % 8:
 *   0 nothing  1 ttl (and so the IPv4 header checksum)  2 VLAN 20
 *   3 the source MAC  4 dscp (and the checksum)  5 IPv6 hop limit
 *   6 inside VXLAN (the same frame behind outer headers)
 *   7 the UDP checksum (0: none)
 * Second copies are identical to their packet. With outer, every packet
 * is a datagram inside VXLAN and every first copy has an outer TTL one
 * lower, as packet i % 89 == 0 above.
 *
 * Records of the two files merged by time are numbered from 1. stdout has
 * one line per record in that order:
 *   R INDEX PORT TIME_NS
 * and one per copy:
 *   C INDEX PACKET_INDEX DELAY_PACKETS DELAY_NS IP DIFFS OUTER
 * IP 1 for an IP packet, 0 for ARP; DIFFS the words of what differs
 * (ttl,ipv4csum,vlan,mac,dscp,tunnel,l4csum) or "-"; OUTER 1 when they
 * are in the outer headers of a tunnel both have, so that opening the
 * tunnel hides them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

static int outer; /* every packet tunnelled, copies a hop older outside */

struct rec {
	uint64_t t;
	int port, orig; /* orig: the packet's record, -1 for a packet */
	int pkt; /* the packet i */
	int kind; /* 0 packet, 1 first copy, 2 second copy */
	uint8_t f[256];
	size_t len;
	int idx;
};

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t csum(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Ethernet header, VLAN vid, ethertype; its length */
static size_t eth(uint8_t *f, uint8_t src, uint16_t vid, uint16_t type)
{
	memcpy(f, (const uint8_t[]){ 2, 0, 0, 0, 0, 2 }, 6);
	memcpy(f + 6, (const uint8_t[]){ 2, 0, 0, 0, src, 1 }, 6);
	put16(f + 12, 0x8100);
	put16(f + 14, vid);
	put16(f + 16, type);
	return 18;
}

/* The IP packet of packet i (ttl, tos, udp checksum as asked); length */
static size_t ip(uint8_t *b, int i, int v6, uint8_t ttl, uint8_t tos,
		 int nocsum)
{
	size_t hl = v6 ? 40 : 20, plen = 8 + 24;
	uint8_t *u = b + hl;
	uint32_t ps;

	memset(b, 0, hl + plen);
	for (size_t j = 0; j < 24; j++)
		u[8 + j] = (uint8_t)(i >> (8 * (j % 3)));
	put16(u, 40000 + i % 1000);
	put16(u + 2, 53);
	put16(u + 4, (uint32_t)plen);
	if (v6) {
		b[0] = 0x60;
		put16(b + 4, (uint32_t)plen);
		b[6] = 17;
		b[7] = ttl;
		b[8] = 0xfd;
		b[23] = 1;
		b[24] = 0xfd;
		b[39] = 2;
		ps = 17 + (uint32_t)plen;
		for (int j = 8; j < 40; j += 2)
			ps += (uint32_t)b[j] << 8 | b[j + 1];
	} else {
		b[0] = 0x45;
		b[1] = tos;
		put16(b + 2, (uint32_t)(hl + plen));
		put16(b + 4, (uint32_t)i);
		b[8] = ttl;
		b[9] = 17;
		memcpy(b + 12, (const uint8_t[]){ 10, 0, 1, 1, 10, 0, 1, 2 },
		       8);
		put16(b + 10, csum(0, b, 20));
		ps = 17 + (uint32_t)plen + (10 << 8) + 1 + (10 << 8) + 2;
	}
	if (!nocsum)
		put16(u + 6, csum(ps, u, plen));
	return hl + plen;
}

/* Packet i's Ethernet frame as its copy of kind diff (-1: the packet) */
static size_t plain(uint8_t *f, int i, int diff)
{
	int v6 = i % 8 == 5;
	size_t n = eth(f, diff == 3 ? 7 : 1, diff == 2 ? 20 : 10,
		       v6 ? 0x86dd : 0x0800);

	return n + ip(f + n, i, v6, diff == 1 || diff == 5 ? 63 : 64,
		      diff == 4 ? 0xb8 : 0, diff == 7);
}

/* Packet i's plain frame behind outer IPv4/UDP/VXLAN headers, outer ttl */
static size_t vxlan(uint8_t *f, int i, uint8_t ttl)
{
	size_t in = plain(f + 18 + 20 + 8 + 8, i, -1);

	eth(f, 1, 10, 0x0800);
	memset(f + 18, 0, 36);
	f[18] = 0x45;
	put16(f + 20, (uint32_t)(20 + 16 + in));
	f[26] = ttl;
	f[27] = 17;
	memcpy(f + 30, (const uint8_t[]){ 10, 9, 0, 1, 10, 9, 0, 2 }, 8);
	put16(f + 28, csum(0, f + 18, 20));
	put16(f + 38, 50000);
	put16(f + 40, 4789);
	put16(f + 42, (uint32_t)(16 + in));
	f[46] = 0x08; /* the I flag, VNI 0 */
	return 18 + 20 + 8 + 8 + in;
}

/* The frame of packet i as its copy of kind diff (-1: the packet) */
static size_t frame(uint8_t *f, int i, int diff)
{
	size_t n;

	if (outer)
		return vxlan(f, i, diff >= 0 ? 63 : 64);
	if (i % 97 == 0) { /* ARP request, its copy from other MACs */
		n = eth(f, diff >= 0 ? 9 : 1, 10, 0x0806);
		memset(f + n, 0, 28);
		put16(f + n, 1);
		put16(f + n + 2, 0x0800);
		f[n + 4] = 6;
		f[n + 5] = 4;
		put16(f + n + 6, 1);
		f[n + 27] = (uint8_t)i;
		return n + 28;
	}
	if (i % 89 == 0) /* tunnelled, the copy a hop older outside */
		return vxlan(f, i, diff >= 0 ? 63 : 64);
	if (diff == 6)
		return vxlan(f, i, 64);
	return plain(f, i, diff);
}

static const char *diffs(int i, int kind)
{
	static const char *const w[8] = { "-", "ttl,ipv4csum", "vlan", "mac",
					  "dscp,ipv4csum", "ttl", "tunnel",
					  "l4csum" };

	if (kind == 2)
		return "-";
	if (outer)
		return "ttl,ipv4csum";
	if (i % 97 == 0)
		return "mac";
	if (i % 89 == 0)
		return "ttl,ipv4csum";
	return w[i % 8];
}

static int by_time(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

int main(int argc, char **argv)
{
	pcap_dumper_t *d[2];
	struct rec *r;
	int n, nr = 0;

	if (argc == 5 && !strcmp(argv[1], "outer")) {
		outer = 1;
		argc--;
		argv++;
	}
	if (argc != 4 || (n = atoi(argv[1])) < 100) {
		fprintf(stderr, "usage: ddf_advisegen [outer] N FILE1 FILE2 (N >= 100)\n");
		return 2;
	}
	r = calloc((size_t)n * 3, sizeof(*r));
	if (!r)
		return 1;
	for (int i = 0; i < n; i++) {
		uint64_t t = (uint64_t)i * 20000;
		uint64_t delay = 1000 + (uint64_t)i * 2654435761u % 299000;
		int port = i % 2;

		r[nr++] = (struct rec){ .t = t, .port = port, .orig = -1,
					.pkt = i, .kind = 0 };
		if (i % 3 == 0)
			continue;
		r[nr++] = (struct rec){ .t = t + delay, .port = !port,
					.pkt = i, .kind = 1 };
		if (i % 5 == 0)
			r[nr++] = (struct rec){ .t = t + 400000 + delay,
						.port = port, .pkt = i,
						.kind = 2 };
	}
	qsort(r, (size_t)nr, sizeof(*r), by_time);
	/* no two records at the same time: the merge order is then known */
	for (int j = 1; j < nr; j++)
		if (r[j].t <= r[j - 1].t)
			r[j].t = r[j - 1].t + 1;
	for (int p = 0; p < 2; p++) {
		pcap_t *dead = pcap_open_dead_with_tstamp_precision(
			DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);

		d[p] = dead ? pcap_dump_open(dead, argv[2 + p]) : NULL;
		if (!d[p]) {
			fprintf(stderr, "ddf_advisegen: cannot write %s\n",
				argv[2 + p]);
			return 1;
		}
	}
	{
		int *first = calloc((size_t)n, sizeof(*first));

		if (!first)
			return 1;
		for (int j = 0; j < nr; j++) {
			struct rec *x = &r[j];
			struct pcap_pkthdr h = {
				.ts = { .tv_sec = (time_t)(1700000000 +
							   x->t / 1000000000),
					.tv_usec = (suseconds_t)(x->t %
								 1000000000) },
			};

			x->idx = j + 1;
			x->len = frame(x->f, x->pkt,
				       x->kind == 1 ? x->pkt % 8 : -1);
			h.caplen = h.len = (bpf_u_int32)x->len;
			pcap_dump((u_char *)d[x->port], &h, x->f);
			printf("R %d %d %llu\n", x->idx, x->port + 1,
			       (unsigned long long)x->t);
			if (!x->kind) {
				first[x->pkt] = j;
				continue;
			}
			printf("C %d %d %d %llu %d %s %d\n", x->idx,
			       first[x->pkt] + 1, j - first[x->pkt],
			       (unsigned long long)(x->t - r[first[x->pkt]].t),
			       x->pkt % 97 != 0, diffs(x->pkt, x->kind),
			       (outer || (x->pkt % 97 && !(x->pkt % 89))) &&
				       x->kind == 1);
		}
		free(first);
	}
	pcap_dump_close(d[0]);
	pcap_dump_close(d[1]);
	free(r);
	return 0;
}
