// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding of ddf messages: one table per attribute set drives the dry-run
 * listing of a request, `show`/`stats` (text or JSON) and `save`, so what is
 * printed is always what is in the message, never a second copy of it.
 */
#include <inttypes.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "ddfctl.h"
#include "ddf_registry.h"

/* T_LIST: a nest of entries numbered 1, 2, ..., each a nest of the set */
enum atype {
	T_NONE, T_U8, T_U16, T_U32, T_S32, T_U64, T_STR, T_BIN, T_NEST, T_LIST
};

struct adesc {
	const char *name; /* as in uapi/linux/ddf.h */
	const char *json; /* the JSON key */
	enum atype type;
	const struct aset *nest;
};

struct aset {
	const struct adesc *a;
	unsigned int max;
};

static const struct adesc key_attrs[] = {
	[DDF_KEY_A_FORM] = { "DDF_KEY_A_FORM", "form", T_U8 },
	[DDF_KEY_A_FIELDS] = { "DDF_KEY_A_FIELDS", "fields", T_U32 },
	[DDF_KEY_A_IGNORE] = { "DDF_KEY_A_IGNORE", "ignore", T_U32 },
	[DDF_KEY_A_MAX_BYTES] = { "DDF_KEY_A_MAX_BYTES", "max_bytes", T_U32 },
	[DDF_KEY_A_PAYLOAD_OFF] = { "DDF_KEY_A_PAYLOAD_OFF", "payload_off",
				    T_U16 },
	[DDF_KEY_A_PAYLOAD_LEN] = { "DDF_KEY_A_PAYLOAD_LEN", "payload_len",
				    T_U16 },
	[DDF_KEY_A_DECAP] = { "DDF_KEY_A_DECAP", "decap", T_U32 },
	[DDF_KEY_A_VXLAN_PORT] = { "DDF_KEY_A_VXLAN_PORT", "vxlan_port",
				   T_U16 },
	[DDF_KEY_A_GENEVE_PORT] = { "DDF_KEY_A_GENEVE_PORT", "geneve_port",
				    T_U16 },
};

static const struct adesc filter_attrs[] = {
	[DDF_FILTER_A_KIND] = { "DDF_FILTER_A_KIND", "kind", T_U32 },
	[DDF_FILTER_A_WINDOW] = { "DDF_FILTER_A_WINDOW", "window", T_U64 },
	[DDF_FILTER_A_WINDOW_NS] = { "DDF_FILTER_A_WINDOW_NS", "window_ns",
				     T_U64 },
	[DDF_FILTER_A_K] = { "DDF_FILTER_A_K", "k", T_U32 },
	[DDF_FILTER_A_L] = { "DDF_FILTER_A_L", "l", T_U32 },
	[DDF_FILTER_A_M] = { "DDF_FILTER_A_M", "m", T_U64 },
	[DDF_FILTER_A_BLOCK_BITS] = { "DDF_FILTER_A_BLOCK_BITS", "block_bits",
				      T_U32 },
	[DDF_FILTER_A_BLOCK_HASHES] = { "DDF_FILTER_A_BLOCK_HASHES",
					"block_hashes", T_U32 },
	[DDF_FILTER_A_FP_BITS] = { "DDF_FILTER_A_FP_BITS", "fp_bits", T_U32 },
	[DDF_FILTER_A_CELL_BITS] = { "DDF_FILTER_A_CELL_BITS", "cell_bits",
				     T_U32 },
	[DDF_FILTER_A_DECREMENTS] = { "DDF_FILTER_A_DECREMENTS", "decrements",
				      T_U32 },
	[DDF_FILTER_A_INNER_KIND] = { "DDF_FILTER_A_INNER_KIND", "inner_kind",
				      T_U32 },
	[DDF_FILTER_A_SUBFILTERS] = { "DDF_FILTER_A_SUBFILTERS", "subfilters",
				      T_U32 },
	[DDF_FILTER_A_P_STAR] = { "DDF_FILTER_A_P_STAR", "p_star", T_U32 },
	[DDF_FILTER_A_SEED] = { "DDF_FILTER_A_SEED", "seed", T_BIN },
	[DDF_FILTER_A_HASH] = { "DDF_FILTER_A_HASH", "hash", T_U8 },
	[DDF_FILTER_A_BYTES] = { "DDF_FILTER_A_BYTES", "bytes", T_U64 },
	[DDF_FILTER_A_CPUS] = { "DDF_FILTER_A_CPUS", "cpus", T_U32 },
};

static const struct adesc action_attrs[] = {
	[DDF_ACTION_A_TYPE] = { "DDF_ACTION_A_TYPE", "type", T_U8 },
	[DDF_ACTION_A_MARK] = { "DDF_ACTION_A_MARK", "mark", T_U32 },
	[DDF_ACTION_A_MASK] = { "DDF_ACTION_A_MASK", "mask", T_U32 },
};

