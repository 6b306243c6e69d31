// SPDX-License-Identifier: GPL-2.0
/*
 * The key alone: ddf_key_hash_link() over Ethernet frames whole in memory
 * (a NULL reader, as a linear skb, an XDP buffer or ddfctl replay hands
 * them over), no filter behind it.
 *
 *   ddf_keypath FAMILY PROTO SIZE KEY PACKETS [tagged]
 *	FAMILY   4 or 6
 *	PROTO    udp or tcp
 *	SIZE     the frame's bytes from its MAC header (no CRC): 64 .. 2048,
 *	         74 or more for IPv6/TCP (14 + 40 + 20)
 *	KEY      pkt (key packet, the defaults) or 5t (saddr,daddr,proto,
 *	         sport,dport,payload 0:16), or none: build the frames
 *	         only (the baseline tests/bench/callgrind-key.sh subtracts)
 *	PACKETS  frames measured
 *	tagged   with a VLAN tag the link took out (as a NIC's VLAN
 *	         acceleration does): a frame for the general walk
 *
 * Each frame has a random source address and port, so that no two are
 * alike. Run under `valgrind --tool=callgrind --instr-atstart=no`: only
 * the measured loop is instrumented.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_frame.h"
#include "ddf_key.h"

/* The seq-th frame of SIZE bytes into f: Ethernet, IPv4/IPv6, UDP/TCP. */
__attribute__((noinline)) void ddf_keypath_build(uint8_t *f, uint32_t size,
						 int v6, int tcp, uint32_t seq)
{
	uint32_t len = size - 14, hl = v6 ? 40 : 20;
	uint8_t *p = f + 14, *l4 = p + hl;

	memset(f, 0, size);
	memcpy(f, "\x02\0\0\0\0\x01\x02\0\0\0\0\x02", 12);
	put16(f + 12, v6 ? 0x86dd : 0x0800);
	if (!v6) {
		p[0] = 0x45;
		put16(p + 2, len);
		put16(p + 4, seq);
		p[6] = 0x40; /* DF */
		p[8] = 64;
		p[9] = tcp ? 6 : 17;
		put32(p + 12, 0x0a000001u + rnd() % 0xfffffeu);
		put32(p + 16, 0xc6120001u);
	} else {
		p[0] = 0x60;
		put16(p + 4, len - 40);
		p[6] = tcp ? 6 : 17;
		p[7] = 64;
		put32(p + 8, 0x20010db8u);
		put32(p + 20, rnd());
		put32(p + 24, 0x20010db8u);
		put32(p + 36, 1);
	}
	put16(l4, 1 + rnd() % 65535);
	put16(l4 + 2, 9);
	if (tcp) {
		put32(l4 + 4, seq);
		l4[12] = 0x50;
		l4[13] = 0x18;
		put16(l4 + 14, 512);
	} else {
		put16(l4 + 4, len - hl);
	}
	/* pktgen's magic and sequence number, where there is room */
	if (size >= 14 + hl + (tcp ? 20 : 8) + 8) {
		put32(l4 + (tcp ? 20 : 8), 0xbe9be955u);
		put32(l4 + (tcp ? 24 : 12), seq);
	}
}

static struct ddf_key_spec spec;
static struct ddf_key_link lk = { DDF_LINK_ETHER, 0, 0 };
static const struct ddf_sipkey sipkey = { 0x0706050403020100ull,
					  0x0f0e0d0c0b0a0908ull };
static struct ddf_key_secret key; /* from sipkey, in main() */
static uint8_t frame[2048];
static uint64_t hashed, sum;
static int build_only;

__attribute__((noinline)) void ddf_keypath_run(uint32_t size, int fam, int tcp,
					       uint32_t seq, uint32_t n)
{
	struct ddf_key_info ki;
	struct ddf_hash h;

	for (uint32_t i = 0; i < n; i++) {
		struct ddf_key_flat flat = { frame, size };

		ddf_keypath_build(frame, size, fam == 6, tcp, seq + i);
		if (build_only)
			continue;
		if (ddf_key_hash_link(&spec, &lk, NULL, &flat, flat.len, &key,
				      DDF_HASH_SIP13, &h, &ki) != DDF_KEY_HASHED)
			continue;
		hashed++;
		sum += h.h1 ^ ki.len;
	}
}

int main(int argc, char **argv)
{
	const char *why = NULL;
	uint32_t size, n;
	int fam, tcp;

	if (argc != 6 && !(argc == 7 && !strcmp(argv[6], "tagged"))) {
		fprintf(stderr, "usage: %s 4|6 udp|tcp SIZE pkt|5t|none PACKETS [tagged]\n",
			argv[0]);
		return 2;
	}
	fam = atoi(argv[1]);
	if (argc == 7) {
		lk.vlan_proto = 0x8100;
		lk.vlan_tci = 100;
	}
	tcp = !strcmp(argv[2], "tcp");
	size = strtoul(argv[3], NULL, 0);
	n = strtoul(argv[5], NULL, 0);
	if (size < 64 || size > sizeof(frame) || (fam != 4 && fam != 6) ||
	    size < 14u + (fam == 6 ? 40 : 20) + (tcp ? 20 : 8)) {
		fprintf(stderr, "family 4 or 6; size 64 .. %zu, the headers' at least\n",
			sizeof(frame));
		return 2;
	}
	ddf_key_secret_init(&key, &sipkey);
	ddf_key_spec_default(&spec);
	build_only = !strcmp(argv[4], "none");
	if (!strcmp(argv[4], "5t")) {
		spec.form = DDF_KEY_FIELDS;
		spec.fields = DDF_KF_SADDR | DDF_KF_DADDR | DDF_KF_PROTO |
			      DDF_KF_SPORT | DDF_KF_DPORT | DDF_KF_PAYLOAD;
		spec.payload_off = 0;
		spec.payload_len = 16;
	}
	if (ddf_key_spec_validate(&spec, &why)) {
		fprintf(stderr, "key: %s\n", why);
		return 1;
	}
	ddf_keypath_run(size, fam, tcp, 0, 1000);
	hashed = 0;
	CALLGRIND_START_INSTRUMENTATION;
	ddf_keypath_run(size, fam, tcp, 1000, n);
	CALLGRIND_STOP_INSTRUMENTATION;
	printf("frames %u hashed %llu (%llx)\n", n, (unsigned long long)hashed,
	       (unsigned long long)sum);
	return !build_only && hashed != n;
}
