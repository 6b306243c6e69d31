// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl replay: a rule's decisions over capture files, no kernel needed.
 *
 * The rule words are those of `rule add` (parsed by the same code, sized by
 * the same core), and each record goes through what the kernel's hook does
 * with a packet: ddf_key_hash() over its IP packet (a rule of family
 * netdev: ddf_key_hash_link() over its Ethernet frame), then
 * ddf_filter_test_and_insert() on a filter built by ddf_filter_init() in
 * memory sized by ddf_filter_memsize() from the very parameters `rule add`
 * would send. With the same words and seed, the decisions are the kernel's
 * for the same packet sequence. Differences that remain, by design:
 *
 *  - Time windows run on the capture's timestamps (ns), the filter starting
 *    at the first record's; the kernel's clock is ktime_get_ns(). That
 *    clock never goes back: a record stamped earlier than one before it
 *    (captures merged from several taps, a clock stepped back) is taken at
 *    the latest time seen so far, and counted late.
 *  - Several captures, one per port of a rule over several devices, are
 *    merged by time (pcap_merge.h: equal timestamps in the order of the
 *    files); the kernel takes the packets of its ports in the order its
 *    CPUs meet them.
 *  - The kernel draws a random PRNG seed for the kinds that forget at
 *    random (sbf, rsbf, bsbf, bsbfsd, rlbsbf); replay derives one from the
 *    seed, so those kinds are reproducible offline but not equal.
 *  - The kernel's IP input drops, before any hook, packets that replay keys
 *    anyway (bad IPv4 header checksum, cut short by the snap length). A
 *    record whose link layer says IPv4 or IPv6 but whose version nibble
 *    disagrees is counted unparsed and kept.
 *
 * The IP packet is found behind the link layer: Ethernet (802.1Q, 802.1ad
 * and QinQ tags skipped, so a tagged frame keys as the untagged one), raw
 * IP (DLT_RAW, DLT_IPV4, DLT_IPV6), Linux cooked SLL and SLL2, BSD
 * loopback (DLT_NULL, DLT_LOOP). A record with no IP packet there (ARP,
 * another link type) is not IP: kept and counted, as the kernel's IP hooks
 * never see it. `key frame` instead hashes every captured byte of every
 * record, link layer included (editcap -D's comparison).
 *
 * Each record is read in the link type of its own file. A rule of family
 * netdev sees what the kernel's netdev hooks see: whole Ethernet frames.
 * Its records must be Ethernet (DLT_EN10MB), every file's; each is
 * handed to ddf_key_hash_link() whole, from its MAC header, as the hook
 * hands it a frame, so VLAN tags, MAC addresses and frames that carry no
 * IP are keyed as the module keys them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcap/pcap.h>

#include "ddfctl.h"
#include "ddf_registry.h"
#include "pcap_merge.h"
#include "replay_link.h"

static const char replay_help[] =
	"usage: ddfctl [-j] replay FILE [FILE...] [-w KEPT] [-W DROPPED] [-l LOG]\n"
	"                          [RULE WORDS]\n"
	"  the decisions of a rule over a pcap or pcapng FILE ('-': stdin),\n"
	"  no kernel needed; RULE WORDS are those of 'rule add' after its NAME\n"
	"  (key, payload, ignore, decap, max-bytes, proto, family, filter,\n"
	"  window, fpr, memory, tune, shape, seed, hash, action; hook,\n"
	"  priority, dev, iif and oif are taken and mean nothing offline),\n"
	"  and 'key frame' with any family\n"
	"  FILE...     several captures (one per port of a rule over several\n"
	"              devices), merged by time as mergecap merges them (equal\n"
	"              timestamps: the later FILE's record first), each FILE's\n"
	"              records in its own order; the words up\n"
	"              to the first rule keyword are FILEs. Each record is read\n"
	"              in its FILE's link type\n"
	"  -w KEPT     write the packets the rule lets through (pcap; several\n"
	"              FILEs: merged, and they must have one link type)\n"
	"  -W DROPPED  write the packets it drops (action drop)\n"
	"  -l LOG      one line per record: its number (from 1), new,\n"
	"              duplicate, unparsed, skipped or not-ip, and its captured\n"
	"              length; with several FILEs, its FILE's number (from 1)\n"
	"              and its number in that FILE ('-': stdout)\n"
	"  -j          the summary as JSON\n"
	"  key frame   every captured byte of the record, link layer included,\n"
	"              and its length: with filter exact window N-1, the packets\n"
	"              dropped are those editcap -D N removes\n"
	"  family netdev  Ethernet captures only: each record is the frame a\n"
	"              netdev hook sees, keyed whole from its MAC header (VLAN\n"
	"              tags, MAC addresses, frames with no IP), as the kernel\n"
	"              keys it; no dev needed\n"
	"  The IP packet of the other families is found behind Ethernet (VLAN\n"
	"  tags skipped), raw IP, Linux cooked SLL/SLL2 and BSD loopback; other\n"
	"  records are not IP and kept. Time windows run on the capture's\n"
	"  timestamps; a record stamped earlier than one before it is taken at\n"
	"  the latest time seen (the kernel's clock never goes back) and counted\n"
	"  late. Without a seed the SipHash key is random, as in the kernel.\n"
	"summary: records, packets and bytes hashed, duplicates, dropped, marked,\n"
	"  unparsed (IP but unusable, as the kernel counts), skipped (another\n"
	"  family or protocol), not-ip, truncated (cut by the snap length), kept,\n"
	"  late (stamped earlier than a record before it); with several FILEs,\n"
	"  each one's records, and packets, bytes, duplicates, dropped, marked\n"
	"  and unparsed as the kernel counts them per device\n";

struct replay_counts {
	uint64_t records, packets, bytes, duplicates, dropped, marked;
	uint64_t unparsed, skipped, not_ip, truncated, kept, late;
};

/* per file: what the kernel counts per device of a rule over several */
struct replay_file_counts {
	uint64_t records, packets, bytes, duplicates, dropped, marked;
	uint64_t unparsed;
};

struct replay {
	const char **in; /* the FILEs */
	unsigned int nin;
	const char *kept_path, *dropped_path, *log_path;
	struct ddf_rule_spec rule;
	struct ddf_key_secret key; /* from the seed, as the module's */
	struct ddf_params params; /* as the kernel gets them */
	uint64_t mem_bytes;
	void *mem;
	struct ddf_filter *filter;
	struct pcap_merge *merge;
	/* of the files written: the FILEs' link type, largest snap length */
	u_int prec;
	int out_dlt, out_snap;
	uint64_t t_max; /* the latest timestamp seen (ns) */
	pcap_dumper_t *kept, *dropped;
	FILE *log;
	bool made[3]; /* -w, -W, -l created a file: removed on failure */
	struct replay_counts c;
	struct replay_file_counts *fc; /* one per FILE */
};

/* The filter, as the kernel builds it from the words `rule add` sends. */
static int replay_filter(struct replay *rp, uint64_t now)
{
	const struct ddf_params *s = &rp->rule.filter.params;
	struct ddf_params *p = &rp->params;
	const struct ddf_filter_type *t;
	const char *why = NULL;
	int err;

	/* what put_filter() sends, field by field, then resolved again */
	memset(p, 0, sizeof(*p));
	p->kind = s->kind;
	p->window = s->window;
	if (s->flags & DDF_PF_TIME) {
		p->flags = DDF_PF_TIME;
		p->window_ns = s->window_ns;
	}
	p->k = s->k;
	p->l = s->l;
	p->m = s->m;
	p->block_bits = s->block_bits;
	p->block_hashes = s->block_hashes;
	p->fp_bits = s->fp_bits;
	p->cell_bits = s->cell_bits;
	p->decrements = s->decrements;
	p->inner_kind = s->inner_kind;
	p->subfilters = s->subfilters;
	p->p_star = s->p_star;
	p->cpus = s->cpus;
	/* the kinds that draw: the module's seed is random, here the key's */
	t = ddf_filter_type_by_kind(p->kind == DDF_KIND_QUEUE ? p->inner_kind :
								p->kind);
	if (t && (t->flags & DDF_TF_RANDOM))
		p->rng_seed = ddf_siphash13_64(&rp->key.sip, "rng_seed", 8);
	err = ddf_params_resolve(p, &why);
	if (err)
		return ddfctl_err("replay: the filter: %s",
				  why ? why : "invalid parameters");
	rp->mem_bytes = ddf_filter_memsize(p);
	if (!rp->mem_bytes)
		return ddfctl_err("replay: the filter has no valid size");
	rp->mem = calloc(1, rp->mem_bytes);
	if (!rp->mem)
		return ddfctl_err("replay: %llu bytes for the filter: %s",
				  (unsigned long long)rp->mem_bytes,
				  strerror(errno));
	rp->filter = ddf_filter_init(rp->mem, rp->mem_bytes, p, now);
	if (!rp->filter)
		return ddfctl_err("replay: the core refused the filter's parameters");
	return 0;
}

enum verdict { V_NEW, V_DUP, V_UNPARSED, V_SKIPPED, V_NOT_IP };

static const char *const verdict_names[] = {
	[V_NEW] = "new", [V_DUP] = "duplicate", [V_UNPARSED] = "unparsed",
	[V_SKIPPED] = "skipped", [V_NOT_IP] = "not-ip",
};

/* One record through the hook's steps; its verdict. */
static enum verdict replay_record(struct replay *rp, int dlt,
				  const struct pcap_pkthdr *h,
				  const uint8_t *d)
{
	const struct ddf_rule_spec *r = &rp->rule;
	bool time_mode = rp->params.flags & DDF_PF_TIME;
	struct ddf_key_info ki;
	struct ddf_hash hash;
	uint64_t now = 0;

	switch (replay_key(&r->key, family_netdev(r->family), r->hash_alg,
			   &rp->key, dlt, d, h->caplen, &hash, &ki)) {
	case RK_HASHED:
		break;
	case RK_NOT_IP:
		return V_NOT_IP;
	case RK_UNPARSED:
		return V_UNPARSED;
	default:
		return V_SKIPPED;
	}
	if (time_mode)
		now = rp->t_max;
	rp->c.packets++;
	rp->c.bytes += ki.len;
	return ddf_filter_test_and_insert(rp->filter, &hash, now) ? V_DUP :
								    V_NEW;
}

/* -w and -W: pcap files of the inputs' link type and snap length */
static pcap_dumper_t *open_out(struct replay *rp, const char *path,
			       const char *opt, bool *made)
{
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(
		rp->out_dlt, rp->out_snap, rp->prec);
	pcap_dumper_t *dump;
	struct stat st;
	bool existed = !strcmp(path, "-") || !stat(path, &st);

	if (!dead) {
		ddfctl_err("replay: %s '%s': no memory", opt, path);
		return NULL;
	}
	dump = pcap_dump_open(dead, path);
	if (!dump)
		ddfctl_err("replay: %s '%s': %s", opt, path, pcap_geterr(dead));
	pcap_close(dead); /* the dumper keeps what it needs */
	*made = dump && !existed;
	return dump;
}

/* The same file as an input: writing it would truncate what is read. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return false;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * The keywords of rule add (parse.c): after the FILEs, the first word that
 * is one begins the rule's words. A later FILE of such a name is given as
 * ./NAME.
 */
static const char *const rule_keywords[] = {
	"family", "hook",  "priority", "dev",	   "iif",    "oif",
	"proto",  "key",   "payload",  "ignore",   "decap",  "max-bytes",
	"filter", "window", "fpr",     "memory",   "cpus",   "shape",
	"tune",	  "seed",  "hash",     "action",   NULL,
};

static bool rule_keyword(const char *w)
{
	for (const char *const *k = rule_keywords; *k; k++)
		if (!strcmp(*k, w))
			return true;
	return false;
}

/*
 * FILE [FILE...] [-w KEPT] [-W DROPPED] [-l LOG] [-j] and the rule's words:
 * the first word is a FILE, and so is every word after it up to the first
 * rule keyword.
 */
static int replay_args(int argc, char **argv, struct replay *rp)
{
	char **words = calloc(argc + 1, sizeof(*words));
	int nw = 0, err;

	rp->in = calloc(argc + 1, sizeof(*rp->in));
	if (!words || !rp->in) {
		free(words);
		return ddfctl_err("replay: no memory");
	}
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char **dst = NULL;

		/* a word after priority may be negative: it is priority's */
		if (a[0] != '-' || !a[1] ||
		    (nw && !strcmp(words[nw - 1], "priority"))) {
			if (!rp->nin || (!nw && !rule_keyword(a)))
				rp->in[rp->nin++] = a;
			else
				words[nw++] = argv[i];
			continue;
		}
		if (!strcmp(a, "-w"))
			dst = &rp->kept_path;
		else if (!strcmp(a, "-W"))
			dst = &rp->dropped_path;
		else if (!strcmp(a, "-l"))
			dst = &rp->log_path;
		else if (!strcmp(a, "-j") || !strcmp(a, "--json"))
			ddfctl_json = true;
		else {
			free(words);
			return ddfctl_err("replay: '%s' is not an option (-w, -W, -l, -j; ddfctl replay --help)",
					  a);
		}
		if (!dst)
			continue;
		if (i + 1 >= argc) {
			free(words);
			return ddfctl_err("replay: %s needs a FILE", a);
		}
		*dst = argv[++i];
	}
	if (!rp->nin) {
		free(words);
		return ddfctl_err("replay: needs a capture FILE (ddfctl replay --help)");
	}
	/* a later FILE that is not there may be a misspelt keyword */
	for (unsigned int i = 1; i < rp->nin; i++) {
		struct stat st;

		if (strcmp(rp->in[i], "-") && stat(rp->in[i], &st)) {
			free(words);
			return ddfctl_err("replay: '%s': %s, and not a rule keyword either (ddfctl replay --help)",
					  rp->in[i], strerror(errno));
		}
	}
	err = parse_rule_words(nw, words, &rp->rule);
	free(words);
	if (err)
		return -1;
	if (rp->kept_path && rp->dropped_path &&
	    !strcmp(rp->kept_path, rp->dropped_path) &&
	    strcmp(rp->kept_path, "-"))
		return ddfctl_err("replay: -w and -W name the same file '%s'",
				  rp->kept_path);
	if ((rp->kept_path && !strcmp(rp->kept_path, "-")) +
		    (rp->dropped_path && !strcmp(rp->dropped_path, "-")) +
		    (rp->log_path && !strcmp(rp->log_path, "-")) >
	    1)
		return ddfctl_err("replay: only one of -w, -W and -l can write to stdout ('-')");
	for (unsigned int i = 0; i < rp->nin; i++) {
		const char *w = rp->nin > 1 ? "an input file" : "the input file";

		if (rp->kept_path && same_file(rp->in[i], rp->kept_path))
			return ddfctl_err("replay: -w '%s' is %s",
					  rp->kept_path, w);
		if (rp->dropped_path && same_file(rp->in[i], rp->dropped_path))
			return ddfctl_err("replay: -W '%s' is %s",
					  rp->dropped_path, w);
		if (rp->log_path && same_file(rp->in[i], rp->log_path))
			return ddfctl_err("replay: -l '%s' is %s",
					  rp->log_path, w);
	}
	return 0;
}

