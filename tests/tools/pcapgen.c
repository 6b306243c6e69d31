// SPDX-License-Identifier: GPL-2.0
/*
 * ddf_pcapgen: captures with duplicates at known places, for the tests of
 * ddfctl replay and for the VM test that replays one through the kernel.
 *
 *   ddf_pcapgen SCENARIO FILE [usec]
 *   ddf_pcapgen ports FILE1 FILE2
 *
 * writes FILE (pcap, nanosecond timestamps, or microseconds with usec:
 * the times are then rounded down to them) and prints one line per record
 * on stdout: "INDEX KEY FRAME", INDEX from 1, KEY the class of records
 * whose `key packet` (default ignore ttl,ipv4csum) is the same ("-": no IP
 * packet), FRAME the class of records whose captured bytes are the same.
 * So with filter exact window W, record i is a duplicate iff its class is
 * among those of records i-W .. i-1.
 *
 * The datagrams are well formed (IPv4 header, UDP, TCP, ICMP and ICMPv6
 * checksums right) and go from 10.0.1.1 / fd00:1::1 to 10.0.1.2 /
 * fd00:1::2, as the VM test's veth pair is addressed. Some copies differ in
 * TTL or hop limit only (and so in the IPv4 header checksum): the same key
 * packet, another frame.
 *
 * Scenarios:
 *   mixed   Ethernet; 96 records drawn from 12 datagrams (IPv4 and IPv6,
 *           UDP, TCP, ICMP echo), 1 ms apart, duplicates at all distances
 *   vlan    Ethernet; one datagram untagged, 802.1Q, 802.1ad+802.1Q and
 *           0x9100 tagged, then another datagram, then the first again
 *   nonip   Ethernet; ARP requests (three identical) between IP packets
 *   time    Ethernet; one datagram at 0, 1, 2.5, 10, 10.5, 30, 40, 42,
 *           44.000001 ms (for window N/2ms: new, dup, dup, new, dup, new,
 *           new, dup, new)
 *   link:T  a short sequence, IPv4 and IPv6, in link type T: en10mb, raw,
 *           ipv4, ipv6 (only its family), sll, sll2, null, nullbe, loop,
 *           and ppp (a link type replay does not read: all not IP)
 *   netdev  Ethernet; what a netdev hook tells apart: one datagram
 *           untagged twice, in VLAN 10 with two pairs of MAC addresses, in
 *           VLAN 20, then ARP requests (twice, then from other MACs) and a
 *           second datagram (see test_replay.sh for each key's verdicts)
 *   tunnel  Ethernet; one datagram plain, then inside VXLAN (port 4789
 *           from two outer sources, port 8472), GRE, Geneve and GTP-U
 *   late    Ethernet; one datagram at 0, another at 10 ms, the first at
 *           1 ms (stamped earlier than the record before it) and 10.5 ms
 *   ports   mixed's records as two capture ports see them: the k-th record
 *           of a key class c on port (k + c) mod 2 + 1 (the copies of a
 *           datagram on both ports, the first on either), port 1 in FILE1
 *           (nanoseconds), port 2 in FILE2 (microseconds); the lines add
 *           the record's port and its number in that port's file
 *   ifaces:K  pcapng, two records on interface 0 (Ethernet, snap length
 *           65535), then interface 1 and a record on it: K same (the same
 *           link type and snap length), type (Linux cooked) or snap (snap
 *           length 128)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

#define POOL 12

static pcap_dumper_t *dump;
static pcap_dumper_t *port_dump[2]; /* ports: each port's file */
static unsigned int port_seen[POOL], port_recs[2];
static int dlt;
static bool usec;
static unsigned int nrec;

