// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl advise: what rule a capture needs. It reads captures of the
 * capture ports, merged by time as replay merges them (pcap_merge.h), keys
 * every record with replay's own code (replay_key(): ddf_key.c under
 * several ignore masks) and compares keys exactly: every distinct key is
 * kept in memory (its 128-bit SipHash-2-4 under a random key, as filter
 * exact keeps them; the keys under the other masks, compared only between
 * a copy and its own packet, on 64 bits of it), with no window and no
 * probabilistic filter.
 *
 * Two passes over the files. The first finds the candidate copies with
 * the loosest key (every ignore word, every tunnel opened): a record whose
 * loose key an earlier record had is a copy of the first such record, its
 * packet. For each copy it compares, against its packet, the keys under
 * one mask per difference (that difference kept, all else ignored: does
 * it differ? with tunnels opened, and closed when the outer headers are
 * otherwise alike) and under the strict key plus that one word ignored
 * (does the copy match once it is ignored?). The recommended key ignores what
 * differs in some copy and nothing else. The second pass defines the
 * copies by that key, as the rule will: a record whose key an earlier
 * record had; their delays (in packets and in time, from the first record
 * with the key) size the window. Should the recommended key miss a
 * candidate of the first pass (differences that only show together), the
 * loosest key is recommended instead.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <pcap/pcap.h>

#include "advise.h"
#include "pcap_merge.h"
#include "replay_link.h"

/* distinct keys kept in memory at most (about 400 bytes each) */
#define ADV_MAX_DISTINCT (1u << 23)
/* the window: at least this long, and a time window at most an hour */
#define ADV_MIN_NS 1000000ull
#define ADV_MAX_NS 3600000000000ull

const struct adv_dim adv_dims[NDIMS] = {
	{ "ttl", "TTL / hop limit", DDF_KI_TTL, 0, false },
	{ "ipid", "IPv4 identification", DDF_KI_IPID, 0, false },
	{ "dscp", "DSCP", DDF_KI_DSCP, 0, false },
	{ "ecn", "ECN", DDF_KI_ECN, 0, false },
	{ "flowlabel", "IPv6 flow label", DDF_KI_FLOWLABEL, 0, false },
	{ "ipv4csum", "IPv4 header checksum", DDF_KI_IPV4CSUM, 0, false },
	{ "l4csum", "TCP/UDP/SCTP/ICMP checksum", DDF_KI_L4CSUM, 0, false },
	{ "vlan", "VLAN IDs", DDF_KI_VLAN, 0, true },
	{ "mac", "MAC addresses", DDF_KI_MAC, 0, true },
	{ "tunnel", "outer tunnel headers", 0, __DDF_KD_ALL, false },
};


static const char advise_help[] =
	"usage: ddfctl [-j] advise FILE [FILE...] [-c COUNT] [-l LOG]\n"
	"  reads captures of the capture ports (pcap or pcapng; several FILEs\n"
	"  are merged by time as replay merges them), finds the copies by an\n"
	"  exact comparison of keys and reports: the share of copies; the delay\n"
	"  between a packet and its copies (p50 p90 p99 p99.9 max, in packets\n"
	"  and in time); what differs between a copy and its packet (ttl, ipid,\n"
	"  dscp, ecn, flowlabel, ipv4csum, l4csum, vlan, mac, tunnel: the outer\n"
	"  headers) and how many copies match once each is ignored; and, as its\n"
	"  last line, the rule it recommends: 'ddfctl rule add NAME ...', whose\n"
	"  words after NAME 'ddfctl replay FILE...' takes as they are (give your\n"
	"  ports for dev; NAME and DEV are placeholders)\n"
	"  -c COUNT  only the first COUNT records of the merge (a sample of a\n"
	"            huge capture: every distinct key is kept in memory, at most\n"
	"            8388608 of them)\n"
	"  -l LOG    one line per record of the merge: its number (from 1) and\n"
	"            new, copy (under the recommended key) or not-keyed\n"
	"            ('-': stdout)\n"
	"  -j        the same as one JSON object\n"
	"  The key: Ethernet captures are keyed as a family netdev rule keys the\n"
	"  frames of its ports, others as a rule of the IP families. A copy is\n"
	"  a packet whose key under the recommended rule an earlier packet had;\n"
	"  its delay counts from the first packet with that key. The window\n"
	"  covers twice the 99.9th percentile of the delays, and the largest\n"
	"  delay when it is under ten times that percentile (at least 1ms), as\n"
	"  N/DURATION: N twice the most packets seen within DURATION. FILEs are\n"
	"  read twice: not standard input.\n";

