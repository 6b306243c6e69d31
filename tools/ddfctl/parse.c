// SPDX-License-Identifier: GPL-2.0
/*
 * The grammar of ddfctl: from words to a struct, every error a sentence
 * that quotes the word at fault, so a long `rule add` line can be fixed
 * without guessing which of its words was refused.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>

#include "ddfctl.h"
#include "ddf_registry.h"

/* where the words being parsed or sent came from, as "restore: line 3: " */
static char err_where[64];

void ddfctl_err_where(const char *fmt, ...)
{
	va_list ap;

	err_where[0] = 0;
	if (!fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(err_where, sizeof(err_where), fmt, ap);
	va_end(ap);
}

int ddfctl_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ddfctl: %s", err_where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

const struct ddf_word ddf_key_fields[] = {
	{ "saddr", DDF_KF_SADDR },   { "daddr", DDF_KF_DADDR },
	{ "proto", DDF_KF_PROTO },   { "sport", DDF_KF_SPORT },
	{ "dport", DDF_KF_DPORT },   { "ipid", DDF_KF_IPID },
	{ "tcpseq", DDF_KF_TCPSEQ }, { "tcpack", DDF_KF_TCPACK },
	{ "icmpid", DDF_KF_ICMPID }, { "payload", DDF_KF_PAYLOAD },
	{ NULL, 0 },
};

const struct ddf_word ddf_key_ignores[] = {
	{ "ttl", DDF_KI_TTL },		 { "ipv4csum", DDF_KI_IPV4CSUM },
	{ "dscp", DDF_KI_DSCP },	 { "ecn", DDF_KI_ECN },
	{ "ipid", DDF_KI_IPID },	 { "flowlabel", DDF_KI_FLOWLABEL },
	{ "l4csum", DDF_KI_L4CSUM },	 { "vlan", DDF_KI_VLAN },
	{ "mac", DDF_KI_MAC },		 { NULL, 0 },
};

static const struct ddf_word protos[] = {
	{ "tcp", 6 },	  { "udp", 17 },    { "udplite", 136 },
	{ "sctp", 132 }, { "icmp", 1 },    { "icmpv6", 58 },
	{ NULL, 0 },
};

static const struct ddf_word actions[] = {
	{ "drop", DDF_ACTION_DROP }, { "count", DDF_ACTION_COUNT },
	{ "mark", DDF_ACTION_MARK }, { NULL, 0 },
};

static const struct ddf_word hashes[] = {
	{ "siphash13", DDF_HASH_ALG_SIPHASH13 },
	{ "siphash24", DDF_HASH_ALG_SIPHASH24 },
	{ NULL, 0 },
};

const char *word_name(const struct ddf_word *t, uint32_t v)
{
	for (; t->name; t++)
		if (t->value == v)
			return t->name;
	return NULL;
}

int word_value(const struct ddf_word *t, const char *s, uint32_t *v)
{
	for (; t->name; t++)
		if (!strcmp(t->name, s)) {
			*v = t->value;
			return 0;
		}
	return -1;
}

const char *proto_name(uint8_t p)
{
	return word_name(protos, p);
}

const char *action_name(uint8_t a)
{
	return word_name(actions, a);
}

const char *hash_name(uint8_t h)
{
	return word_name(hashes, h);
}

/*
 * Names travel as NUL-terminated strings and appear in `save` lines and
 * every output as they are: printable ASCII without space, as the kernel
 * takes them.
 */
int parse_name(const char *w, char *name)
{
	size_t n = strlen(w);

	if (!n)
		return ddfctl_err("name: a rule needs a name");
	if (n > DDF_NAME_MAX - 1)
		return ddfctl_err("name: '%s' is %zu bytes long, at most %d are allowed",
				  w, n, DDF_NAME_MAX - 1);
	if (w[0] == '-')
		return ddfctl_err("name: '%s' must not start with '-'", w);
	for (const unsigned char *p = (const unsigned char *)w; *p; p++)
		if (*p < 0x21 || *p > 0x7e)
			return ddfctl_err("name: '%s' is not printable ASCII without space (0x21-0x7e)",
					  w);
	memcpy(name, w, n + 1);
	return 0;
}

/* A decimal number with an optional suffix scale; 0 when not one. */
static int parse_scaled(const char *s, const struct ddf_word *suffixes,
			uint64_t *out)
{
	char *end;
	double v;
	uint32_t mul = 1;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -1;
	if (*end) {
		const struct ddf_word *t;

		for (t = suffixes; t->name; t++)
			if (!strcmp(end, t->name))
				break;
		if (!t->name)
			return -1;
		mul = t->value;
	}
	v *= mul;
	if (v != floor(v) || v > 18446744073709549568.0)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static const struct ddf_word count_suffixes[] = {
	{ "k", 1000 }, { "M", 1000000 }, { NULL, 0 },
};

static const struct ddf_word size_suffixes[] = {
	{ "K", 1u << 10 }, { "M", 1u << 20 }, { "G", 1u << 30 }, { NULL, 0 },
};

int parse_count(const char *what, const char *s, uint64_t *out)
{
	if (parse_scaled(s, count_suffixes, out))
		return ddfctl_err("%s: '%s' is not a count (digits, optionally k or M)",
				  what, s);
	return 0;
}

int parse_size(const char *what, const char *s, uint64_t *out)
{
	if (parse_scaled(s, size_suffixes, out) || !*out)
		return ddfctl_err("%s: '%s' is not a size in bytes (optionally K, M or G)",
				  what, s);
	if (*out > DDF_MAX_BYTES)
		return ddfctl_err("%s: '%s' is more than the %llu bytes a filter may have",
				  what, s, (unsigned long long)DDF_MAX_BYTES);
	return 0;
}

/* Returns 1 when s is not a duration at all, so callers can try a count. */
static int try_duration(const char *s, uint64_t *ns)
{
	static const struct ddf_word units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { NULL, 0 },
	};
	char *end;
	double v, mul;
	uint32_t u;

	if (!isdigit((unsigned char)s[0]))
		return 1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return 1;
	if (!strcmp(end, "m"))
		mul = 60e9;
	else if (!strcmp(end, "h"))
		mul = 3600e9;
	else if (!word_value(units, end, &u))
		mul = u;
	else
		return 1;
	v *= mul;
	if (v != floor(v) || v > 1e19)
		return 1;
	*ns = (uint64_t)v;
	return 0;
}

int parse_duration(const char *what, const char *s, uint64_t *ns)
{
	if (try_duration(s, ns))
		return ddfctl_err("%s: '%s' is not a duration (ns, us, ms, s, m or h)",
				  what, s);
	if (*ns < DDF_MIN_WINDOW_NS || *ns > DDF_MAX_WINDOW_NS)
		return ddfctl_err("%s: '%s' is outside 10us .. 1h", what, s);
	return 0;
}

/*
 * window N: the last N packets. window N/DURATION: the packets of the last
 * DURATION, sized for at most N of them (a time window's filter still has
 * to be sized for a number of elements). window DURATION: N/DURATION with
 * N = ceil(DURATION x DDFCTL_WINDOW_PPS), at least 1.
 */
int parse_window(const char *s, struct ddf_filter_req *f)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	const char *dur = slash ? slash + 1 : s;
	uint64_t ns;

	f->window_assumed = false;
	if (strlen(s) >= sizeof(buf))
		return ddfctl_err("window: '%s' is not a count or a duration", s);
	if (slash) {
		memcpy(buf, s, slash - s);
		buf[slash - s] = 0;
		if (parse_scaled(buf, count_suffixes, &f->window) || !f->window)
			return ddfctl_err("window: '%s' in '%s' is not a count of packets",
					  buf, s);
		if (try_duration(slash + 1, &ns))
			return ddfctl_err("window: '%s' in '%s' is not a duration (ns, us, ms, s, m or h)",
					  slash + 1, s);
	} else if (!parse_scaled(s, count_suffixes, &f->window)) {
		if (!f->window)
			return ddfctl_err("window: '%s' must be at least 1 packet", s);
		if (f->window > DDF_MAX_WINDOW)
			return ddfctl_err("window: '%s' is more than %llu packets",
					  s, (unsigned long long)DDF_MAX_WINDOW);
		f->window_ns = 0;
		return 0;
	} else if (try_duration(s, &ns)) {
		return ddfctl_err("window: '%s' is not a count or a duration", s);
	}
	if (ns < DDF_MIN_WINDOW_NS || ns > DDF_MAX_WINDOW_NS)
		return ddfctl_err("window: '%s' is outside 10us .. 1h", dur);
	if (!slash) {
		/* ns <= 1h: at most 360M packets, no overflow */
		f->window = (ns * DDFCTL_WINDOW_PPS + 999999999ull) /
			    1000000000ull;
		if (!f->window)
			f->window = 1;
		f->window_assumed = true;
	}
	f->window_ns = ns;
	return 0;
}

