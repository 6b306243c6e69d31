// SPDX-License-Identifier: GPL-2.0
/*
 * ddffuzz: random and mutated requests to the generic netlink family "ddf".
 *
 * Each case is one datagram: a valid request of one of the family's
 * commands (a skeleton, as ddfctl would build it) with mutations on top:
 * values flipped or set to extremes, attributes unknown, duplicated,
 * missing, moved into other nests or nested deep, strings empty,
 * unterminated or long, lengths (nla_len, nlmsg_len, the datagram) wrong,
 * headers truncated, dump flags on commands, wrong genl commands, several
 * messages in one datagram. Every reply is read and checked: an ack or
 * error must be well formed (the echoed request byte-identical, extack
 * attributes inside it), a rule message must parse as the family's reply,
 * a dump must end in NLMSG_DONE, and no request may get two answers or
 * none when it asked for an ack.
 *
 * The kernel processes a netlink datagram synchronously inside sendmsg(),
 * so once sendmsg() returns every answer is queued: the fuzzer drains the
 * socket without waiting. A request that asked for no ack and got no
 * error was accepted. A model follows the rule set: the names of the
 * accepted NEW, DEL and FLUSH requests, parsed as the kernel parses them.
 * Every answer about a name (EEXIST, ENOENT, a GET, a dump) must agree with
 * it, and at the end the namespace's rules must be the model's.
 *
 * Every eighth datagram is followed by a UDP datagram and its copy over
 * the loopback (IPv4 and IPv6), through the hooks of the rules accepted so
 * far. The PRNG is seeded (-s, printed), so a failing run can be replayed;
 * a fixed prelude runs before the random requests: a valid rule of every
 * filter kind, and the requests of bugs found before.
 *
 *   ddffuzz [-n MESSAGES] [-s SEED] [-v]   fuzz, as root in a namespace
 *   ddffuzz -u [-n MESSAGES] [-s SEED]     unprivileged: every changing
 *                                          request must get EPERM
 *   ddffuzz -d [-n MESSAGES] [-s SEED]     build the datagrams only (no
 *                                          kernel needed)
 */
#define _GNU_SOURCE /* strerrorname_np */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>

#include "linux/ddf.h"

#define MSG_MAX (160 * 1024) /* one request, as built */
#define DGRAM_MAX (192 * 1024) /* one datagram of requests */
#define RECV_MAX (512 * 1024)
#define NAMES 48 /* the skeletons' name pool */
#define LIVE_MAX 40 /* flush when the model holds more rules */
#define MODEL_MAX 4096
#define PM_MAX 64 /* messages the kernel sees in one datagram */
#define DUMP_NAMES_MAX 256

/* ---- PRNG: splitmix64, deterministic per seed ---- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)(rnd64() % n) : 0;
}

static bool chance(unsigned int percent)
{
	return rnd(100) < percent;
}

/* ---- reporting ---- */

static bool verbose;
static bool dry; /* -d: build and walk the datagrams, send nothing */
static unsigned int failures;

static void hexdump(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len && i < 256; i++)
		printf("%02x%s", b[i], (i % 32 == 31) ? "\n    " : " ");
	printf("%s\n", len > 256 ? "..." : "");
}

/* A failure: what went wrong, with the datagram that caused it. */
static const uint8_t *cur_dgram;
static size_t cur_dgram_len;
static uint64_t cur_case;

static void fail(const char *fmt, ...)
{
	va_list ap;

	failures++;
	if (failures > 20)
		return;
	printf("FAIL (case %" PRIu64 "): ", cur_case);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n    datagram of %zu bytes: ", cur_dgram_len);
	if (cur_dgram)
		hexdump(cur_dgram, cur_dgram_len);
	else
		printf("\n");
}

/* ---- the attribute tree a request is built from ---- */

struct node {
	uint16_t type; /* with NLA_F_* flags */
	bool nest;
	uint32_t len; /* leaf payload */
	uint8_t *data;
	struct node *kids, *next, *parent;
};

static struct node node_pool[8192];
static unsigned int nodes_used;
static uint8_t arena[1 << 20];
static size_t arena_used;

static void tree_reset(void)
{
	nodes_used = 0;
	arena_used = 0;
}

static void *arena_alloc(size_t len)
{
	void *p;

	if (arena_used + len > sizeof(arena))
		return NULL;
	p = arena + arena_used;
	arena_used += (len + 7) & ~(size_t)7;
	return p;
}

static struct node *node_new(uint16_t type, bool nest)
{
	struct node *n;

	if (nodes_used >= sizeof(node_pool) / sizeof(node_pool[0]))
		return NULL;
	n = &node_pool[nodes_used++];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->nest = nest;
	return n;
}

static void kid_add(struct node *parent, struct node *kid)
{
	struct node **pp = &parent->kids;

	if (!kid)
		return;
	while (*pp)
		pp = &(*pp)->next;
	*pp = kid;
	kid->next = NULL;
	kid->parent = parent;
}

static void node_unlink(struct node *n)
{
	struct node **pp = &n->parent->kids;

	while (*pp && *pp != n)
		pp = &(*pp)->next;
	if (*pp)
		*pp = n->next;
	n->next = NULL;
	n->parent = NULL;
}

static void leaf_set(struct node *n, const void *data, uint32_t len)
{
	n->nest = false;
	n->kids = NULL;
	n->data = arena_alloc(len ? len : 1);
	n->len = n->data ? len : 0;
	if (n->data && data)
		memcpy(n->data, data, len);
}

static void leaf_set_int(struct node *n, unsigned int size, uint64_t v)
{
	uint8_t b[16] = { 0 };

	/* little endian, as the machine this runs on; zeros past 8 bytes */
	for (unsigned int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	leaf_set(n, b, size < sizeof(b) ? size : sizeof(b));
}

static struct node *put_int(struct node *parent, uint16_t type,
			    unsigned int size, uint64_t v)
{
	struct node *n = node_new(type, false);

	if (n) {
		leaf_set_int(n, size, v);
		kid_add(parent, n);
	}
	return n;
}

static struct node *put_str(struct node *parent, uint16_t type, const char *s)
{
	struct node *n = node_new(type, false);

	if (n) {
		leaf_set(n, s, (uint32_t)strlen(s) + 1);
		kid_add(parent, n);
	}
	return n;
}

static struct node *put_nest(struct node *parent, uint16_t type)
{
	struct node *n = node_new(type | NLA_F_NESTED, true);

	kid_add(parent, n);
	return n;
}

/* Every node under root, depth first. */
static unsigned int tree_collect(struct node *root, struct node **out,
				 unsigned int max)
{
	unsigned int n = 0;
	struct node *stack[512];
	unsigned int sp = 0;

	for (struct node *k = root->kids; k; k = k->next)
		if (sp < 512)
			stack[sp++] = k;
	while (sp && n < max) {
		struct node *x = stack[--sp];

		out[n++] = x;
		for (struct node *k = x->kids; k; k = k->next)
			if (sp < 512)
				stack[sp++] = k;
	}
	return n;
}

/* ---- serialising: offsets of every attribute kept for the byte-level mutations ---- */

static uint32_t attr_offs[16384];
static unsigned int nattr_offs;

static size_t ser(const struct node *parent, uint8_t *buf, size_t off,
		  size_t max)
{
	for (const struct node *k = parent->kids; k; k = k->next) {
		size_t start = off, end;
		uint16_t l;

		if (off + 4 > max)
			break;
		off += 4;
		if (k->nest) {
			off = ser(k, buf, off, max);
		} else {
			if (off + k->len > max)
				break;
			memcpy(buf + off, k->data, k->len);
			off += k->len;
		}
		end = off;
		/* beyond 65535 bytes the length wraps: a wrong length too */
		l = (uint16_t)(end - start);
		memcpy(buf + start, &l, 2);
		memcpy(buf + start + 2, &k->type, 2);
		while ((off & 3) && off < max)
			buf[off++] = 0;
		if (nattr_offs < sizeof(attr_offs) / sizeof(attr_offs[0]))
			attr_offs[nattr_offs++] = (uint32_t)start;
	}
	return off;
}

/* ---- the family's skeletons ---- */

struct fattr {
	uint16_t type;
	uint8_t size;
	uint64_t val;
};

/* Small filters of every kind (the shapes ddfctl resolves for window 64). */
static const struct {
	const char *name;
	struct fattr a[7];
} kinds[] = {
	{ "apbf", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_APBF },
		    { DDF_FILTER_A_WINDOW, 8, 66 }, { DDF_FILTER_A_K, 4, 14 },
		    { DDF_FILTER_A_L, 4, 3 }, { DDF_FILTER_A_M, 8, 445 } } },
	{ "apbbf", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_APBBF },
		     { DDF_FILTER_A_WINDOW, 8, 70 }, { DDF_FILTER_A_K, 4, 3 },
		     { DDF_FILTER_A_L, 4, 5 }, { DDF_FILTER_A_M, 8, 1 },
		     { DDF_FILTER_A_BLOCK_BITS, 4, 512 },
		     { DDF_FILTER_A_BLOCK_HASHES, 4, 8 } } },
	{ "exact", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_EXACT },
		     { DDF_FILTER_A_WINDOW, 8, 64 } } },
	{ "shf", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_SHF },
		   { DDF_FILTER_A_WINDOW, 8, 64 }, { DDF_FILTER_A_FP_BITS, 4, 26 } } },
	{ "cshf", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_CSHF },
		    { DDF_FILTER_A_WINDOW, 8, 64 }, { DDF_FILTER_A_FP_BITS, 4, 26 } } },
	{ "queue", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_QUEUE },
		     { DDF_FILTER_A_WINDOW, 8, 64 },
		     { DDF_FILTER_A_INNER_KIND, 4, DDF_FILTER_EXACT },
		     { DDF_FILTER_A_SUBFILTERS, 4, 4 } } },
	{ "qht", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_QHT },
		   { DDF_FILTER_A_WINDOW, 8, 64 }, { DDF_FILTER_A_K, 4, 2 },
		   { DDF_FILTER_A_M, 8, 32 }, { DDF_FILTER_A_FP_BITS, 4, 32 } } },
	{ "qhtd", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_QHTD },
		    { DDF_FILTER_A_WINDOW, 8, 64 }, { DDF_FILTER_A_K, 4, 2 },
		    { DDF_FILTER_A_M, 8, 32 }, { DDF_FILTER_A_FP_BITS, 4, 32 } } },
	{ "qqhtd", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_QQHTD },
		     { DDF_FILTER_A_WINDOW, 8, 64 }, { DDF_FILTER_A_K, 4, 2 },
		     { DDF_FILTER_A_M, 8, 32 }, { DDF_FILTER_A_FP_BITS, 4, 32 } } },
	{ "sqf", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_SQF },
		   { DDF_FILTER_A_WINDOW, 8, 64 }, { DDF_FILTER_A_K, 4, 1 },
		   { DDF_FILTER_A_M, 8, 64 }, { DDF_FILTER_A_FP_BITS, 4, 63 },
		   { DDF_FILTER_A_CELL_BITS, 4, 32 } } },
	{ "a2", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_A2 },
		  { DDF_FILTER_A_WINDOW, 8, 64 }, { DDF_FILTER_A_K, 4, 14 },
		  { DDF_FILTER_A_M, 8, 2048 } } },
	{ "bdbf", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_BDBF },
		    { DDF_FILTER_A_WINDOW, 8, 64 }, { DDF_FILTER_A_K, 4, 17 },
		    { DDF_FILTER_A_M, 8, 2784 }, { DDF_FILTER_A_CELL_BITS, 4, 2 } } },
	{ "cuckoo", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_CUCKOO },
		      { DDF_FILTER_A_WINDOW, 8, 64 }, { DDF_FILTER_A_K, 4, 1 },
		      { DDF_FILTER_A_M, 8, 64 }, { DDF_FILTER_A_FP_BITS, 4, 21 } } },
	{ "sbf", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_SBF },
		   { DDF_FILTER_A_WINDOW, 8, 0 }, { DDF_FILTER_A_K, 4, 2 },
		   { DDF_FILTER_A_M, 8, 15360 }, { DDF_FILTER_A_CELL_BITS, 4, 2 },
		   { DDF_FILTER_A_DECREMENTS, 4, 39 } } },
	{ "rsbf", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_RSBF },
		    { DDF_FILTER_A_WINDOW, 8, 0 }, { DDF_FILTER_A_K, 4, 2 },
		    { DDF_FILTER_A_M, 8, 14592 },
		    { DDF_FILTER_A_P_STAR, 4, 128849019 } } },
	{ "bsbf", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_BSBF },
		    { DDF_FILTER_A_WINDOW, 8, 0 }, { DDF_FILTER_A_K, 4, 2 },
		    { DDF_FILTER_A_M, 8, 14592 } } },
	{ "bsbfsd", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_BSBFSD },
		      { DDF_FILTER_A_WINDOW, 8, 0 }, { DDF_FILTER_A_K, 4, 2 },
		      { DDF_FILTER_A_M, 8, 14592 } } },
	{ "rlbsbf", { { DDF_FILTER_A_KIND, 4, DDF_FILTER_RLBSBF },
		      { DDF_FILTER_A_WINDOW, 8, 0 }, { DDF_FILTER_A_K, 4, 2 },
		      { DDF_FILTER_A_M, 8, 14592 } } },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* A request being built: header fields and the attribute tree. */