/*
 * What the FILEs must share before a record is read: family netdev keys
 * Ethernet frames, and a file written holds one link type. The files
 * written take the largest snap length, and are in microseconds when every
 * FILE is a microsecond pcap file (one FILE: the same bytes), nanoseconds
 * otherwise.
 */
static int check_inputs(struct replay *rp)
{
	const struct pcap_merge_file *f0 = pcap_merge_file(rp->merge, 0);
	bool out = rp->kept_path || rp->dropped_path;

	rp->out_dlt = f0->dlt;
	rp->out_snap = f0->snaplen;
	rp->prec = f0->usec ? PCAP_TSTAMP_PRECISION_MICRO :
			      PCAP_TSTAMP_PRECISION_NANO;
	for (unsigned int i = 0; i < rp->nin; i++) {
		const struct pcap_merge_file *f = pcap_merge_file(rp->merge, i);
		const char *name = pcap_datalink_val_to_name(f->dlt);
		const char *name0 = pcap_datalink_val_to_name(f0->dlt);

		if (family_netdev(rp->rule.family) && f->dlt != DLT_EN10MB)
			return ddfctl_err("replay: family netdev keys Ethernet frames; '%s' has link type %s",
					  f->path, name ? name : "?");
		if (out && f->dlt != f0->dlt)
			return ddfctl_err("replay: %s: '%s' has link type %s, '%s' %s, and a pcap file holds one",
					  rp->kept_path ? "-w" : "-W", f->path,
					  name ? name : "?", f0->path,
					  name0 ? name0 : "?");
		if (f->snaplen > rp->out_snap)
			rp->out_snap = f->snaplen;
		if (!f->usec)
			rp->prec = PCAP_TSTAMP_PRECISION_NANO;
	}
	return 0;
}