/* FIELD[,FIELD...] from table into a mask; the bad field is named. */
static int parse_list(const char *what, const struct ddf_word *t,
		      const char *s, uint32_t *mask)
{
	char buf[256], *tok, *save;
	uint32_t v;

	if (strlen(s) >= sizeof(buf))
		return ddfctl_err("%s: '%s' is too long", what, s);
	strcpy(buf, s);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (word_value(t, tok, &v)) {
			ddfctl_err("%s: '%s' is not a field; known fields:", what,
				   tok);
			for (; t->name; t++)
				fprintf(stderr, " %s", t->name);
			fputc('\n', stderr);
			return -1;
		}
		*mask |= v;
	}
	if (!*mask)
		return ddfctl_err("%s: '%s' names no field", what, s);
	return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > 0xffffffffull)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_payload(const char *s, struct ddf_key_spec *k)
{
	char buf[32], *colon;
	uint32_t off, len;

	if (strlen(s) >= sizeof(buf))
		return ddfctl_err("payload: '%s' is not OFFSET:LENGTH", s);
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		return ddfctl_err("payload: '%s' is not OFFSET:LENGTH", s);
	*colon = 0;
	if (parse_u32(buf, &off) || parse_u32(colon + 1, &len))
		return ddfctl_err("payload: '%s' is not OFFSET:LENGTH", s);
	if (!len || off + (uint64_t)len > DDF_KEY_PAYLOAD_LIMIT)
		return ddfctl_err("payload: '%s': LENGTH must be at least 1 and OFFSET + LENGTH at most %d",
				  s, DDF_KEY_PAYLOAD_LIMIT);
	k->payload_off = (uint16_t)off;
	k->payload_len = (uint16_t)len;
	return 0;
}

