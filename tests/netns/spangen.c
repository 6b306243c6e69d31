// SPDX-License-Identifier: GPL-2.0
/*
 * ddf_spangen: what a SPAN (mirror) port delivers to a capture box, and
 * what a family netdev rule must keep of it.
 *
 *   ddf_spangen SCENARIO DIR
 *
 * writes DIR/sent.pcap, every frame in the order to send it (Ethernet,
 * 100 us apart), and per variant DIR/kept-VARIANT.pcap, the records a rule
 * of that variant keeps: the first record of each key, byte for byte. It
 * prints one line per variant:
 *
 *   VARIANT records N kept K duplicates D
 *
 * A variant is named by the rule words it stands for, spaces as dashes:
 * "default" (no words), "ignore-ttl,ipv4csum,vlan", "decap-vxlan". The key
 * each record gets is decided here by construction, from what the frame
 * was built of, after the key of family netdev (ddf_core/ddf_key.h): the
 * IP packet behind the Ethernet header, VLAN tags and MPLS labels, with
 * TTL or hop limit and the IPv4 header checksum masked, plus the VLAN IDs
 * (not the priority bits) unless vlan is ignored; with decap, the packet
 * inside the tunnel, with the inner frame's own tags. MAC addresses, MPLS
 * labels and everything outside an opened tunnel are not part of a key.
 *
 * Every frame goes to a foreign destination MAC (none of the receiver's).
 * Every outer packet of a tunnel differs from every other (IP ID, UDP
 * source port, GRE sequence), so without decap no tunnel is a copy.
 *
 * Scenarios:
 *   ttl    40 packets (IPv4 and IPv6, UDP and TCP), each 2 or 3 times, later
 *          copies a hop older (new TTL, IPv4 checksum fixed, other MACs)
 *   vlan   24 packets, each on VLAN 10 and 20, some again on VLAN 10 with
 *          another priority and a hop older, some untagged
 *   vxlan  24 packets in VXLAN (port 4789), each from two or three VTEPs:
 *          other outer MACs, addresses (IPv4, IPv6), source ports, outer
 *          tags; some inner frames tagged, some a hop older
 *   encap  QinQ (802.1ad + 802.1Q), MPLS (one and two labels), Geneve
 *          (Ethernet and IP inside, with and without options), GRE (IP
 *          inside, with checksum and key), GRETAP, ERSPAN II and III (with
 *          and without its optional subheader), VXLAN, and the same packets
 *          plain
 *   jumbo  16 packets as ttl's, of 1.6 to 8.6 KB (an MTU of 9000 takes
 *          them, 1500 none), each 2 or 3 times, later copies a hop older
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

#include "wire.h"

#define MAX_VARIANTS	2
#define MAX_RECORDS	1024
#define KEY_LEN		48
#define FRAME_MAX	9216

#define ETH_IP		0x0800
#define ETH_IP6		0x86dd
#define ETH_8021Q	0x8100
#define ETH_8021AD	0x88a8
#define ETH_MPLS	0x8847
#define ETH_TEB		0x6558		/* Ethernet inside GRE or Geneve */
#define ETH_ERSPAN2	0x88be
#define ETH_ERSPAN3	0x22eb

/* What a variant opens and masks. */
struct variant {
	const char *name;
	bool ignore_vlan;
	bool decap;			/* the scenario's tunnels are opened */
	pcap_dumper_t *kept;
	char seen[MAX_RECORDS][KEY_LEN];
	unsigned int nseen, records;
};

static struct variant variants[MAX_VARIANTS];
static unsigned int nvariants;
static pcap_t *dead;
static pcap_dumper_t *sent;
static unsigned int nrec;
/* bytes added to each packet's payload (the jumbo scenario) */
static size_t pad;

/*
 * A frame being built: its bytes, and what its key is made of: the
 * packet's number (-1: none yet), the VLAN IDs of the frame that carries
 * the keyed packet, and whether that packet sits in a tunnel.
 */
struct frame {
	uint8_t b[FRAME_MAX];
	size_t len;
	int packet;
	char vlans[24];		/* "/10/20": the IDs, outermost first */
	bool tunnel;
};

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "ddf_spangen: %s\n", what);
	exit(1);
}

static uint8_t *grow(struct frame *f, size_t n)
{
	uint8_t *p = f->b + f->len;

	if (f->len + n > FRAME_MAX)
		die("a frame outgrew its buffer");
	memset(p, 0, n);
	f->len += n;
	return p;
}