struct req {
	uint16_t type, flags;
	uint8_t cmd, version, reserved;
	struct node root;
};

static uint16_t family_id;

static void pool_name(char *name)
{
	sprintf(name, "fz%02u", rnd(NAMES));
}

static void skel_filter(struct node *top, unsigned int kind)
{
	struct node *f = put_nest(top, DDF_A_FILTER);

	for (unsigned int i = 0; i < 7 && kinds[kind].a[i].type; i++)
		put_int(f, kinds[kind].a[i].type, kinds[kind].a[i].size,
			kinds[kind].a[i].val);
	/* time windows: long enough that the advance worker stays idle */
	if ((kinds[kind].a[0].val == DDF_FILTER_APBBF ||
	     kinds[kind].a[0].val == DDF_FILTER_EXACT) && chance(20))
		put_int(f, DDF_FILTER_A_WINDOW_NS, 8,
			chance(50) ? 1000000000ull : 100000000ull);
	if (chance(20)) {
		uint8_t seed[DDF_SEED_LEN];

		struct node *n = node_new(DDF_FILTER_A_SEED, false);

		for (unsigned int i = 0; i < sizeof(seed); i++)
			seed[i] = (uint8_t)rnd(256);
		if (n) {
			leaf_set(n, seed, sizeof(seed));
			kid_add(f, n);
		}
	}
	if (chance(20))
		put_int(f, DDF_FILTER_A_HASH, 1, rnd(__DDF_HASH_ALG_MAX));
}

static void skel_new(struct req *r, const char *name)
{
	static const uint8_t fams[] = { NFPROTO_INET, NFPROTO_IPV4, NFPROTO_IPV6 };
	static const uint32_t ignores[] = { 0, 2, 3, 0x43, 0x7f, 0x6a, 0x22 };
	static const uint32_t max_bytes[] = { 1, 20, 64, 1500, 65535 };
	struct node *top = &r->root, *n;
	uint8_t fam = fams[rnd(3)];
	uint8_t hook = chance(50) ? DDF_HOOK_NONE : (uint8_t)rnd(5);

	r->cmd = DDF_CMD_NEW;
	r->flags |= NLM_F_CREATE | NLM_F_EXCL;
	put_str(top, DDF_A_NAME, name);
	if (chance(90))
		put_int(top, DDF_A_FAMILY, 1, fam);
	else
		fam = NFPROTO_INET;
	if (chance(90))
		put_int(top, DDF_A_HOOK, 1, hook);
	else
		hook = NF_INET_PRE_ROUTING;
	if (chance(70))
		put_int(top, DDF_A_PRIORITY, 4, (uint32_t)(int32_t)(rnd(601) - 300));
	if (chance(15) && (hook == DDF_HOOK_NONE || hook <= NF_INET_FORWARD))
		put_str(top, DDF_A_IIFNAME, chance(50) ? "lo" : "veth0");
	if (chance(15) && (hook == DDF_HOOK_NONE || hook >= NF_INET_FORWARD))
		put_str(top, DDF_A_OIFNAME, chance(50) ? "lo" : "eth1");
	if (chance(25))
		put_int(top, DDF_A_L4PROTO, 1, chance(50) ? 17 : rnd(256));

	if (chance(80)) {
		n = put_nest(top, DDF_A_KEY);
		if (chance(60)) {
			uint32_t ign = ignores[rnd(7)];

			/* v4 fields need ipv4csum unless the rule is IPv6 only */
			if (fam != NFPROTO_IPV6 && (ign & 0x1d))
				ign |= DDF_KEY_IGNORE_IPV4CSUM;
			put_int(n, DDF_KEY_A_FORM, 1, DDF_KEY_TYPE_PACKET);
			put_int(n, DDF_KEY_A_IGNORE, 4, ign);
			put_int(n, DDF_KEY_A_MAX_BYTES, 4, max_bytes[rnd(5)]);
		} else {
			uint32_t fields = 1 + rnd(DDF_KEY_FIELD_PAYLOAD - 1);

			put_int(n, DDF_KEY_A_FORM, 1, DDF_KEY_TYPE_FIELDS);
			if (chance(50)) {
				uint32_t len = 1 + rnd(64);

				fields |= DDF_KEY_FIELD_PAYLOAD;
				put_int(n, DDF_KEY_A_FIELDS, 4, fields);
				put_int(n, DDF_KEY_A_PAYLOAD_OFF, 2,
					rnd(DDF_KEY_PAYLOAD_LIMIT - len + 1));
				put_int(n, DDF_KEY_A_PAYLOAD_LEN, 2, len);
			} else {
				put_int(n, DDF_KEY_A_FIELDS, 4, fields);
			}
		}
	}
	skel_filter(top, rnd(NKINDS));
	if (chance(80)) {
		n = put_nest(top, DDF_A_ACTION);
		switch (rnd(3)) {
		case 0:
			put_int(n, DDF_ACTION_A_TYPE, 1, DDF_ACTION_DROP);
			break;
		case 1:
			put_int(n, DDF_ACTION_A_TYPE, 1, DDF_ACTION_COUNT);
			break;
		default: {
			uint32_t mask = (uint32_t)rnd64() | 1;

			put_int(n, DDF_ACTION_A_TYPE, 1, DDF_ACTION_MARK);
			/* without a mask the kernel takes all bits */
			put_int(n, DDF_ACTION_A_MARK, 4, (uint32_t)rnd64() & mask);
			if (chance(70))
				put_int(n, DDF_ACTION_A_MASK, 4, mask);
		}
		}
	}
}

/* Names the model holds, to aim DEL, GET and RESET at live rules. */
static char model[MODEL_MAX][DDF_NAME_MAX];
static unsigned int model_n;

static void target_name(char *name)
{
	if (model_n && chance(60))
		strcpy(name, model[rnd(model_n)]);
	else
		pool_name(name);
}