static int parse_seed(const char *s, uint8_t *seed)
{
	const char *p = s;

	if (!strncmp(p, "0x", 2))
		p += 2;
	if (strlen(p) != 2 * DDF_SEED_LEN)
		return ddfctl_err("seed: '%s' is not %d hex digits (%d bytes)", s,
				  2 * DDF_SEED_LEN, DDF_SEED_LEN);
	for (int i = 0; i < DDF_SEED_LEN; i++) {
		char b[3] = { p[2 * i], p[2 * i + 1], 0 };

		if (!isxdigit((unsigned char)b[0]) ||
		    !isxdigit((unsigned char)b[1]))
			return ddfctl_err("seed: '%s' is not hexadecimal", s);
		seed[i] = (uint8_t)strtoul(b, NULL, 16);
	}
	return 0;
}

static int parse_mark(const char *s, struct ddf_rule_spec *r)
{
	char buf[64], *slash;

	if (strlen(s) >= sizeof(buf))
		return ddfctl_err("mark: '%s' is not VALUE[/MASK]", s);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	if (parse_u32(buf, &r->mark))
		return ddfctl_err("mark: value '%s' is not a 32-bit number", buf);
	r->mask = 0xffffffffu;
	if (slash && (parse_u32(slash + 1, &r->mask) || !r->mask))
		return ddfctl_err("mark: mask '%s' is not a non-zero 32-bit number",
				  slash + 1);
	/* (mark & ~mask) | value: a value bit outside the mask is a typo */
	if (r->mark & ~r->mask)
		return ddfctl_err("mark: value '%s' has bits outside mask '%s'",
				  buf, slash + 1);
	return 0;
}

