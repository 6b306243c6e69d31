// SPDX-License-Identifier: GPL-2.0
/*
 * nf_ddf_policy: the generic netlink policies of the family "ddf" against
 * attribute sets built in an skb and parsed as the genetlink core parses a
 * request of a family without GENL_DONT_VALIDATE_STRICT: nla_parse() with
 * NL_VALIDATE_STRICT, nested policies recursively. Each bad row must be
 * rejected with the extended ack naming the offending attribute; each good
 * row must pass. The expected outcomes follow uapi/linux/ddf.h's limits.
 */
#include <kunit/test.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/netlink.h>

#include "../../nf_ddf/nf_ddf.h"

enum npk_kind {
	NPK_END,
	NPK_U8,
	NPK_U16,
	NPK_U32,
	NPK_U64,
	NPK_STR, /* val: the string, with its NUL */
	NPK_BIN, /* len bytes of 'a', no NUL */
	NPK_NEST, /* a nest with NLA_F_NESTED; in-attributes go into it */
	NPK_NEST_NOFLAG, /* a nest without NLA_F_NESTED */
	NPK_TRAIL, /* len bytes behind the last attribute, not one */
};

struct npk_attr {
	u8 kind;
	u8 in; /* how deep in nests: 1 inside the last nest, 2 in one in it */
	u16 type; /* may carry NLA_F_NESTED */
	u16 len;
	u64 val;
	const char *str;
};

#define NPK_ATTRS 24

struct npk_case {
	const char *desc;
	struct npk_attr a[NPK_ATTRS];
	int bad; /* the offending attribute's index; NPK_OK, NPK_NO_ATTR */
};

#define NPK_OK (-1) /* accepted */
#define NPK_NO_ATTR (-2) /* rejected, no attribute to blame */

#define NP_U8(t, v) { .kind = NPK_U8, .type = (t), .val = (v) }
#define NP_U16(t, v) { .kind = NPK_U16, .type = (t), .val = (v) }
#define NP_U32(t, v) { .kind = NPK_U32, .type = (t), .val = (v) }
#define NP_U64(t, v) { .kind = NPK_U64, .type = (t), .val = (v) }
#define NP_STR(t, s) { .kind = NPK_STR, .type = (t), .str = (s) }
#define NP_BIN(t, n) { .kind = NPK_BIN, .type = (t), .len = (n) }
#define NP_NEST(t) { .kind = NPK_NEST, .type = (t) }
#define NP_NEST_NOFLAG(t) { .kind = NPK_NEST_NOFLAG, .type = (t) }
#define NP_TRAIL(n) { .kind = NPK_TRAIL, .len = (n) }
#define NP_IN_U8(t, v) { .kind = NPK_U8, .in = 1, .type = (t), .val = (v) }
#define NP_IN_U16(t, v) { .kind = NPK_U16, .in = 1, .type = (t), .val = (v) }
#define NP_IN_U32(t, v) { .kind = NPK_U32, .in = 1, .type = (t), .val = (v) }
#define NP_IN_U64(t, v) { .kind = NPK_U64, .in = 1, .type = (t), .val = (v) }
#define NP_IN_BIN(t, n) { .kind = NPK_BIN, .in = 1, .type = (t), .len = (n) }
#define NP_IN_NEST(t) { .kind = NPK_NEST, .in = 1, .type = (t) }
#define NP_IN2_STR(t, s) { .kind = NPK_STR, .in = 2, .type = (t), .str = (s) }
#define NP_IN2_NEST(t) { .kind = NPK_NEST, .in = 2, .type = (t) }
/* a device of DDF_A_DEVS (entry n, a nest) and its name */
#define NP_DEV_NAME(s) NP_IN2_STR(DDF_DEV_A_NAME, (s))

#define NP_NAME NP_STR(DDF_A_NAME, "dedup")
#define NP_FAMILY_V4 NP_U8(DDF_A_FAMILY, NFPROTO_IPV4)
#define NP_NAME31 "abcdefghijklmnopqrstuvwxyz01234"
#define NP_NAME32 "abcdefghijklmnopqrstuvwxyz012345"
#define NP_WINDOW_NS_MAX 3600000000000ull /* 1 h */
#define NP_WINDOW_MAX (1ull << 40)