/* A valid request of command cmd (0: any, by weight). */
static void skeleton(struct req *r, unsigned int cmd)
{
	char name[DDF_NAME_MAX];
	unsigned int w = rnd(100);

	memset(r, 0, sizeof(*r));
	r->type = family_id;
	r->flags = NLM_F_REQUEST | NLM_F_ACK;
	r->version = DDF_GENL_VERSION;
	if (!cmd)
		cmd = w < 42 ? DDF_CMD_NEW : w < 58 ? DDF_CMD_DEL :
		      w < 80 ? DDF_CMD_GET : w < 98 ? DDF_CMD_RESET :
		      DDF_CMD_FLUSH;
	r->cmd = (uint8_t)cmd;
	switch (cmd) {
	case DDF_CMD_NEW:
		pool_name(name);
		skel_new(r, name);
		break;
	case DDF_CMD_DEL:
		target_name(name);
		put_str(&r->root, DDF_A_NAME, name);
		break;
	case DDF_CMD_GET:
		if (chance(12)) {
			r->flags = NLM_F_REQUEST | NLM_F_DUMP;
		} else {
			target_name(name);
			put_str(&r->root, DDF_A_NAME, name);
		}
		break;
	case DDF_CMD_RESET:
		target_name(name);
		put_str(&r->root, DDF_A_NAME, name);
		if (chance(50))
			put_int(&r->root, DDF_A_RESET_FLAGS, 4, DDF_RESET_F_FILTER);
		break;
	case DDF_CMD_FLUSH:
		break;
	}
}

/* ---- mutations ---- */

static const uint64_t interesting[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 255,
	256, 257, 511, 512, 513, 1023, 1024, 4095, 4096, 4097, 9999, 10000,
	65535, 65536, 0x7fffffffull, 0x80000000ull, 0xfffffffeull,
	0xffffffffull, 1ull << 32, (1ull << 40) - 1, 1ull << 40,
	(1ull << 40) + 1, 3600000000000ull, 3600000000001ull, 1ull << 62,
	1ull << 63, ~0ull - 1, ~0ull,
};

static uint64_t pick_value(void)
{
	if (chance(70))
		return interesting[rnd(sizeof(interesting) / sizeof(interesting[0]))];
	return rnd64() >> rnd(64);
}

static const unsigned int int_sizes[] = { 0, 1, 2, 3, 4, 5, 8, 12, 16 };

static struct node *random_node(struct req *r, bool leaf_only)
{
	static struct node *all[8192];
	unsigned int n = tree_collect(&r->root, all, 8192), tries = 8;

	while (n && tries--) {
		struct node *x = all[rnd(n)];

		if (!leaf_only || !x->nest)
			return x;
	}
	return NULL;
}

/* A type: mostly known ones of some level, sometimes unknown or flagged. */
static uint16_t random_type(void)
{
	switch (rnd(6)) {
	case 0:
		return (uint16_t)rnd(DDF_A_MAX + 3);
	case 1:
		return (uint16_t)rnd(DDF_FILTER_A_MAX + 3);
	case 2:
		return (uint16_t)rnd(DDF_KEY_A_MAX + 3);
	case 3:
		return (uint16_t)rnd(0x4000); /* unknown */
	case 4:
		return (uint16_t)(rnd(DDF_A_MAX + 1) | NLA_F_NESTED);
	default:
		return (uint16_t)rnd64(); /* any bits, flags included */
	}
}

static struct node *random_leaf(uint16_t type)
{
	struct node *n = node_new(type, false);

	if (n)
		leaf_set_int(n, int_sizes[rnd(9)], pick_value());
	return n;
}

/* A nest of some known type holding a few random children. */
static struct node *random_nest(uint16_t type, unsigned int depth)
{
	struct node *n = node_new(type | NLA_F_NESTED, true);
	unsigned int kids = rnd(4);

	if (!n)
		return NULL;
	for (unsigned int i = 0; i < kids; i++) {
		if (depth && chance(30))
			kid_add(n, random_nest(random_type(), depth - 1));
		else
			kid_add(n, random_leaf(random_type()));
	}
	return n;
}

static void mutate_string(struct node *n)
{
	static const char *const strs[] = {
		"", "x", "lo", "fz00", "abcdefghijklmnopqrstuvwxyz01234",
		"abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmno",
		"abcdefghijklmnop", "%s%n", "\xff\xfe",
	};
	uint32_t len;

	switch (rnd(6)) {
	case 0: { /* a known or bad string, with its NUL */
		const char *s = strs[rnd(10)];

		leaf_set(n, s, (uint32_t)strlen(s) + 1);
		break;
	}
	case 1: /* unterminated */
		if (n->len)
			n->data[n->len - 1] = 'z';
		break;
	case 2: /* empty, no NUL either */
		leaf_set(n, NULL, 0);
		break;
	case 3: { /* a NUL inside, junk behind it */
		uint8_t b[48];

		len = 2 + rnd(sizeof(b) - 2);
		for (uint32_t i = 0; i < len; i++)
			b[i] = (uint8_t)('a' + rnd(26));
		b[rnd(len)] = 0;
		leaf_set(n, b, len);
		break;
	}
	case 4: { /* long, terminated or not */
		uint32_t l = 1 + rnd(chance(80) ? 64 : 4000);
		uint8_t *b = arena_alloc(l);

		if (!b)
			break;
		memset(b, 'n', l);
		if (chance(50))
			b[l - 1] = 0;
		leaf_set(n, b, l);
		break;
	}
	default: /* only a NUL */
		leaf_set(n, "", 1);
	}
}

static void mutate_tree(struct req *r)
{
	struct node *n, *m;
	unsigned int i, k;

	switch (rnd(16)) {
	case 0: /* flip bits of a value */
	case 1:
		n = random_node(r, true);
		if (n && n->len)
			for (k = 1 + rnd(3); k; k--)
				n->data[rnd(n->len)] ^= (uint8_t)(1u << rnd(8));
		break;
	case 2: /* an extreme value, of its size or another */
	case 3:
		n = random_node(r, true);
		if (n)
			leaf_set_int(n, chance(60) && n->len <= 8 && n->len ?
					n->len : int_sizes[rnd(9)], pick_value());
		break;
	case 4: /* an unknown, reply-only or pad attribute */
		n = random_node(r, false);
		m = random_leaf(random_type());
		kid_add(n && n->nest && chance(50) ? n : &r->root, m);
		if (m && chance(20)) /* pad and reply-only types by name */
			m->type = chance(50) ? DDF_A_PAD : DDF_A_STATS;
		break;
	case 5: /* duplicate an attribute, maybe with another value */
		n = random_node(r, false);
		if (n && !n->nest) {
			m = node_new(n->type, false);
			if (m) {
				leaf_set(m, n->data, n->len);
				if (chance(50) && m->len)
					m->data[rnd(m->len)] ^= 0xff;
				kid_add(chance(80) ? n->parent : &r->root, m);
			}
		} else if (n) {
			kid_add(n->parent, random_nest(n->type & NLA_TYPE_MASK, 1));
		}
		break;
	case 6: /* drop an attribute (required ones too) */
		n = random_node(r, false);
		if (n)
			node_unlink(n);
		break;
	case 7: /* move an attribute to another level */
		n = random_node(r, false);
		m = random_node(r, false);
		if (n && m && m->nest && n != m) {
			/* not into its own subtree */
			for (struct node *p = m; p; p = p->parent)
				if (p == n)
					return;
			node_unlink(n);
			kid_add(m, n);
		} else if (n && n->parent != &r->root) {
			node_unlink(n);
			kid_add(&r->root, n);
		}
		break;
	case 8: /* a nest where a value belongs, or a value where a nest does */
		n = random_node(r, false);
		if (!n)
			break;
		if (n->nest) {
			leaf_set_int(n, int_sizes[rnd(9)], pick_value());
			if (chance(50))
				n->type &= NLA_TYPE_MASK;
		} else {
			n->nest = true;
			n->type |= NLA_F_NESTED;
			kid_add(n, random_leaf(random_type()));
		}
		break;
	case 9: /* deep nesting */
		n = random_node(r, false);
		if (!n)
			n = random_leaf(random_type());
		else
			node_unlink(n);
		k = 1 + rnd(chance(80) ? 12 : 600);
		for (i = 0; i < k && n; i++) {
			m = node_new((uint16_t)((chance(70) ? rnd(DDF_A_MAX + 1) :
					       random_type()) | NLA_F_NESTED), true);
			kid_add(m, n);
			n = m;
		}
		kid_add(&r->root, n);
		break;
	case 10: /* a random nest of known type at the top or inside */
		n = random_node(r, false);
		kid_add(n && n->nest ? n : &r->root,
			random_nest(chance(50) ? DDF_A_KEY + rnd(3) : random_type(), 3));
		break;
	case 11: /* toggle the nested or byte-order flag */
		n = random_node(r, false);
		if (n)
			n->type ^= chance(70) ? NLA_F_NESTED : NLA_F_NET_BYTEORDER;
		break;
	case 12: /* strings: empty, unterminated, long, NUL inside */
		n = random_node(r, true);
		for (i = 0; i < 8 && n && n->len != 0 &&
		     n->data[n->len - 1] != 0; i++)
			n = random_node(r, true);
		if (n)
			mutate_string(n);
		break;
	case 13: { /* a huge attribute */
		uint32_t len = 256 + rnd(chance(90) ? 2000 : 65000);

		n = node_new(chance(50) ? random_type() : DDF_A_NAME, false);
		if (n) {
			leaf_set(n, NULL, len);
			memset(n->data, chance(50) ? 0 : 'A', n->len);
			kid_add(&r->root, n);
		}
		break;
	}
	case 14: /* many copies of one attribute */
		n = random_node(r, true);
		k = 2 + rnd(chance(90) ? 30 : 1000);
		for (i = 0; n && i < k; i++) {
			m = node_new(n->type, false);
			if (!m)
				break;
			m->len = n->len;
			m->data = n->data;
			/* right behind n: appending would walk the list each time */
			m->parent = n->parent;
			m->next = n->next;
			n->next = m;
		}
		break;
	default: /* change the rule's filter wholesale: another kind's shape */
		for (n = r->root.kids; n; n = n->next)
			if ((n->type & NLA_TYPE_MASK) == DDF_A_FILTER && n->nest)
				break;
		if (n) {
			node_unlink(n);
			skel_filter(&r->root, rnd(NKINDS));
			/* and mix in an attribute of the old one */
			if (n->kids && chance(50)) {
				m = n->kids;
				node_unlink(m);
				for (n = r->root.kids; n->next; n = n->next)
					;
				kid_add(n, m);
			}
		}
	}
}