struct dgram {
	int family; /* 4 or 6 */
	uint8_t proto; /* 17, 6, 1 or 58 */
	uint16_t sport, dport;
	uint16_t paylen;
	uint8_t ttl;
	uint16_t id;
};

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint32_t sum(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* The IP packet of d into b; its length. */
static size_t build_ip(uint8_t *b, const struct dgram *d)
{
	static const uint8_t src4[4] = { 10, 0, 1, 1 }, dst4[4] = { 10, 0, 1, 2 };
	static const uint8_t src6[16] = { 0xfd, 0, 0, 1, [15] = 1 };
	static const uint8_t dst6[16] = { 0xfd, 0, 0, 1, [15] = 2 };
	size_t hl = d->family == 4 ? 20 : 40, l4hl, l4len;
	uint8_t *l4 = b + hl;
	uint32_t ps;
	unsigned int csoff;

	switch (d->proto) {
	case 6:
		l4hl = 20;
		csoff = 16;
		break;
	case 17:
		l4hl = 8;
		csoff = 6;
		break;
	default:
		l4hl = 8;
		csoff = 2;
		break;
	}
	l4len = l4hl + d->paylen;
	memset(b, 0, hl + l4len);
	for (unsigned int i = 0; i < d->paylen; i++)
		l4[l4hl + i] = (uint8_t)('a' + (i + d->id) % 26);
	switch (d->proto) {
	case 6:
		put16(l4, d->sport);
		put16(l4 + 2, d->dport);
		put32(l4 + 4, 0x10000 * d->id + 1);
		put32(l4 + 8, 0x2000);
		l4[12] = 5 << 4;
		l4[13] = 0x18; /* PSH ACK */
		put16(l4 + 14, 65535);
		break;
	case 17:
		put16(l4, d->sport);
		put16(l4 + 2, d->dport);
		put16(l4 + 4, (uint32_t)l4len);
		break;
	default: /* echo request */
		l4[0] = d->proto == 1 ? 8 : 128;
		put16(l4 + 4, d->sport);
		put16(l4 + 6, d->id);
		break;
	}
	if (d->family == 4) {
		b[0] = 0x45;
		put16(b + 2, (uint32_t)(hl + l4len));
		put16(b + 4, d->id);
		put16(b + 6, 0x4000); /* DF */
		b[8] = d->ttl;
		b[9] = d->proto;
		memcpy(b + 12, src4, 4);
		memcpy(b + 16, dst4, 4);
		put16(b + 10, fold(sum(0, b, 20)));
		ps = sum(0, b + 12, 8) + d->proto + (uint32_t)l4len;
	} else {
		b[0] = 0x60;
		put16(b + 4, (uint32_t)l4len);
		b[6] = d->proto;
		b[7] = d->ttl;
		memcpy(b + 8, src6, 16);
		memcpy(b + 24, dst6, 16);
		ps = sum(0, b + 8, 32) + d->proto + (uint32_t)l4len;
	}
	if (d->proto == 1)
		ps = 0; /* ICMP: no pseudo-header */
	put16(l4 + csoff, fold(sum(ps, l4, l4len)));
	if (d->proto == 17 && !(l4[6] | l4[7]))
		put16(l4 + 6, 0xffff);
	return hl + l4len;
}

/* An IPv4 header from 10.0.9.SRC to 10.0.9.2 before len bytes of proto. */
static size_t outer_ip(uint8_t *b, uint8_t proto, uint8_t src, size_t len)
{
	memset(b, 0, 20);
	b[0] = 0x45;
	put16(b + 2, (uint32_t)(20 + len));
	put16(b + 4, 0x4242);
	put16(b + 6, 0x4000); /* DF */
	b[8] = 64;
	b[9] = proto;
	memcpy(b + 12, (const uint8_t[]){ 10, 0, 9, src }, 4);
	memcpy(b + 16, (const uint8_t[]){ 10, 0, 9, 2 }, 4);
	put16(b + 10, fold(sum(0, b, 20)));
	return 20;
}

/* A UDP header to dport before len bytes, checksum 0 (none, IPv4). */
static size_t outer_udp(uint8_t *b, uint16_t dport, size_t len)
{
	put16(b, 50000);
	put16(b + 2, dport);
	put16(b + 4, (uint32_t)(8 + len));
	put16(b + 6, 0);
	return 8;
}

/* Datagram i of the pool: IPv4 for 0..5, IPv6 for 6..11. */
static struct dgram pool(unsigned int i, uint8_t ttl)
{
	static const uint8_t v4[3] = { 17, 6, 1 }, v6[3] = { 17, 6, 58 };
	struct dgram d = {
		.family = i < POOL / 2 ? 4 : 6,
		.sport = (uint16_t)(40000 + i),
		.dport = (uint16_t)(5000 + i % 3),
		.paylen = (uint16_t)(16 + 7 * i),
		.ttl = ttl,
		.id = (uint16_t)(0x100 + i),
	};

	d.proto = d.family == 4 ? v4[i % 3] : v6[i % 3];
	return d;
}

static void record(uint64_t t_ns, const uint8_t *frame, size_t len,
		   const char *key, int frame_class)
{
	struct pcap_pkthdr h = {
		.ts = { .tv_sec = (time_t)(1700000000 + t_ns / 1000000000),
			.tv_usec = (suseconds_t)(t_ns % 1000000000 /
						 (usec ? 1000 : 1)) },
		.caplen = (bpf_u_int32)len,
		.len = (bpf_u_int32)len,
	};

	if (port_dump[0]) {
		unsigned int c = (unsigned int)atoi(key) % POOL;
		unsigned int p = (port_seen[c]++ + c) % 2;

		if (p)
			h.ts.tv_usec /= 1000; /* port 2 in microseconds */
		pcap_dump((u_char *)port_dump[p], &h, frame);
		printf("%u %s %d %u %u\n", ++nrec, key, frame_class, p + 1,
		       ++port_recs[p]);
		return;
	}
	pcap_dump((u_char *)dump, &h, frame);
	printf("%u %s %d\n", ++nrec, key, frame_class);
}

/*
 * Ethernet header from MAC 02:00:00:00:SRC:01 to 02:00:00:00:SRC:02, one
 * 802.1Q tag of VLAN vid unless 0, then ethertype.
 */
static size_t eth_mac(uint8_t *f, uint8_t src, uint16_t vid, uint16_t type)
{
	size_t off = 12;

	memcpy(f, (const uint8_t[]){ 0x02, 0, 0, 0, src, 2 }, 6);
	memcpy(f + 6, (const uint8_t[]){ 0x02, 0, 0, 0, src, 1 }, 6);
	if (vid) {
		put16(f + 12, 0x8100);
		put16(f + 14, vid);
		off += 4;
	}
	put16(f + off, type);
	return off + 2;
}

/* Ethernet header with tags: TPIDs from tpid[] (0-ended), then ethertype. */
static size_t eth(uint8_t *f, const uint16_t *tpid, uint16_t type)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 2 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 1 };
	size_t off = 12;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	for (; tpid && *tpid; tpid++, off += 4) {
		put16(f + off, *tpid);
		put16(f + off + 2, 100 + (uint32_t)off); /* the TCI: a VLAN id */
	}
	put16(f + off, type);
	return off + 2;
}