static int table_init(struct adv_table *t)
{
	t->cap = 1u << 12;
	t->n = 0;
	t->e = calloc(t->cap, sizeof(*t->e));
	return t->e ? 0 : ddfctl_err("advise: no memory");
}

/*
 * The entry of hash h, inserted (with pkt, ns) when absent: *found says
 * which. NULL after a sentence (memory, the cap).
 */
static struct adv_entry *table_get(struct adv_table *t, const uint64_t *h,
				   uint64_t pkt, uint64_t ns, bool *found)
{
	uint64_t i;

	if (t->n * 2 >= t->cap) {
		struct adv_table g = { calloc(t->cap * 2, sizeof(*t->e)),
				       t->cap * 2, t->n };

		if (!g.e) {
			ddfctl_err("advise: no memory for %llu distinct packets",
				   (unsigned long long)t->n);
			return NULL;
		}
		for (uint64_t j = 0; j < t->cap; j++) {
			if (!(t->e[j].h[0] | t->e[j].h[1]))
				continue;
			for (i = t->e[j].h[0] & (g.cap - 1);
			     g.e[i].h[0] | g.e[i].h[1]; i = (i + 1) & (g.cap - 1))
				;
			g.e[i] = t->e[j];
		}
		free(t->e);
		*t = g;
	}
	for (i = h[0] & (t->cap - 1); t->e[i].h[0] | t->e[i].h[1];
	     i = (i + 1) & (t->cap - 1))
		if (t->e[i].h[0] == h[0] && t->e[i].h[1] == h[1]) {
			*found = true;
			return &t->e[i];
		}
	*found = false;
	if (t->n >= ADV_MAX_DISTINCT) {
		ddfctl_err("advise: more than %u distinct packets: the exact comparison keeps every one in memory; give -c COUNT to advise on the first COUNT records",
			   ADV_MAX_DISTINCT);
		return NULL;
	}
	t->n++;
	t->e[i] = (struct adv_entry){ { h[0], h[1] }, pkt, ns };
	return &t->e[i];
}

/* A 128-bit hash never 0, as the table's empty slot is. */
static void hash128(const struct ddf_hash *h, uint64_t *out)
{
	memcpy(out, h, 2 * sizeof(uint64_t));
	if (!(out[0] | out[1]))
		out[1] = 1;
}

/* The analysis masks: the strict key, and each dimension kept or hidden. */
static void build_specs(struct advise *a)
{
	uint32_t all_ignore = 0;

	for (unsigned int i = 0; i < NDIMS; i++)
		if (a->netdev || !adv_dims[i].l2)
			all_ignore |= adv_dims[i].ignore;
	ddf_key_spec_default(&a->loose);
	a->loose.ignore = all_ignore;
	a->loose.decap = __DDF_KD_ALL;
	ddf_key_spec_default(&a->spec[M_FRAME]);
	a->spec[M_FRAME].form = DDF_KEY_FRAME;
	a->spec[M_FRAME].ignore = 0;
	ddf_key_spec_default(&a->spec[M_STRICT]);
	a->spec[M_STRICT].ignore = 0;
	for (unsigned int i = 0; i < NDIMS; i++) {
		struct ddf_key_spec *keep = &a->spec[M_KEEP(i)];
		struct ddf_key_spec *one = &a->spec[M_ONE(i)];

		/* everything hidden but dimension i */
		*keep = a->loose;
		keep->ignore &= ~adv_dims[i].ignore;
		keep->decap &= ~adv_dims[i].decap;
		a->spec[M_KEEPOUT(i)] = *keep;
		a->spec[M_KEEPOUT(i)].decap = 0;
		/* the strict key with i hidden, as a rule can say it */
		*one = a->spec[M_STRICT];
		one->ignore = adv_dims[i].ignore;
		if (one->ignore & ADV_V4HDR)
			one->ignore |= DDF_KI_IPV4CSUM;
		one->decap = adv_dims[i].decap;
	}
}