static const struct adesc stats_attrs[] = {
	[DDF_STATS_A_PACKETS] = { "DDF_STATS_A_PACKETS", "packets", T_U64 },
	[DDF_STATS_A_BYTES] = { "DDF_STATS_A_BYTES", "bytes", T_U64 },
	[DDF_STATS_A_DUPLICATES] = { "DDF_STATS_A_DUPLICATES", "duplicates",
				     T_U64 },
	[DDF_STATS_A_DROPPED] = { "DDF_STATS_A_DROPPED", "dropped", T_U64 },
	[DDF_STATS_A_MARKED] = { "DDF_STATS_A_MARKED", "marked", T_U64 },
	[DDF_STATS_A_UNPARSED] = { "DDF_STATS_A_UNPARSED", "unparsed", T_U64 },
	[DDF_STATS_A_GENERATION] = { "DDF_STATS_A_GENERATION", "generation",
				     T_U64 },
	[DDF_STATS_A_FILL_PPM] = { "DDF_STATS_A_FILL_PPM", "fill_ppm", T_U32 },
};

static const struct aset stats_set;

static const struct adesc dev_attrs[] = {
	[DDF_DEV_A_NAME] = { "DDF_DEV_A_NAME", "name", T_STR },
	[DDF_DEV_A_IFINDEX] = { "DDF_DEV_A_IFINDEX", "ifindex", T_U32 },
	[DDF_DEV_A_GIVEN] = { "DDF_DEV_A_GIVEN", "given", T_STR },
	[DDF_DEV_A_STATS] = { "DDF_DEV_A_STATS", "stats", T_NEST, &stats_set },
};

static const struct aset key_set = { key_attrs, DDF_KEY_A_MAX };
static const struct aset filter_set = { filter_attrs, DDF_FILTER_A_MAX };
static const struct aset action_set = { action_attrs, DDF_ACTION_A_MAX };
static const struct aset stats_set = { stats_attrs, DDF_STATS_A_MAX };
static const struct aset dev_set = { dev_attrs, DDF_DEV_A_MAX };

static const struct adesc top_attrs[] = {
	[DDF_A_NAME] = { "DDF_A_NAME", "name", T_STR },
	[DDF_A_FAMILY] = { "DDF_A_FAMILY", "family", T_U8 },
	[DDF_A_HOOK] = { "DDF_A_HOOK", "hook", T_U8 },
	[DDF_A_PRIORITY] = { "DDF_A_PRIORITY", "priority", T_S32 },
	[DDF_A_IIFNAME] = { "DDF_A_IIFNAME", "iif", T_STR },
	[DDF_A_OIFNAME] = { "DDF_A_OIFNAME", "oif", T_STR },
	[DDF_A_L4PROTO] = { "DDF_A_L4PROTO", "proto", T_U8 },
	[DDF_A_KEY] = { "DDF_A_KEY", "key", T_NEST, &key_set },
	[DDF_A_FILTER] = { "DDF_A_FILTER", "filter", T_NEST, &filter_set },
	[DDF_A_ACTION] = { "DDF_A_ACTION", "action", T_NEST, &action_set },
	[DDF_A_STATS] = { "DDF_A_STATS", "stats", T_NEST, &stats_set },
	[DDF_A_RESET_FLAGS] = { "DDF_A_RESET_FLAGS", "reset_flags", T_U32 },
	[DDF_A_DEV] = { "DDF_A_DEV", "dev", T_STR },
	[DDF_A_DEV_IFINDEX] = { "DDF_A_DEV_IFINDEX", "ifindex", T_U32 },
	[DDF_A_ID] = { "DDF_A_ID", "id", T_U32 },
	[DDF_A_DEVS] = { "DDF_A_DEVS", "devs", T_LIST, &dev_set },
};

static const struct aset top_set = { top_attrs, DDF_A_MAX };

static const char *const cmd_names[] = {
	[DDF_CMD_NEW] = "DDF_CMD_NEW",	   [DDF_CMD_DEL] = "DDF_CMD_DEL",
	[DDF_CMD_GET] = "DDF_CMD_GET",	   [DDF_CMD_RESET] = "DDF_CMD_RESET",
	[DDF_CMD_FLUSH] = "DDF_CMD_FLUSH",
};

static const struct ddf_word reset_flags[] = {
	{ "filter", DDF_RESET_F_FILTER }, { NULL, 0 },
};

static void print_mask(FILE *out, const struct ddf_word *t, uint32_t v)
{
	bool first = true;

	for (; t->name; t++)
		if (v & t->value) {
			fprintf(out, "%s%s", first ? "" : ",", t->name);
			first = false;
		}
	if (first)
		fputs("none", out);
}

/*
 * The word a number stands for, as the grammar spells it, or NULL. family:
 * the message's, which says what a hook number names.
 */
static const char *meaning_word(const struct aset *set, unsigned int t,
				uint64_t v, uint8_t family)
{
	if (set == &top_set && t == DDF_A_FAMILY)
		return family_name((uint8_t)v);
	if (set == &top_set && t == DDF_A_HOOK)
		return hook_name(family, (uint8_t)v);
	if (set == &top_set && t == DDF_A_L4PROTO)
		return proto_name((uint8_t)v);
	if (set == &filter_set &&
	    (t == DDF_FILTER_A_KIND || t == DDF_FILTER_A_INNER_KIND))
		return ddf_kind_name((uint32_t)v);
	if (set == &filter_set && t == DDF_FILTER_A_HASH)
		return hash_name((uint8_t)v);
	if (set == &action_set && t == DDF_ACTION_A_TYPE)
		return action_name((uint8_t)v);
	if (set == &key_set && t == DDF_KEY_A_FORM)
		return v == DDF_KEY_TYPE_PACKET ? "packet" :
		       v == DDF_KEY_TYPE_FIELDS ? "fields" :
		       v == DDF_KEY_TYPE_FRAME ? "frame" : NULL;
	return NULL;
}