static void mutate_header(struct req *r)
{
	switch (rnd(7)) {
	case 0:
		r->cmd = chance(50) ? (uint8_t)rnd(__DDF_CMD_MAX + 2) : (uint8_t)rnd(256);
		break;
	case 1:
		r->version = (uint8_t)rnd(256);
		break;
	case 2:
		r->reserved = (uint16_t)rnd64();
		break;
	case 3: /* a dump of any command */
		r->flags |= NLM_F_DUMP;
		break;
	case 4:
		r->flags ^= (uint16_t)(1u << rnd(16));
		break;
	case 5: /* a control type: processed as an ack request only */
		r->type = (uint16_t)rnd(NLMSG_MIN_TYPE);
		break;
	default:
		r->flags &= (uint16_t)~NLM_F_ACK;
	}
}

/* Build r into buf; the message's length. */
static size_t req_build(struct req *r, uint8_t *buf, size_t max)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = (struct genlmsghdr *)(buf + NLMSG_HDRLEN);
	size_t len;

	nattr_offs = 0;
	memset(buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	len = ser(&r->root, buf, NLMSG_HDRLEN + GENL_HDRLEN, max);
	nlh->nlmsg_len = (uint32_t)len;
	nlh->nlmsg_type = r->type;
	nlh->nlmsg_flags = r->flags;
	g->cmd = r->cmd;
	g->version = r->version;
	g->reserved = r->reserved;
	return len;
}

/* Byte-level damage after building; the datagram's length for this message. */
static size_t mutate_bytes(uint8_t *buf, size_t len, size_t max)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	uint16_t l;
	uint32_t off;

	switch (rnd(8)) {
	case 0: /* flip bits anywhere behind the netlink header */
	case 1:
		for (unsigned int k = 1 + rnd(8); k && len > NLMSG_HDRLEN; k--)
			buf[NLMSG_HDRLEN + rnd((uint32_t)(len - NLMSG_HDRLEN))] ^=
				(uint8_t)(1u << rnd(8));
		break;
	case 2: /* an nla_len shorter or longer than its payload */
	case 3:
		if (!nattr_offs)
			break;
		off = attr_offs[rnd(nattr_offs)];
		memcpy(&l, buf + off, 2);
		switch (rnd(6)) {
		case 0:
			l = (uint16_t)rnd(4);
			break;
		case 1:
			l = l > 4 ? (uint16_t)(l - 1 - rnd(l - 4)) : 0;
			break;
		case 2:
			l = (uint16_t)(l + 1 + rnd(8));
			break;
		case 3: /* past the end of the message */
			l = (uint16_t)(len - off + 1 + rnd(64));
			break;
		case 4:
			l = 0xffff;
			break;
		default:
			l = (uint16_t)rnd64();
		}
		memcpy(buf + off, &l, 2);
		break;
	case 4: /* nlmsg_len wrong: inside the header, short, or too long */
		switch (rnd(5)) {
		case 0:
			nlh->nlmsg_len = rnd(NLMSG_HDRLEN);
			break;
		case 1:
			nlh->nlmsg_len = NLMSG_HDRLEN + rnd(GENL_HDRLEN + 1);
			break;
		case 2:
			nlh->nlmsg_len = (uint32_t)(len > 20 ? 20 + rnd((uint32_t)(len - 20)) : len);
			break;
		case 3:
			nlh->nlmsg_len = (uint32_t)(len + 1 + rnd(64));
			break;
		default:
			nlh->nlmsg_len = (uint32_t)rnd64();
		}
		break;
	case 5: /* the datagram ends before the message does */
		len = rnd((uint32_t)len);
		break;
	case 6: /* junk behind the message */
		if (len + 64 <= max) {
			uint32_t extra = 1 + rnd(64);

			for (uint32_t i = 0; i < extra; i++)
				buf[len + i] = (uint8_t)rnd64();
			len += extra;
		}
		break;
	default: /* set bytes to extremes */
		for (unsigned int k = 1 + rnd(4); k && len > NLMSG_HDRLEN; k--)
			buf[NLMSG_HDRLEN + rnd((uint32_t)(len - NLMSG_HDRLEN))] =
				(uint8_t[]){ 0, 0xff, 0x7f, 0x80, 0x01 }[rnd(5)];
	}
	return len;
}

/* ---- the messages the kernel will see in a datagram ---- */

struct pm {
	uint32_t seq;
	uint16_t type, flags;
	uint8_t cmd;
	const uint8_t *msg; /* nlmsg_len bytes, as the kernel reads them */
	uint32_t len;
	/* answers */
	unsigned int nerr, ndata, ndone;
	int err, done_err;
	char data_name[DDF_NAME_MAX];
	unsigned int ndump;
	char (*dump_names)[DDF_NAME_MAX];
	bool dump_overflow;
	bool later_changes; /* a later message may change the rules */
	bool dump_intr; /* NLM_F_DUMP_INTR: the rules changed during the dump */
};

static struct pm pms[PM_MAX];
static unsigned int npm;
static char dump_store[PM_MAX][DUMP_NAMES_MAX][DDF_NAME_MAX];
static uint32_t seq_next = 1;

/*
 * Walk the datagram as netlink_rcv_skb() does. Every message it will
 * process gets a fresh sequence number, and a message that only exists
 * because a length was wrong (read out of another one's bytes) is pointed
 * at this family: the fuzzer must not send other families commands.
 */
static void dgram_walk(uint8_t *buf, size_t len)
{
	size_t off = 0;

	npm = 0;
	while (len - off >= NLMSG_HDRLEN && npm < PM_MAX) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(buf + off);
		size_t mlen;

		if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len - off)
			break;
		if (nlh->nlmsg_type >= NLMSG_MIN_TYPE)
			nlh->nlmsg_type = family_id;
		nlh->nlmsg_seq = seq_next++;
		memset(&pms[npm], 0, sizeof(pms[npm]));
		pms[npm].seq = nlh->nlmsg_seq;
		pms[npm].type = nlh->nlmsg_type;
		pms[npm].flags = nlh->nlmsg_flags;
		pms[npm].cmd = nlh->nlmsg_len >= NLMSG_HDRLEN + 1 ?
			       buf[off + NLMSG_HDRLEN] : 0;
		pms[npm].msg = buf + off;
		pms[npm].len = nlh->nlmsg_len;
		pms[npm].dump_names = dump_store[npm];
		npm++;
		mlen = NLMSG_ALIGN(nlh->nlmsg_len);
		off += mlen > len - off ? len - off : mlen;
	}
	/* the walk above stops where the kernel stops; the rest is ignored */
	if (npm == PM_MAX && len - off >= NLMSG_HDRLEN) {
		/* more than the fuzzer tracks: cut the datagram there */
		cur_dgram_len = off;
	}
}

static struct pm *pm_by_seq(uint32_t seq)
{
	for (unsigned int i = 0; i < npm; i++)
		if (pms[i].seq == seq)
			return &pms[i];
	return NULL;
}

/* ---- checking answers ---- */

/* The C string the kernel takes from a NUL_STRING attribute. */
static void attr_cstr(const struct nlattr *a, char *out)
{
	size_t n = mnl_attr_get_payload_len(a);
	const char *s = mnl_attr_get_payload(a);

	if (n > DDF_NAME_MAX - 1)
		n = DDF_NAME_MAX - 1;
	n = strnlen(s, n);
	memcpy(out, s, n);
	out[n] = 0;
}

/* Attributes of [p, p + len) as nla_parse() walks them; false on junk. */
static bool attrs_ok(const uint8_t *p, size_t len)
{
	while (len >= 4) {
		uint16_t nla_len;
		size_t l;

		memcpy(&nla_len, p, 2);
		if (nla_len < 4 || nla_len > len)
			return false;
		/* in size_t: 65535 aligns to 65536, which a u16 wraps to 0 */
		l = NLA_ALIGN((size_t)nla_len);
		if (l >= len)
			return true;
		p += l;
		len -= l;
	}
	return len == 0;
}

/* The last DDF_A_NAME of a request, as the kernel would take it. */
static bool req_name(const uint8_t *msg, uint32_t len, char *out)
{
	const uint8_t *p = msg + NLMSG_HDRLEN + GENL_HDRLEN;
	size_t rem = len > NLMSG_HDRLEN + GENL_HDRLEN ?
		     len - NLMSG_HDRLEN - GENL_HDRLEN : 0;
	bool found = false;

	while (rem >= 4) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t l = a->nla_len;

		if (l < 4 || l > rem)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == DDF_A_NAME) {
			attr_cstr(a, out);
			found = true;
		}
		l = NLA_ALIGN(l);
		if (l >= rem)
			break;
		p += l;
		rem -= l;
	}
	return found;
}