/* A datagram in an Ethernet frame, with tags; its key class is its pool id. */
static void eth_dgram(uint64_t t, const struct dgram *d, const uint16_t *tpid,
		      int key, int frame_class)
{
	uint8_t f[2048];
	size_t off = eth(f, tpid, d->family == 4 ? 0x0800 : 0x86dd);
	char k[16];

	snprintf(k, sizeof(k), "%d", key);
	record(t, f, off + build_ip(f + off, d), k, frame_class);
}

static void mixed(void)
{
	uint32_t x = 12345;

	for (unsigned int r = 0; r < 96; r++) {
		struct dgram d;
		unsigned int id;
		uint8_t hop;

		x = x * 1103515245u + 12345u;
		id = (x >> 16) % POOL;
		hop = (x >> 8) & 1; /* a copy one hop older */
		d = pool(id, (uint8_t)(64 - hop));
		eth_dgram(r * 1000000ull, &d, NULL, (int)id, (int)(id * 2 + hop));
	}
}

static void vlan(void)
{
	static const uint16_t q[] = { 0x8100, 0 }, qinq[] = { 0x88a8, 0x8100, 0 },
			      q9100[] = { 0x9100, 0 };
	struct dgram a = pool(0, 64), b = pool(7, 64);

	eth_dgram(0, &a, NULL, 0, 0);
	eth_dgram(1000, &a, q, 0, 1);
	eth_dgram(2000, &a, qinq, 0, 2);
	eth_dgram(3000, &a, q9100, 0, 3);
	eth_dgram(4000, &b, qinq, 7, 4);
	eth_dgram(5000, &b, NULL, 7, 5);
	eth_dgram(6000, &a, q, 0, 1);
}