static const struct npk_case npk_cases[] = {
	/* accepted */
	{ "empty", { }, NPK_OK },
	{ "16 devices", { NP_NAME, NP_NEST(DDF_A_DEVS), NP_IN_NEST(1), NP_IN_NEST(2),
	  NP_IN_NEST(3), NP_IN_NEST(4), NP_IN_NEST(5), NP_IN_NEST(6), NP_IN_NEST(7),
	  NP_IN_NEST(8), NP_IN_NEST(9), NP_IN_NEST(10), NP_IN_NEST(11), NP_IN_NEST(12),
	  NP_IN_NEST(13), NP_IN_NEST(14), NP_IN_NEST(15), NP_IN_NEST(DDF_DEVS_MAX) }, NPK_OK },
	{ "two named devices", { NP_NAME, NP_NEST(DDF_A_DEVS), NP_IN_NEST(1), NP_DEV_NAME("eth0"),
	  NP_IN_NEST(2), NP_DEV_NAME("abcdefghijklmno") }, NPK_OK },
	{ "every attribute at its limit",
	  { NP_STR(DDF_A_NAME, NP_NAME31), NP_U8(DDF_A_FAMILY, NFPROTO_INET),
	    NP_U8(DDF_A_HOOK, NF_INET_POST_ROUTING), NP_U32(DDF_A_PRIORITY, -300),
	    NP_STR(DDF_A_IIFNAME, "abcdefghijklmno"), NP_STR(DDF_A_OIFNAME, "eth0"),
	    NP_U8(DDF_A_L4PROTO, 255), NP_NEST(DDF_A_KEY),
	    NP_IN_U8(DDF_KEY_A_FORM, DDF_KEY_TYPE_FIELDS),
	    NP_IN_U32(DDF_KEY_A_FIELDS, __DDF_KEY_FIELD_ALL),
	    NP_IN_U16(DDF_KEY_A_PAYLOAD_OFF, 4095), NP_IN_U16(DDF_KEY_A_PAYLOAD_LEN, 1),
	    NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_KIND, DDF_FILTER_QUEUE),
	    NP_IN_U64(DDF_FILTER_A_WINDOW, NP_WINDOW_MAX),
	    NP_IN_U64(DDF_FILTER_A_WINDOW_NS, NP_WINDOW_NS_MAX),
	    NP_IN_U32(DDF_FILTER_A_BLOCK_BITS, 512),
	    NP_IN_U32(DDF_FILTER_A_INNER_KIND, DDF_FILTER_QUEUE),
	    NP_IN_BIN(DDF_FILTER_A_SEED, DDF_SEED_LEN),
	    NP_IN_U8(DDF_FILTER_A_HASH, DDF_HASH_ALG_SIPHASH24),
	    NP_NEST(DDF_A_ACTION), NP_IN_U8(DDF_ACTION_A_TYPE, DDF_ACTION_COUNT),
	    NP_U32(DDF_A_RESET_FLAGS, DDF_RESET_F_FILTER) }, NPK_OK },
	{ "key packet at its limits",
	  { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_IPV6), NP_U8(DDF_A_HOOK, DDF_HOOK_NONE),
	    NP_NEST(DDF_A_KEY), NP_IN_U8(DDF_KEY_A_FORM, DDF_KEY_TYPE_PACKET),
	    NP_IN_U32(DDF_KEY_A_IGNORE, __DDF_KEY_IGNORE_ALL),
	    NP_IN_U32(DDF_KEY_A_MAX_BYTES, 65535) }, NPK_OK },
	{ "filter shape at its limits",
	  { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_IPV4), NP_NEST(DDF_A_FILTER),
	    NP_IN_U32(DDF_FILTER_A_KIND, DDF_FILTER_APBF),
	    NP_IN_U64(DDF_FILTER_A_WINDOW, 1), NP_IN_U64(DDF_FILTER_A_WINDOW_NS, 10000),
	    NP_IN_U32(DDF_FILTER_A_K, 64), NP_IN_U32(DDF_FILTER_A_L, 256),
	    NP_IN_U64(DDF_FILTER_A_M, U64_MAX), NP_IN_U32(DDF_FILTER_A_BLOCK_HASHES, 64),
	    NP_IN_U32(DDF_FILTER_A_FP_BITS, 64), NP_IN_U32(DDF_FILTER_A_CELL_BITS, 64),
	    NP_IN_U32(DDF_FILTER_A_SUBFILTERS, 256),
	    NP_IN_U32(DDF_FILTER_A_DECREMENTS, U32_MAX),
	    NP_IN_U32(DDF_FILTER_A_P_STAR, U32_MAX),
	    NP_IN_U32(DDF_FILTER_A_CPUS, DDF_MAX_CPUS),
	    NP_IN_U8(DDF_FILTER_A_HASH, DDF_HASH_ALG_SIPHASH13) }, NPK_OK },
	{ "key max bytes 1",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U32(DDF_KEY_A_MAX_BYTES, 1) }, NPK_OK },
	{ "action mark",
	  { NP_NAME, NP_NEST(DDF_A_ACTION), NP_IN_U8(DDF_ACTION_A_TYPE, DDF_ACTION_MARK),
	    NP_IN_U32(DDF_ACTION_A_MARK, 0x10), NP_IN_U32(DDF_ACTION_A_MASK, 0xf0) },
	  NPK_OK },
	{ "filter window 0 (kinds without one)",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_KIND, DDF_FILTER_SBF),
	    NP_IN_U64(DDF_FILTER_A_WINDOW, 0) }, NPK_OK },
	{ "name of every byte the kernel takes, 31 at a time",
	  { NP_STR(DDF_A_NAME, "!\"#$%&'()*+,-./0123456789:;<=>?"),
	    NP_STR(DDF_A_NAME, "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^"),
	    NP_STR(DDF_A_NAME, "_`abcdefghijklmnopqrstuvwxyz{|}"),
	    NP_STR(DDF_A_NAME, "~") }, NPK_OK },
	{ "empty nests", { NP_NAME, NP_NEST(DDF_A_KEY), NP_NEST(DDF_A_FILTER),
	  NP_NEST(DDF_A_ACTION) }, NPK_OK },

	/* rejected: top level */
	{ "name of 32 bytes", { NP_STR(DDF_A_NAME, NP_NAME32) }, 0 },
	{ "name without NUL", { NP_U8(DDF_A_FAMILY, NFPROTO_IPV4),
	  NP_BIN(DDF_A_NAME, 5) }, 1 },
	{ "name of no bytes", { NP_BIN(DDF_A_NAME, 0) }, 0 },
	{ "empty name", { NP_STR(DDF_A_NAME, "") }, 0 },
	{ "name with a space", { NP_STR(DDF_A_NAME, "de dup") }, 0 },
	{ "name with a tab", { NP_STR(DDF_A_NAME, "de\tdup") }, 0 },
	{ "name with DEL", { NP_STR(DDF_A_NAME, "dedup\x7f") }, 0 },
	{ "name of UTF-8", { NP_STR(DDF_A_NAME, "d\xc3\xa9-dup") }, 0 },
	{ "name with 0xff", { NP_FAMILY_V4, NP_STR(DDF_A_NAME, "\xff") }, 1 },
	{ "family as u32", { NP_NAME, NP_U32(DDF_A_FAMILY, NFPROTO_IPV4) }, 1 },
	{ "family of 2 bytes", { NP_NAME, NP_U16(DDF_A_FAMILY, NFPROTO_IPV4) }, 1 },
	{ "hook of 4 bytes", { NP_NAME, NP_U32(DDF_A_HOOK, NF_INET_LOCAL_IN) }, 1 },
	{ "priority as u8", { NP_NAME, NP_U8(DDF_A_PRIORITY, 1) }, 1 },
	{ "iifname of 16 bytes", { NP_NAME, NP_STR(DDF_A_IIFNAME, "abcdefghijklmnop") },
	  1 },
	{ "oifname without NUL", { NP_NAME, NP_BIN(DDF_A_OIFNAME, 4) }, 1 },
	{ "l4proto as u16", { NP_NAME, NP_U16(DDF_A_L4PROTO, 17) }, 1 },
	{ "stats (reply only)", { NP_NAME, NP_NEST(DDF_A_STATS) }, 1 },
	{ "pad", { NP_NAME, NP_U64(DDF_A_PAD, 0) }, 1 },
	{ "reset flags 0x2", { NP_NAME, NP_U32(DDF_A_RESET_FLAGS, 0x2) }, 1 },
	{ "reset flags 0x80000000", { NP_NAME, NP_U32(DDF_A_RESET_FLAGS, 0x80000000) },
	  1 },
	{ "attribute type above the maximum", { NP_NAME, NP_U32(DDF_A_MAX + 1, 0) }, 1 },
	{ "attribute type 0", { NP_NAME, NP_U32(DDF_A_UNSPEC, 0) }, 1 },
	{ "family with NLA_F_NESTED",
	  { NP_NAME, NP_U8(DDF_A_FAMILY | NLA_F_NESTED, NFPROTO_IPV4) }, 1 },
	{ "key nest without NLA_F_NESTED",
	  { NP_NAME, NP_NEST_NOFLAG(DDF_A_KEY), NP_IN_U8(DDF_KEY_A_FORM, 0) }, 1 },
	{ "key nest of 2 bytes", { NP_NAME, NP_BIN(DDF_A_KEY | NLA_F_NESTED, 2) }, 1 },
	{ "trailing bytes", { NP_NAME, NP_TRAIL(2) }, NPK_NO_ATTR },

	/* rejected: key */
	{ "key form 3", { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U8(DDF_KEY_A_FORM, 3) }, 2 },
	{ "key form as u32",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U32(DDF_KEY_A_FORM, 0) }, 2 },
	{ "key field bit 1 << 10",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U32(DDF_KEY_A_FIELDS, 1u << 10) }, 2 },
	{ "key ignore bit 1 << 9",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U32(DDF_KEY_A_IGNORE, 1u << 9) }, 2 },
	{ "key tunnel bit 1 << 5",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U32(DDF_KEY_A_DECAP, 1u << 5) }, 2 },
	{ "key VXLAN port 0",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U16(DDF_KEY_A_VXLAN_PORT, 0) }, 2 },
	{ "key Geneve port as u32",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U32(DDF_KEY_A_GENEVE_PORT, 6081) }, 2 },
	{ "device name of 16 bytes",
	  { NP_NAME, NP_STR(DDF_A_DEV, "abcdefghijklmnop") }, 1 },
	{ "device index in a request", { NP_NAME, NP_U32(DDF_A_DEV_IFINDEX, 1) }, 1 },
	{ "17 devices", { NP_NAME, NP_NEST(DDF_A_DEVS), NP_IN_NEST(1), NP_IN_NEST(2),
	  NP_IN_NEST(3), NP_IN_NEST(4), NP_IN_NEST(5), NP_IN_NEST(6), NP_IN_NEST(7),
	  NP_IN_NEST(8), NP_IN_NEST(9), NP_IN_NEST(10), NP_IN_NEST(11), NP_IN_NEST(12),
	  NP_IN_NEST(13), NP_IN_NEST(14), NP_IN_NEST(15), NP_IN_NEST(16),
	  NP_IN_NEST(DDF_DEVS_MAX + 1) }, 18 },
	{ "a device numbered 0", { NP_NAME, NP_NEST(DDF_A_DEVS), NP_IN_NEST(0) }, 2 },
	{ "a device as a string, not a nest",
	  { NP_NAME, NP_NEST(DDF_A_DEVS), NP_IN_U32(1, 0) }, 2 },
	{ "a device name of 16 bytes", { NP_NAME, NP_NEST(DDF_A_DEVS),
	  NP_IN_NEST(1), NP_DEV_NAME("abcdefghijklmnop") }, 3 },
	{ "a device's index in a request", { NP_NAME, NP_NEST(DDF_A_DEVS), NP_IN_NEST(1),
	  NP_IN2_STR(DDF_DEV_A_NAME, "eth0"), NP_IN2_NEST(DDF_DEV_A_IFINDEX) }, 4 },
	{ "a device's counters in a request", { NP_NAME, NP_NEST(DDF_A_DEVS), NP_IN_NEST(1),
	  NP_IN2_NEST(DDF_DEV_A_STATS) }, 3 },
	{ "key max bytes 0",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U32(DDF_KEY_A_MAX_BYTES, 0) }, 2 },
	{ "key max bytes 65536",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U32(DDF_KEY_A_MAX_BYTES, 65536) }, 2 },
	{ "key payload length 0",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U16(DDF_KEY_A_PAYLOAD_LEN, 0) }, 2 },
	{ "key payload length 4097",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U16(DDF_KEY_A_PAYLOAD_LEN, 4097) }, 2 },
	{ "key payload offset 4096",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U16(DDF_KEY_A_PAYLOAD_OFF, 4096) }, 2 },
	{ "key attribute type above the maximum",
	  { NP_NAME, NP_NEST(DDF_A_KEY), NP_IN_U8(DDF_KEY_A_FORM, 0),
	    NP_IN_U32(DDF_KEY_A_MAX + 1, 0) }, 3 },

	/* rejected: filter */
	{ "filter kind 0",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_KIND, 0) }, 2 },
	{ "filter kind past the last",
	  { NP_NAME, NP_NEST(DDF_A_FILTER),
	    NP_IN_U32(DDF_FILTER_A_KIND, __DDF_FILTER_MAX) }, 2 },
	{ "filter window above 2^40",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U64(DDF_FILTER_A_WINDOW, NP_WINDOW_MAX + 1) },
	  2 },
	{ "filter window as u32",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_WINDOW, 1000) }, 2 },
	{ "filter window_ns below 10 us",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U64(DDF_FILTER_A_WINDOW_NS, 9999) }, 2 },
	{ "filter window_ns above 1 h",
	  { NP_NAME, NP_NEST(DDF_A_FILTER),
	    NP_IN_U64(DDF_FILTER_A_WINDOW_NS, NP_WINDOW_NS_MAX + 1) }, 2 },
	{ "filter k 65", { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_K, 65) },
	  2 },
	{ "filter l 257", { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_L, 257) },
	  2 },
	{ "filter cpus 8193",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_CPUS, 8193) }, 2 },
	{ "filter block bits 513",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_BLOCK_BITS, 513) }, 2 },
	{ "filter block hashes 65",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_BLOCK_HASHES, 65) }, 2 },
	{ "filter fingerprint bits 65",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_FP_BITS, 65) }, 2 },
	{ "filter cell bits 65",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_CELL_BITS, 65) }, 2 },
	{ "filter inner kind past the last",
	  { NP_NAME, NP_NEST(DDF_A_FILTER),
	    NP_IN_U32(DDF_FILTER_A_INNER_KIND, __DDF_FILTER_MAX) }, 2 },
	{ "filter subfilters 257",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_SUBFILTERS, 257) }, 2 },
	{ "filter seed of 15 bytes",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_BIN(DDF_FILTER_A_SEED, 15) }, 2 },
	{ "filter seed of 17 bytes",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_BIN(DDF_FILTER_A_SEED, 17) }, 2 },
	{ "filter hash 2",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U8(DDF_FILTER_A_HASH, 2) }, 2 },
	{ "filter bytes (reply only)",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U32(DDF_FILTER_A_KIND, DDF_FILTER_APBBF),
	    NP_IN_U64(DDF_FILTER_A_BYTES, 4096) }, 3 },
	{ "filter pad",
	  { NP_NAME, NP_NEST(DDF_A_FILTER), NP_IN_U64(DDF_FILTER_A_PAD, 0) }, 2 },

	/* rejected: action */
	{ "action type 3",
	  { NP_NAME, NP_NEST(DDF_A_ACTION), NP_IN_U8(DDF_ACTION_A_TYPE, 3) }, 2 },
	{ "action mark as u64",
	  { NP_NAME, NP_NEST(DDF_A_ACTION), NP_IN_U8(DDF_ACTION_A_TYPE, DDF_ACTION_MARK),
	    NP_IN_U64(DDF_ACTION_A_MARK, 1) }, 3 },
	{ "action attribute type above the maximum",
	  { NP_NAME, NP_NEST(DDF_A_ACTION), NP_IN_U32(DDF_ACTION_A_MAX + 1, 0) }, 2 },
};