/* Payload sizes of the reply's attributes: 0 unknown, -1 string, -2 nest. */
static const int reply_top[DDF_A_MAX + 1] = {
	[DDF_A_NAME] = -1, [DDF_A_FAMILY] = 1, [DDF_A_HOOK] = 1,
	[DDF_A_PRIORITY] = 4, [DDF_A_IIFNAME] = -1, [DDF_A_OIFNAME] = -1,
	[DDF_A_L4PROTO] = 1, [DDF_A_KEY] = -2, [DDF_A_FILTER] = -2,
	[DDF_A_ACTION] = -2, [DDF_A_STATS] = -2, [DDF_A_DEV] = -1,
	[DDF_A_DEV_IFINDEX] = 4, [DDF_A_ID] = 4,
};
static const int reply_key[DDF_KEY_A_MAX + 1] = {
	[DDF_KEY_A_FORM] = 1, [DDF_KEY_A_FIELDS] = 4, [DDF_KEY_A_IGNORE] = 4,
	[DDF_KEY_A_MAX_BYTES] = 4, [DDF_KEY_A_PAYLOAD_OFF] = 2,
	[DDF_KEY_A_PAYLOAD_LEN] = 2, [DDF_KEY_A_DECAP] = 4,
	[DDF_KEY_A_VXLAN_PORT] = 2, [DDF_KEY_A_GENEVE_PORT] = 2,
};
static const int reply_filter[DDF_FILTER_A_MAX + 1] = {
	[DDF_FILTER_A_PAD] = 3, /* 0 bytes: see reply_attrs() */
	[DDF_FILTER_A_KIND] = 4, [DDF_FILTER_A_WINDOW] = 8,
	[DDF_FILTER_A_WINDOW_NS] = 8, [DDF_FILTER_A_K] = 4,
	[DDF_FILTER_A_L] = 4, [DDF_FILTER_A_M] = 8,
	[DDF_FILTER_A_BLOCK_BITS] = 4, [DDF_FILTER_A_BLOCK_HASHES] = 4,
	[DDF_FILTER_A_FP_BITS] = 4, [DDF_FILTER_A_CELL_BITS] = 4,
	[DDF_FILTER_A_DECREMENTS] = 4, [DDF_FILTER_A_INNER_KIND] = 4,
	[DDF_FILTER_A_SUBFILTERS] = 4, [DDF_FILTER_A_P_STAR] = 4,
	[DDF_FILTER_A_SEED] = DDF_SEED_LEN, [DDF_FILTER_A_HASH] = 1,
	[DDF_FILTER_A_BYTES] = 8, [DDF_FILTER_A_CPUS] = 4,
};
static const int reply_action[DDF_ACTION_A_MAX + 1] = {
	[DDF_ACTION_A_TYPE] = 1, [DDF_ACTION_A_MARK] = 4, [DDF_ACTION_A_MASK] = 4,
};
static const int reply_stats[DDF_STATS_A_MAX + 1] = {
	[DDF_STATS_A_PAD] = 3, [DDF_STATS_A_PACKETS] = 8, [DDF_STATS_A_BYTES] = 8,
	[DDF_STATS_A_DUPLICATES] = 8, [DDF_STATS_A_DROPPED] = 8,
	[DDF_STATS_A_MARKED] = 8, [DDF_STATS_A_UNPARSED] = 8,
	[DDF_STATS_A_GENERATION] = 8, [DDF_STATS_A_FILL_PPM] = 4,
};

struct reply_level {
	const int *sizes;
	int max;
	unsigned int str_max; /* strings: most bytes with the NUL */
	const char *what; /* the level, for messages */
};

/* Check a level of a rule message; tb gets the attributes. */
static const char *reply_attrs(const uint8_t *p, size_t len,
			       const struct reply_level *lv,
			       const struct nlattr **tb)
{
	for (int i = 0; i <= lv->max; i++)
		tb[i] = NULL;
	if (!attrs_ok(p, len))
		return "attribute lengths do not add up";
	while (len >= 4) {
		const struct nlattr *a = (const struct nlattr *)p;
		uint16_t t = a->nla_type & NLA_TYPE_MASK;
		size_t l = a->nla_len, pl = l - 4u;
		int want;

		if (t > lv->max || !lv->sizes[t] || (tb[t] && lv->sizes[t] != 3)) {
			static char why[80];

			snprintf(why, sizeof(why), "%s attribute %u of a reply",
				 t <= lv->max && tb[t] ? "repeated" : "unknown", t);
			if (lv->what)
				snprintf(why + strlen(why), sizeof(why) - strlen(why),
					 " (%s)", lv->what);
			return why;
		}
		want = lv->sizes[t];
		if (want == 3) {
			if (pl)
				return "pad with a payload";
		} else if (want == -1) {
			const char *s = (const char *)a + 4;

			if (!pl || pl > lv->str_max || s[pl - 1] || strlen(s) + 1 != pl)
				return "a string of a reply is not one NUL-terminated string";
		} else if (want == -2) {
			if (!(a->nla_type & NLA_F_NESTED))
				return "a nest without NLA_F_NESTED";
		} else if ((int)pl != want) {
			return "an attribute of a reply has the wrong size";
		}
		tb[t] = a;
		l = NLA_ALIGN(l);
		if (l >= len)
			break;
		p += l;
		len -= l;
	}
	return NULL;
}

static uint32_t get_u(const struct nlattr *a)
{
	uint64_t v = 0;

	memcpy(&v, mnl_attr_get_payload(a), mnl_attr_get_payload_len(a) > 8 ?
	       8 : mnl_attr_get_payload_len(a));
	return (uint32_t)v;
}

/* A rule message: well formed, plausible values; its name in name. */
static const char *check_rule(const struct nlmsghdr *nlh, char *name)
{
	static const struct reply_level top = { reply_top, DDF_A_MAX, DDF_NAME_MAX, "rule" };
	static const struct reply_level key = { reply_key, DDF_KEY_A_MAX, 0, "key" };
	static const struct reply_level fil = { reply_filter, DDF_FILTER_A_MAX, 0, "filter" };
	static const struct reply_level act = { reply_action, DDF_ACTION_A_MAX, 0, "action" };
	static const struct reply_level sta = { reply_stats, DDF_STATS_A_MAX, 0, "stats" };
	const struct nlattr *tb[DDF_A_MAX + 1], *sub[DDF_FILTER_A_MAX + 1];
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	const char *why;
	uint32_t v;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return "rule message shorter than its headers";
	if (g->cmd != DDF_CMD_GET || g->version != DDF_GENL_VERSION)
		return "rule message with another command or version";
	why = reply_attrs((const uint8_t *)g + GENL_HDRLEN,
			  nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, &top, tb);
	if (why)
		return why;
	if (!tb[DDF_A_NAME] || !tb[DDF_A_FAMILY] || !tb[DDF_A_HOOK] ||
	    !tb[DDF_A_PRIORITY] || !tb[DDF_A_KEY] || !tb[DDF_A_FILTER] ||
	    !tb[DDF_A_ACTION] || !tb[DDF_A_STATS])
		return "rule message without a required attribute";
	if ((tb[DDF_A_IIFNAME] &&
	     mnl_attr_get_payload_len(tb[DDF_A_IIFNAME]) > IFNAMSIZ) ||
	    (tb[DDF_A_OIFNAME] &&
	     mnl_attr_get_payload_len(tb[DDF_A_OIFNAME]) > IFNAMSIZ))
		return "interface name longer than IFNAMSIZ";
	attr_cstr(tb[DDF_A_NAME], name);
	if (!name[0])
		return "empty rule name in a reply";
	v = get_u(tb[DDF_A_FAMILY]);
	if (v != NFPROTO_INET && v != NFPROTO_IPV4 && v != NFPROTO_IPV6)
		return "reply with an unknown family";
	v = get_u(tb[DDF_A_HOOK]);
	if (v > NF_INET_POST_ROUTING && v != DDF_HOOK_NONE)
		return "reply with an unknown hook";
	why = reply_attrs(mnl_attr_get_payload(tb[DDF_A_KEY]),
			  mnl_attr_get_payload_len(tb[DDF_A_KEY]), &key, sub);
	if (why)
		return why;
	if (!sub[DDF_KEY_A_FORM] || get_u(sub[DDF_KEY_A_FORM]) >= __DDF_KEY_TYPE_MAX)
		return "reply with a bad key form";
	why = reply_attrs(mnl_attr_get_payload(tb[DDF_A_FILTER]),
			  mnl_attr_get_payload_len(tb[DDF_A_FILTER]), &fil, sub);
	if (why)
		return why;
	if (!sub[DDF_FILTER_A_KIND] || !sub[DDF_FILTER_A_WINDOW] ||
	    !sub[DDF_FILTER_A_BYTES] || !sub[DDF_FILTER_A_HASH])
		return "reply's filter without kind, window, bytes or hash";
	v = get_u(sub[DDF_FILTER_A_KIND]);
	if (!v || v >= __DDF_FILTER_MAX)
		return "reply with an unknown filter kind";
	why = reply_attrs(mnl_attr_get_payload(tb[DDF_A_ACTION]),
			  mnl_attr_get_payload_len(tb[DDF_A_ACTION]), &act, sub);
	if (why)
		return why;
	if (!sub[DDF_ACTION_A_TYPE] || get_u(sub[DDF_ACTION_A_TYPE]) >= __DDF_ACTION_MAX)
		return "reply with a bad action";
	return reply_attrs(mnl_attr_get_payload(tb[DDF_A_STATS]),
			   mnl_attr_get_payload_len(tb[DDF_A_STATS]), &sta, sub);
}

/* ---- counters ---- */

#define ERRNO_MAX 4096
#define NCMD 7 /* NEW DEL GET RESET FLUSH dump other */
static uint64_t err_count[ERRNO_MAX][NCMD];
static uint64_t accepted[NCMD];
static uint64_t n_msgs, n_dgrams, n_noproc, n_ctrl, n_acks, n_errors,
	n_data, n_dumps, n_extack, n_extack_attr, n_silent, n_mismatch,
	n_packets, n_dumps_unchecked;
static const char *const col_name[NCMD] = {
	"NEW", "DEL", "GET", "RESET", "FLUSH", "dump", "other",
};

struct sentence {
	char text[96];
	uint64_t count;
};
static struct sentence sentences[256];
static unsigned int nsentences;

static void count_sentence(const char *s, size_t len)
{
	unsigned int i;

	if (len >= sizeof(sentences[0].text))
		len = sizeof(sentences[0].text) - 1;
	for (i = 0; i < nsentences; i++)
		if (!strncmp(sentences[i].text, s, len) && !sentences[i].text[len]) {
			sentences[i].count++;
			return;
		}
	if (nsentences < 256) {
		memcpy(sentences[nsentences].text, s, len);
		sentences[nsentences].text[len] = 0;
		sentences[nsentences++].count = 1;
	}
}

static unsigned int col_of(const struct pm *p, bool dump)
{
	if (dump)
		return 5;
	if (p->cmd >= DDF_CMD_NEW && p->cmd <= DDF_CMD_FLUSH)
		return p->cmd - 1u;
	return 6;
}

/* ---- the netlink socket ---- */

