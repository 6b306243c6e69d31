// SPDX-License-Identifier: GPL-2.0
/*
 * ddf_craft: a capture that floods one APBBF block, for an attacker who
 * knows the rule's SipHash key (its seed) and shape.
 *
 *   ddf_craft -s SEED -w WINDOW -f FPR -n PACKETS OUT.pcap
 *
 * The rule is `filter apbbf window WINDOW fpr FPR seed SEED` with the
 * default key (key packet, ignore ttl,ipv4csum), sized as ddfctl sizes it
 * (ddf_size), fed by nothing but OUT's packets, in order. Every packet is
 * a distinct IPv4 UDP datagram (10.0.1.1:40000 to 10.0.1.2:5000, checksums
 * right) whose payload carries a counter; the crafter hashes candidates
 * with the core's own ddf_key_hash() and keeps those whose blocks fall
 * where it wants, so every packet the filter calls a duplicate is a false
 * positive.
 *
 * Where it wants them. The filter is count based: packet t (from 0) is in
 * generation G = t / g, whose logical segment i is physical segment
 * (i - G) mod (k + l + 1), and a packet's block in physical segment p is
 * reduce(h1 + p * (h2 | 1), m) (ddf_apbbf.c, ddf_hash_dh()). Two
 * kinds of packets, both aimed at block 0 of every segment:
 *  - two of three packets flood: their blocks in logical segments
 *    0 .. k-1, the ones their insert sets bits in, are block 0, so every
 *    segment's block 0 takes about 2/3 of the k g inserts a segment gets
 *    over its k generations and fills up (512 bits, 4 per insert);
 *  - every third probes: its blocks in logical segments k .. 2k-1, full
 *    floods of the last generations, are block 0, so the query finds k
 *    consecutive matching segments there: a false positive, with a chance
 *    near (fill of block 0)^(k b).
 * Each wanted packet costs about m^k hashes. With any other key the same
 * packets fall in blocks at random: the false positives of random traffic.
 *
 * Prints the shape and what was crafted on stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddf_filter.h"
#include "ddf_registry.h"
#include "ddf_size.h"
#include "ddf_hash.h"
#include "ddf_key.h"

#define ETH_LEN 14
#define IP_LEN 20
#define UDP_LEN 8
#define PAY_LEN 16
#define PKT_LEN (ETH_LEN + IP_LEN + UDP_LEN + PAY_LEN)

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "ddf_craft: %s\n", what);
	exit(2);
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32le(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

/* An Ethernet frame with the IPv4 UDP datagram whose payload holds n. */
static void build(uint8_t *f, uint64_t n)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	uint8_t *ip = f + ETH_LEN, *udp = ip + IP_LEN, *pay = udp + UDP_LEN;
	uint32_t sum = 0;

	memset(f, 0, PKT_LEN);
	memcpy(f, macs, sizeof(macs));
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, IP_LEN + UDP_LEN + PAY_LEN);
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (const uint8_t[8]){ 10, 0, 1, 1, 10, 0, 1, 2 }, 8);
	for (int i = 0; i < IP_LEN; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(ip + 10, ~sum & 0xffff);
	put16(udp, 40000);
	put16(udp + 2, 5000);
	put16(udp + 4, UDP_LEN + PAY_LEN);
	/* UDP checksum 0: none, which IPv4 allows */
	memcpy(pay, "ddfcraft", 8);
	put64(pay + 8, n);
}

static void pcap_header(FILE *out)
{
	uint8_t h[24] = { 0 };

	put32le(h, 0xa1b2c3d4); /* microsecond timestamps */
	h[4] = 2; /* version 2.4 */
	h[6] = 4;
	put32le(h + 16, 65535);
	put32le(h + 20, 1); /* Ethernet */
	if (fwrite(h, sizeof(h), 1, out) != 1)
		die("cannot write the capture");
}

static void pcap_record(FILE *out, uint64_t t, const uint8_t *f)
{
	uint8_t h[16];

	/* a microsecond apart: only the order matters to a count window */
	put32le(h, (uint32_t)(t / 1000000));
	put32le(h + 4, (uint32_t)(t % 1000000));
	put32le(h + 8, PKT_LEN);
	put32le(h + 12, PKT_LEN);
	if (fwrite(h, sizeof(h), 1, out) != 1 ||
	    fwrite(f, PKT_LEN, 1, out) != 1)
		die("cannot write the capture");
}