static void print_file_json(FILE *out, const struct pcap_merge_file *f)
{
	const char *link = pcap_datalink_val_to_name(f->dlt);

	fputs("\"file\": ", out);
	json_str(out, f->path);
	fprintf(out, ", \"linktype\": %d, \"linktype_name\": ", f->dlt);
	json_str(out, link ? link : "?");
	fprintf(out, ", \"snaplen\": %d", f->snaplen);
}

static void print_json(FILE *out, const struct replay *rp)
{
	const struct replay_counts *c = &rp->c;
	const struct ddf_params *p = &rp->params;
	static const struct {
		const char *name;
		size_t off;
	} n[] = {
#define RC(m) { #m, offsetof(struct replay_counts, m) }
		RC(records), RC(packets), RC(bytes), RC(duplicates),
		RC(dropped), RC(marked), RC(unparsed), RC(skipped),
		RC(not_ip), RC(truncated), RC(kept), RC(late),
#undef RC
	};

	/* one FILE: it is described first, as before there were several */
	fputc('{', out);
	if (rp->nin == 1) {
		print_file_json(out, pcap_merge_file(rp->merge, 0));
		fputs(", ", out);
	}
	for (unsigned int i = 0; i < DDF_ARRAY_SIZE(n); i++)
		fprintf(out, "%s\"%s\": %llu", i ? ", " : "", n[i].name,
			*(const unsigned long long *)((const char *)c +
						      n[i].off));
	fprintf(out, ", \"filter\": {\"kind\": %u, \"kind_name\": \"%s\", \"window\": %llu",
		p->kind, ddf_kind_name(p->kind), (unsigned long long)p->window);
	if (p->flags & DDF_PF_TIME)
		fprintf(out, ", \"window_ns\": %llu",
			(unsigned long long)p->window_ns);
	fprintf(out, ", \"bytes\": %llu}, \"files\": [",
		(unsigned long long)rp->mem_bytes);
	for (unsigned int i = 0; i < rp->nin; i++) {
		const struct replay_file_counts *fc = &rp->fc[i];

		fputs(i ? ", {" : "{", out);
		print_file_json(out, pcap_merge_file(rp->merge, i));
		fprintf(out, ", \"records\": %llu, \"packets\": %llu, \"bytes\": %llu, \"duplicates\": %llu, \"dropped\": %llu, \"marked\": %llu, \"unparsed\": %llu}",
			(unsigned long long)fc->records,
			(unsigned long long)fc->packets,
			(unsigned long long)fc->bytes,
			(unsigned long long)fc->duplicates,
			(unsigned long long)fc->dropped,
			(unsigned long long)fc->marked,
			(unsigned long long)fc->unparsed);
	}
	fputs("]}\n", out);
}