/* Locally administered unicast MACs: 02:5a:KIND:0:HI:LO. */
static void mac(uint8_t *p, unsigned int kind, unsigned int n)
{
	const uint8_t m[6] = { 0x02, 0x5a, (uint8_t)kind, 0, (uint8_t)(n >> 8),
			       (uint8_t)n };

	memcpy(p, m, 6);
}

/* An Ethernet header to foreign MAC number @dst from @src, no type yet. */
static void eth(struct frame *f, unsigned int dst, unsigned int src)
{
	uint8_t *p = grow(f, 12);

	mac(p, 0xd0, dst);
	mac(p + 6, 0x50, src);
}

/* A VLAN tag: @tpid, priority @pcp, VLAN ID @vid (counted in the key). */
static void tag(struct frame *f, uint16_t tpid, unsigned int pcp,
		unsigned int vid)
{
	uint8_t *p = grow(f, 4);
	size_t n = strlen(f->vlans);

	put16(p, tpid);
	put16(p + 2, pcp << 13 | vid);
	snprintf(f->vlans + n, sizeof(f->vlans) - n, "/%u", vid);
}

static void ethertype(struct frame *f, uint16_t type)
{
	put16(grow(f, 2), type);
}

static void mpls(struct frame *f, unsigned int label, bool bottom)
{
	put32(grow(f, 4), label << 12 | (bottom ? 1u << 8 : 0) | 64);
}

static bool packet_is_v6(int i)
{
	return i % 4 >= 2;
}

/*
 * IP packet @i, @older hops older: IPv4 or IPv6 by i % 4, TCP when
 * i % 5 == 0 else UDP, addresses, ports, IP ID and payload from @i.
 */
static void packet(struct frame *f, int i, unsigned int older)
{
	bool v6 = packet_is_v6(i), tcp = i % 5 == 0;
	size_t hl = v6 ? 40 : 20, l4hl = tcp ? 20 : 8;
	size_t plen = 20 + (size_t)(i * 13) % 90 + pad, l4len = l4hl + plen;
	uint8_t *ip = grow(f, hl + l4len), *l4 = ip + hl, *pay = l4 + l4hl;
	uint8_t proto = tcp ? 6 : 17;
	uint32_t ps;
	uint16_t csum;
	int n;

	if (f->packet < 0)
		f->packet = i;
	n = snprintf((char *)pay, plen, "span packet %d ", i);
	for (size_t k = (size_t)n; k < plen; k++)
		pay[k] = (uint8_t)('a' + (k + (size_t)i) % 26);
	if (v6) {
		const uint8_t s[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };
		const uint8_t d[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 2, [14] = 1 };

		put32(ip, 6u << 28 | (uint32_t)i);	/* flow label */
		put16(ip + 4, (uint32_t)l4len);
		ip[6] = proto;
		ip[7] = (uint8_t)(64 - older);
		memcpy(ip + 8, s, 16);
		memcpy(ip + 24, d, 16);
		ip[23] = (uint8_t)(1 + i % 7);
		ip[39] = (uint8_t)(1 + i % 11);
		ps = csum_add(0, ip + 8, 32);
	} else {
		ip[0] = 0x45;
		put16(ip + 2, (uint32_t)(hl + l4len));
		put16(ip + 4, 0x2000 + (uint32_t)i);
		put16(ip + 6, 0x4000);			/* DF */
		ip[8] = (uint8_t)(64 - older);
		ip[9] = proto;
		memcpy(ip + 12, (const uint8_t[]){ 198, 51, 100, 1 }, 4);
		memcpy(ip + 16, (const uint8_t[]){ 203, 0, 113, 1 }, 4);
		ip[15] = (uint8_t)(1 + i % 7);
		ip[19] = (uint8_t)(1 + i % 11);
		put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
		ps = csum_add(0, ip + 12, 8);
	}
	put16(l4, 30000 + (uint32_t)i);
	put16(l4 + 2, i % 3 == 0 ? 4000 : i % 3 == 1 ? 443 : 8080);
	if (tcp) {
		put32(l4 + 4, 0x01000000u * (uint32_t)(i % 200) + 1);
		put32(l4 + 8, 0x2000);
		l4[12] = 5 << 4;
		l4[13] = 0x18;				/* PSH ACK */
		put16(l4 + 14, 65535);
	} else {
		put16(l4 + 4, (uint32_t)l4len);
	}
	csum = csum_fold(csum_add(ps + proto + (uint32_t)l4len, l4, l4len));
	if (!tcp && !csum)
		csum = 0xffff;
	put16(l4 + (tcp ? 16 : 6), csum);
}

