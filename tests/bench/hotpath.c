// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path of a ddf rule in userspace: ddf_key_hash() and
 * ddf_filter_test_and_insert() over the packets pktgen sends in the
 * kernel benchmark (tests/bench/vm-bench.sh): IPv4/UDP to 198.18.0.1:9,
 * random source in 10.0.0.0/8, random source port, pktgen's header
 * (magic, sequence number, zero time) at the start of the payload.
 *
 *   ddf_hotpath KIND WINDOW SIZE KEY FILL PACKETS
 *	KIND     apbbf qqhtd exact ... (sized at fpr 1e-6 as `ddfctl size`)
 *	SIZE     pktgen's pkt_size (frame + 4-byte CRC): 64, 512, ...
 *	KEY      pkt (key packet, the defaults) or 5t (saddr,daddr,proto,
 *	         sport,dport,payload 0:16)
 *	FILL     packets sent before the measured ones
 *	PACKETS  packets measured
 *
 * Run under `valgrind --tool=callgrind --instr-atstart=no`: only the
 * measured loop is instrumented, so instructions / PACKETS is the cost of
 * one packet, packet building included (tests/bench/callgrind.sh subtracts
 * it: a run with KIND none only builds the packets).
 *
 * With DDF_HOTPATH_TIME=ROUNDS it times instead (tests/bench/time.sh):
 * each round PACKETS packets through the path, then as many only built,
 * on the clock; it prints each round's nanoseconds per packet (the
 * difference over PACKETS) and their median.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_frame.h"
#include "ddf_key.h"
#include "ddf_registry.h"
#include "ddf_size.h"

/* The IP packet of pktgen's seq-th frame; its length */
__attribute__((noinline)) uint32_t ddf_hotpath_build(uint8_t *p, uint32_t size,
						     uint32_t seq)
{
	uint32_t len = size - 4 - 14; /* no CRC, no Ethernet header */
	uint32_t src = 0x0a000001u + rnd() % 0xfffffeu;

	memset(p, 0, len);
	p[0] = 0x45;
	put16(p + 2, len);
	put16(p + 4, seq);
	p[8] = 32;
	p[9] = 17;
	put32(p + 12, src);
	put32(p + 16, 0xc6120001u);
	put16(p + 20, 1 + rnd() % 65535);
	put16(p + 22, 9);
	put16(p + 24, len - 20);
	put32(p + 28, 0xbe9be955u);
	put32(p + 32, seq);
	return len;
}

static struct ddf_filter *filter;
static struct ddf_key_spec spec;
static const struct ddf_sipkey sipkey = { 0x0706050403020100ull,
					  0x0f0e0d0c0b0a0908ull };
static struct ddf_key_secret key; /* from sipkey, in main() */
static uint8_t pkt[2048];
static uint64_t dups, hashed;

__attribute__((noinline)) void ddf_hotpath_run(uint32_t size, uint32_t seq,
					       uint32_t n)
{
	struct ddf_hash h;

	for (uint32_t i = 0; i < n; i++) {
		struct ddf_key_flat flat;

		flat.data = pkt;
		flat.len = ddf_hotpath_build(pkt, size, seq + i);
		if (!filter)
			continue;
		if (ddf_key_hash(&spec, NULL, &flat, flat.len,
				 &key, DDF_HASH_SIP13, &h, NULL) != DDF_KEY_HASHED)
			continue;
		hashed++;
		dups += ddf_filter_test_and_insert(filter, &h, 0);
	}
}

static double ddf_hotpath_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int ddf_hotpath_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* rounds of n packets on the clock, from seq on; the median printed */
static void ddf_hotpath_time(uint32_t size, uint32_t seq, uint32_t n,
			     int rounds)
{
	struct ddf_filter *keep = filter;
	double v[64], t0, t1, t2;

	if (rounds > 64)
		rounds = 64;
	printf("ns/packet");
	for (int r = 0; r < rounds; r++, seq += 2 * n) {
		filter = keep;
		t0 = ddf_hotpath_ns();
		ddf_hotpath_run(size, seq, n);
		t1 = ddf_hotpath_ns();
		filter = NULL; /* the same loop, the packets built alone */
		ddf_hotpath_run(size, seq + n, n);
		t2 = ddf_hotpath_ns();
		v[r] = ((t1 - t0) - (t2 - t1)) / n;
		printf(" %.1f", v[r]);
	}
	filter = keep;
	qsort(v, rounds, sizeof(v[0]), ddf_hotpath_cmp);
	printf("; median %.1f\n", v[rounds / 2]);
}