/* the key of a record under spec: 0 and *h, or -1 when it has none */
static int key_of(const struct advise *a, const struct ddf_key_spec *spec,
		  int dlt, const struct pcap_pkthdr *h, const uint8_t *d,
		  uint64_t *out)
{
	struct ddf_key_info ki;
	struct ddf_hash hash;

	if (replay_key(spec, a->netdev, DDF_HASH_ALG_SIPHASH24, &a->key, dlt, d,
		       h->caplen, &hash, &ki) != RK_HASHED)
		return -1;
	hash128(&hash, out);
	return 0;
}

/* Every FILE Ethernet: keyed as family netdev. */
static void check_link_types(struct advise *a, struct pcap_merge *m)
{
	a->netdev = true;
	for (unsigned int i = 0; i < a->nin; i++)
		if (pcap_merge_file(m, i)->dlt != DLT_EN10MB)
			a->netdev = false;
}

/* The first pass: candidates by the loose key, what differs. */
static int pass1(struct advise *a)
{
	struct pcap_merge *m = pcap_merge_open("advise", a->nin, a->in);
	struct adv_table t;
	struct pcap_merge_rec rec;
	uint64_t cap_keys = 0;
	int ret = 0;

	if (!m)
		return -1;
	check_link_types(a, m);
	build_specs(a);
	if (table_init(&t)) {
		pcap_merge_close(m);
		return -1;
	}
	while ((!a->max_records || a->records < a->max_records) &&
	       (ret = pcap_merge_next(m, &rec)) == 1) {
		int dlt = pcap_merge_file(m, rec.file)->dlt;
		uint64_t lk[2], k[NMASKS][2];
		struct adv_entry *e;
		const uint64_t *pk;
		bool found, same_outer;
		uint64_t idx;

		a->records++;
		if (key_of(a, &a->loose, dlt, rec.h, rec.data, lk))
			continue;
		a->packets++;
		for (unsigned int j = 0; j < NMASKS; j++)
			if (key_of(a, &a->spec[j], dlt, rec.h, rec.data, k[j]))
				k[j][0] = k[j][1] = 0;
		e = table_get(&t, lk, t.n, 0, &found);
		if (!e)
			goto fail;
		idx = e->pkt; /* its number among the distinct keys */
		if (!found) {
			if (idx >= cap_keys) {
				uint64_t n = cap_keys ? cap_keys * 2 : 4096;
				uint64_t *nk = realloc(a->keys, n * NMASKS * 8);
				uint8_t *nm = nk ? realloc(a->macs, n * 12) :
						   NULL;

				if (nk)
					a->keys = nk;
				if (!nk || !nm) {
					ddfctl_err("advise: no memory for %llu distinct packets",
						   (unsigned long long)idx);
					goto fail;
				}
				a->macs = nm;
				cap_keys = n;
			}
			for (unsigned int j = 0; j < NMASKS; j++)
				a->keys[idx * NMASKS + j] = k[j][0];
			memset(a->macs + idx * 12, 0, 12);
			if (a->netdev && rec.h->caplen >= 12)
				memcpy(a->macs + idx * 12, rec.data, 12);
			continue;
		}
		/* a copy of packet idx: compare key by key */
		pk = a->keys + idx * NMASKS;

		a->cand++;
		a->frame_match += pk[M_FRAME] == k[M_FRAME][0];
		a->strict_match += pk[M_STRICT] == k[M_STRICT][0];
		/* the same outer headers: their fields are compared too */
		same_outer = pk[M_KEEP(DIM_TUNNEL)] == k[M_KEEP(DIM_TUNNEL)][0];
		for (unsigned int i = 0; i < NDIMS; i++) {
			if (pk[M_KEEP(i)] != k[M_KEEP(i)][0] ||
			    (same_outer &&
			     pk[M_KEEPOUT(i)] != k[M_KEEPOUT(i)][0])) {
				a->differs[i]++;
				a->need_ignore |= adv_dims[i].ignore;
				a->need_decap |= adv_dims[i].decap;
			}
			a->once[i] += pk[M_ONE(i)] == k[M_ONE(i)][0];
		}
		if (a->netdev && rec.h->caplen >= 12 &&
		    memcmp(a->macs + idx * 12, rec.data, 12))
			a->mac_bytes++;
	}
	if (ret < 0)
		goto fail;
	a->distinct = t.n;
	free(t.e);
	pcap_merge_close(m);
	return 0;
fail:
	free(t.e);
	pcap_merge_close(m);
	return -1;
}