/* An ARP request from 10.0.1.1 for 10.0.1.2 behind h; its length. */
static size_t arp(uint8_t *f, size_t h)
{
	memset(f + h, 0, 28);
	put16(f + h, 1); /* Ethernet */
	put16(f + h + 2, 0x0800);
	f[h + 4] = 6;
	f[h + 5] = 4;
	put16(f + h + 6, 1); /* request */
	memcpy(f + h + 14, (const uint8_t[]){ 10, 0, 1, 1 }, 4);
	memcpy(f + h + 24, (const uint8_t[]){ 10, 0, 1, 2 }, 4);
	return h + 28;
}

static void nonip(void)
{
	struct dgram a = pool(1, 64), b = pool(8, 64);
	uint8_t f[64];
	size_t n = arp(f, eth(f, NULL, 0x0806));

	record(0, f, n, "-", 100);
	eth_dgram(1000, &a, NULL, 1, 0);
	record(2000, f, n, "-", 100);
	eth_dgram(3000, &b, NULL, 8, 1);
	record(4000, f, n, "-", 100);
	eth_dgram(5000, &a, NULL, 1, 0);
	/* an Ethernet frame too short for its header */
	record(6000, f, 10, "-", 101);
}

static void netdev(void)
{
	static const struct {
		uint8_t mac;
		uint16_t vid;
		int what; /* 0, 1: datagram a, b; 2: ARP */
		const char *key;
		int frame;
	} t[] = {
		{ 1, 0, 0, "0", 0 },   { 1, 0, 0, "0", 0 },
		{ 1, 10, 0, "0", 1 },  { 3, 10, 0, "0", 2 },
		{ 1, 0, 2, "-", 3 },   { 1, 0, 2, "-", 3 },
		{ 1, 20, 0, "0", 4 },  { 1, 0, 1, "8", 5 },
		{ 3, 0, 2, "-", 6 },
	};
	struct dgram a = pool(0, 64), b = pool(8, 64);

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const struct dgram *d = t[i].what ? &b : &a;
		uint8_t f[2048];
		size_t off;

		if (t[i].what == 2) {
			off = arp(f, eth_mac(f, t[i].mac, t[i].vid, 0x0806));
		} else {
			off = eth_mac(f, t[i].mac, t[i].vid,
				      d->family == 4 ? 0x0800 : 0x86dd);
			off += build_ip(f + off, d);
		}
		record(i * 1000ull, f, off, t[i].key, t[i].frame);
	}
}

/*
 * Datagram a plain, then inside tunnels: VXLAN on 4789 from two outer
 * sources and on 8472 (Ethernet inside), GRE, Geneve and GTP-U (IP
 * inside). Every record has its own key until a tunnel is opened.
 */