/* Packet @i, untagged, from source MAC number @mac_n. */
static void plain(struct frame *f, int i, unsigned int older,
		  unsigned int mac_n)
{
	eth(f, (unsigned int)i, mac_n);
	ethertype(f, packet_is_v6(i) ? ETH_IP6 : ETH_IP);
	packet(f, i, older);
}

/* Packet @i in an Ethernet frame of its own inside a tunnel. */
static void inner_frame(struct frame *f, int i, unsigned int older, int vid)
{
	f->vlans[0] = 0;	/* the key sees the inner frame's tags only */
	eth(f, 0x100 + (unsigned int)i, 0x100 + (unsigned int)i);
	if (vid >= 0)
		tag(f, ETH_8021Q, 0, (unsigned int)vid);
	ethertype(f, packet_is_v6(i) ? ETH_IP6 : ETH_IP);
	packet(f, i, older);
}

/* Packet @i right behind a tunnel's header (IP inside). */
static void inner_packet(struct frame *f, int i, unsigned int older)
{
	f->vlans[0] = 0;
	packet(f, i, older);
}

/* The outer IP header of a tunnel: its offset; tunnel_end() fills it. */
static size_t outer_ip(struct frame *f, bool v6, uint8_t proto,
		       unsigned int src)
{
	size_t at;
	uint8_t *ip;

	ethertype(f, v6 ? ETH_IP6 : ETH_IP);
	at = f->len;
	ip = grow(f, v6 ? 40 : 20);
	if (v6) {
		put32(ip, 6u << 28);
		ip[6] = proto;
		ip[7] = 64;
		memcpy(ip + 8, (const uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8, 0, 0xf }, 6);
		memcpy(ip + 24, (const uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8, 0, 0xf }, 6);
		ip[23] = (uint8_t)src;
		ip[39] = 0xfe;
	} else {
		ip[0] = 0x45;
		put16(ip + 4, 0x4000 + nrec);		/* a new ID per record */
		put16(ip + 6, 0x4000);
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, (const uint8_t[]){ 192, 0, 2, (uint8_t)src }, 4);
		memcpy(ip + 16, (const uint8_t[]){ 192, 0, 2, 254 }, 4);
	}
	f->tunnel = true;
	return at;
}

/* A UDP header after the outer IP header; its offset. */
static size_t outer_udp(struct frame *f, uint16_t dport)
{
	size_t at = f->len;
	uint8_t *u = grow(f, 8);

	put16(u, 50000 + nrec);			/* a new port per record */
	put16(u + 2, dport);
	return at;
}

/* Lengths and checksums of the outer headers, once the frame is whole. */
static void tunnel_end(struct frame *f, size_t ip_at, size_t udp_at)
{
	uint8_t *ip = f->b + ip_at;
	bool v6 = ip[0] >> 4 == 6;
	size_t hl = v6 ? 40 : 20, len = f->len - ip_at;

	if (v6) {
		put16(ip + 4, (uint32_t)(len - hl));
	} else {
		put16(ip + 2, (uint32_t)len);
		put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	}
	if (udp_at) {
		uint8_t *u = f->b + udp_at;
		uint32_t ulen = (uint32_t)(f->len - udp_at);
		uint16_t c;

		put16(u + 4, ulen);
		/* IPv4 tunnels send no UDP checksum; IPv6 needs one. */
		if (v6) {
			c = csum_fold(csum_add(csum_add(0, ip + 8, 32) + 17 + ulen,
					       u, ulen));
			put16(u + 6, c ? c : 0xffff);
		}
	}
}

static void vxlan(struct frame *f, int i, unsigned int older, int vid,
		  bool v6, unsigned int vtep)
{
	size_t ip = outer_ip(f, v6, 17, vtep), udp = outer_udp(f, 4789);
	uint8_t *h = grow(f, 8);

	h[0] = 0x08;				/* I: the VNI is valid */
	put32(h + 4, 5000u << 8);
	inner_frame(f, i, older, vid);
	tunnel_end(f, ip, udp);
}