static void print_summary(FILE *out, const struct replay *rp)
{
	const struct replay_counts *c = &rp->c;
	const struct ddf_params *p = &rp->params;

	if (ddfctl_json) {
		print_json(out, rp);
		return;
	}
	if (rp->nin > 1)
		fprintf(out, "%u captures merged by time: %llu records\n",
			rp->nin, (unsigned long long)c->records);
	for (unsigned int i = 0; i < rp->nin; i++) {
		const struct pcap_merge_file *f = pcap_merge_file(rp->merge, i);
		const struct replay_file_counts *fc = &rp->fc[i];
		const char *link = pcap_datalink_val_to_name(f->dlt);

		fprintf(out, "%s%s: %llu records, link type %s, snap length %d",
			rp->nin > 1 ? "  " : "", f->path,
			(unsigned long long)fc->records, link ? link : "?",
			f->snaplen);
		/* the words of the kernel's per-device line */
		if (rp->nin > 1)
			fprintf(out, ": packets %llu bytes %llu duplicates %llu dropped %llu marked %llu unparsed %llu",
				(unsigned long long)fc->packets,
				(unsigned long long)fc->bytes,
				(unsigned long long)fc->duplicates,
				(unsigned long long)fc->dropped,
				(unsigned long long)fc->marked,
				(unsigned long long)fc->unparsed);
		fputc('\n', out);
	}
	fprintf(out, "packets %llu bytes %llu duplicates %llu dropped %llu marked %llu unparsed %llu\n",
		(unsigned long long)c->packets, (unsigned long long)c->bytes,
		(unsigned long long)c->duplicates,
		(unsigned long long)c->dropped,
		(unsigned long long)c->marked,
		(unsigned long long)c->unparsed);
	fprintf(out, "skipped %llu not-ip %llu truncated %llu kept %llu\n",
		(unsigned long long)c->skipped, (unsigned long long)c->not_ip,
		(unsigned long long)c->truncated, (unsigned long long)c->kept);
	fprintf(out, "filter %s window %llu", ddf_kind_name(p->kind),
		(unsigned long long)p->window);
	if (p->flags & DDF_PF_TIME) {
		fputs(" per ", out);
		print_duration(out, p->window_ns);
	}
	fprintf(out, " memory %llu bytes\n", (unsigned long long)rp->mem_bytes);
	for (unsigned int i = 0; i < rp->nin; i++) {
		const struct pcap_merge_file *f = pcap_merge_file(rp->merge, i);
		const char *link = pcap_datalink_val_to_name(f->dlt);

		if (replay_link_known(f->dlt) ||
		    rp->rule.key.form == DDF_KEY_FRAME || !rp->fc[i].records)
			continue;
		if (rp->nin == 1)
			fprintf(out, "note: replay finds no IP packets in link type %s: every record passed as not IP\n",
				link ? link : "?");
		else
			fprintf(out, "note: replay finds no IP packets in link type %s: every record of '%s' passed as not IP\n",
				link ? link : "?", f->path);
	}
	if (c->late == 1)
		fputs("note: 1 record was stamped earlier than a record before it: it was taken at the latest time seen, as the kernel's clock never goes back\n",
		      out);
	else if (c->late)
		fprintf(out, "note: %llu records were stamped earlier than a record before them: each was taken at the latest time seen, as the kernel's clock never goes back\n",
			(unsigned long long)c->late);
}