static struct mnl_socket *nl;
static uint32_t portid;
static uint8_t rbuf[RECV_MAX];

static void sock_open(void)
{
	int one = 1, size = 4 << 20;

	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl) {
		perror("ddffuzz: netlink socket");
		exit(2);
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("ddffuzz: netlink bind");
		exit(2);
	}
	portid = mnl_socket_get_portid(nl);
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	/* room for echoed requests of 64 KiB and dumps: never ENOBUFS */
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE,
		       &size, sizeof(size)))
		setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUF,
			   &size, sizeof(size));
}

static void set_acks(bool ext, bool cap)
{
	int v = ext;

	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &v, sizeof(v));
	v = cap;
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &v, sizeof(v));
}

/* An error or ack message: well formed, echo and extack inside the request. */
static void check_err(const struct nlmsghdr *nlh, struct pm *p)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = NLMSG_HDRLEN + sizeof(*e), end = nlh->nlmsg_len;

	if (nlh->nlmsg_len < off) {
		fail("error message of %u bytes", nlh->nlmsg_len);
		return;
	}
	if (e->error > 0 || e->error < -4095) {
		fail("error value %d", e->error);
		return;
	}
	if (e->msg.nlmsg_seq != p->seq || e->msg.nlmsg_type != p->type ||
	    e->msg.nlmsg_len != p->len) {
		fail("error's request header is not the request's (seq %u len %u)",
		     e->msg.nlmsg_seq, e->msg.nlmsg_len);
		return;
	}
	/* counted before the details: a bad detail is its own failure */
	p->nerr++;
	p->err = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (!e->error) {
			fail("an ack without NLM_F_CAPPED");
			return;
		}
		/* the request's payload, padded, then the extack attributes */
		off += NLMSG_ALIGN(p->len - NLMSG_HDRLEN);
		if (off > end || memcmp((const uint8_t *)&e->msg, p->msg, p->len)) {
			fail("the echoed request differs from the request");
			return;
		}
	}
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		const uint8_t *a = (const uint8_t *)nlh + off;
		size_t rem = end - off;

		if (!attrs_ok(a, rem)) {
			fail("extack attributes do not add up");
			return;
		}
		while (rem >= 4) {
			const struct nlattr *at = (const struct nlattr *)a;
			size_t pl = at->nla_len - 4u, l;
			const char *s = (const char *)at + 4;
			uint32_t v = 0;

			switch (at->nla_type & NLA_TYPE_MASK) {
			case NLMSGERR_ATTR_MSG:
				if (!pl || s[pl - 1] || strlen(s) + 1 != pl) {
					fail("extack message not a string");
					return;
				}
				n_extack++;
				if (e->error)
					count_sentence(s, pl - 1);
				break;
			case NLMSGERR_ATTR_OFFS:
			case NLMSGERR_ATTR_MISS_NEST:
				if (pl != 4) {
					fail("extack offset of %zu bytes", pl);
					return;
				}
				memcpy(&v, s, 4);
				/* an offset into the request, past its headers */
				if (v < NLMSG_HDRLEN + GENL_HDRLEN || v + 4 > p->len) {
					fail("extack offset %u outside the request of %u bytes",
					     v, p->len);
					return;
				}
				n_extack_attr++;
				break;
			case NLMSGERR_ATTR_MISS_TYPE:
				if (pl != 4) {
					fail("extack missing type of %zu bytes", pl);
					return;
				}
				break;
			case NLMSGERR_ATTR_POLICY:
				break;
			default:
				fail("unknown extack attribute %u", at->nla_type);
				return;
			}
			l = NLA_ALIGN(at->nla_len);
			if (l >= rem)
				break;
			a += l;
			rem -= l;
		}
	}
}

/* Read every answer queued; false when the socket failed. */
static bool drain(void)
{
	for (;;) {
		ssize_t n = recv(mnl_socket_get_fd(nl), rbuf, sizeof(rbuf),
				 MSG_DONTWAIT | MSG_TRUNC);
		const struct nlmsghdr *nlh;
		size_t rem;

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (n < 0) {
			fail("recv: %s", strerror(errno));
			return false;
		}
		if ((size_t)n > sizeof(rbuf)) {
			fail("an answer of %zd bytes", n);
			continue;
		}
		rem = (size_t)n;
		nlh = (const struct nlmsghdr *)rbuf;
		while (rem) {
			struct pm *p;

			if (rem < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
			    nlh->nlmsg_len > rem) {
				fail("an answer with a bad nlmsg_len %u of %zu",
				     rem >= 4 ? nlh->nlmsg_len : 0, rem);
				break;
			}
			p = pm_by_seq(nlh->nlmsg_seq);
			if (!p || nlh->nlmsg_pid != portid) {
				fail("an answer (type %u) to seq %u, not ours",
				     nlh->nlmsg_type, nlh->nlmsg_seq);
			} else if (nlh->nlmsg_type == NLMSG_ERROR) {
				check_err(nlh, p);
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				int v = 0;

				if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(int) ||
				    !(nlh->nlmsg_flags & NLM_F_MULTI))
					fail("NLMSG_DONE of %u bytes, flags %#x",
					     nlh->nlmsg_len, nlh->nlmsg_flags);
				else
					memcpy(&v, mnl_nlmsg_get_payload(nlh), sizeof(v));
				if (v > 0)
					fail("NLMSG_DONE with %d", v);
				p->ndone++;
				p->done_err = v;
				p->dump_intr |= !!(nlh->nlmsg_flags & NLM_F_DUMP_INTR);
			} else if (nlh->nlmsg_type == family_id) {
				char name[DDF_NAME_MAX];
				const char *why = check_rule(nlh, name);

				n_data++;
				if (why) {
					fail("rule message: %s", why);
				} else if (nlh->nlmsg_flags & NLM_F_MULTI) {
					p->dump_intr |= !!(nlh->nlmsg_flags &
							   NLM_F_DUMP_INTR);
					if (p->ndump < DUMP_NAMES_MAX)
						strcpy(p->dump_names[p->ndump++], name);
					else
						p->dump_overflow = true;
				} else {
					p->ndata++;
					strcpy(p->data_name, name);
				}
			} else {
				fail("an answer of type %u", nlh->nlmsg_type);
			}
			rem -= NLMSG_ALIGN(nlh->nlmsg_len) < rem ?
			       NLMSG_ALIGN(nlh->nlmsg_len) : rem;
			nlh = (const struct nlmsghdr *)((const uint8_t *)nlh +
							NLMSG_ALIGN(nlh->nlmsg_len));
		}
	}
}

/* ---- the model ---- */

static int model_find(const char *name)
{
	for (unsigned int i = 0; i < model_n; i++)
		if (!strcmp(model[i], name))
			return (int)i;
	return -1;
}

static void printable(const char *s, char *out)
{
	for (; *s; s++) {
		if (*s >= 0x20 && *s < 0x7f)
			*out++ = *s;
		else
			out += sprintf(out, "\\x%02x", (uint8_t)*s);
	}
	*out = 0;
}