static void tunnel(void)
{
	static const struct {
		int kind; /* 0 VXLAN, 1 GRE, 2 Geneve, 3 GTP-U */
		uint16_t port;
		uint8_t src;
	} t[] = {
		{ 0, 4789, 1 }, { 0, 4789, 3 }, { 0, 8472, 1 },
		{ 1, 0, 1 },	{ 2, 6081, 1 }, { 3, 2152, 1 },
	};
	struct dgram a = pool(0, 64);
	uint8_t f[2048], in[2048];
	size_t off, n;

	off = eth(f, NULL, 0x0800);
	record(0, f, off + build_ip(f + off, &a), "100", 100);
	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t hdr[16] = { 0 };
		size_t hl = 8, ol;
		char k[16];

		n = 0;
		if (t[i].kind == 0) /* VXLAN carries Ethernet */
			n = eth(in, NULL, 0x0800);
		n += build_ip(in + n, &a);
		switch (t[i].kind) {
		case 0: /* flags: I; VNI 42 */
			hdr[0] = 0x08;
			hdr[6] = 42;
			break;
		case 1: /* GRE version 0, IPv4 */
			put16(hdr + 2, 0x0800);
			hl = 4;
			break;
		case 2: /* Geneve version 0, no options, IPv4; VNI 42 */
			put16(hdr + 2, 0x0800);
			hdr[6] = 42;
			break;
		default: /* GTP-U version 1, PT 1, G-PDU, TEID 42 */
			hdr[0] = 0x30;
			hdr[1] = 0xff;
			put16(hdr + 2, (uint32_t)n);
			hdr[7] = 42;
			break;
		}
		off = eth(f, NULL, 0x0800);
		ol = hl + n + (t[i].kind == 1 ? 0 : 8);
		off += outer_ip(f + off, t[i].kind == 1 ? 47 : 17, t[i].src, ol);
		if (t[i].kind != 1)
			off += outer_udp(f + off, t[i].port, hl + n);
		memcpy(f + off, hdr, hl);
		memcpy(f + off + hl, in, n);
		snprintf(k, sizeof(k), "%u", 101 + i);
		record((i + 1) * 1000ull, f, off + hl + n, k, (int)(101 + i));
	}
}

/* a at 0, b at 10 ms, a at 1 ms (late) and at 10.5 ms */
static void late(void)
{
	struct dgram a = pool(2, 64), b = pool(3, 64);

	eth_dgram(0, &a, NULL, 2, 0);
	eth_dgram(10000000, &b, NULL, 3, 1);
	eth_dgram(1000000, &a, NULL, 2, 0);
	eth_dgram(10500000, &a, NULL, 2, 0);
}

/* pcapng, by hand: libpcap writes pcap files only */
static FILE *ng;

static void ng_block(uint32_t type, const uint8_t *body, size_t len)
{
	static const uint8_t pad[4];
	uint32_t total = (uint32_t)(12 + ((len + 3) & ~(size_t)3));

	fwrite(&type, 4, 1, ng);
	fwrite(&total, 4, 1, ng);
	fwrite(body, 1, len, ng);
	fwrite(pad, 1, (4 - len % 4) % 4, ng);
	fwrite(&total, 4, 1, ng);
}

static void ng_idb(uint16_t linktype, uint32_t snaplen)
{
	uint8_t b[8] = { 0 };

	memcpy(b, &linktype, 2);
	memcpy(b + 4, &snaplen, 4);
	ng_block(1, b, sizeof(b));
}

/* an enhanced packet block of a's frame on interface id, at t us */
static void ng_epb(uint32_t id, uint64_t t, const struct dgram *a, int cls)
{
	uint8_t b[2048];
	uint32_t w[5] = { id, (uint32_t)(t >> 32), (uint32_t)t };
	size_t n = eth(b + 20, NULL, 0x0800);

	n += build_ip(b + 20 + n, a);
	w[3] = w[4] = (uint32_t)n;
	memcpy(b, w, 20);
	ng_block(6, b, 20 + n);
	printf("%u %d %d\n", ++nrec, cls, cls);
}