KUNIT_ARRAY_PARAM_DESC(npk, npk_cases, desc);

/* Put attribute a into skb; where it starts, or NULL when it fails. */
static struct nlattr *npk_put(struct sk_buff *skb, const struct npk_attr *a)
{
	struct nlattr *at = (struct nlattr *)skb_tail_pointer(skb);
	u8 bytes[32];
	int err;

	switch (a->kind) {
	case NPK_U8:
		err = nla_put_u8(skb, a->type, a->val);
		break;
	case NPK_U16:
		err = nla_put_u16(skb, a->type, a->val);
		break;
	case NPK_U32:
		err = nla_put_u32(skb, a->type, a->val);
		break;
	case NPK_U64:
		/* 8 bytes, never a pad attribute before them */
		err = nla_put(skb, a->type, sizeof(a->val), &a->val);
		break;
	case NPK_STR:
		err = nla_put_string(skb, a->type, a->str);
		break;
	case NPK_BIN:
		if (a->len > sizeof(bytes))
			return NULL;
		memset(bytes, 'a', sizeof(bytes));
		err = nla_put(skb, a->type, a->len, bytes);
		break;
	case NPK_NEST:
		return nla_nest_start(skb, a->type);
	case NPK_NEST_NOFLAG:
		return nla_nest_start_noflag(skb, a->type);
	default:
		return NULL;
	}
	return err ? NULL : at;
}