static void mismatch(const char *what, const char *name)
{
	char p[DDF_NAME_MAX * 4 + 1];

	printable(name, p);
	n_mismatch++;
	fail("model: %s '%s'", what, p);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* A dump's names against the model. */
static bool dump_equals_model(char (*names)[DDF_NAME_MAX], unsigned int n,
			      bool report)
{
	static char sorted[MODEL_MAX][DDF_NAME_MAX];
	bool same = n == model_n;

	for (unsigned int i = 0; i < n; i++)
		if (model_find(names[i]) < 0) {
			if (report)
				mismatch("the kernel has a rule the model lacks", names[i]);
			same = false;
		}
	memcpy(sorted, names, n * sizeof(sorted[0]));
	qsort(sorted, n, sizeof(sorted[0]), cmp_names);
	for (unsigned int i = 1; i < n; i++)
		if (!strcmp(sorted[i], sorted[i - 1])) {
			if (report)
				mismatch("the kernel lists a rule twice", sorted[i]);
			same = false;
		}
	if (!same && report && n == model_n)
		mismatch("the kernel's rules differ from the model's", "");
	if (n != model_n && report) {
		for (unsigned int i = 0; i < model_n; i++) {
			bool found = false;

			for (unsigned int j = 0; j < n && !found; j++)
				found = !strcmp(names[j], model[i]);
			if (!found)
				mismatch("the kernel lacks a rule of the model", model[i]);
		}
	}
	return same;
}

/*
 * What the answers to message p say, in the order the kernel processed
 * the messages; the model follows accepted changes.
 */
static void settle(struct pm *p, bool unpriv)
{
	bool request = p->flags & NLM_F_REQUEST, ack = p->flags & NLM_F_ACK;
	bool ok, dump;
	char name[DDF_NAME_MAX] = "";
	bool has_name;
	int i;

	n_msgs++;
	/* not a request, or a control type: an ack when asked, nothing else */
	if (!request || p->type < NLMSG_MIN_TYPE) {
		n_ctrl++;
		if (p->ndata || p->ndump || p->ndone || p->nerr != ack ||
		    (p->nerr && p->err))
			fail("seq %u (flags %#x type %u): %u errors (%d), %u data, %u done",
			     p->seq, p->flags, p->type, p->nerr, p->err, p->ndata,
			     p->ndone);
		if (p->nerr)
			n_acks++;
		return;
	}
	dump = p->ndone > 0;
	if (dump) {
		if (p->ndone != 1 || p->nerr || p->ndata || p->cmd != DDF_CMD_GET)
			fail("seq %u: a dump with %u done, %u errors, %u data",
			     p->seq, p->ndone, p->nerr, p->ndata);
		if (p->done_err) {
			err_count[p->done_err < -(ERRNO_MAX - 1) ? ERRNO_MAX - 1 :
				  -p->done_err][5]++;
			return;
		}
		n_dumps++;
		accepted[5]++;
		if (p->dump_overflow)
			fail("a dump of more than %u rules", DUMP_NAMES_MAX);
		else if (!unpriv && !p->later_changes && !p->dump_intr)
			dump_equals_model(p->dump_names, p->ndump, true);
		else
			n_dumps_unchecked++;
		return;
	}
	if (p->ndump)
		fail("seq %u: rule messages of a dump without NLMSG_DONE", p->seq);
	if (p->nerr > 1) {
		fail("seq %u: %u errors", p->seq, p->nerr);
		return;
	}
	if (p->nerr && p->err) {
		n_errors++;
		err_count[-p->err][col_of(p, false)]++;
		if (p->ndata)
			fail("seq %u: an error (%d) and a rule message", p->seq, p->err);
		ok = false;
	} else if (p->nerr) {
		n_acks++;
		if (!ack)
			fail("seq %u: an ack nobody asked for", p->seq);
		ok = true;
	} else {
		/* no answer: accepted, unless an ack was asked for */
		if (ack)
			fail("seq %u (cmd %u flags %#x): no answer", p->seq, p->cmd,
			     p->flags);
		n_silent++;
		ok = true;
	}
	if (unpriv)
		return;
	if (ok)
		accepted[col_of(p, false)]++;
	has_name = req_name(p->msg, p->len, name);
	switch (p->cmd) {
	case DDF_CMD_NEW:
		if (ok) {
			if (!has_name || !name[0]) {
				mismatch("NEW accepted without a name", name);
				break;
			}
			if (model_find(name) >= 0)
				mismatch("NEW accepted for an existing name", name);
			else if (model_n < MODEL_MAX)
				strcpy(model[model_n++], name);
		} else if (p->err == -EEXIST && model_find(name) < 0) {
			mismatch("EEXIST for a name the model lacks", name);
		}
		break;
	case DDF_CMD_DEL:
		i = has_name ? model_find(name) : -1;
		if (ok) {
			if (i < 0)
				mismatch("DEL accepted for a name the model lacks", name);
			else
				memcpy(model[i], model[--model_n], DDF_NAME_MAX);
		} else if (p->err == -ENOENT && i >= 0) {
			mismatch("ENOENT for a DEL of a rule of the model", name);
		}
		break;
	case DDF_CMD_RESET:
	case DDF_CMD_GET:
		i = has_name ? model_find(name) : -1;
		if (ok && i < 0)
			mismatch("RESET or GET accepted for a name the model lacks", name);
		else if (!ok && p->err == -ENOENT && i >= 0)
			mismatch("ENOENT for a RESET or GET of a rule of the model", name);
		if (p->cmd == DDF_CMD_GET && ok) {
			if (p->ndata != 1)
				fail("seq %u: GET accepted with %u rule messages",
				     p->seq, p->ndata);
			else if (strcmp(p->data_name, name))
				mismatch("GET answered with another rule", p->data_name);
		} else if (p->ndata) {
			fail("seq %u: a rule message for command %u", p->seq, p->cmd);
		}
		break;
	case DDF_CMD_FLUSH:
		if (ok)
			model_n = 0;
		break;
	default:
		if (ok)
			fail("seq %u: command %u accepted", p->seq, p->cmd);
	}
}

/* ---- sending ---- */

static uint8_t dgram[DGRAM_MAX];
static uint64_t bytes_sent;

/* Send the datagram and settle every message the kernel processed. */
static void send_dgram(size_t len, bool unpriv)
{
	ssize_t n;

	cur_dgram = dgram;
	cur_dgram_len = len;
	dgram_walk(dgram, len);
	len = cur_dgram_len;
	n_dgrams++;
	if (!npm)
		n_noproc++;
	if (dry) {
		n_msgs += npm;
		bytes_sent += len;
		return;
	}
	n = sendto(mnl_socket_get_fd(nl), dgram, len, 0,
		   (const struct sockaddr *)&(struct sockaddr_nl){
			   .nl_family = AF_NETLINK }, sizeof(struct sockaddr_nl));
	if (n < 0) {
		/* the datagram never reached the family: nothing processed */
		if (!(len == 0 && errno == ENODATA))
			fail("sendto: %s", strerror(errno));
		npm = 0;
	}
	bytes_sent += len;
	drain();
	/*
	 * A dump's later parts are filled when they are read, after the
	 * whole datagram ran: compare a dump with the model only when no
	 * later message of the datagram may have changed the rules.
	 */
	for (unsigned int i = npm, later = 0; i--;) {
		pms[i].later_changes = later;
		if (pms[i].type == family_id && (pms[i].flags & NLM_F_REQUEST) &&
		    (pms[i].cmd == DDF_CMD_NEW || pms[i].cmd == DDF_CMD_DEL ||
		     pms[i].cmd == DDF_CMD_FLUSH))
			later = 1;
	}
	for (unsigned int i = 0; i < npm; i++)
		settle(&pms[i], unpriv);
}

/* One valid request of cmd sent alone; its error (0: accepted). */
static int send_valid(struct req *r)
{
	size_t len;

	tree_reset();
	len = req_build(r, dgram, MSG_MAX);
	send_dgram(len, false);
	return npm == 1 ? pms[0].err : -EIO;
}

static void flush_all(void)
{
	struct req r;

	tree_reset();
	skeleton(&r, DDF_CMD_FLUSH);
	if (send_valid(&r))
		fail("a valid FLUSH was refused: %d", pms[0].err);
}

/* A dump of the rules, compared with the model. */
static bool dump_check(bool report)
{
	struct req r;
	int tries = 0;

again:
	tree_reset();
	memset(&r, 0, sizeof(r));
	r.type = family_id;
	r.flags = NLM_F_REQUEST | NLM_F_DUMP;
	r.cmd = DDF_CMD_GET;
	r.version = DDF_GENL_VERSION;
	cur_dgram_len = req_build(&r, dgram, MSG_MAX);
	cur_dgram = dgram;
	dgram_walk(dgram, cur_dgram_len);
	if (sendto(mnl_socket_get_fd(nl), dgram, cur_dgram_len, 0,
		   (const struct sockaddr *)&(struct sockaddr_nl){
			   .nl_family = AF_NETLINK }, sizeof(struct sockaddr_nl)) < 0) {
		fail("dump: %s", strerror(errno));
		return false;
	}
	drain();
	if (pms[0].ndone != 1 || pms[0].done_err || pms[0].dump_overflow) {
		fail("dump: %u done (%d)", pms[0].ndone, pms[0].done_err);
		return false;
	}
	/* rules that changed meanwhile: the kernel says ask again */
	if (pms[0].dump_intr && ++tries < 3)
		goto again;
	return dump_equals_model(pms[0].dump_names, pms[0].ndump, report);
}

/* ---- packets through the rules' hooks ---- */

static int udp4 = -1, udp6 = -1;

static void send_packet(void)
{
	static uint8_t payload[1400];
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	size_t len = rnd(sizeof(payload));

	a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a6.sin6_addr = in6addr_loopback;
	for (size_t i = 0; i < len; i += 8)
		payload[i] = (uint8_t)rnd64();
	/* twice: the second is a copy for the rules' filters */
	for (int k = 0; k < 2; k++) {
		if (udp4 >= 0 && sendto(udp4, payload, len, MSG_DONTWAIT,
					(struct sockaddr *)&a4, sizeof(a4)) >= 0)
			n_packets++;
		if (udp6 >= 0 && sendto(udp6, payload, len, MSG_DONTWAIT,
					(struct sockaddr *)&a6, sizeof(a6)) >= 0)
			n_packets++;
	}
}

/* ---- the fixed prelude: one valid rule of every kind, and known cases ---- */

static void prelude(void)
{
	struct req r;
	int err;

	for (unsigned int k = 0; k < NKINDS; k++) {
		char name[DDF_NAME_MAX];

		tree_reset();
		memset(&r, 0, sizeof(r));
		r.type = family_id;
		r.flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
		r.cmd = DDF_CMD_NEW;
		r.version = DDF_GENL_VERSION;
		snprintf(name, sizeof(name), "kind-%s", kinds[k].name);
		put_str(&r.root, DDF_A_NAME, name);
		put_int(&r.root, DDF_A_HOOK, 1, NF_INET_LOCAL_OUT);
		skel_filter(&r.root, k);
		err = send_valid(&r);
		if (err)
			fail("prelude: the valid %s rule was refused: %s", kinds[k].name,
			     strerror(-err));
	}
	send_packet();
	if (!dump_check(true))
		fail("prelude: the dump differs from the model");
	flush_all();

	/*
	 * A wrong length of family or hook: the extended ack carries the
	 * attribute's policy, which the policy dump once read from a
	 * validation function's address (a kernel warning), by NEW and by GET
	 * (which anyone may send).
	 */
	for (unsigned int i = 0; i < 4; i++) {
		tree_reset();
		skeleton(&r, i & 1 ? DDF_CMD_GET : DDF_CMD_NEW);
		put_int(&r.root, i & 2 ? DDF_A_HOOK : DDF_A_FAMILY, i & 2 ? 4 : 2,
			NFPROTO_IPV4);
		err = send_valid(&r);
		if (err != -EINVAL)
			fail("prelude: a %u-byte %s got %d, not EINVAL", i & 2 ? 4 : 2,
			     i & 2 ? "hook" : "family", err);
	}
}

/* One datagram: one request or several, valid or mutated. */
static void one_case(void)
{
	size_t len = 0;
	unsigned int nmsg = chance(15) ? 2 + rnd(7) : 1;
	bool valid = chance(15);

	for (unsigned int m = 0; m < nmsg; m++) {
		/* room for this message and for junk behind it */
		size_t room = DGRAM_MAX - len - 128, mlen;
		struct req r;

		if (len + 128 + 1024 > DGRAM_MAX)
			break;
		if (room > (nmsg > 1 ? MSG_MAX / 8 : MSG_MAX))
			room = nmsg > 1 ? MSG_MAX / 8 : MSG_MAX;

		tree_reset();
		skeleton(&r, 0);
		if (!valid) {
			for (unsigned int k = 1 + rnd(3); k; k--) {
				if (chance(75))
					mutate_tree(&r);
				else
					mutate_header(&r);
			}
		}
		mlen = req_build(&r, dgram + len, room);
		if (!valid && chance(40))
			mlen = mutate_bytes(dgram + len, mlen, room + 64);
		/* the next message starts aligned, behind zeroed padding */
		while (mlen & 3)
			dgram[len + mlen++] = 0;
		len += mlen;
	}
	send_dgram(len, false);
}

/* ---- main ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The family's id from the controller. */
static uint16_t resolve_family(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;
	const struct nlattr *a;
	uint16_t id = 0;
	ssize_t n;

	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq_next++;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, DDF_GENL_NAME);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return 0;
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < (ssize_t)NLMSG_HDRLEN)
		return 0;
	nlh = (struct nlmsghdr *)buf;
	if (nlh->nlmsg_type != GENL_ID_CTRL)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			id = mnl_attr_get_u16(a);
	return id;
}