/* The words of a mask attribute's bits, or NULL. */
static const struct ddf_word *meaning_mask(const struct aset *set,
					   unsigned int t)
{
	if (set == &key_set && t == DDF_KEY_A_FIELDS)
		return ddf_key_fields;
	if (set == &key_set && t == DDF_KEY_A_IGNORE)
		return ddf_key_ignores;
	if (set == &key_set && t == DDF_KEY_A_DECAP)
		return ddf_key_decaps;
	if (set == &top_set && t == DDF_A_RESET_FLAGS)
		return reset_flags;
	return NULL;
}

/* " (words)": what a number stands for, after it in a dry run */
static void print_meaning(FILE *out, const struct aset *set, unsigned int t,
			  uint64_t v, uint8_t family)
{
	const struct ddf_word *mask = meaning_mask(set, t);
	const char *s = meaning_word(set, t, v, family);

	if (s) {
		fprintf(out, " (%s)", s);
	} else if (mask) {
		fputs(" (", out);
		print_mask(out, mask, (uint32_t)v);
		fputc(')', out);
	} else if (set == &filter_set && t == DDF_FILTER_A_WINDOW_NS) {
		fputs(" (", out);
		print_duration(out, v);
		fputc(')', out);
	}
}

/*
 * Beside a number in JSON, the words it stands for: "family_name": "ip6",
 * and for a mask "fields_names": ["saddr", "daddr"].
 */
static void json_meaning(FILE *out, const struct adesc *d,
			 const struct aset *set, unsigned int t, uint64_t v,
			 uint8_t family)
{
	const struct ddf_word *mask = meaning_mask(set, t);
	const char *s = meaning_word(set, t, v, family);
	bool first = true;

	if (s) {
		fprintf(out, ", \"%s_name\": ", d->json);
		json_str(out, s);
	} else if (mask) {
		fprintf(out, ", \"%s_names\": [", d->json);
		for (; mask->name; mask++)
			if (v & mask->value) {
				fprintf(out, "%s\"%s\"", first ? "" : ", ",
					mask->name);
				first = false;
			}
		fputc(']', out);
	}
}

/*
 * Whether attribute a holds a value of type t: a number of its width, a
 * string ending in its NUL, a nest of whole attributes. A reply is the
 * kernel's word, but not one to read past an attribute on: one that does
 * not is printed as malformed and decoded as absent.
 */
static bool attr_ok(const struct nlattr *a, enum atype t)
{
	static const enum mnl_attr_data_type as[] = {
		[T_U8] = MNL_TYPE_U8, [T_U16] = MNL_TYPE_U16,
		[T_U32] = MNL_TYPE_U32, [T_S32] = MNL_TYPE_U32,
		[T_U64] = MNL_TYPE_U64, [T_STR] = MNL_TYPE_NUL_STRING,
		[T_NEST] = MNL_TYPE_NESTED, [T_LIST] = MNL_TYPE_NESTED,
	};

	if (t == T_BIN || t >= DDF_ARRAY_SIZE(as))
		return true;
	return !mnl_attr_validate(a, as[t]);
}

/* set's attribute a (of a type the set knows), if well formed; else NULL */
static const struct nlattr *attr_in(const struct aset *set,
				    const struct nlattr *a)
{
	unsigned int t = mnl_attr_get_type(a);

	if (t > set->max || !set->a[t].name || !attr_ok(a, set->a[t].type))
		return NULL;
	return a;
}

static uint64_t attr_uint(const struct nlattr *a, enum atype t)
{
	switch (t) {
	case T_U8: return mnl_attr_get_u8(a);
	case T_U16: return mnl_attr_get_u16(a);
	case T_U32: return mnl_attr_get_u32(a);
	case T_S32: return (uint64_t)(int64_t)(int32_t)mnl_attr_get_u32(a);
	case T_U64: return mnl_attr_get_u64(a);
	default: return 0;
	}
}

/*
 * The attributes of set in buf, one a line (depth: indentation), or as a
 * JSON object. ri, when given, is the rule the message decodes to: JSON
 * adds what ddfctl computes from it (the filter's analytic rate).
 */
static void print_attrs(FILE *out, const struct aset *set, const void *buf,
			size_t len, int depth, bool json,
			const struct ddf_rule_info *ri);

/* A T_LIST: its entries as a JSON array, or numbered lines. */
static void print_list(FILE *out, const struct aset *set,
		       const struct nlattr *list, int depth, bool json,
		       const struct ddf_rule_info *ri)
{
	const struct nlattr *attr;
	bool first = true;

	fputs(json ? "[" : "\n", out);
	mnl_attr_for_each_nested(attr, list) {
		if (json)
			fputs(first ? "" : ", ", out);
		else
			fprintf(out, "%*s%u\n", 2 * (depth + 1), "",
				mnl_attr_get_type(attr));
		first = false;
		print_attrs(out, set, mnl_attr_get_payload(attr),
			    mnl_attr_get_payload_len(attr), depth + 2, json, ri);
	}
	if (json)
		fputc(']', out);
}