static int ifaces(const char *kind, const char *path)
{
	/* byte-order magic, version 1.0, section length unknown (-1) */
	uint32_t shb[4] = { 0x1a2b3c4d, 1, 0xffffffff, 0xffffffff };
	struct dgram a = pool(0, 64), b = pool(1, 64);

	if (strcmp(kind, "same") && strcmp(kind, "type") && strcmp(kind, "snap")) {
		fprintf(stderr, "ddf_pcapgen: no interfaces '%s'\n", kind);
		return 2;
	}
	ng = fopen(path, "wb");
	if (!ng) {
		perror(path);
		return 1;
	}
	ng_block(0x0a0d0d0a, (const uint8_t *)shb, sizeof(shb));
	ng_idb(DLT_EN10MB, 65535);
	ng_epb(0, 0, &a, 0);
	ng_epb(0, 1000, &b, 1);
	ng_idb(!strcmp(kind, "type") ? DLT_LINUX_SLL : DLT_EN10MB,
	       !strcmp(kind, "snap") ? 128 : 65535);
	ng_epb(1, 2000, &a, 0);
	return fclose(ng) ? 1 : 0;
}

static void timed(void)
{
	static const uint64_t us[] = { 0, 1000, 2500, 10000, 10500, 30000,
				       40000, 42000 };
	struct dgram a = pool(2, 64);

	for (unsigned int i = 0; i < sizeof(us) / sizeof(us[0]); i++)
		eth_dgram(us[i] * 1000, &a, NULL, 2, 0);
	eth_dgram(44000001, &a, NULL, 2, 0);
}

/* The link header of type name before an IP packet of version v. */
static size_t link_hdr(const char *name, uint8_t *f, int v)
{
	uint16_t type = v == 4 ? 0x0800 : 0x86dd;
	uint32_t af = v == 4 ? 2 : (!strcmp(name, "loop") ? 24 : 10);

	if (!strcmp(name, "en10mb"))
		return eth(f, NULL, type);
	if (!strcmp(name, "sll")) {
		memset(f, 0, 16);
		put16(f + 2, 1); /* ARPHRD_ETHER */
		put16(f + 4, 6);
		put16(f + 14, type);
		return 16;
	}
	if (!strcmp(name, "sll2")) {
		memset(f, 0, 20);
		put16(f, type);
		put32(f + 4, 2); /* ifindex */
		put16(f + 8, 1);
		f[11] = 6;
		return 20;
	}
	if (!strcmp(name, "null")) { /* host order of a little-endian host */
		f[0] = (uint8_t)af;
		f[1] = f[2] = f[3] = 0;
		return 4;
	}
	if (!strcmp(name, "nullbe") || !strcmp(name, "loop")) {
		put32(f, af);
		return 4;
	}
	if (!strcmp(name, "ppp")) {
		put16(f, 0xff03);
		put16(f + 2, v == 4 ? 0x0021 : 0x0057);
		return 4;
	}
	return 0; /* raw, ipv4, ipv6 */
}

static int link_dlt(const char *name)
{
	static const struct {
		const char *name;
		int dlt;
	} t[] = {
		{ "en10mb", DLT_EN10MB }, { "raw", DLT_RAW },
		{ "ipv4", DLT_IPV4 },	  { "ipv6", DLT_IPV6 },
		{ "sll", DLT_LINUX_SLL }, { "sll2", DLT_LINUX_SLL2 },
		{ "null", DLT_NULL },	  { "nullbe", DLT_NULL },
		{ "loop", DLT_LOOP },	  { "ppp", DLT_PPP },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i].name, name))
			return t[i].dlt;
	return -1;
}

