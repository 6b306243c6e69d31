/* SPDX-License-Identifier: GPL-2.0 */
/* ddfctl advise (advise.c): its state, shared with advise_print.c */
#ifndef DDFCTL_ADVISE_H
#define DDFCTL_ADVISE_H

#include <stdbool.h>
#include <stdint.h>

#include "ddfctl.h"

/* a difference between a copy and its packet, and the words that hide it */
struct adv_dim {
	const char *name, *what;
	uint32_t ignore, decap;
	bool l2; /* the link layer: family netdev only */
};

#define ADV_V4HDR (DDF_KI_TTL | DDF_KI_DSCP | DDF_KI_ECN | DDF_KI_IPID)

#define NDIMS 10u
extern const struct adv_dim adv_dims[NDIMS];


#define DIM_MAC 8
#define DIM_TUNNEL 9
/*
 * The first pass's masks: frame, strict, then per dimension: KEEP (it
 * kept, all else hidden, tunnels opened), KEEPOUT (the same, tunnels
 * closed: the outer headers' fields) and ONE (strict, it hidden).
 */
#define M_FRAME 0
#define M_STRICT 1
#define M_KEEP(i) (2 + (i))
#define M_KEEPOUT(i) (2 + NDIMS + (i))
#define M_ONE(i) (2 + 2 * NDIMS + (i))
#define NMASKS (2 + 3 * NDIMS)

struct adv_entry {
	uint64_t h[2]; /* the key's hash: h[0] | h[1] is never 0 */
	uint64_t pkt, ns; /* the first packet with it */
};

/* Open addressing over 128-bit hashes; values by insertion number. */
struct adv_table {
	struct adv_entry *e;
	uint64_t cap, n; /* cap: a power of two */
};

struct advise {
	const char **in;
	unsigned int nin;
	uint64_t max_records; /* -c; 0: all */
	const char *log_path; /* -l */
	bool netdev; /* every FILE is Ethernet */
	struct ddf_key_secret key;
	struct ddf_key_spec spec[NMASKS], loose;
	/* first pass */
	uint64_t records, packets, cand, distinct;
	uint64_t *keys; /* NMASKS keys (64 bits) per distinct loose key */
	uint8_t *macs; /* 12 bytes per distinct loose key */
	uint64_t differs[NDIMS], once[NDIMS], strict_match, frame_match;
	uint64_t mac_bytes; /* copies whose MAC addresses differ */
	uint32_t need_ignore, need_decap;
	/* the rule and the second pass */
	char ignore_w[128], decap_w[64];
	struct ddf_rule_spec rule;
	bool fell_back;
	uint64_t copies, rdistinct;
	uint64_t *dpk, *dns, *pts; /* copies' delays; every packet's time */
	uint64_t npts, cap_pts, cap_dpk, cap_dns;
	uint64_t pk[5], tns[5]; /* p50 p90 p99 p99.9 max */
	uint64_t win_ns, win_n, cover_ns, beyond, peak;
	uint64_t win_count, beyond_count; /* a count window instead */
	bool by_count; /* recommended: the count window */
	char words[512];
};

void advise_print_json(const struct advise *a);
void advise_print_text(const struct advise *a);

#endif