/*
 * A device's state from its entry: "present", "renamed" (the name it had
 * when it joined differs), "gone" (no device of that name now).
 */
const char *dev_state(const char *name, const char *given, uint32_t ifindex)
{
	if (!ifindex)
		return "gone";
	return given[0] && strcmp(name, given) ? "renamed" : "present";
}

/*
 * JSON of a device entry of a rule: its state, and the mode of ddf's XDP
 * program for the rule on it ("none" without one).
 */
static void json_dev_extra(FILE *out, const void *buf, size_t len,
			   const struct ddf_rule_info *ri)
{
	const char *name = "", *given = "", *mode;
	const struct nlattr *attr;
	uint32_t ifindex = 0;

	mnl_attr_for_each_payload(buf, len) {
		if (!attr_in(&dev_set, attr))
			continue;
		switch (mnl_attr_get_type(attr)) {
		case DDF_DEV_A_NAME:
			name = mnl_attr_get_str(attr);
			break;
		case DDF_DEV_A_GIVEN:
			given = mnl_attr_get_str(attr);
			break;
		case DDF_DEV_A_IFINDEX:
			ifindex = mnl_attr_get_u32(attr);
			break;
		}
	}
	fputs(", \"state\": ", out);
	json_str(out, dev_state(name, given, ifindex));
	mode = ifindex && ri ? xdp_mode_on((int)ifindex, ri->id) : NULL;
	fputs(", \"xdp\": ", out);
	json_str(out, mode ? mode : "none");
	gro_json(out, &ri->rule, name);
}

static void print_attrs(FILE *out, const struct aset *set, const void *buf,
			size_t len, int depth, bool json,
			const struct ddf_rule_info *ri)
{
	const struct nlattr *attr;
	bool first = true;
	uint8_t family = 0;
	double fpr;

	/* a hook number means something in its family */
	if (set == &top_set)
		mnl_attr_for_each_payload(buf, len)
			if (mnl_attr_get_type(attr) == DDF_A_FAMILY &&
			    attr_in(set, attr))
				family = mnl_attr_get_u8(attr);
	if (json)
		fputc('{', out);
	mnl_attr_for_each_payload(buf, len) {
		unsigned int t = mnl_attr_get_type(attr);
		const struct adesc *d = t <= set->max ? &set->a[t] : NULL;

		if (!d || !d->name)
			continue; /* newer kernel, older ddfctl: skip it */
		if (json)
			fprintf(out, "%s\"%s\": ", first ? "" : ", ", d->json);
		else
			fprintf(out, "%*s%s", 2 * depth, "", d->name);
		first = false;
		if (!attr_ok(attr, d->type)) {
			if (json)
				fputs("null", out);
			else
				fprintf(out, " malformed (%u bytes)\n",
					mnl_attr_get_payload_len(attr));
			continue;
		}
		switch (d->type) {
		case T_STR:
			if (json)
				json_str(out, mnl_attr_get_str(attr));
			else
				fprintf(out, " \"%s\"\n", mnl_attr_get_str(attr));
			break;
		case T_BIN: {
			const uint8_t *p = mnl_attr_get_payload(attr);

			fputs(json ? "\"" : " ", out);
			for (unsigned int i = 0; i < mnl_attr_get_payload_len(attr);
			     i++)
				fprintf(out, "%02x", p[i]);
			fputs(json ? "\"" : "\n", out);
			break;
		}
		case T_NEST:
			if (!json)
				fputc('\n', out);
			print_attrs(out, d->nest, mnl_attr_get_payload(attr),
				    mnl_attr_get_payload_len(attr), depth + 1,
				    json, ri);
			break;
		case T_LIST:
			print_list(out, d->nest, attr, depth, json, ri);
			break;
		case T_S32:
			fprintf(out, json ? "%" PRId64 : " %" PRId64,
				(int64_t)attr_uint(attr, d->type));
			if (!json)
				fputc('\n', out);
			break;
		default:
			fprintf(out, json ? "%" PRIu64 : " %" PRIu64,
				attr_uint(attr, d->type));
			if (json) {
				json_meaning(out, d, set, t,
					     attr_uint(attr, d->type), family);
			} else {
				print_meaning(out, set, t, attr_uint(attr, d->type),
					      family);
				fputc('\n', out);
			}
			break;
		}
	}
	if (json && ri && set == &filter_set &&
	    ddfctl_fpr(&ri->rule.filter.params, &fpr))
		fprintf(out, "%s\"fpr\": %.6g", first ? "" : ", ", fpr);
	if (json && ri && set == &dev_set)
		json_dev_extra(out, buf, len, ri);
	if (json)
		fputc('}', out);
}