/* Geneve with Ethernet inside, or IP when @ip_inside; @opt: 8 bytes. */
static void geneve(struct frame *f, int i, bool ip_inside, bool opt,
		   unsigned int vtep)
{
	size_t ip = outer_ip(f, false, 17, vtep), udp = outer_udp(f, 6081);
	uint8_t *h = grow(f, 8 + (opt ? 8 : 0));

	h[0] = opt ? 2 : 0;			/* version 0, option words */
	put16(h + 2, ip_inside ? (packet_is_v6(i) ? ETH_IP6 : ETH_IP) :
		     ETH_TEB);
	put32(h + 4, 77u << 8);
	if (opt) {
		put16(h + 8, 0x0102);		/* option class */
		h[10] = 0x01;			/* type */
		h[11] = 1;			/* one word of data */
		put32(h + 12, 0xdeadbeef);
	}
	if (ip_inside)
		inner_packet(f, i, 0);
	else
		inner_frame(f, i, 0, -1);
	tunnel_end(f, ip, udp);
}

/* GRE flags */
#define GRE_C	0x8000
#define GRE_K	0x2000
#define GRE_S	0x1000

/*
 * A GRE header of @proto with the words @flags ask for (checksum filled
 * by gre_end()); ERSPAN's header follows for its types.
 */
static size_t gre(struct frame *f, uint16_t flags, uint16_t proto,
		  unsigned int src)
{
	size_t ip = outer_ip(f, false, 47, src);
	uint8_t *h = grow(f, 4);

	put16(h, flags);
	put16(h + 2, proto);
	if (flags & GRE_C)
		grow(f, 4);
	if (flags & GRE_K)
		put32(grow(f, 4), 0x1234);
	if (flags & GRE_S)
		put32(grow(f, 4), 1000 + nrec);	/* a new sequence per record */
	return ip;
}

static void gre_end(struct frame *f, size_t ip)
{
	uint8_t *g = f->b + ip + 20;

	if (get16(g) & GRE_C)
		put16(g + 4, csum_fold(csum_add(0, g, f->len - ip - 20)));
	tunnel_end(f, ip, 0);
}

/* ERSPAN type II (8 bytes) or III (12, and 8 more with @sub). */
static void erspan(struct frame *f, int i, int type, bool sub, int vid)
{
	size_t ip = gre(f, GRE_S, type == 2 ? ETH_ERSPAN2 : ETH_ERSPAN3, 9);
	uint8_t *h = grow(f, type == 2 ? 8 : 12);

	put16(h, (type == 2 ? 1u : 2u) << 12);	/* version, VLAN 0 */
	put16(h + 2, 0x0000 | 42);		/* COS 0, session 42 */
	if (type == 2) {
		put32(h + 4, 7);		/* index */
	} else {
		put32(h + 4, 0x10000000u + nrec);	/* timestamp */
		put16(h + 8, 0);		/* SGT */
		h[11] = sub ? 1 : 0;		/* O: a subheader follows */
		if (sub)
			put32(grow(f, 8), 0x01020304);
	}
	inner_frame(f, i, 0, vid);
	gre_end(f, ip);
}

/* Write @f to sent.pcap and, per variant, to kept-* if its key is new. */
static void emit(struct frame *f)
{
	struct pcap_pkthdr h = {
		.ts = { .tv_sec = 1700000000 + nrec / 10000,
			.tv_usec = (suseconds_t)(nrec % 10000 * 100) },
		.caplen = (bpf_u_int32)f->len,
		.len = (bpf_u_int32)f->len,
	};

	pcap_dump((u_char *)sent, &h, f->b);
	for (unsigned int v = 0; v < nvariants; v++) {
		struct variant *va = &variants[v];
		char key[KEY_LEN];
		unsigned int k;

		if (f->tunnel && !va->decap)
			snprintf(key, sizeof(key), "outer%u", nrec);
		else
			snprintf(key, sizeof(key), "p%d%s", f->packet,
				 va->ignore_vlan ? "" : f->vlans);
		va->records++;
		for (k = 0; k < va->nseen; k++)
			if (!strcmp(va->seen[k], key))
				break;
		if (k < va->nseen)
			continue;
		if (va->nseen == MAX_RECORDS)
			die("too many keys");
		strcpy(va->seen[va->nseen++], key);
		pcap_dump((u_char *)va->kept, &h, f->b);
	}
	nrec++;
	memset(f, 0, sizeof(*f));
	f->packet = -1;
}

static void new_frame(struct frame *f)
{
	memset(f, 0, sizeof(*f));
	f->packet = -1;
}

/*
 * Copy j of packet i (j < copies(i)) is sent lag * j records after copy 0
 * would be, so that copies interleave with other packets: slot s holds
 * copy j of packet s - lag * j, for j from 0 up.
 */