int main(int argc, char **argv)
{
	const struct ddf_filter_type *t;
	struct ddf_size_report rep;
	struct ddf_size_req req;
	struct ddf_params p;
	const char *why = NULL, *env;
	uint32_t size, fill, n;
	void *mem;

	if (argc != 7) {
		fprintf(stderr, "usage: %s KIND|none WINDOW SIZE pkt|5t FILL PACKETS\n",
			argv[0]);
		return 2;
	}
	size = strtoul(argv[3], NULL, 0);
	fill = strtoul(argv[5], NULL, 0);
	n = strtoul(argv[6], NULL, 0);
	if (size < 64 || size > sizeof(pkt)) {
		fprintf(stderr, "size: 64 .. %zu\n", sizeof(pkt));
		return 2;
	}
	ddf_key_secret_init(&key, &sipkey);
	ddf_key_spec_default(&spec);
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
	if (strcmp(argv[1], "none")) {
		t = ddf_filter_type_by_name(argv[1]);
		if (!t) {
			fprintf(stderr, "no filter kind %s\n", argv[1]);
			return 2;
		}
		memset(&req, 0, sizeof(req));
		req.kind = t->kind;
		req.window = strtoull(argv[2], NULL, 0);
		if (t->kind != DDF_KIND_EXACT)
			req.fpr = 1e-6;
		/* sized as ddfctl sizes it: tune speed unless told */
		req.tune = DDF_TUNE_SPEED;
		env = getenv("DDF_HOTPATH_TUNE");
		if (env && !strcmp(env, "memory"))
			req.tune = DDF_TUNE_MEMORY;
		env = getenv("DDF_HOTPATH_FPR");
		if (env)
			req.fpr = strtod(env, NULL);
		/* a fixed apbf/apbbf shape "k,l[,B,b]", to compare shapes */
		env = getenv("DDF_HOTPATH_SHAPE");
		if (env && sscanf(env, "%u,%u,%u,%u", &req.k, &req.l,
				  &req.block_bits, &req.block_hashes) < 2) {
			fprintf(stderr, "DDF_HOTPATH_SHAPE: k,l[,B,b]\n");
			return 2;
		}
		memset(&p, 0, sizeof(p));
		if (ddf_size(&req, &p, &rep, &why) || ddf_params_resolve(&p, &why)) {
			fprintf(stderr, "size: %s\n", why ? why : "no fit");
			return 1;
		}
		mem = calloc(1, ddf_filter_memsize(&p));
		filter = mem ? ddf_filter_init(mem, ddf_filter_memsize(&p), &p, 0) :
			       NULL;
		if (!filter) {
			fprintf(stderr, "no filter\n");
			return 1;
		}
		printf("bytes %llu shape k=%u l=%u B=%u b=%u\n",
		       (unsigned long long)ddf_filter_memsize(&p), p.k, p.l,
		       p.block_bits, p.block_hashes);
	}
	ddf_hotpath_run(size, 0, fill);
	env = getenv("DDF_HOTPATH_TIME");
	if (env && atoi(env) > 0) {
		ddf_hotpath_time(size, fill, n, atoi(env));
		return 0;
	}
	dups = hashed = 0;
	CALLGRIND_START_INSTRUMENTATION;
	ddf_hotpath_run(size, fill, n);
	CALLGRIND_STOP_INSTRUMENTATION;
	printf("packets %u hashed %llu duplicates %llu\n", n,
	       (unsigned long long)hashed, (unsigned long long)dups);
	return 0;
}