/* the words of an ignore mask, comma-separated, or "none" */
static void ignore_words(uint32_t ignore, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	for (const struct ddf_word *w = ddf_key_ignores; w->name; w++)
		if (ignore & w->value)
			len += snprintf(buf + len, n - len, "%s%s",
					len ? "," : "", w->name);
	if (!len)
		snprintf(buf, n, "none");
}

/* The rule's words from its masks; its key via parse_rule_words() */
static int make_rule(struct advise *a, uint32_t ignore, uint32_t decap,
		     const char *window)
{
	char *w[16];
	int n = 0;

	if (ignore & ADV_V4HDR)
		ignore |= DDF_KI_IPV4CSUM;
	ignore_words(ignore, a->ignore_w, sizeof(a->ignore_w));
	a->decap_w[0] = 0;
	if (decap)
		snprintf(a->decap_w, sizeof(a->decap_w),
			 "vxlan,geneve,gre,erspan,gtpu");
	if (a->netdev) {
		w[n++] = "family";
		w[n++] = "netdev";
		w[n++] = "dev";
		w[n++] = "DEV";
	}
	w[n++] = "ignore";
	w[n++] = a->ignore_w;
	if (decap) {
		w[n++] = "decap";
		w[n++] = a->decap_w;
	}
	w[n++] = "window";
	w[n++] = (char *)window;
	w[n++] = "fpr";
	w[n++] = "1e-6";
	w[n++] = "action";
	w[n++] = "drop";
	w[n] = NULL;
	if (parse_rule_words(n, w, &a->rule))
		return -1;
	a->words[0] = 0;
	for (int i = 0, len = 0; i < n; i++)
		len += snprintf(a->words + len, sizeof(a->words) - len, "%s%s",
				i ? " " : "", w[i]);
	return 0;
}

static int push(uint64_t **v, uint64_t *cap, uint64_t n, uint64_t x)
{
	if (n >= *cap) {
		uint64_t c = *cap ? *cap * 2 : 4096;
		uint64_t *nv = realloc(*v, c * sizeof(**v));

		if (!nv)
			return ddfctl_err("advise: no memory");
		*v = nv;
		*cap = c;
	}
	(*v)[n] = x;
	return 0;
}