/* Build the attributes attrs into skb, noting where each one starts. */
static bool npk_build(struct sk_buff *skb, const struct npk_attr *attrs,
		      struct nlattr **where)
{
	struct nlattr *nests[3];
	int depth = 0;

	for (int i = 0; i < NPK_ATTRS && attrs[i].kind != NPK_END; i++) {
		const struct npk_attr *a = &attrs[i];

		while (depth > a->in)
			nla_nest_end(skb, nests[--depth]);
		if (a->in > depth)
			return false; /* no nest to be in */
		if (a->kind == NPK_TRAIL) {
			if (skb_tailroom(skb) < a->len)
				return false;
			skb_put_zero(skb, a->len);
			continue;
		}
		where[i] = npk_put(skb, a);
		if (!where[i])
			return false;
		if ((a->kind == NPK_NEST || a->kind == NPK_NEST_NOFLAG) &&
		    depth < ARRAY_SIZE(nests))
			nests[depth++] = where[i];
	}
	while (depth)
		nla_nest_end(skb, nests[--depth]);
	return true;
}

static void npk_test(struct kunit *test)
{
	const struct npk_case *c = test->param_value;
	struct nlattr *where[NPK_ATTRS] = { };
	struct netlink_ext_ack extack = { };
	struct nlattr **tb;
	struct sk_buff *skb;
	bool built;
	int err = 0;

	/* Arrange */
	tb = kunit_kcalloc(test, DDF_A_MAX + 1, sizeof(*tb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tb);
	skb = alloc_skb(1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	built = npk_build(skb, c->a, where);

	/* Act: as genetlink parses a request of a strict family */
	if (built)
		err = nla_parse(tb, DDF_A_MAX, (struct nlattr *)skb->data,
				skb->len, nf_ddf_policy, &extack);
	kfree_skb(skb);
	KUNIT_ASSERT_TRUE_MSG(test, built, "the attributes do not fit");

	/* Assert */
	if (c->bad == NPK_OK) {
		KUNIT_EXPECT_EQ_MSG(test, err, 0, "rejected: %s",
				    extack._msg ? extack._msg : "(no message)");
		KUNIT_EXPECT_NULL(test, extack.bad_attr);
		return;
	}
	KUNIT_EXPECT_LT(test, err, 0);
	if (c->bad == NPK_NO_ATTR) {
		KUNIT_EXPECT_NULL(test, extack.bad_attr);
	} else {
		KUNIT_ASSERT_LT(test, c->bad, NPK_ATTRS);
		KUNIT_EXPECT_PTR_EQ_MSG(test, extack.bad_attr, where[c->bad],
					"extack blames attribute %td, not %d",
					extack.bad_attr ?
					(const u8 *)extack.bad_attr - (const u8 *)where[0] : -1,
					c->bad);
	}
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
}

/*
 * Every integer entry of the policies has a validation that the policy
 * dump of an extended ack can report: the dump reads min and max of the
 * entry's union unless it holds a mask or a range pointer, and warns when
 * they are negative (a validation function's address, say).
 */
static void npk_dumpable_test(struct kunit *test)
{
	static const struct {
		const struct nla_policy *p;
		int max;
	} pols[] = {
		{ nf_ddf_policy, DDF_A_MAX },
		{ nf_ddf_key_policy, DDF_KEY_A_MAX },
		{ nf_ddf_filter_policy, DDF_FILTER_A_MAX },
		{ nf_ddf_action_policy, DDF_ACTION_A_MAX },
		{ nf_ddf_dev_policy, DDF_DEV_A_MAX },
	};

	for (int i = 0; i < ARRAY_SIZE(pols); i++) {
		for (int t = 0; t <= pols[i].max; t++) {
			const struct nla_policy *pt = &pols[i].p[t];
			u8 v = pt->validation_type;

			if (pt->type != NLA_U8 && pt->type != NLA_U16 &&
			    pt->type != NLA_U32 && pt->type != NLA_U64)
				continue;
			KUNIT_EXPECT_TRUE_MSG(test, v == NLA_VALIDATE_NONE ||
					      v == NLA_VALIDATE_RANGE ||
					      v == NLA_VALIDATE_RANGE_PTR ||
					      v == NLA_VALIDATE_MIN ||
					      v == NLA_VALIDATE_MAX ||
					      v == NLA_VALIDATE_MASK,
					      "policy %d attribute %d: validation %u", i, t, v);
			if (v != NLA_VALIDATE_MASK && v != NLA_VALIDATE_RANGE_PTR)
				KUNIT_EXPECT_TRUE_MSG(test, pt->min >= 0 && pt->max >= 0,
						      "policy %d attribute %d: min %d max %d",
						      i, t, pt->min, pt->max);
		}
	}
}

/*
 * Every byte in a rule's name, at its start, middle and end: accepted
 * exactly when it is printable ASCII other than space, else refused with
 * the name blamed and a sentence.
 */
static void npk_name_bytes_test(struct kunit *test)
{
	struct sk_buff *skb;
	struct nlattr **tb;

	tb = kunit_kcalloc(test, DDF_A_MAX + 1, sizeof(*tb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tb);
	for (int b = 1; b < 256; b++) {
		for (int at = 0; at < 3; at++) {
			struct netlink_ext_ack extack = { };
			char name[4] = "abc";
			struct nlattr *a;
			int err;

			name[at] = (char)b;
			skb = alloc_skb(256, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, skb);
			a = (struct nlattr *)skb_tail_pointer(skb);
			KUNIT_ASSERT_EQ(test, nla_put_string(skb, DDF_A_NAME, name), 0);
			err = nla_parse(tb, DDF_A_MAX, (struct nlattr *)skb->data,
					skb->len, nf_ddf_policy, &extack);
			kfree_skb(skb);
			if (b >= 0x21 && b <= 0x7e) {
				KUNIT_EXPECT_EQ_MSG(test, err, 0, "byte 0x%02x at %d: %s",
						    b, at, extack._msg ?: "-");
				continue;
			}
			KUNIT_EXPECT_EQ_MSG(test, err, -EINVAL, "byte 0x%02x at %d", b, at);
			KUNIT_EXPECT_PTR_EQ_MSG(test, extack.bad_attr, a,
						"byte 0x%02x at %d: the name not blamed", b, at);
			KUNIT_EXPECT_TRUE_MSG(test, extack._msg &&
					      strstr(extack._msg, "printable ASCII"),
					      "byte 0x%02x at %d: %s", b, at,
					      extack._msg ?: "(no message)");
		}
	}
}

static struct kunit_case npk_test_cases[] = {
	KUNIT_CASE_PARAM(npk_test, npk_gen_params),
	KUNIT_CASE(npk_dumpable_test),
	KUNIT_CASE(npk_name_bytes_test),
	{}
};

static struct kunit_suite npk_suite = {
	.name = "nf_ddf_policy",
	.test_cases = npk_test_cases,
};

kunit_test_suite(npk_suite);

/*
 * nf_ddf_request: attribute sets the policies accept and a NEW request must
 * still refuse, through the handler's own checks in its order (the name,
 * nf_ddf_rule_parse(): the family and hook values, the interface selectors
 * against the hook, the key spec, the filter's required members, the
 * action; nf_ddf_params_size(): the filter parameters resolved by the
 * core and sized). Each bad row names its errno, a part of the extended
 * ack's sentence and the attribute it must blame; each good row must come
 * out with a filter size.
 */
struct npr_case {
	const char *desc;
	struct npk_attr a[NPK_ATTRS];
	int err; /* 0: accepted */
	const char *msg; /* in the extack message */
	int bad; /* the blamed attribute's index; NPK_NO_ATTR */
};

/* one attribute each, so that the rows stay short */
#define NPR_FILTER NP_NEST(DDF_A_FILTER)
#define NPR_KIND(k) NP_IN_U32(DDF_FILTER_A_KIND, (k))
#define NPR_WINDOW(w) NP_IN_U64(DDF_FILTER_A_WINDOW, (w))
#define NPR_KEY NP_NEST(DDF_A_KEY)
#define NPR_FORM(f) NP_IN_U8(DDF_KEY_A_FORM, (f))
#define NPR_ACTION NP_NEST(DDF_A_ACTION)
#define NPR_TYPE(t) NP_IN_U8(DDF_ACTION_A_TYPE, (t))

static const struct npr_case npr_cases[] = {
	/* accepted */
	{ "name and an exact filter", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(64) }, 0, NULL, NPK_OK },
	{ "iif at input", { NP_NAME, NP_U8(DDF_A_HOOK, NF_INET_LOCAL_IN),
	  NP_STR(DDF_A_IIFNAME, "lo"), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  0, NULL, NPK_OK },
	{ "iif and oif at hook none", { NP_NAME, NP_U8(DDF_A_HOOK, DDF_HOOK_NONE),
	  NP_STR(DDF_A_IIFNAME, "lo"), NP_STR(DDF_A_OIFNAME, "lo"), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, 0, NULL, NPK_OK },
	{ "ttl ignored without ipv4csum, IPv6 only", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_IPV6),
	  NPR_KEY, NPR_FORM(DDF_KEY_TYPE_PACKET), NP_IN_U32(DDF_KEY_A_IGNORE, DDF_KEY_IGNORE_TTL),
	  NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, 0, NULL, NPK_OK },
	{ "payload field at the limit", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_FIELDS),
	  NP_IN_U32(DDF_KEY_A_FIELDS, DDF_KEY_FIELD_PAYLOAD),
	  NP_IN_U16(DDF_KEY_A_PAYLOAD_OFF, 4095), NP_IN_U16(DDF_KEY_A_PAYLOAD_LEN, 1), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, 0, NULL, NPK_OK },
	{ "sbf without a window", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_SBF), NPR_WINDOW(0),
	  NP_IN_U32(DDF_FILTER_A_K, 2), NP_IN_U64(DDF_FILTER_A_M, 15360),
	  NP_IN_U32(DDF_FILTER_A_CELL_BITS, 2), NP_IN_U32(DDF_FILTER_A_DECREMENTS, 39) },
	  0, NULL, NPK_OK },
	{ "apbbf in a time window", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_APBBF),
	  NPR_WINDOW(70), NP_IN_U32(DDF_FILTER_A_K, 3), NP_IN_U32(DDF_FILTER_A_L, 5),
	  NP_IN_U64(DDF_FILTER_A_M, 1), NP_IN_U32(DDF_FILTER_A_BLOCK_BITS, 512),
	  NP_IN_U32(DDF_FILTER_A_BLOCK_HASHES, 8), NP_IN_U64(DDF_FILTER_A_WINDOW_NS, 1000000000) },
	  0, NULL, NPK_OK },
	{ "queue of exact subfilters", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_QUEUE),
	  NPR_WINDOW(64), NP_IN_U32(DDF_FILTER_A_INNER_KIND, DDF_FILTER_EXACT),
	  NP_IN_U32(DDF_FILTER_A_SUBFILTERS, 4) }, 0, NULL, NPK_OK },
	{ "netdev ingress, key frame, ignore vlan and mac", { NP_NAME,
	  NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV), NP_STR(DDF_A_DEV, "eth0"), NPR_KEY,
	  NPR_FORM(DDF_KEY_TYPE_FRAME),
	  NP_IN_U32(DDF_KEY_A_IGNORE, DDF_KEY_IGNORE_VLAN | DDF_KEY_IGNORE_MAC),
	  NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, 0, NULL, NPK_OK },
	{ "netdev egress, every tunnel, other ports", { NP_NAME,
	  NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV), NP_U8(DDF_A_HOOK, NF_NETDEV_EGRESS),
	  NP_STR(DDF_A_DEV, "eth0"), NPR_KEY, NP_IN_U32(DDF_KEY_A_DECAP, __DDF_KEY_DECAP_ALL),
	  NP_IN_U16(DDF_KEY_A_VXLAN_PORT, 8472), NP_IN_U16(DDF_KEY_A_GENEVE_PORT, 65535),
	  NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, 0, NULL, NPK_OK },
	{ "netdev over two devices", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV),
	  NP_NEST(DDF_A_DEVS), NP_IN_NEST(1), NP_DEV_NAME("eth0"), NP_IN_NEST(2), NP_DEV_NAME("eth1"), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, 0, NULL, NPK_OK },
	{ "decap gre at prerouting", { NP_NAME, NPR_KEY,
	  NP_IN_U32(DDF_KEY_A_DECAP, DDF_KEY_DECAP_GRE), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, 0, NULL, NPK_OK },
	{ "mark inside its mask", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64),
	  NPR_ACTION, NPR_TYPE(DDF_ACTION_MARK), NP_IN_U32(DDF_ACTION_A_MARK, 0x10),
	  NP_IN_U32(DDF_ACTION_A_MASK, 0xf0) }, 0, NULL, NPK_OK },

	/* rejected: name, family, hook and selectors */
	{ "family 3", { NP_NAME, NP_U8(DDF_A_FAMILY, 3), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(64) }, -EINVAL, "family must be ip, ip6, inet or netdev", 1 },
	{ "family unspec", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_UNSPEC), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "family must be", 1 },
	{ "hook 5 (ingress)", { NP_NAME, NP_U8(DDF_A_HOOK, NF_INET_INGRESS), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "unknown hook", 1 },
	{ "hook 7", { NP_NAME, NP_U8(DDF_A_HOOK, 7) }, -EINVAL, "unknown hook", 1 },
	{ "netdev without a device", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV),
	  NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "family netdev needs a device", 1 },
	{ "a device for family inet", { NP_NAME, NP_STR(DDF_A_DEV, "eth0"), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "a device binds a rule", 1 },
	{ "a device list for family ip", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_IPV4),
	  NP_NEST(DDF_A_DEVS), NP_IN_NEST(1), NP_DEV_NAME("eth0"), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(64) }, -EINVAL, "a device binds a rule", 2 },
	{ "netdev with a device and a device list", { NP_NAME,
	  NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV), NP_STR(DDF_A_DEV, "eth0"),
	  NP_NEST(DDF_A_DEVS), NP_IN_NEST(1), NP_DEV_NAME("eth1"), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(64) }, -EINVAL, "not both", 3 },
	{ "netdev with an empty device list", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV),
	  NP_NEST(DDF_A_DEVS), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "family netdev needs a device", 2 },
	{ "netdev devices out of order", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV),
	  NP_NEST(DDF_A_DEVS), NP_IN_NEST(2), NP_DEV_NAME("eth0"), NP_IN_NEST(1), NP_DEV_NAME("eth1"), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "numbered 1, 2", 3 },
	{ "netdev device without a name", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV),
	  NP_NEST(DDF_A_DEVS), NP_IN_NEST(1), NP_DEV_NAME("eth0"), NP_IN_NEST(2), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "needs its name", 5 },
	{ "netdev device of an empty name", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV),
	  NP_NEST(DDF_A_DEVS), NP_IN_NEST(1), NP_DEV_NAME(""), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "is empty", 2 },
	{ "netdev device named twice", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV),
	  NP_NEST(DDF_A_DEVS), NP_IN_NEST(1), NP_DEV_NAME("eth0"), NP_IN_NEST(2), NP_DEV_NAME("eth1"), NP_IN_NEST(3), NP_DEV_NAME("eth0"),
	  NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "named twice", 2 },
	{ "netdev hook 2", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV),
	  NP_U8(DDF_A_HOOK, 2), NP_STR(DDF_A_DEV, "eth0"), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "hooks ingress, egress and none", 2 },
	{ "netdev with iif", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_NETDEV),
	  NP_STR(DDF_A_DEV, "eth0"), NP_STR(DDF_A_IIFNAME, "eth1"), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "no iif or oif", 3 },
	{ "key frame at prerouting", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_FRAME),
	  NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "key frame needs family netdev", 1 },
	{ "ignore vlan at prerouting", { NP_NAME, NPR_KEY,
	  NP_IN_U32(DDF_KEY_A_IGNORE, DDF_KEY_IGNORE_TTL | DDF_KEY_IGNORE_IPV4CSUM |
				      DDF_KEY_IGNORE_VLAN),
	  NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "ignore vlan and mac need family netdev", 1 },
	{ "a VXLAN port without decap vxlan", { NP_NAME, NPR_KEY,
	  NP_IN_U32(DDF_KEY_A_DECAP, DDF_KEY_DECAP_GRE), NP_IN_U16(DDF_KEY_A_VXLAN_PORT, 8472),
	  NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "needs decap vxlan", 1 },
	{ "hook 254", { NP_NAME, NP_U8(DDF_A_HOOK, 254) }, -EINVAL, "unknown hook", 1 },
	{ "no name", { NP_U8(DDF_A_FAMILY, NFPROTO_IPV4), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(64) }, -EINVAL, "a rule name is required", NPK_NO_ATTR },
	{ "iif at output", { NP_NAME, NP_U8(DDF_A_HOOK, NF_INET_LOCAL_OUT),
	  NP_STR(DDF_A_IIFNAME, "lo"), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "an input interface needs", 2 },
	{ "iif at postrouting", { NP_NAME, NP_U8(DDF_A_HOOK, NF_INET_POST_ROUTING),
	  NP_STR(DDF_A_IIFNAME, "lo"), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "an input interface needs", 2 },
	{ "oif at the default hook, prerouting", { NP_NAME, NP_STR(DDF_A_OIFNAME, "lo"), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "an output interface needs", 1 },
	{ "oif at input", { NP_NAME, NP_U8(DDF_A_HOOK, NF_INET_LOCAL_IN),
	  NP_STR(DDF_A_OIFNAME, "lo"), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "an output interface needs", 2 },

	/* rejected: key spec (the key nest is blamed) */
	{ "key packet with a field list", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_PACKET),
	  NP_IN_U32(DDF_KEY_A_FIELDS, 1), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "a field list needs the field form", 1 },
	{ "key packet with a payload window", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_PACKET),
	  NP_IN_U16(DDF_KEY_A_PAYLOAD_OFF, 0), NP_IN_U16(DDF_KEY_A_PAYLOAD_LEN, 8), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "belongs to a field list", 1 },
	{ "ttl ignored without ipv4csum, inet", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_PACKET),
	  NP_IN_U32(DDF_KEY_A_IGNORE, DDF_KEY_IGNORE_TTL), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(64) }, -EINVAL, "needs ignore ipv4csum too", 1 },
	{ "ipid ignored without ipv4csum, ip", { NP_NAME, NP_U8(DDF_A_FAMILY, NFPROTO_IPV4),
	  NPR_KEY, NPR_FORM(DDF_KEY_TYPE_PACKET), NP_IN_U32(DDF_KEY_A_IGNORE, DDF_KEY_IGNORE_IPID),
	  NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "needs ignore ipv4csum too", 2 },
	{ "dscp and ecn ignored without ipv4csum", { NP_NAME, NPR_KEY,
	  NP_IN_U32(DDF_KEY_A_IGNORE, DDF_KEY_IGNORE_DSCP | DDF_KEY_IGNORE_ECN), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -EINVAL, "needs ignore ipv4csum too", 1 },
	{ "key fields without fields", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_FIELDS),
	  NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "a field list needs at least one field", 1 },
	{ "key fields with fields 0", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_FIELDS),
	  NP_IN_U32(DDF_KEY_A_FIELDS, 0), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "a field list needs at least one field", 1 },
	{ "key fields ignoring dscp", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_FIELDS),
	  NP_IN_U32(DDF_KEY_A_FIELDS, 3), NP_IN_U32(DDF_KEY_A_IGNORE, 0x7), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -EINVAL, "ignore masks bytes of key packet", 1 },
	{ "payload window without the payload field", { NP_NAME, NPR_KEY,
	  NPR_FORM(DDF_KEY_TYPE_FIELDS), NP_IN_U32(DDF_KEY_A_FIELDS, 3),
	  NP_IN_U16(DDF_KEY_A_PAYLOAD_LEN, 8), NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(64) }, -EINVAL, "given without the payload field", 1 },
	{ "payload field without a length", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_FIELDS),
	  NP_IN_U32(DDF_KEY_A_FIELDS, DDF_KEY_FIELD_PAYLOAD), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) },
	  -ERANGE, "payload LENGTH must be at least 1", 1 },
	{ "payload 4000 + 97", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_FIELDS),
	  NP_IN_U32(DDF_KEY_A_FIELDS, DDF_KEY_FIELD_PAYLOAD),
	  NP_IN_U16(DDF_KEY_A_PAYLOAD_OFF, 4000), NP_IN_U16(DDF_KEY_A_PAYLOAD_LEN, 97), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -ERANGE, "at most 4096 bytes", 1 },
	{ "payload 4095 + 2", { NP_NAME, NPR_KEY, NPR_FORM(DDF_KEY_TYPE_FIELDS),
	  NP_IN_U32(DDF_KEY_A_FIELDS, DDF_KEY_FIELD_PAYLOAD | DDF_KEY_FIELD_SADDR),
	  NP_IN_U16(DDF_KEY_A_PAYLOAD_OFF, 4095), NP_IN_U16(DDF_KEY_A_PAYLOAD_LEN, 2), NPR_FILTER,
	  NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64) }, -ERANGE, "at most 4096 bytes", 1 },

	/* rejected: filter members */
	{ "no filter", { NP_NAME }, -EINVAL, "a filter (DDF_A_FILTER) is required", NPK_NO_ATTR },
	{ "empty filter", { NP_NAME, NPR_FILTER }, -EINVAL, "the filter kind is required", 1 },
	{ "filter without a kind", { NP_NAME, NPR_FILTER, NPR_WINDOW(64) },
	  -EINVAL, "the filter kind is required", 1 },
	{ "filter without a window", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT) },
	  -EINVAL, "the filter window is required", 1 },

	/* rejected: filter parameters, resolved by the core (the filter is blamed) */
	{ "exact with window 0", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(0) },
	  -EINVAL, "the exact filter needs a window", 1 },
	{ "exact with a shape", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64),
	  NP_IN_U32(DDF_FILTER_A_K, 3) }, -EINVAL, "takes a window only", 1 },
	{ "exact with cpus", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64),
	  NP_IN_U32(DDF_FILTER_A_CPUS, 2) }, -EINVAL, "cpus applies to apbf and apbbf only", 1 },
	{ "exact window 2^32", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(1ull << 32) }, -EFBIG, "above 2^32 - 1", 1 },
	{ "exact window 2^32 - 1", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(U32_MAX) }, -EFBIG, "would exceed the memory limit", 1 },
	{ "sbf with a window", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_SBF), NPR_WINDOW(100),
	  NP_IN_U32(DDF_FILTER_A_K, 2) }, -EINVAL, "SBF has no window", 1 },
	{ "sbf in a time window", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_SBF), NPR_WINDOW(0),
	  NP_IN_U32(DDF_FILTER_A_K, 2), NP_IN_U64(DDF_FILTER_A_M, 15360),
	  NP_IN_U32(DDF_FILTER_A_CELL_BITS, 2), NP_IN_U32(DDF_FILTER_A_DECREMENTS, 39),
	  NP_IN_U64(DDF_FILTER_A_WINDOW_NS, 1000000) }, -EINVAL, "SBF has no time aging", 1 },
	{ "sbf without a shape", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_SBF), NPR_WINDOW(0) },
	  -EINVAL, "SBF needs m, k", 1 },
	{ "sbf cells of 33 bits", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_SBF), NPR_WINDOW(0),
	  NP_IN_U32(DDF_FILTER_A_K, 2), NP_IN_U64(DDF_FILTER_A_M, 15360),
	  NP_IN_U32(DDF_FILTER_A_CELL_BITS, 33), NP_IN_U32(DDF_FILTER_A_DECREMENTS, 39) },
	  -ERANGE, "1 to 32 bits", 1 },
	{ "sbf 70000 decrements", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_SBF), NPR_WINDOW(0),
	  NP_IN_U32(DDF_FILTER_A_K, 2), NP_IN_U64(DDF_FILTER_A_M, 15360),
	  NP_IN_U32(DDF_FILTER_A_CELL_BITS, 2), NP_IN_U32(DDF_FILTER_A_DECREMENTS, 70000) },
	  -ERANGE, "65536 decrements", 1 },
	{ "apbbf without a shape", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_APBBF),
	  NPR_WINDOW(70) }, -ERANGE, "k must be 1..64", 1 },
	{ "apbbf block of 256 bits", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_APBBF),
	  NPR_WINDOW(70), NP_IN_U32(DDF_FILTER_A_K, 3), NP_IN_U32(DDF_FILTER_A_L, 5),
	  NP_IN_U64(DDF_FILTER_A_M, 1), NP_IN_U32(DDF_FILTER_A_BLOCK_BITS, 256),
	  NP_IN_U32(DDF_FILTER_A_BLOCK_HASHES, 8) }, -EINVAL, "64 or 512 bits", 1 },
	{ "apbf with a block size", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_APBF),
	  NPR_WINDOW(66), NP_IN_U32(DDF_FILTER_A_K, 14), NP_IN_U32(DDF_FILTER_A_L, 3),
	  NP_IN_U64(DDF_FILTER_A_M, 445), NP_IN_U32(DDF_FILTER_A_BLOCK_BITS, 512) },
	  -EINVAL, "do not apply to apbf", 1 },
	{ "apbf slice of 2^64 - 1 bits", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_APBF),
	  NPR_WINDOW(66), NP_IN_U32(DDF_FILTER_A_K, 64), NP_IN_U32(DDF_FILTER_A_L, 256),
	  NP_IN_U64(DDF_FILTER_A_M, U64_MAX) }, -ERANGE, "larger than 2^32 bits", 1 },
	{ "queue without an inner kind", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_QUEUE),
	  NPR_WINDOW(64) }, -EINVAL, "the queue needs inner_kind", 1 },
	{ "queue of queues", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_QUEUE), NPR_WINDOW(64),
	  NP_IN_U32(DDF_FILTER_A_INNER_KIND, DDF_FILTER_QUEUE),
	  NP_IN_U32(DDF_FILTER_A_SUBFILTERS, 4) }, -EINVAL, "a queue of queues", 1 },
	{ "queue window below its subfilters", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_QUEUE),
	  NPR_WINDOW(2), NP_IN_U32(DDF_FILTER_A_INNER_KIND, DDF_FILTER_EXACT),
	  NP_IN_U32(DDF_FILTER_A_SUBFILTERS, 4) }, -EINVAL, "at least its subfilters", 1 },
	{ "queue in a time window", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_QUEUE),
	  NPR_WINDOW(64), NP_IN_U32(DDF_FILTER_A_INNER_KIND, DDF_FILTER_EXACT),
	  NP_IN_U32(DDF_FILTER_A_SUBFILTERS, 4), NP_IN_U64(DDF_FILTER_A_WINDOW_NS, 1000000) },
	  -EINVAL, "use count mode", 1 },
	{ "qht of 2^64 - 1 rows", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_QHT), NPR_WINDOW(64),
	  NP_IN_U32(DDF_FILTER_A_K, 2), NP_IN_U64(DDF_FILTER_A_M, U64_MAX),
	  NP_IN_U32(DDF_FILTER_A_FP_BITS, 32) }, -EFBIG, "too many rows", 1 },
	{ "cuckoo of 63 buckets", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_CUCKOO),
	  NPR_WINDOW(64), NP_IN_U32(DDF_FILTER_A_K, 1), NP_IN_U64(DDF_FILTER_A_M, 63),
	  NP_IN_U32(DDF_FILTER_A_FP_BITS, 21) }, -EINVAL, "power of two", 1 },
	{ "a2 in a time window", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_A2), NPR_WINDOW(64),
	  NP_IN_U32(DDF_FILTER_A_K, 14), NP_IN_U64(DDF_FILTER_A_M, 2048),
	  NP_IN_U64(DDF_FILTER_A_WINDOW_NS, 100000) },
	  -EINVAL, "time windows are not implemented", 1 },

	/* rejected: action */
	{ "mark action without a mark", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(64), NPR_ACTION, NPR_TYPE(DDF_ACTION_MARK) }, -EINVAL, "needs a mark", 4 },
	{ "drop with a mark", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64),
	  NPR_ACTION, NPR_TYPE(DDF_ACTION_DROP), NP_IN_U32(DDF_ACTION_A_MARK, 1) },
	  -EINVAL, "only with the mark action", 4 },
	{ "count with a mask", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64),
	  NPR_ACTION, NPR_TYPE(DDF_ACTION_COUNT), NP_IN_U32(DDF_ACTION_A_MASK, 1) },
	  -EINVAL, "only with the mark action", 4 },
	{ "the default action with a mark", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(64), NPR_ACTION, NP_IN_U32(DDF_ACTION_A_MARK, 1) },
	  -EINVAL, "only with the mark action", 4 },
	{ "mark outside its mask", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT),
	  NPR_WINDOW(64), NPR_ACTION, NPR_TYPE(DDF_ACTION_MARK),
	  NP_IN_U32(DDF_ACTION_A_MARK, 0x100), NP_IN_U32(DDF_ACTION_A_MASK, 0xff) },
	  -EINVAL, "bits outside its mask", 6 },
	{ "mark with mask 0", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_EXACT), NPR_WINDOW(64),
	  NPR_ACTION, NPR_TYPE(DDF_ACTION_MARK), NP_IN_U32(DDF_ACTION_A_MARK, 1),
	  NP_IN_U32(DDF_ACTION_A_MASK, 0) }, -EINVAL, "bits outside its mask", 6 },
};