static void interleave(int n, int lag, int (*copies)(int i),
		       void (*copy)(struct frame *f, int i, int j))
{
	struct frame f;

	new_frame(&f);
	for (int s = 0; s < n + lag * 4; s++) {
		for (int j = 0; j < 4; j++) {
			int i = s - lag * j;

			if (i < 0 || i >= n || j >= copies(i))
				continue;
			copy(&f, i, j);
			if (f.len)
				emit(&f);
		}
	}
}

static int two_or_three(int i)
{
	return i % 3 == 0 ? 3 : 2;
}

static int four(int i)
{
	return 4;
}

/* Odd packets: each later copy a hop older, with other MACs. */
static void ttl_copy(struct frame *f, int i, int j)
{
	unsigned int older = i % 2 ? (unsigned int)j : 0;

	plain(f, i, older, older);
}

/*
 * VLAN 10, VLAN 20, for even packets VLAN 10 again with priority 5 and a
 * hop older, for every third packet no tag.
 */
static void vlan_copy(struct frame *f, int i, int j)
{
	if ((j == 2 && i % 2) || (j == 3 && i % 3))
		return;
	eth(f, (unsigned int)i, 0);
	if (j == 0 || j == 2)
		tag(f, ETH_8021Q, j == 2 ? 5 : 0, 10);
	else if (j == 1)
		tag(f, ETH_8021Q, 0, 20);
	ethertype(f, packet_is_v6(i) ? ETH_IP6 : ETH_IP);
	packet(f, i, j == 2);
}

/*
 * VTEP 1 over IPv4; VTEP 2 over IPv4, a hop older inside for odd packets,
 * on outer VLAN 30 for some; VTEP 3 over IPv6 for every third packet.
 * Inner frames of packets 1, 5, 9, ... carry VLAN 7.
 */
static void vxlan_copy(struct frame *f, int i, int j)
{
	eth(f, 0x200 + (unsigned int)j, 0x200 + (unsigned int)j);
	if (j == 1 && i % 5 == 2)
		tag(f, ETH_8021Q, 0, 30);
	vxlan(f, i, j == 1 && i % 2, i % 4 == 1 ? 7 : -1, j == 2,
	      1 + (unsigned int)j);
}

/* Packet i with 1600 + 460 i bytes more payload, copies as ttl's. */
static void jumbo_copy(struct frame *f, int i, int j)
{
	pad = 1600 + 460 * (size_t)i;
	ttl_copy(f, i, j);
}

static void jumbo(void)
{
	interleave(16, 3, two_or_three, jumbo_copy);
}

static void ttl(void)
{
	interleave(40, 5, two_or_three, ttl_copy);
}

static void vlan(void)
{
	interleave(24, 4, four, vlan_copy);
}

static void vxlan_scenario(void)
{
	interleave(24, 4, two_or_three, vxlan_copy);
}