/* Read every record, merged by time; 0, or -1 after a sentence. */
static int replay_run(struct replay *rp)
{
	const struct ddf_rule_spec *r = &rp->rule;
	struct pcap_merge_rec rec;
	int ret;

	while ((ret = pcap_merge_next(rp->merge, &rec)) == 1) {
		const struct pcap_merge_file *f =
			pcap_merge_file(rp->merge, rec.file);
		struct replay_file_counts *fc = &rp->fc[rec.file];
		const struct pcap_pkthdr *h = rec.h;
		uint64_t t = rec.ns;
		uint64_t bytes = rp->c.bytes;
		enum verdict v;
		bool drop = false;

		if (!rp->filter) {
			/* built at the first record's time, as a rule before it */
			if (replay_filter(rp, r->filter.params.flags &
						      DDF_PF_TIME ? t : 0))
				return -1;
			rp->t_max = t;
		}
		/* the kernel's clock never goes back */
		if (t < rp->t_max)
			rp->c.late++;
		else
			rp->t_max = t;
		rp->c.records++;
		fc->records++;
		if (h->caplen < h->len)
			rp->c.truncated++;
		v = replay_record(rp, f->dlt, h, rec.data);
		fc->bytes += rp->c.bytes - bytes;
		switch (v) {
		case V_DUP:
			rp->c.duplicates++;
			fc->duplicates++;
			if (r->action == DDF_ACTION_DROP) {
				rp->c.dropped++;
				fc->dropped++;
				drop = true;
			} else if (r->action == DDF_ACTION_MARK) {
				rp->c.marked++;
				fc->marked++;
			}
			fc->packets++;
			break;
		case V_NEW:
			fc->packets++;
			break;
		case V_UNPARSED:
			rp->c.unparsed++;
			fc->unparsed++;
			break;
		case V_SKIPPED:
			rp->c.skipped++;
			break;
		case V_NOT_IP:
			rp->c.not_ip++;
			break;
		}
		if (!drop)
			rp->c.kept++;
		if (drop ? rp->dropped : rp->kept) {
			struct pcap_pkthdr out = *h;

			/* pcap_dump() would cut it to 32 bits, back to 1970 */
			if (h->ts.tv_sec > 0 &&
			    (uint64_t)h->ts.tv_sec > UINT32_MAX)
				return ddfctl_err("replay: '%s': record %llu: its time, %llu s since 1970, is after 2106-02-07 06:28:15 UTC, the last time the 32-bit seconds of a pcap file (-w, -W) hold",
						  f->path,
						  (unsigned long long)rec.record,
						  (unsigned long long)h->ts.tv_sec);

			/* read in ns; microsecond files get microseconds */
			if (rp->prec == PCAP_TSTAMP_PRECISION_MICRO)
				out.ts.tv_usec /= 1000;
			pcap_dump((u_char *)(drop ? rp->dropped : rp->kept),
				  &out, rec.data);
		}
		if (rp->log && rp->nin > 1)
			fprintf(rp->log, "%llu %s %u %u %llu\n",
				(unsigned long long)rp->c.records,
				verdict_names[v], h->caplen, rec.file + 1,
				(unsigned long long)rec.record);
		else if (rp->log)
			fprintf(rp->log, "%llu %s %u\n",
				(unsigned long long)rp->c.records,
				verdict_names[v], h->caplen);
	}
	if (ret < 0)
		return -1;
	if (!rp->filter && replay_filter(rp, 0))
		return -1;
	return 0;
}