/* one keyword and its argument: the argument must exist */
#define NEXT_ARG(kw)                                                        \
	do {                                                                \
		if (i + 1 >= argc)                                          \
			return ddfctl_err("%s: needs an argument", kw);     \
		arg = argv[++i];                                            \
	} while (0)

static void rule_defaults(struct ddf_rule_spec *r)
{
	memset(r, 0, sizeof(*r));
	r->family = NFPROTO_INET;
	r->hook = NF_INET_PRE_ROUTING;
	ddf_key_spec_default(&r->key);
	r->filter.kind = DDF_KIND_APBBF;
	r->action = DDF_ACTION_DROP;
}

static int check_rule(struct ddf_rule_spec *r, const struct rule_words *w)
{
	const char *why;

	if (check_link(r, w))
		return -1;
	if (r->hook == DDF_HOOK_NONE && r->family == NFPROTO_INET)
		return ddfctl_err("hook: 'none' (xtables only) needs family ip or ip6, not inet");
	if (r->family != NFPROTO_NETDEV) {
		if (r->hook == NF_INET_PRE_ROUTING && r->oif[0])
			return ddfctl_err("oif: '%s' is not known yet at hook prerouting",
					  r->oif);
		if (r->hook == NF_INET_LOCAL_OUT && r->iif[0])
			return ddfctl_err("iif: '%s' is never set at hook output",
					  r->iif);
		if (r->hook == NF_INET_POST_ROUTING && r->iif[0])
			return ddfctl_err("iif: '%s' is not known at hook postrouting",
					  r->iif);
		if (r->hook == NF_INET_LOCAL_IN && r->oif[0])
			return ddfctl_err("oif: '%s' is never set at hook input",
					  r->oif);
	}
	if (r->l4proto == 1 && r->family == NFPROTO_IPV6)
		return ddfctl_err("proto: 'icmp' is IPv4's; family ip6 uses icmpv6");
	if (r->l4proto == 58 && r->family == NFPROTO_IPV4)
		return ddfctl_err("proto: 'icmpv6' is IPv6's; family ip uses icmp");
	/* netdev and inet: any IP version */
	r->key.family = r->family == NFPROTO_IPV4 ? 4 :
			r->family == NFPROTO_IPV6 ? 6 : 0;
	if (r->key.form == DDF_KEY_FRAME) {
		if (w->max_bytes)
			return ddfctl_err("max-bytes: '%s' caps the bytes 'key packet' hashes; 'key frame' hashes every captured byte",
					  w->max_bytes);
		if (w->payload)
			return ddfctl_err("payload: needs a field list with the payload field; 'key frame' hashes the whole frame");
		if (r->key.family)
			return ddfctl_err("family: '%s' selects IP packets by their header; 'key frame' hashes every frame unparsed, IP or not",
					  family_name(r->family));
		if (r->l4proto)
			return ddfctl_err("proto: '%s' selects packets by their IP header; 'key frame' hashes every frame unparsed, IP or not",
					  proto_name(r->l4proto));
	}
	if (r->key.form == DDF_KEY_FIELDS && w->max_bytes)
		return ddfctl_err("max-bytes: '%s' caps the bytes 'key packet' hashes; 'key %s' hashes only its fields",
				  w->max_bytes, w->key);
	if (r->key.form == DDF_KEY_PACKET && w->payload)
		return ddfctl_err("payload: needs a field list with the payload field, as in 'key saddr,payload payload 0:64'");
	if (r->key.form == DDF_KEY_FIELDS && (r->key.fields & DDF_KF_PAYLOAD) &&
	    !w->payload)
		return ddfctl_err("key: '%s' has the payload field: say which bytes with 'payload OFFSET:LENGTH'",
				  w->key);
	if (r->key.form == DDF_KEY_FIELDS && w->payload &&
	    !(r->key.fields & DDF_KF_PAYLOAD))
		return ddfctl_err("payload: 'key %s' has no payload field", w->key);
	if (r->key.form == DDF_KEY_FIELDS && r->l4proto &&
	    (r->key.fields & (DDF_KF_SPORT | DDF_KF_DPORT)) &&
	    (r->l4proto == 1 || r->l4proto == 58))
		return ddfctl_err("key: '%s' has ports, which proto '%s' lacks",
				  w->key, proto_name(r->l4proto));
	if (ddf_key_spec_validate(&r->key, &why))
		return ddfctl_err("%s: '%s': %s", w->ignore ? "ignore" : "key",
				  w->ignore ? w->ignore : w->key, why);
	return ddfctl_size_filter(&r->filter);
}