static void report(double secs)
{
	uint64_t refused = 0;

	printf("ddffuzz: %" PRIu64 " messages in %" PRIu64 " datagrams (%" PRIu64
	       " bytes), %.1f s, %.0f us per message\n",
	       n_msgs, n_dgrams, bytes_sent, secs, n_msgs ? secs * 1e6 / n_msgs : 0);
	printf("ddffuzz: datagrams the kernel read no message of: %" PRIu64
	       "; control or non-request messages: %" PRIu64 "\n", n_noproc, n_ctrl);
	printf("ddffuzz: answers: %" PRIu64 " errors, %" PRIu64 " acks, %" PRIu64
	       " accepted without ack, %" PRIu64 " rule messages, %" PRIu64
	       " dumps; %" PRIu64 " extack sentences, %" PRIu64
	       " blamed attributes; %" PRIu64 " loopback packets\n",
	       n_errors, n_acks, n_silent, n_data, n_dumps, n_extack,
	       n_extack_attr, n_packets);
	printf("ddffuzz: accepted:");
	for (int c = 0; c < NCMD; c++)
		printf(" %s %" PRIu64, col_name[c], accepted[c]);
	printf("\nddffuzz: refused, by errno and command:\n  %-14s", "errno");
	for (int c = 0; c < NCMD; c++)
		printf(" %7s", col_name[c]);
	printf(" %8s\n", "total");
	for (int e = 1; e < ERRNO_MAX; e++) {
		uint64_t t = 0;

		for (int c = 0; c < NCMD; c++)
			t += err_count[e][c];
		if (!t)
			continue;
		refused += t;
		printf("  %-14.14s", strerrorname_np(e) ? strerrorname_np(e) : "?");
		for (int c = 0; c < NCMD; c++)
			printf(" %7" PRIu64, err_count[e][c]);
		printf(" %8" PRIu64 "\n", t);
	}
	printf("  %-14s %" PRIu64 "\n", "all", refused);
	if (verbose || nsentences) {
		/* the kernel's sentences, most frequent first (at most 16) */
		for (unsigned int i = 0; i < nsentences; i++)
			for (unsigned int j = i + 1; j < nsentences; j++)
				if (sentences[j].count > sentences[i].count) {
					struct sentence t = sentences[i];

					sentences[i] = sentences[j];
					sentences[j] = t;
				}
		printf("ddffuzz: %u distinct extack sentences; the most frequent:\n",
		       nsentences);
		for (unsigned int i = 0; i < nsentences && (i < 16 || verbose); i++)
			printf("  %8" PRIu64 "  %s\n", sentences[i].count, sentences[i].text);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: ddffuzz [-d|-u] [-n MESSAGES] [-s SEED] [-v]\n");
	exit(2);
}

/* Unprivileged: every changing request gets EPERM and changes nothing. */
static int run_unpriv(uint64_t count)
{
	static char before[DUMP_NAMES_MAX][DDF_NAME_MAX];
	unsigned int nbefore, eperm = 0, others = 0, reads = 0;
	struct req r;

	/* the model starts as the kernel's rules */
	dump_check(false);
	nbefore = pms[0].ndump;
	memcpy(before, pms[0].dump_names, sizeof(before));
	model_n = 0;
	for (unsigned int i = 0; i < nbefore; i++)
		strcpy(model[model_n++], before[i]);
	/* the policy of a wrong length in the extended ack (see prelude()) */
	tree_reset();
	skeleton(&r, DDF_CMD_GET);
	put_int(&r.root, DDF_A_FAMILY, 2, NFPROTO_IPV4);
	send_dgram(req_build(&r, dgram, MSG_MAX), true);
	if (npm != 1 || pms[0].nerr != 1 || pms[0].err != -EINVAL)
		fail("unprivileged: a GET with a 2-byte family got %d, not EINVAL",
		     npm && pms[0].nerr ? pms[0].err : 0);
	for (uint64_t i = 0; i < count; i++) {
		static const uint8_t cmds[] = { DDF_CMD_NEW, DDF_CMD_DEL,
						DDF_CMD_RESET, DDF_CMD_FLUSH,
						DDF_CMD_GET };
		unsigned int cmd = cmds[rnd(5)];
		size_t len;

		cur_case = i;
		tree_reset();
		skeleton(&r, cmd);
		for (unsigned int m = rnd(3); m; m--)
			mutate_tree(&r);
		/* flags that keep it a change (a dump flag finds no command) */
		if (cmd != DDF_CMD_GET && chance(30))
			r.flags |= (uint16_t[]){ NLM_F_ECHO, NLM_F_REPLACE,
						 NLM_F_APPEND, NLM_F_CREATE }[rnd(4)];
		/* NEW's NLM_F_EXCL with NLM_F_REPLACE spell NLM_F_DUMP */
		if ((r.flags & NLM_F_DUMP) == NLM_F_DUMP)
			r.flags &= (uint16_t)~NLM_F_ROOT;
		len = req_build(&r, dgram, MSG_MAX);
		send_dgram(len, true);
		if (npm != 1) {
			fail("unprivileged: %u messages processed", npm);
			continue;
		}
		if (cmd == DDF_CMD_GET) {
			reads++;
			continue;
		}
		if (pms[0].nerr == 1 && pms[0].err == -EPERM) {
			eperm++;
		} else {
			others++;
			fail("unprivileged: command %u got %d, not EPERM", cmd,
			     pms[0].nerr ? pms[0].err : 0);
		}
	}
	if (!dump_check(true))
		fail("unprivileged requests changed the rules");
	printf("ddffuzz: unprivileged: %u changing requests, %u EPERM, %u other; %u reads; rules before and after: %u\n",
	       eperm + others, eperm, others, reads, nbefore);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t count = 100000, seed, c, next_progress;
	bool unpriv = false;
	double t0;
	int opt;

	seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
	while ((opt = getopt(argc, argv, "dn:s:uv")) != -1) {
		switch (opt) {
		case 'n':
			count = strtoull(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'u':
			unpriv = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'd':
			dry = true;
			break;
		default:
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng_state = seed;
	if (dry) {
		double t = now();

		family_id = 0x20;
		for (c = 0; n_msgs < count; c++) {
			cur_case = c;
			one_case();
		}
		printf("ddffuzz: dry run: %" PRIu64 " messages in %" PRIu64
		       " datagrams, %" PRIu64 " bytes, %.1f s\n", n_msgs, n_dgrams,
		       bytes_sent, now() - t);
		return 0;
	}
	sock_open();
	family_id = resolve_family();
	if (!family_id) {
		fprintf(stderr, "ddffuzz: no generic netlink family '%s' (is nf_ddf loaded?)\n",
			DDF_GENL_NAME);
		return 2;
	}
	printf("ddffuzz: seed %#" PRIx64 " (-s to replay), family '%s' id %u, %s%" PRIu64
	       " messages\n", seed, DDF_GENL_NAME, family_id,
	       unpriv ? "unprivileged, " : "", count);
	if (unpriv)
		return run_unpriv(count);

	udp4 = socket(AF_INET, SOCK_DGRAM, 0);
	udp6 = socket(AF_INET6, SOCK_DGRAM, 0);
	t0 = now();
	if (!dump_check(false)) {
		fprintf(stderr, "ddffuzz: the namespace has rules already: run it in a new one\n");
		return 2;
	}
	prelude();
	next_progress = count / 10;
	for (c = 0; n_msgs < count; c++) {
		cur_case = c;
		if ((c & 1023) == 1023 || model_n > LIVE_MAX)
			flush_all();
		if ((c & 7) == 0)
			send_packet();
		if ((c & 255) == 128)
			dump_check(true);
		if (!(c & 511))
			set_acks(!chance(10), chance(50));
		one_case();
		if (n_msgs >= next_progress) {
			printf("ddffuzz: %" PRIu64 " messages, %.1f s\n", n_msgs, now() - t0);
			next_progress += count / 10;
		}
	}
	/* the end: the kernel's rules, by dump and by name, against the model */
	cur_dgram = NULL;
	cur_dgram_len = 0;
	{
		unsigned int by_name = 0, n = model_n;
		bool same = dump_check(true);
		unsigned int kernel_n = pms[0].ndump;

		for (unsigned int i = 0; i < n; i++) {
			struct req r;

			tree_reset();
			memset(&r, 0, sizeof(r));
			r.type = family_id;
			r.flags = NLM_F_REQUEST | NLM_F_ACK;
			r.cmd = DDF_CMD_GET;
			r.version = DDF_GENL_VERSION;
			put_str(&r.root, DDF_A_NAME, model[i]);
			if (!send_valid(&r))
				by_name++;
		}
		report(now() - t0);
		printf("ddffuzz: rule set: kernel %u (dump), model %u, found by name %u: %s\n",
		       kernel_n, n, by_name, same && by_name == n ? "equal" : "DIFFERENT");
		if (!same || by_name != n)
			failures++;
	}
	printf("ddffuzz: %s: %u failures, %" PRIu64 " model mismatches\n",
	       failures ? "FAIL" : "ok", failures, n_mismatch);
	return failures ? 1 : 0;
}