/*
 * Close the outputs; -1 after a sentence when one could not be written.
 * After a failure, the files -w, -W and -l created are removed: nothing
 * half written stays behind as if it were a result.
 */
static int close_outputs(struct replay *rp, int err)
{
	pcap_dumper_t *d[2] = { rp->kept, rp->dropped };
	const char *path[3] = { rp->kept_path, rp->dropped_path,
				rp->log_path };

	for (int i = 0; i < 2; i++) {
		if (!d[i])
			continue;
		if (pcap_dump_flush(d[i]) && !err)
			err = ddfctl_err("replay: writing '%s' failed", path[i]);
		pcap_dump_close(d[i]);
	}
	if (rp->log && rp->log != stdout) {
		if (fclose(rp->log) && !err)
			err = ddfctl_err("replay: writing '%s': %s",
					 rp->log_path, strerror(errno));
	} else if (rp->log && fflush(rp->log) && !err) {
		err = ddfctl_err("replay: writing the log: %s",
				 strerror(errno));
	}
	rp->kept = rp->dropped = NULL;
	rp->log = NULL;
	for (int i = 0; err && i < 3; i++)
		if (rp->made[i])
			unlink(path[i]);
	return err;
}

/* Close everything; err again. */
static int replay_close(struct replay *rp, int err)
{
	err = close_outputs(rp, err);
	pcap_merge_close(rp->merge);
	free(rp->mem);
	free(rp->fc);
	free(rp->in);
	return err;
}