static void encap(void)
{
	struct frame f;
	int i;

	new_frame(&f);
	for (i = 100; i < 106; i++) {	/* QinQ: S-VLAN 100, C-VLAN 200 */
		for (int j = 0; j < (i % 2 ? 2 : 3); j++) {
			eth(&f, (unsigned int)i, (unsigned int)j);
			tag(&f, ETH_8021AD, 0, 100);
			tag(&f, ETH_8021Q, 0, j == 2 ? 201 : 200);
			ethertype(&f, packet_is_v6(i) ? ETH_IP6 : ETH_IP);
			packet(&f, i, j == 1);
			emit(&f);
		}
	}
	for (i = 110; i < 116; i++) {	/* plain, then MPLS */
		plain(&f, i, 0, 0);
		emit(&f);
		eth(&f, (unsigned int)i, 1);
		ethertype(&f, ETH_MPLS);
		mpls(&f, 1000, true);
		packet(&f, i, 1);
		emit(&f);
		eth(&f, (unsigned int)i, 2);
		ethertype(&f, ETH_MPLS);
		mpls(&f, 2000, false);
		mpls(&f, 3000 + (unsigned int)i, true);
		packet(&f, i, 0);
		emit(&f);
	}
	for (i = 120; i < 126; i++) {	/* Geneve */
		eth(&f, 0x300, 0x300);
		geneve(&f, i, false, false, 1);
		emit(&f);
		eth(&f, 0x300, 0x301);
		geneve(&f, i, false, true, 2);
		emit(&f);
		if (i % 2)
			continue;
		eth(&f, 0x300, 0x302);
		geneve(&f, i, true, false, 3);
		emit(&f);
	}
	for (i = 130; i < 136; i++) {	/* GRE, IP inside, then plain */
		size_t ip;

		eth(&f, 0x400, 0x400);
		ip = gre(&f, 0, packet_is_v6(i) ? ETH_IP6 : ETH_IP, 1);
		inner_packet(&f, i, 0);
		gre_end(&f, ip);
		emit(&f);
		eth(&f, 0x400, 0x401);
		ip = gre(&f, GRE_C | GRE_K, packet_is_v6(i) ? ETH_IP6 : ETH_IP, 2);
		inner_packet(&f, i, 1);
		gre_end(&f, ip);
		emit(&f);
		plain(&f, i, 0, 0);
		emit(&f);
	}
	for (i = 140; i < 146; i++) {	/* GRETAP, ERSPAN II and III */
		size_t ip;

		eth(&f, 0x500, 0x500);
		ip = gre(&f, 0, ETH_TEB, 3);
		inner_frame(&f, i, 0, -1);
		gre_end(&f, ip);
		emit(&f);
		eth(&f, 0x500, 0x501);
		erspan(&f, i, 2, false, -1);
		emit(&f);
		eth(&f, 0x500, 0x502);
		erspan(&f, i, 3, i % 2, -1);
		emit(&f);
		if (i % 2)
			continue;
		/* the inner frame's own tag is part of the inner key */
		eth(&f, 0x500, 0x503);
		erspan(&f, i, 2, false, 9);
		emit(&f);
	}
	for (i = 150; i < 154; i++) {	/* VXLAN, then GRETAP */
		size_t ip;

		eth(&f, 0x600, 0x600);
		vxlan(&f, i, 0, -1, i % 2, 4);
		emit(&f);
		eth(&f, 0x600, 0x601);
		ip = gre(&f, 0, ETH_TEB, 5);
		inner_frame(&f, i, 1, -1);
		gre_end(&f, ip);
		emit(&f);
	}
}

static const struct {
	const char *name;
	void (*build)(void);
	struct { const char *name; bool ignore_vlan, decap; } v[MAX_VARIANTS];
} scenarios[] = {
	{ "ttl", ttl, { { "default", false, false } } },
	{ "vlan", vlan, { { "default", false, false },
			  { "ignore-ttl,ipv4csum,vlan", true, false } } },
	{ "vxlan", vxlan_scenario, { { "default", false, false },
				     { "decap-vxlan", false, true } } },
	{ "encap", encap, { { "default", false, false },
			    { "decap-vxlan,geneve,gre,erspan", false, true } } },
	{ "jumbo", jumbo, { { "default", false, false } } },
};

static pcap_dumper_t *open_dump(const char *dir, const char *name)
{
	char path[4096];
	pcap_dumper_t *d;

	snprintf(path, sizeof(path), "%s/%s.pcap", dir, name);
	d = pcap_dump_open(dead, path);
	if (!d) {
		fprintf(stderr, "ddf_spangen: %s: %s\n", path, pcap_geterr(dead));
		exit(1);
	}
	return d;
}

int main(int argc, char **argv)
{
	unsigned int s, v;
	char name[64];

	for (s = 0; argc == 3 && s < sizeof(scenarios) / sizeof(scenarios[0]); s++)
		if (!strcmp(argv[1], scenarios[s].name))
			break;
	if (argc != 3 || s == sizeof(scenarios) / sizeof(scenarios[0])) {
		fprintf(stderr, "usage: ddf_spangen ttl|vlan|vxlan|encap|jumbo DIR\n");
		return 2;
	}
	dead = pcap_open_dead(DLT_EN10MB, 65535);
	if (!dead)
		die("no memory");
	sent = open_dump(argv[2], "sent");
	for (v = 0; v < MAX_VARIANTS && scenarios[s].v[v].name; v++) {
		variants[v].name = scenarios[s].v[v].name;
		variants[v].ignore_vlan = scenarios[s].v[v].ignore_vlan;
		variants[v].decap = scenarios[s].v[v].decap;
		snprintf(name, sizeof(name), "kept-%s", variants[v].name);
		variants[v].kept = open_dump(argv[2], name);
	}
	nvariants = v;
	scenarios[s].build();
	pcap_dump_close(sent);
	for (v = 0; v < nvariants; v++) {
		pcap_dump_close(variants[v].kept);
		printf("%s records %u kept %u duplicates %u\n", variants[v].name,
		       variants[v].records, variants[v].nseen,
		       variants[v].records - variants[v].nseen);
	}
	pcap_close(dead);
	return 0;
}