/* A, B, A one hop older, C (IPv6), C one hop older, B, D (IPv6), A */
static void link_seq(const char *name)
{
	static const struct {
		unsigned int id;
		uint8_t ttl;
	} seq[] = { { 0, 64 }, { 1, 64 }, { 0, 63 }, { 6, 64 },
		    { 6, 63 }, { 1, 64 }, { 7, 64 }, { 0, 64 } };
	bool ppp = !strcmp(name, "ppp");

	for (unsigned int i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct dgram d = pool(seq[i].id, seq[i].ttl);
		uint8_t f[2048];
		size_t off;
		char k[16];

		if ((dlt == DLT_IPV4 && d.family != 4) ||
		    (dlt == DLT_IPV6 && d.family != 6))
			continue;
		off = link_hdr(name, f, d.family);
		snprintf(k, sizeof(k), "%u", seq[i].id);
		record(i * 1000ull, f, off + build_ip(f + off, &d),
		       ppp ? "-" : k, (int)(seq[i].id * 2 + (seq[i].ttl & 1)));
	}
}

/* ports FILE1 FILE2: mixed over two ports, port 2 in microseconds */
static int ports(const char *path1, const char *path2)
{
	pcap_t *dead[2] = {
		pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
						     PCAP_TSTAMP_PRECISION_NANO),
		pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
						     PCAP_TSTAMP_PRECISION_MICRO),
	};
	const char *path[2] = { path1, path2 };

	for (int i = 0; i < 2; i++) {
		if (!dead[i] ||
		    !(port_dump[i] = pcap_dump_open(dead[i], path[i]))) {
			fprintf(stderr, "ddf_pcapgen: %s: %s\n", path[i],
				dead[i] ? pcap_geterr(dead[i]) : "no memory");
			return 1;
		}
	}
	mixed();
	for (int i = 0; i < 2; i++) {
		pcap_dump_close(port_dump[i]);
		pcap_close(dead[i]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *s = argc == 3 || argc == 4 ? argv[1] : "";
	pcap_t *dead;

	if (argc == 4 && strcmp(argv[3], "usec"))
		s = "";
	if (argc == 4 && !strcmp(argv[1], "ports"))
		return ports(argv[2], argv[3]);
	usec = argc == 4;
	dlt = DLT_EN10MB;
	if (!strncmp(s, "ifaces:", 7))
		return ifaces(s + 7, argv[2]);
	if (!strncmp(s, "link:", 5)) {
		dlt = link_dlt(s + 5);
		if (dlt < 0) {
			fprintf(stderr, "ddf_pcapgen: no link type '%s'\n", s + 5);
			return 2;
		}
	} else if (strcmp(s, "mixed") && strcmp(s, "vlan") &&
		   strcmp(s, "nonip") && strcmp(s, "time") &&
		   strcmp(s, "netdev") && strcmp(s, "tunnel") &&
		   strcmp(s, "late")) {
		fprintf(stderr,
			"usage: ddf_pcapgen mixed|vlan|nonip|time|netdev|tunnel|late|link:TYPE|ifaces:K FILE [usec]\n"
			"       ddf_pcapgen ports FILE1 FILE2\n");
		return 2;
	}
	dead = pcap_open_dead_with_tstamp_precision(
		dlt, 65535,
		usec ? PCAP_TSTAMP_PRECISION_MICRO : PCAP_TSTAMP_PRECISION_NANO);
	if (!dead || !(dump = pcap_dump_open(dead, argv[2]))) {
		fprintf(stderr, "ddf_pcapgen: %s: %s\n", argv[2],
			dead ? pcap_geterr(dead) : "no memory");
		return 1;
	}
	if (!strcmp(s, "mixed"))
		mixed();
	else if (!strcmp(s, "vlan"))
		vlan();
	else if (!strcmp(s, "nonip"))
		nonip();
	else if (!strcmp(s, "time"))
		timed();
	else if (!strcmp(s, "netdev"))
		netdev();
	else if (!strcmp(s, "tunnel"))
		tunnel();
	else if (!strcmp(s, "late"))
		late();
	else
		link_seq(s + 5);
	pcap_dump_close(dump);
	pcap_close(dead);
	return 0;
}