/* The second pass: the copies under the rule's key, their delays. */
static int pass2(struct advise *a)
{
	struct pcap_merge *m = pcap_merge_open("advise", a->nin, a->in);
	struct pcap_merge_rec rec;
	struct adv_table t;
	uint64_t records = 0, t_max = 0;
	FILE *log = NULL;
	int ret = 0;

	if (!m)
		return -1;
	if (a->log_path) {
		log = strcmp(a->log_path, "-") ? fopen(a->log_path, "w") :
						 stdout;
		if (!log) {
			pcap_merge_close(m);
			return ddfctl_err("advise: -l '%s': %s", a->log_path,
					  strerror(errno));
		}
	}
	if (table_init(&t)) {
		pcap_merge_close(m);
		return -1;
	}
	a->copies = a->npts = 0;
	while ((!a->max_records || records < a->max_records) &&
	       (ret = pcap_merge_next(m, &rec)) == 1) {
		int dlt = pcap_merge_file(m, rec.file)->dlt;
		struct adv_entry *e;
		uint64_t k[2];
		bool found;

		/* replay's clock: a record stamped earlier is taken later */
		if (!records++ || rec.ns > t_max)
			t_max = rec.ns;
		if (key_of(a, &a->rule.key, dlt, rec.h, rec.data, k)) {
			if (log)
				fprintf(log, "%llu not-keyed\n",
					(unsigned long long)records);
			continue;
		}
		e = table_get(&t, k, a->npts, t_max, &found);
		if (!e || push(&a->pts, &a->cap_pts, a->npts, t_max))
			goto fail;
		if (log)
			fprintf(log, "%llu %s\n", (unsigned long long)records,
				found ? "copy" : "new");
		if (found) {
			if (push(&a->dpk, &a->cap_dpk, a->copies,
				 a->npts - e->pkt) ||
			    push(&a->dns, &a->cap_dns, a->copies,
				 t_max - e->ns))
				goto fail;
			a->copies++;
		}
		a->npts++;
	}
	if (ret < 0)
		goto fail;
	a->rdistinct = t.n;
	free(t.e);
	pcap_merge_close(m);
	if (log && (log == stdout ? fflush(log) : fclose(log)))
		return ddfctl_err("advise: writing -l '%s': %s", a->log_path,
				  strerror(errno));
	return 0;
fail:
	free(t.e);
	pcap_merge_close(m);
	if (log && log != stdout)
		fclose(log);
	return -1;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* nearest rank: the smallest value with at least p of them at or below */
static void percentiles(uint64_t *v, uint64_t n, uint64_t *out)
{
	static const double p[4] = { 0.50, 0.90, 0.99, 0.999 };

	qsort(v, n, sizeof(*v), cmp_u64);
	for (int i = 0; i < 4; i++) {
		uint64_t r = (uint64_t)ceil(p[i] * (double)n - 1e-9);

		out[i] = v[(r ? r : 1) - 1];
	}
	out[4] = v[n - 1];
}

/* the least of 1, 2, 5 times a power of ten at or above x (x < 10^18) */
static uint64_t nice125(uint64_t x)
{
	for (uint64_t d = 1; d <= 100000000000000000ull; d *= 10)
		for (int i = 0; i < 3; i++) {
			uint64_t v = d * (uint64_t[]){ 1, 2, 5 }[i];

			if (v >= x)
				return v;
		}
	return x;
}

/* the most packets within any span of d ns (times in order) */
static uint64_t peak(const uint64_t *ts, uint64_t n, uint64_t d)
{
	uint64_t best = 0;

	for (uint64_t i = 0, j = 0; j < n; j++) {
		while (ts[j] - ts[i] > d)
			i++;
		if (j - i + 1 > best)
			best = j - i + 1;
	}
	return best;
}

/* The window from the delays: see advise_help. */
static void choose_window(struct advise *a, char *buf, size_t n)
{
	uint64_t cover = a->tns[3], cover_pk = a->pk[3];
	FILE *f;

	if (a->tns[4] / 10 < a->tns[3])
		cover = a->tns[4];
	a->cover_ns = cover;
	/* timestamps of fuzzed captures may be decades apart */
	if (cover >= ADV_MAX_NS / 2)
		a->win_ns = ADV_MAX_NS;
	else
		a->win_ns = nice125(2 * cover > ADV_MIN_NS ? 2 * cover :
							     ADV_MIN_NS);
	if (a->win_ns > ADV_MAX_NS)
		a->win_ns = ADV_MAX_NS;
	a->peak = peak(a->pts, a->npts, a->win_ns);
	a->win_n = nice125(2 * a->peak);
	a->beyond = 0;
	for (uint64_t i = 0; i < a->copies; i++)
		a->beyond += a->dns[i] > a->win_ns;
	/* the same for a count window */
	if (a->pk[4] / 10 < a->pk[3])
		cover_pk = a->pk[4];
	a->win_count = nice125(2 * cover_pk > 1000 ? 2 * cover_pk : 1000);
	a->beyond_count = 0;
	for (uint64_t i = 0; i < a->copies; i++)
		a->beyond_count += a->dpk[i] > a->win_count;
	/* timestamps that make a time window miss more: count packets */
	a->by_count = a->beyond_count < a->beyond;
	f = a->by_count ? NULL : fmemopen(buf, n, "w");
	if (!f) {
		a->by_count = true;
		a->beyond = a->beyond_count;
		snprintf(buf, n, "%llu", (unsigned long long)a->win_count);
		return;
	}
	fprintf(f, "%llu/", (unsigned long long)a->win_n);
	print_duration(f, a->win_ns);
	fclose(f);
}

static int advise_args(int argc, char **argv, struct advise *a)
{
	a->in = calloc(argc + 1, sizeof(*a->in));
	if (!a->in)
		return ddfctl_err("advise: no memory");
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "-j") || !strcmp(w, "--json")) {
			ddfctl_json = true;
		} else if (!strcmp(w, "-c")) {
			if (i + 1 >= argc)
				return ddfctl_err("advise: -c needs a COUNT of records");
			if (parse_count("advise: -c", argv[++i],
					&a->max_records))
				return -1;
			if (!a->max_records)
				return ddfctl_err("advise: -c: '%s' must be at least 1 record",
						  argv[i]);
		} else if (!strcmp(w, "-l")) {
			if (i + 1 >= argc)
				return ddfctl_err("advise: -l needs a FILE");
			a->log_path = argv[++i];
		} else if (!strcmp(w, "-")) {
			return ddfctl_err("advise: reads its FILEs twice: give files, not standard input ('-')");
		} else if (w[0] == '-') {
			return ddfctl_err("advise: '%s' is not an option (-c, -l, -j; ddfctl advise --help)",
					  w);
		} else {
			a->in[a->nin++] = w;
		}
	}
	if (!a->nin)
		return ddfctl_err("advise: needs a capture FILE (ddfctl advise --help)");
	return 0;
}