static void parse_seed(const char *s, uint8_t seed[16])
{
	if (strlen(s) != 32)
		die("-s wants 32 hex digits");
	for (int i = 0; i < 16; i++) {
		char b[3] = { s[2 * i], s[2 * i + 1], 0 }, *end;

		seed[i] = (uint8_t)strtoul(b, &end, 16);
		if (*end)
			die("-s wants 32 hex digits");
	}
}

int main(int argc, char **argv)
{
	struct ddf_size_req req = { .kind = DDF_KIND_APBBF };
	struct ddf_key_spec spec;
	struct ddf_size_report rep;
	struct ddf_params p = { 0 };
	struct ddf_key_secret key;
	struct ddf_sipkey sk;
	uint64_t n = 0, tries = 0, cand = 0, g, probes = 0;
	uint8_t seed[16], frame[PKT_LEN];
	const char *why = NULL;
	bool have_seed = false;
	uint32_t nseg;
	FILE *out;
	int c;

	while ((c = getopt(argc, argv, "s:w:f:n:")) != -1) {
		switch (c) {
		case 's':
			parse_seed(optarg, seed);
			have_seed = true;
			break;
		case 'w':
			req.window = strtoull(optarg, NULL, 0);
			break;
		case 'f':
			req.fpr = strtod(optarg, NULL);
			break;
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		default:
			die("usage: ddf_craft -s SEED -w WINDOW -f FPR -n PACKETS OUT.pcap");
		}
	}
	if (optind + 1 != argc || !have_seed || !req.window || !n ||
	    !(req.fpr > 0 && req.fpr < 1))
		die("usage: ddf_craft -s SEED -w WINDOW -f FPR -n PACKETS OUT.pcap");
	if (ddf_size(&req, &p, &rep, &why) || ddf_params_resolve(&p, &why))
		die(why ? why : "no apbbf for this window and fpr");
	g = p.window / p.l;
	nseg = p.k + p.l + 1;
	ddf_sipkey_from_bytes(&sk, seed);
	ddf_key_secret_init(&key, &sk);
	ddf_key_spec_default(&spec);
	out = fopen(argv[optind], "wb");
	if (!out)
		die(strerror(errno));
	pcap_header(out);

	for (uint64_t t = 0; t < n; t++) {
		uint64_t G = t / g;
		/* a probe looks at logical k .. 2k-1, a flood sets 0 .. k-1 */
		uint32_t first = t % 3 == 2 ? p.k : 0;
		bool hit;

		probes += first != 0;
		do {
			struct ddf_key_flat flat = { frame + ETH_LEN, PKT_LEN - ETH_LEN };
			struct ddf_hash h;

			build(frame, cand++);
			tries++;
			if (ddf_key_hash(&spec, ddf_key_read_flat, &flat, flat.len,
					 &key, DDF_HASH_SIP13, &h,
					 NULL) != DDF_KEY_HASHED)
				die("the key of a crafted packet did not hash");
			hit = true;
			for (uint32_t i = 0; i < p.k && hit; i++) {
				uint32_t ph = (uint32_t)((first + i + nseg -
							  G % nseg) % nseg);

				hit = ddf_reduce(ddf_hash_dh(&h, ph), p.m) == 0;
			}
		} while (!hit);
		pcap_record(out, t, frame);
	}
	if (fclose(out))
		die(strerror(errno));
	printf("ddf_craft: apbbf k=%u l=%u m=%llu B=%u b=%u, %llu per generation,"
	       " window %llu, analytic fpr %.3g\n",
	       p.k, p.l, (unsigned long long)p.m, p.block_bits, p.block_hashes,
	       (unsigned long long)g, (unsigned long long)p.window, rep.fpr);
	printf("ddf_craft: %llu packets (%llu floods, %llu probes) from %llu"
	       " candidates hashed\n", (unsigned long long)n,
	       (unsigned long long)(n - probes), (unsigned long long)probes,
	       (unsigned long long)tries);
	return 0;
}