/*
 * The words of a rule after its NAME, into r (defaults already there).
 * offline (replay): the messages name replay, key frame is taken with any
 * family, and family netdev needs no dev.
 */
static int rule_words(int argc, char **argv, struct ddf_rule_spec *r,
		      bool offline)
{
	struct rule_words w = {
		.cmd = offline ? "replay" : "rule add",
		.offline = offline,
		.key = "packet",
	};
	struct filter_words fw = { 0 };
	const char *arg;
	uint32_t v;

	for (int i = 0; i < argc; i++) {
		const char *kw = argv[i];

		if (!strcmp(kw, "family")) {
			NEXT_ARG(kw);
			if (parse_family(arg, &r->family))
				return -1;
		} else if (!strcmp(kw, "hook")) {
			/* resolved in the family, once it is known */
			NEXT_ARG(kw);
			if (parse_hook(arg))
				return -1;
			w.hook = arg;
		} else if (!strcmp(kw, "priority")) {
			char *end;
			long long p;

			NEXT_ARG(kw);
			errno = 0;
			p = strtoll(arg, &end, 10);
			if (errno || end == arg || *end || p < INT32_MIN ||
			    p > INT32_MAX)
				return ddfctl_err("priority: '%s' is not a 32-bit signed integer",
						  arg);
			r->priority = (int32_t)p;
		} else if (!strcmp(kw, "dev")) {
			NEXT_ARG(kw);
			if (parse_devs(arg, r))
				return -1;
		} else if (!strcmp(kw, "iif") || !strcmp(kw, "oif")) {
			char *dev = kw[0] == 'i' ? r->iif : r->oif;

			NEXT_ARG(kw);
			if (parse_ifname(kw, arg, dev))
				return -1;
		} else if (!strcmp(kw, "proto")) {
			NEXT_ARG(kw);
			if (word_value(protos, arg, &v))
				return ddfctl_err("proto: '%s' is not tcp, udp, udplite, sctp, icmp or icmpv6",
						  arg);
			r->l4proto = (uint8_t)v;
		} else if (!strcmp(kw, "key")) {
			NEXT_ARG(kw);
			w.key = arg;
			if (!strcmp(arg, "packet")) {
				r->key.form = DDF_KEY_PACKET;
				r->key.fields = 0;
			} else if (!strcmp(arg, "frame")) {
				r->key.form = DDF_KEY_FRAME;
				r->key.fields = 0;
			} else {
				if (parse_list("key", ddf_key_fields, arg,
					       &r->key.fields))
					return -1;
				r->key.form = DDF_KEY_FIELDS;
			}
		} else if (!strcmp(kw, "payload")) {
			NEXT_ARG(kw);
			if (parse_payload(arg, &r->key))
				return -1;
			w.payload = true;
		} else if (!strcmp(kw, "ignore")) {
			NEXT_ARG(kw);
			if (!strcmp(arg, "none"))
				r->key.ignore = 0;
			else if (parse_list("ignore", ddf_key_ignores, arg,
					    &r->key.ignore))
				return -1;
			w.ignore = arg;
		} else if (!strcmp(kw, "decap")) {
			NEXT_ARG(kw);
			if (parse_decap(arg, &r->key))
				return -1;
			w.decap = arg;
		} else if (!strcmp(kw, "max-bytes")) {
			NEXT_ARG(kw);
			if (parse_u32(arg, &v) || !v ||
			    v > DDF_KEY_MAX_BYTES_MAX)
				return ddfctl_err("max-bytes: '%s' is not a number of bytes from 1 to %u",
						  arg, DDF_KEY_MAX_BYTES_MAX);
			r->key.max_bytes = v;
			w.max_bytes = arg;
		} else if (!strcmp(kw, "filter")) {
			NEXT_ARG(kw);
			if (parse_kind(arg, &r->filter.kind))
				return -1;
		} else if (!strcmp(kw, "window")) {
			/* parsed once the kind is known: some have none */
			NEXT_ARG(kw);
			fw.window = arg;
		} else if (!strcmp(kw, "fpr")) {
			NEXT_ARG(kw);
			if (parse_fpr(arg, &r->filter.fpr))
				return -1;
			fw.fpr = arg;
			fw.fpr_last = true;
		} else if (!strcmp(kw, "memory")) {
			NEXT_ARG(kw);
			if (parse_size("memory", arg, &r->filter.memory))
				return -1;
			fw.memory = arg;
			fw.fpr_last = false;
		} else if (!strcmp(kw, "cpus")) {
			NEXT_ARG(kw);
			if (parse_cpus(arg, &r->filter.cpus))
				return -1;
			fw.cpus = arg;
		} else if (!strcmp(kw, "tune")) {
			NEXT_ARG(kw);
			if (parse_tune(arg, &r->filter.tune))
				return -1;
			fw.tune = arg;
		} else if (!strcmp(kw, "shape")) {
			NEXT_ARG(kw);
			if (parse_shape(arg, &r->filter.params))
				return -1;
			r->filter.shape = fw.shape = true;
		} else if (!strcmp(kw, "hash")) {
			NEXT_ARG(kw);
			if (word_value(hashes, arg, &v))
				return ddfctl_err("hash: '%s' is not siphash13 or siphash24",
						  arg);
			r->hash_alg = (uint8_t)v;
		} else if (!strcmp(kw, "seed")) {
			NEXT_ARG(kw);
			if (parse_seed(arg, r->seed))
				return -1;
			r->has_seed = true;
		} else if (!strcmp(kw, "action")) {
			NEXT_ARG(kw);
			if (word_value(actions, arg, &v))
				return ddfctl_err("action: '%s' is not drop, count or mark",
						  arg);
			r->action = (uint8_t)v;
			if (v == DDF_ACTION_MARK) {
				NEXT_ARG("mark");
				if (parse_mark(arg, r))
					return -1;
			}
		} else {
			return ddfctl_err("%s: '%s' is not a keyword (ddfctl %s --help)",
					  w.cmd, kw, w.cmd);
		}
	}
	if (check_filter_words(&fw, &r->filter, w.cmd,
			       offline ? NULL : r->name))
		return -1;
	return check_rule(r, &w);
}

int parse_rule_add(int argc, char **argv, struct ddf_rule_spec *r)
{
	rule_defaults(r);
	if (argc < 1)
		return ddfctl_err("rule add: needs a NAME (ddfctl rule add --help)");
	if (parse_name(argv[0], r->name))
		return -1;
	return rule_words(argc - 1, argv + 1, r, false);
}

int parse_rule_words(int argc, char **argv, struct ddf_rule_spec *r)
{
	rule_defaults(r);
	return rule_words(argc, argv, r, true);
}