int cmd_replay(int argc, char **argv)
{
	struct replay rp = { 0 };
	struct ddf_sipkey sk;
	int err;

	if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "help"))) {
		fputs(replay_help, stdout);
		return 0;
	}
	if (replay_args(argc, argv, &rp))
		return replay_close(&rp, -1);
	/* the module's key: the rule's protocol becomes the key's selector */
	if (rp.rule.l4proto) {
		rp.rule.key.match = DDF_KM_L4PROTO;
		rp.rule.key.l4proto = rp.rule.l4proto;
	}
	if (rp.rule.has_seed) {
		ddf_sipkey_from_bytes(&sk, rp.rule.seed);
	} else {
		uint8_t seed[DDF_SEED_LEN];

		if (getrandom(seed, sizeof(seed), 0) != sizeof(seed))
			return replay_close(
				&rp, ddfctl_err("replay: no random seed: %s",
						strerror(errno)));
		ddf_sipkey_from_bytes(&sk, seed);
	}
	ddf_key_secret_init(&rp.key, &sk);
	rp.fc = calloc(rp.nin, sizeof(*rp.fc));
	if (!rp.fc)
		return replay_close(&rp, ddfctl_err("replay: no memory"));
	/* every FILE opened and its first record read before any output */
	rp.merge = pcap_merge_open("replay", rp.nin, rp.in);
	if (!rp.merge)
		return replay_close(&rp, -1);
	err = check_inputs(&rp);
	if (!err && rp.kept_path &&
	    !(rp.kept = open_out(&rp, rp.kept_path, "-w", &rp.made[0])))
		err = -1;
	if (!err && rp.dropped_path &&
	    !(rp.dropped = open_out(&rp, rp.dropped_path, "-W", &rp.made[1])))
		err = -1;
	if (!err && rp.log_path) {
		struct stat st;

		rp.made[2] = strcmp(rp.log_path, "-") && stat(rp.log_path, &st);
		rp.log = strcmp(rp.log_path, "-") ? fopen(rp.log_path, "w") :
						    stdout;
		if (!rp.log) {
			rp.made[2] = false;
			err = ddfctl_err("replay: -l '%s': %s", rp.log_path,
					 strerror(errno));
		}
	}
	if (!err)
		err = replay_run(&rp);
	/* the summary once the outputs are whole; stderr if one has stdout */
	err = close_outputs(&rp, err);
	if (!err)
		print_summary((rp.kept_path && !strcmp(rp.kept_path, "-")) ||
				      (rp.dropped_path &&
				       !strcmp(rp.dropped_path, "-")) ||
				      (rp.log_path &&
				       !strcmp(rp.log_path, "-")) ?
			      stderr :
			      stdout,
			      &rp);
	return replay_close(&rp, err);
}