KUNIT_ARRAY_PARAM_DESC(npr, npr_cases, desc);

static void npr_test(struct kunit *test)
{
	const struct npr_case *c = test->param_value;
	struct nlattr *where[NPK_ATTRS] = { };
	struct netlink_ext_ack extack = { };
	struct nf_ddf_rule *tmpl;
	struct nlattr **tb;
	struct sk_buff *skb;
	const char *name;
	int perr = 0, err = -EINVAL;
	u64 bytes = 0;
	bool built;

	/* Arrange */
	tb = kunit_kcalloc(test, DDF_A_MAX + 1, sizeof(*tb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tb);
	tmpl = kunit_kzalloc(test, struct_size(tmpl, ports, DDF_DEVS_MAX),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tmpl);
	skb = alloc_skb(1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	built = npk_build(skb, c->a, where);

	/* Act: the policies, then the NEW handler's checks in its order */
	if (built)
		perr = nla_parse(tb, DDF_A_MAX, (struct nlattr *)skb->data, skb->len,
				 nf_ddf_policy, &extack);
	if (built && !perr) {
		name = nf_ddf_attr_name(tb, &extack);
		if (name)
			err = nf_ddf_rule_parse(tmpl, tb, &extack);
		if (name && !err)
			err = nf_ddf_params_size(&tmpl->params, tb[DDF_A_FILTER], &bytes,
						 &extack);
	}
	kfree_skb(skb);
	KUNIT_ASSERT_TRUE_MSG(test, built, "the attributes do not fit");
	KUNIT_ASSERT_EQ_MSG(test, perr, 0, "the policies refuse the row: %s",
			    extack._msg ? extack._msg : "(no message)");

	/* Assert */
	KUNIT_EXPECT_EQ_MSG(test, err, c->err, "extack: %s",
			    extack._msg ? extack._msg : "(no message)");
	if (!c->err) {
		KUNIT_EXPECT_GT(test, bytes, 0ull);
		KUNIT_EXPECT_NULL(test, extack.bad_attr);
		return;
	}
	KUNIT_ASSERT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(extack._msg, c->msg),
				  "extack '%s' does not say '%s'", extack._msg, c->msg);
	if (c->bad == NPK_NO_ATTR) {
		KUNIT_EXPECT_NULL(test, extack.bad_attr);
	} else {
		KUNIT_ASSERT_LT(test, c->bad, NPK_ATTRS);
		KUNIT_EXPECT_PTR_EQ_MSG(test, extack.bad_attr, where[c->bad],
					"extack blames attribute %td, not %d",
					extack.bad_attr ?
					(const u8 *)extack.bad_attr - (const u8 *)where[0] : -1,
					c->bad);
	}
}

/*
 * The CPUs an apbf or apbbf filter is sized for: the kernel's, for a shape
 * sent without them too, or those sent when they are more.
 */
static void npr_cpus_test(struct kunit *test)
{
	static const struct npr_case cs[] = {
		{ "sized here", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_APBBF),
		  NPR_WINDOW(100000), NP_IN_U32(DDF_FILTER_A_K, 6),
		  NP_IN_U32(DDF_FILTER_A_L, 18) } },
		{ "a shape", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_APBF),
		  NPR_WINDOW(100000), NP_IN_U32(DDF_FILTER_A_K, 6),
		  NP_IN_U32(DDF_FILTER_A_L, 18), NP_IN_U64(DDF_FILTER_A_M, 50000) } },
		{ "cpus 3", { NP_NAME, NPR_FILTER, NPR_KIND(DDF_FILTER_APBBF),
		  NPR_WINDOW(100000), NP_IN_U32(DDF_FILTER_A_K, 6),
		  NP_IN_U32(DDF_FILTER_A_L, 18), NP_IN_U32(DDF_FILTER_A_CPUS, 3) } },
	};
	const u32 here = min_t(u32, nr_cpu_ids, DDF_MAX_CPUS);
	const u32 want[] = { here, here, max_t(u32, here, 3) };

	for (int i = 0; i < ARRAY_SIZE(cs); i++) {
		struct nlattr *where[NPK_ATTRS] = { };
		struct netlink_ext_ack extack = { };
		struct nf_ddf_rule *tmpl;
		struct nlattr **tb;
		struct sk_buff *skb;
		u64 bytes = 0;
		int err;

		tb = kunit_kcalloc(test, DDF_A_MAX + 1, sizeof(*tb), GFP_KERNEL);
		tmpl = kunit_kzalloc(test,
				     struct_size(tmpl, ports, DDF_DEVS_MAX),
				     GFP_KERNEL);
		skb = alloc_skb(1024, GFP_KERNEL);
		KUNIT_ASSERT_TRUE(test, tb && tmpl && skb);
		KUNIT_ASSERT_TRUE(test, npk_build(skb, cs[i].a, where));
		err = nla_parse(tb, DDF_A_MAX, (struct nlattr *)skb->data,
				skb->len, nf_ddf_policy, &extack);
		if (!err)
			err = nf_ddf_rule_parse(tmpl, tb, &extack);
		if (!err)
			err = nf_ddf_params_size(&tmpl->params, tb[DDF_A_FILTER],
						 &bytes, &extack);
		kfree_skb(skb);
		KUNIT_ASSERT_EQ_MSG(test, err, 0, "%s: %s", cs[i].desc,
				    extack._msg ? extack._msg : "(no message)");
		KUNIT_EXPECT_EQ_MSG(test, tmpl->params.cpus, want[i], "%s",
				    cs[i].desc);
		KUNIT_EXPECT_GE_MSG(test, tmpl->params.window, 100000ull, "%s",
				    cs[i].desc);
	}
}

static struct kunit_case npr_test_cases[] = {
	KUNIT_CASE_PARAM(npr_test, npr_gen_params),
	KUNIT_CASE(npr_cpus_test),
	{}
};

static struct kunit_suite npr_suite = {
	.name = "nf_ddf_request",
	.test_cases = npr_test_cases,
};

kunit_test_suite(npr_suite);