/* the attributes after the headers; none in a message too short for them */
static const void *genl_attrs(const struct nlmsghdr *nlh, size_t *len)
{
	size_t hdrs = MNL_NLMSG_HDRLEN + MNL_ALIGN(GENL_HDRLEN);

	*len = nlh->nlmsg_len > hdrs ? nlh->nlmsg_len - hdrs : 0;
	return (const char *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN;
}

void print_request(FILE *out, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	const void *attrs;
	size_t len;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + GENL_HDRLEN) {
		fputs("DDF_CMD_? (no generic netlink header)\n", out);
		return;
	}
	fprintf(out, "%s", g->cmd <= DDF_CMD_MAX && cmd_names[g->cmd] ?
				   cmd_names[g->cmd] : "DDF_CMD_?");
	/* NLM_F_DUMP shares bits with NLM_F_EXCL: only GET can be a dump */
	if (g->cmd == DDF_CMD_GET &&
	    (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP)
		fputs(" dump", out);
	fputc('\n', out);
	attrs = genl_attrs(nlh, &len);
	print_attrs(out, &top_set, attrs, len, 1, false, NULL);
}

/* DDF_A_DEVS: the devices of a netdev rule, in order, with their counters */
static void decode_devs(const struct nlattr *list, struct ddf_rule_info *ri)
{
	struct ddf_rule_spec *r = &ri->rule;
	const struct nlattr *entry, *attr, *s;

	r->ndevs = 0;
	mnl_attr_for_each_nested(entry, list) {
		struct ddf_dev_info *d = &ri->devs[r->ndevs];

		if (r->ndevs == DDF_DEVS_MAX)
			break;
		memset(d, 0, sizeof(*d));
		if (!attr_ok(entry, T_NEST))
			continue;
		mnl_attr_for_each_nested(attr, entry) {
			if (!attr_in(&dev_set, attr))
				continue;
			switch (mnl_attr_get_type(attr)) {
			case DDF_DEV_A_NAME:
				snprintf(r->devs[r->ndevs], sizeof(r->devs[0]),
					 "%s", mnl_attr_get_str(attr));
				break;
			case DDF_DEV_A_GIVEN:
				snprintf(d->given, sizeof(d->given), "%s",
					 mnl_attr_get_str(attr));
				break;
			case DDF_DEV_A_IFINDEX:
				d->ifindex = mnl_attr_get_u32(attr);
				break;
			case DDF_DEV_A_STATS:
				d->has_stats = true;
				mnl_attr_for_each_nested(s, attr) {
					uint64_t *v = NULL;

					if (!attr_in(&stats_set, s))
						continue;
					switch (mnl_attr_get_type(s)) {
					case DDF_STATS_A_PACKETS: v = &d->packets; break;
					case DDF_STATS_A_BYTES: v = &d->bytes; break;
					case DDF_STATS_A_DUPLICATES: v = &d->duplicates; break;
					case DDF_STATS_A_DROPPED: v = &d->dropped; break;
					case DDF_STATS_A_MARKED: v = &d->marked; break;
					case DDF_STATS_A_UNPARSED: v = &d->unparsed; break;
					}
					if (v)
						*v = mnl_attr_get_u64(s);
				}
				break;
			}
		}
		r->ndevs++;
	}
}

/* A rule as a GET reply (or a NEW request) carries it. */
int decode_rule(const struct nlmsghdr *nlh, struct ddf_rule_info *ri)
{
	struct nlattr *tb[DDF_A_MAX + 1] = { 0 };
	struct nlattr *kb[DDF_KEY_A_MAX + 1] = { 0 };
	struct nlattr *fb[DDF_FILTER_A_MAX + 1] = { 0 };
	struct nlattr *ab[DDF_ACTION_A_MAX + 1] = { 0 };
	struct nlattr *sb[DDF_STATS_A_MAX + 1] = { 0 };
	struct ddf_rule_spec *r = &ri->rule;
	struct ddf_params *p = &r->filter.params;
	const struct nlattr *attr;
	const void *attrs;
	size_t len;

	memset(ri, 0, sizeof(*ri));
	attrs = genl_attrs(nlh, &len);
	/* those malformed as absent: attr_ok() */
	mnl_attr_for_each_payload(attrs, len)
		if (attr_in(&top_set, attr))
			tb[mnl_attr_get_type(attr)] = (struct nlattr *)attr;
	if (!tb[DDF_A_NAME])
		return -1;
#define NEST(t, arr, set)                                                      \
	do {                                                                   \
		if (t)                                                         \
			mnl_attr_for_each_nested(attr, t)                      \
				if (attr_in(&(set), attr))                     \
					arr[mnl_attr_get_type(attr)] =         \
						(struct nlattr *)attr;         \
	} while (0)
	NEST(tb[DDF_A_KEY], kb, key_set);
	NEST(tb[DDF_A_FILTER], fb, filter_set);
	NEST(tb[DDF_A_ACTION], ab, action_set);
	NEST(tb[DDF_A_STATS], sb, stats_set);
#undef NEST
#define U8(t) ((t) ? mnl_attr_get_u8(t) : 0)
#define U16(t) ((t) ? mnl_attr_get_u16(t) : 0)
#define U32(t) ((t) ? mnl_attr_get_u32(t) : 0)
#define U64(t) ((t) ? mnl_attr_get_u64(t) : 0)
	snprintf(r->name, sizeof(r->name), "%s",
		 mnl_attr_get_str(tb[DDF_A_NAME]));
	r->family = U8(tb[DDF_A_FAMILY]);
	r->hook = U8(tb[DDF_A_HOOK]);
	r->priority = (int32_t)U32(tb[DDF_A_PRIORITY]);
	if (tb[DDF_A_DEV]) {
		snprintf(r->devs[0], sizeof(r->devs[0]), "%s",
			 mnl_attr_get_str(tb[DDF_A_DEV]));
		r->ndevs = 1;
		ri->devs[0].ifindex = U32(tb[DDF_A_DEV_IFINDEX]);
	}
	if (tb[DDF_A_DEVS])
		decode_devs(tb[DDF_A_DEVS], ri);
	ri->id = U32(tb[DDF_A_ID]);
	ri->has_ifindex = !!tb[DDF_A_DEV_IFINDEX];
	ri->ifindex = U32(tb[DDF_A_DEV_IFINDEX]);
	if (tb[DDF_A_IIFNAME])
		snprintf(r->iif, sizeof(r->iif), "%s",
			 mnl_attr_get_str(tb[DDF_A_IIFNAME]));
	if (tb[DDF_A_OIFNAME])
		snprintf(r->oif, sizeof(r->oif), "%s",
			 mnl_attr_get_str(tb[DDF_A_OIFNAME]));
	r->l4proto = U8(tb[DDF_A_L4PROTO]);
	switch (U8(kb[DDF_KEY_A_FORM])) {
	case DDF_KEY_TYPE_FIELDS:
		r->key.form = DDF_KEY_FIELDS;
		break;
	case DDF_KEY_TYPE_FRAME:
		r->key.form = DDF_KEY_FRAME;
		break;
	default:
		r->key.form = DDF_KEY_PACKET;
		break;
	}
	r->key.fields = U32(kb[DDF_KEY_A_FIELDS]);
	r->key.ignore = U32(kb[DDF_KEY_A_IGNORE]);
	r->key.max_bytes = kb[DDF_KEY_A_MAX_BYTES] ?
				   U32(kb[DDF_KEY_A_MAX_BYTES]) :
				   DDF_KEY_MAX_BYTES_DEFAULT;
	r->key.payload_off = U16(kb[DDF_KEY_A_PAYLOAD_OFF]);
	r->key.payload_len = U16(kb[DDF_KEY_A_PAYLOAD_LEN]);
	r->key.decap = U32(kb[DDF_KEY_A_DECAP]);
	r->key.vxlan_port = U16(kb[DDF_KEY_A_VXLAN_PORT]);
	r->key.geneve_port = U16(kb[DDF_KEY_A_GENEVE_PORT]);
	p->kind = r->filter.kind = U32(fb[DDF_FILTER_A_KIND]);
	p->window = r->filter.window = U64(fb[DDF_FILTER_A_WINDOW]);
	p->window_ns = r->filter.window_ns = U64(fb[DDF_FILTER_A_WINDOW_NS]);
	p->flags = p->window_ns ? DDF_PF_TIME : 0;
	p->k = U32(fb[DDF_FILTER_A_K]);
	p->l = U32(fb[DDF_FILTER_A_L]);
	p->m = U64(fb[DDF_FILTER_A_M]);
	p->block_bits = U32(fb[DDF_FILTER_A_BLOCK_BITS]);
	p->block_hashes = U32(fb[DDF_FILTER_A_BLOCK_HASHES]);
	p->fp_bits = U32(fb[DDF_FILTER_A_FP_BITS]);
	p->cell_bits = U32(fb[DDF_FILTER_A_CELL_BITS]);
	p->decrements = U32(fb[DDF_FILTER_A_DECREMENTS]);
	p->inner_kind = U32(fb[DDF_FILTER_A_INNER_KIND]);
	p->subfilters = U32(fb[DDF_FILTER_A_SUBFILTERS]);
	p->p_star = U32(fb[DDF_FILTER_A_P_STAR]);
	p->cpus = r->filter.cpus = U32(fb[DDF_FILTER_A_CPUS]);
	r->filter.shape = true;
	if (fb[DDF_FILTER_A_SEED] &&
	    mnl_attr_get_payload_len(fb[DDF_FILTER_A_SEED]) == DDF_SEED_LEN) {
		memcpy(r->seed, mnl_attr_get_payload(fb[DDF_FILTER_A_SEED]),
		       DDF_SEED_LEN);
		r->has_seed = true;
	}
	r->hash_alg = U8(fb[DDF_FILTER_A_HASH]);
	ri->bytes = U64(fb[DDF_FILTER_A_BYTES]);
	r->action = U8(ab[DDF_ACTION_A_TYPE]);
	r->mark = U32(ab[DDF_ACTION_A_MARK]);
	r->mask = ab[DDF_ACTION_A_MASK] ? U32(ab[DDF_ACTION_A_MASK]) :
					  0xffffffffu;
	ri->has_stats = !!tb[DDF_A_STATS];
	ri->packets = U64(sb[DDF_STATS_A_PACKETS]);
	ri->bytes_seen = U64(sb[DDF_STATS_A_BYTES]);
	ri->duplicates = U64(sb[DDF_STATS_A_DUPLICATES]);
	ri->dropped = U64(sb[DDF_STATS_A_DROPPED]);
	ri->marked = U64(sb[DDF_STATS_A_MARKED]);
	ri->unparsed = U64(sb[DDF_STATS_A_UNPARSED]);
	ri->generation = U64(sb[DDF_STATS_A_GENERATION]);
	ri->fill_ppm = U32(sb[DDF_STATS_A_FILL_PPM]);
#undef U8
#undef U16
#undef U32
#undef U64
	return 0;
}

static void print_mark(FILE *out, const struct ddf_rule_spec *r)
{
	fprintf(out, " 0x%x", r->mark);
	if (r->mask != 0xffffffffu)
		fprintf(out, "/0x%x", r->mask);
}

/* " max-bytes N" of key packet, when not the default */
static void print_max_bytes(FILE *out, const struct ddf_key_spec *k)
{
	if (k->max_bytes != DDF_KEY_MAX_BYTES_DEFAULT)
		fprintf(out, " max-bytes %u", k->max_bytes);
}

/* " hash NAME" when not the default: the default is left unsaid */
static void print_hash(FILE *out, const struct ddf_rule_spec *r)
{
	const char *name = hash_name(r->hash_alg);

	if (r->hash_alg == DDF_HASH_ALG_SIPHASH13)
		return;
	if (name)
		fprintf(out, " hash %s", name);
	else
		fprintf(out, " hash %u", r->hash_alg);
}

/* "family F hook H[ dev D[,D...]]" */
static void print_place(FILE *out, const struct ddf_rule_spec *r)
{
	fprintf(out, "family %s hook %s", family_name(r->family) ?: "?",
		hook_name(r->family, r->hook) ?: "?");
	for (unsigned int i = 0; i < r->ndevs; i++) {
		fputs(i ? "," : " dev ", out);
		print_ifname(out, r->devs[i]);
	}
}

/*
 * "key K ...": the form and its members, as the grammar reads them back:
 * key packet with its ignore list always, the field and frame forms with
 * theirs (link-layer words only) when there is one, and the tunnels.
 */
static void print_key(FILE *out, const struct ddf_key_spec *k)
{
	switch (k->form) {
	case DDF_KEY_FIELDS:
		fputs("key ", out);
		print_mask(out, ddf_key_fields, k->fields);
		if (k->fields & DDF_KF_PAYLOAD)
			fprintf(out, " payload %u:%u", k->payload_off,
				k->payload_len);
		break;
	case DDF_KEY_FRAME:
		fputs("key frame", out);
		break;
	default:
		fputs("key packet ignore ", out);
		print_mask(out, ddf_key_ignores, k->ignore);
		print_max_bytes(out, k);
		break;
	}
	if (k->form != DDF_KEY_PACKET && (k->ignore & DDF_KI_L2)) {
		fputs(" ignore ", out);
		print_mask(out, ddf_key_ignores, k->ignore & DDF_KI_L2);
	}
	if (k->decap) {
		fputs(" decap ", out);
		print_decap(out, k);
	}
}

/* priority, iif, oif and proto: what save's line and show's first share */
static void print_match(FILE *out, const struct ddf_rule_spec *r)
{
	fprintf(out, " priority %d", r->priority);
	if (r->iif[0]) {
		fputs(" iif ", out);
		print_ifname(out, r->iif);
	}
	if (r->oif[0]) {
		fputs(" oif ", out);
		print_ifname(out, r->oif);
	}
	if (r->l4proto)
		fprintf(out, " proto %s", proto_name(r->l4proto) ?: "?");
}

/*
 * The words of `rule add` that recreate r: every member spelled out, the
 * filter as its resolved shape, so restoring never re-sizes it.
 */
void print_rule_line(FILE *out, const struct ddf_rule_spec *r)
{
	const struct ddf_params *p = &r->filter.params;

	fprintf(out, "rule add %s ", r->name);
	print_place(out, r);
	print_match(out, r);
	fputc(' ', out);
	print_key(out, &r->key);
	/* sbf and the BSBF family have none: restore refuses a window */
	fprintf(out, " filter %s", ddf_kind_name(p->kind));
	if (p->window || p->window_ns)
		fprintf(out, " window %llu", (unsigned long long)p->window);
	if (p->window_ns) {
		fputc('/', out);
		print_duration(out, p->window_ns);
	}
	print_shape(out, p);
	print_hash(out, r);
	if (r->has_seed) {
		fputs(" seed ", out);
		for (int i = 0; i < DDF_SEED_LEN; i++)
			fprintf(out, "%02x", r->seed[i]);
	}
	fprintf(out, " action %s", action_name(r->action) ?: "?");
	if (r->action == DDF_ACTION_MARK)
		print_mark(out, r);
	fputc('\n', out);
}

static void print_stats_text(FILE *out, const struct ddf_rule_info *ri)
{
	const struct ddf_rule_spec *r = &ri->rule;

	fprintf(out, "%s: packets %llu bytes %llu duplicates %llu dropped %llu marked %llu unparsed %llu\n",
		ri->rule.name, (unsigned long long)ri->packets,
		(unsigned long long)ri->bytes_seen,
		(unsigned long long)ri->duplicates,
		(unsigned long long)ri->dropped,
		(unsigned long long)ri->marked,
		(unsigned long long)ri->unparsed);
	fprintf(out, "    filter generation %llu fill %.2f%%\n",
		(unsigned long long)ri->generation, ri->fill_ppm / 1e4);
	/* a rule over several devices: each one's share */
	for (unsigned int i = 0; r->ndevs > 1 && i < r->ndevs; i++) {
		const struct ddf_dev_info *d = &ri->devs[i];

		if (!d->has_stats)
			continue;
		fprintf(out, "    dev %s: packets %llu bytes %llu duplicates %llu dropped %llu marked %llu unparsed %llu\n",
			r->devs[i], (unsigned long long)d->packets,
			(unsigned long long)d->bytes,
			(unsigned long long)d->duplicates,
			(unsigned long long)d->dropped,
			(unsigned long long)d->marked,
			(unsigned long long)d->unparsed);
	}
}

/*
 * "    dev NAME: STATE[, xdp MODE]" for each device of a netdev rule:
 * present, renamed (from the name it joined with), or gone (the port waits
 * for a device of its name); the mode of ddf's XDP program for the rule.
 */
static void print_devs_text(FILE *out, const struct ddf_rule_info *ri)
{
	const struct ddf_rule_spec *r = &ri->rule;

	for (unsigned int i = 0; i < r->ndevs; i++) {
		const struct ddf_dev_info *d = &ri->devs[i];
		const char *st = dev_state(r->devs[i], d->given, d->ifindex);
		const char *mode = d->ifindex ?
					   xdp_mode_on((int)d->ifindex, ri->id) :
					   NULL;

		fprintf(out, "    dev %s: %s", r->devs[i], st);
		if (!strcmp(st, "renamed"))
			fprintf(out, " (was %s)", d->given);
		else if (!strcmp(st, "gone"))
			fputs(" (re-attaches when a device of that name appears)",
			      out);
		if (r->hook == DDF_HOOK_NONE || mode)
			fprintf(out, ", xdp %s", mode ? mode : "none");
		fputc('\n', out);
	}
}

static void print_show_text(FILE *out, const struct ddf_rule_info *ri)
{
	const struct ddf_rule_spec *r = &ri->rule;
	const struct ddf_params *p = &r->filter.params;
	double fpr;

	fprintf(out, "%s: ", r->name);
	print_place(out, r);
	/* the kernel keeps the rule of a device that went, detached */
	if (r->ndevs == 1 && ri->has_ifindex && !ri->ifindex)
		fputs(" (gone: re-attaches when a device of that name appears)",
		      out);
	print_match(out, r);
	fputs("\n    ", out);
	print_key(out, &r->key);
	fprintf(out, " action %s", action_name(r->action) ?: "?");
	if (r->action == DDF_ACTION_MARK)
		print_mark(out, r);
	fprintf(out, "\n    filter %s", ddf_kind_name(p->kind));
	if (p->window || p->window_ns)
		fprintf(out, " window %llu", (unsigned long long)p->window);
	if (p->window_ns) {
		fputs(" per ", out);
		print_duration(out, p->window_ns);
	}
	print_shape(out, p);
	print_hash(out, r);
	fprintf(out, "\n    memory %llu bytes", (unsigned long long)ri->bytes);
	/* the analytic rate of the shape the kernel holds, when there is one */
	if (ddfctl_fpr(p, &fpr))
		fprintf(out, " fpr %.3g", fpr);
	fputc('\n', out);
	print_devs_text(out, ri);
	/* a rule with no hook at a device: what XDP programs use it */
	if (family_netdev(r->family) && r->hook == DDF_HOOK_NONE) {
		char on[256];

		xdp_attached(ri->id, on, sizeof(on));
		if (on[0])
			fprintf(out, "    xdp id %u on%s\n", ri->id, on);
		else
			fprintf(out, "    xdp id %u: no program attached (ddfctl xdp attach dev %s rule %s)\n",
				ri->id, r->ndevs ? r->devs[0] : "?", r->name);
	}
}

void print_rule_reply(FILE *out, const struct nlmsghdr *nlh, bool stats)
{
	struct ddf_rule_info ri;
	const void *attrs;
	size_t len;

	if (ddfctl_json) {
		attrs = genl_attrs(nlh, &len);
		print_attrs(out, &top_set, attrs, len, 0, true,
			    decode_rule(nlh, &ri) ? NULL : &ri);
		/* a dump's rules are items of one array, closed by the caller */
		if (!(nlh->nlmsg_flags & NLM_F_MULTI))
			fputc('\n', out);
		if (!stats) /* on stderr, as below */
			gro_warn_rule(&ri.rule);
		return;
	}
	if (decode_rule(nlh, &ri))
		return;
	if (!stats) /* on stderr: the listing stays as it was */
		gro_warn_rule(&ri.rule);
	if (stats)
		print_stats_text(out, &ri);
	else
		print_show_text(out, &ri);
}

void print_rule_save(FILE *out, const struct nlmsghdr *nlh)
{
	struct ddf_rule_info ri;

	if (!decode_rule(nlh, &ri))
		print_rule_line(out, &ri.rule);
}