static void advise_free(struct advise *a)
{
	free(a->in);
	free(a->keys);
	free(a->macs);
	free(a->dpk);
	free(a->dns);
	free(a->pts);
}

int cmd_advise(int argc, char **argv)
{
	struct advise a = { 0 };
	uint8_t seed[DDF_SEED_LEN];
	struct ddf_sipkey sk;
	char window[64];
	int err = -1;

	if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "help"))) {
		fputs(advise_help, stdout);
		return 0;
	}
	if (advise_args(argc, argv, &a))
		goto out;
	if (getrandom(seed, sizeof(seed), 0) != sizeof(seed)) {
		ddfctl_err("advise: no random seed: %s", strerror(errno));
		goto out;
	}
	ddf_sipkey_from_bytes(&sk, seed);
	ddf_key_secret_init(&a.key, &sk);
	if (pass1(&a))
		goto out;
	if (!a.records) {
		ddfctl_err(a.nin > 1 ? "advise: the captures hold no records: nothing to advise on" :
				       "advise: '%s' holds no records: nothing to advise on",
			   a.in[0]);
		goto out;
	}
	if (!a.packets) {
		ddfctl_err("advise: no record of %llu is a packet a rule keys: nothing to advise on",
			   (unsigned long long)a.records);
		goto out;
	}
	/* the key: what differs in some copy, hidden; a placeholder window */
	if (make_rule(&a, a.need_ignore, a.need_decap, "1000") || pass2(&a))
		goto out;
	if (a.copies != a.cand) {
		a.fell_back = true;
		if (make_rule(&a, a.loose.ignore, a.loose.decap, "1000") ||
		    pass2(&a))
			goto out;
	}
	if (a.copies) {
		percentiles(a.dpk, a.copies, a.pk);
		percentiles(a.dns, a.copies, a.tns);
		choose_window(&a, window, sizeof(window));
		if (make_rule(&a, a.rule.key.ignore, a.rule.key.decap, window))
			goto out;
	}
	if (ddfctl_json)
		advise_print_json(&a);
	else
		advise_print_text(&a);
	err = 0;
out:
	advise_free(&a);
	return err;
}
