// SPDX-License-Identifier: GPL-2.0
/*
 * ddf_pcapgen: captures with duplicates at known places, for the tests of
 * ddfctl replay and for the VM test that replays one through the kernel.
 *
 *   ddf_pcapgen SCENARIO FILE [usec]
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
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

#define POOL 12

static pcap_dumper_t *dump;
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

	pcap_dump((u_char *)dump, &h, frame);
	printf("%u %s %d\n", ++nrec, key, frame_class);
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

static void nonip(void)
{
	struct dgram a = pool(1, 64), b = pool(8, 64);
	uint8_t f[64];
	size_t off = eth(f, NULL, 0x0806);

	memset(f + off, 0, 28);
	put16(f + off, 1); /* Ethernet */
	put16(f + off + 2, 0x0800);
	f[off + 4] = 6;
	f[off + 5] = 4;
	put16(f + off + 6, 1); /* request */
	memcpy(f + off + 14, (const uint8_t[]){ 10, 0, 1, 1 }, 4);
	memcpy(f + off + 24, (const uint8_t[]){ 10, 0, 1, 2 }, 4);
	record(0, f, off + 28, "-", 100);
	eth_dgram(1000, &a, NULL, 1, 0);
	record(2000, f, off + 28, "-", 100);
	eth_dgram(3000, &b, NULL, 8, 1);
	record(4000, f, off + 28, "-", 100);
	eth_dgram(5000, &a, NULL, 1, 0);
	/* an Ethernet frame too short for its header */
	record(6000, f, 10, "-", 101);
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

int main(int argc, char **argv)
{
	const char *s = argc == 3 || argc == 4 ? argv[1] : "";
	pcap_t *dead;

	if (argc == 4 && strcmp(argv[3], "usec"))
		s = "";
	usec = argc == 4;
	dlt = DLT_EN10MB;
	if (!strncmp(s, "link:", 5)) {
		dlt = link_dlt(s + 5);
		if (dlt < 0) {
			fprintf(stderr, "ddf_pcapgen: no link type '%s'\n", s + 5);
			return 2;
		}
	} else if (strcmp(s, "mixed") && strcmp(s, "vlan") &&
		   strcmp(s, "nonip") && strcmp(s, "time")) {
		fprintf(stderr,
			"usage: ddf_pcapgen mixed|vlan|nonip|time|link:TYPE FILE [usec]\n");
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
	else
		link_seq(s + 5);
	pcap_dump_close(dump);
	pcap_close(dead);
	return 0;
}
