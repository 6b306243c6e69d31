/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ddf: packet de-duplication rules, configured over the generic netlink
 * family "ddf". Rules live in a network namespace and are named.
 * uapi/ddf.yaml describes the family for YNL (the kernel's tools/net/ynl).
 *
 * Attribute tree (N: nested, reply: only in replies):
 *
 *   DDF_A_NAME            string, 1 .. DDF_NAME_MAX - 1 bytes of 0x21-0x7e,
 *                         required
 *   DDF_A_FAMILY          u8   NFPROTO_IPV4 | NFPROTO_IPV6 | NFPROTO_INET
 *                              | NFPROTO_NETDEV (a device's frames)
 *   DDF_A_HOOK            u8   NF_INET_PRE_ROUTING .. NF_INET_POST_ROUTING,
 *                              or DDF_HOOK_NONE (only the xtables match
 *                              uses the rule); family netdev:
 *                              NF_NETDEV_INGRESS or NF_NETDEV_EGRESS, or
 *                              DDF_HOOK_NONE (only an XDP program uses it)
 *   DDF_A_DEV             string, < IFNAMSIZ: the device of a netdev rule
 *                              (required there, refused elsewhere); in
 *                              replies its name now, or the name it had
 *                              when it went away
 *   DDF_A_DEV_IFINDEX     u32  reply: the device's index; 0 while no
 *                              device of that name is in the namespace
 *                              (of a rule of several devices: the first's)
 *   DDF_A_DEVS         N  family netdev: the devices of a rule of one or
 *                              more (instead of DDF_A_DEV), sharing its
 *                              filter, window and counters; always in
 *                              replies of a netdev rule
 *     DDF_DEVS_A_DEV    N  one per device, attribute types 1 ..
 *                              DDF_DEVS_MAX in order (more are refused)
 *       DDF_DEV_A_NAME      string, < IFNAMSIZ, required: as DDF_A_DEV
 *       DDF_DEV_A_IFINDEX   u32  reply: as DDF_A_DEV_IFINDEX
 *       DDF_DEV_A_GIVEN     string reply: the name the device had when
 *                              it joined the rule (differs once renamed)
 *       DDF_DEV_A_STATS  N  reply: the frames of this device (hook or
 *                              XDP), DDF_STATS_A_PACKETS .. _UNPARSED;
 *                              the rule's DDF_A_STATS sum every device's
 *                              and those of no listed device
 *   DDF_A_ID              u32  reply: the rule's number, unique among the
 *                              rules of every namespace while nf_ddf is
 *                              loaded and not soon reused; an XDP program
 *                              names the rule by it (see ddf_xdp_verdict)
 *   DDF_A_PRIORITY        s32  netfilter priority; same hook: in order
 *   DDF_A_IIFNAME         string, < IFNAMSIZ: only packets in on it
 *   DDF_A_OIFNAME         string, < IFNAMSIZ: only packets out on it
 *   DDF_A_L4PROTO         u8   only this IP protocol (the protocol the
 *                              extension header walk ends at; a non-first
 *                              fragment's is its fragment header's next
 *                              header): others pass the rule untouched
 *   DDF_A_KEY          N  what identifies a copy of a packet
 *     DDF_KEY_A_FORM        u8   enum ddf_key_type
 *     DDF_KEY_A_FIELDS      u32  DDF_KEY_FIELD_* (form fields)
 *     DDF_KEY_A_IGNORE      u32  DDF_KEY_IGNORE_* (form packet)
 *     DDF_KEY_A_MAX_BYTES   u32  form packet: bytes hashed, 1 .. 65535
 *     DDF_KEY_A_PAYLOAD_OFF u16  with DDF_KEY_FIELD_PAYLOAD
 *     DDF_KEY_A_PAYLOAD_LEN u16  offset + length <= DDF_KEY_PAYLOAD_LIMIT
 *     DDF_KEY_A_DECAP       u32  DDF_KEY_DECAP_*: key the packet inside
 *                              these tunnels (up to two levels)
 *     DDF_KEY_A_VXLAN_PORT  u16  UDP port of VXLAN (default 4789)
 *     DDF_KEY_A_GENEVE_PORT u16  UDP port of Geneve (default 6081)
 *   DDF_A_FILTER       N  the sliding-window filter, resolved parameters
 *     DDF_FILTER_A_KIND     u32  enum ddf_filter_kind
 *     DDF_FILTER_A_WINDOW   u64  elements (count window), or the most
 *                              elements expected per DDF_FILTER_A_WINDOW_NS;
 *                              0 for the kinds without one (sbf, rsbf,
 *                              bsbf, bsbfsd, rlbsbf forget at random)
 *     DDF_FILTER_A_WINDOW_NS u64 time window, 10 us .. 1 h
 *     DDF_FILTER_A_K, _L    u32  shape (kinds that have one)
 *     DDF_FILTER_A_M        u64  slice bits, blocks or rows (per kind)
 *     DDF_FILTER_A_BLOCK_BITS, _BLOCK_HASHES, _FP_BITS, _CELL_BITS,
 *     _DECREMENTS, _INNER_KIND, _SUBFILTERS, _P_STAR  u32 (per kind)
 *     DDF_FILTER_A_SEED     binary, 16 bytes: the SipHash key; random
 *                              when absent, and then never reported
 *     DDF_FILTER_A_HASH     u8   enum ddf_hash_alg (SipHash-1-3 default)
 *     DDF_FILTER_A_BYTES    u64  reply: memory the filter holds
 *     DDF_FILTER_A_CPUS     u32  apbf, apbbf: CPUs inserting at once (at
 *                              most 8192), in batches of tickets (the
 *                              sizing keeps the window); the kernel uses
 *                              at least its own CPUs
 *   DDF_A_ACTION       N  what happens to a duplicate
 *     DDF_ACTION_A_TYPE     u8   enum ddf_action
 *     DDF_ACTION_A_MARK     u32  DDF_ACTION_MARK: value
 *     DDF_ACTION_A_MASK     u32  DDF_ACTION_MARK: bits set (default all)
 *   DDF_A_STATS        N  reply: counters summed over CPUs
 *     DDF_STATS_A_PACKETS, _BYTES, _DUPLICATES, _DROPPED, _MARKED,
 *     _UNPARSED             u64
 *     DDF_STATS_A_GENERATION u64, DDF_STATS_A_FILL_PPM u32
 *
 * Sizing from a target false-positive rate or a memory budget happens in
 * userspace (ddfctl, with the same core); the kernel validates the resolved
 * parameters, caps every size, and reports what it allocated.
 */
#ifndef _UAPI_LINUX_DDF_H
#define _UAPI_LINUX_DDF_H

#include <linux/types.h>

#define DDF_GENL_NAME "ddf"
#define DDF_GENL_VERSION 1

#define DDF_NAME_MAX 32 /* with the terminating NUL */
#define DDF_DEVS_MAX 16 /* devices of one netdev rule */
#define DDF_HOOK_NONE 255
#define DDF_SEED_LEN 16
#define DDF_KEY_PAYLOAD_LIMIT 4096 /* payload offset + length */

enum ddf_cmd {
	DDF_CMD_UNSPEC,
	DDF_CMD_NEW, /* create a rule; fails if the name exists */
	DDF_CMD_DEL, /* delete the rule DDF_A_NAME */
	DDF_CMD_GET, /* one rule (DDF_A_NAME), or all with NLM_F_DUMP */
	DDF_CMD_RESET, /* zero counters; DDF_RESET_F_FILTER empties the filter */
	DDF_CMD_FLUSH, /* delete every rule of the namespace */
	__DDF_CMD_MAX
};
#define DDF_CMD_MAX (__DDF_CMD_MAX - 1)

enum ddf_attr {
	DDF_A_UNSPEC,
	DDF_A_PAD,
	DDF_A_NAME,
	DDF_A_FAMILY,
	DDF_A_HOOK,
	DDF_A_PRIORITY,
	DDF_A_IIFNAME,
	DDF_A_OIFNAME,
	DDF_A_L4PROTO,
	DDF_A_KEY,
	DDF_A_FILTER,
	DDF_A_ACTION,
	DDF_A_STATS,
	DDF_A_RESET_FLAGS, /* u32 DDF_RESET_F_*, with DDF_CMD_RESET */
	DDF_A_DEV,
	DDF_A_DEV_IFINDEX, /* reply only */
	DDF_A_ID, /* reply only */
	DDF_A_DEVS,
	__DDF_A_MAX
};
#define DDF_A_MAX (__DDF_A_MAX - 1)

/* DDF_A_DEVS holds DDF_DEVS_MAX entries at most, of types 1 .. that */
enum ddf_dev_attr {
	DDF_DEV_A_UNSPEC,
	DDF_DEV_A_NAME,
	DDF_DEV_A_IFINDEX, /* reply only */
	DDF_DEV_A_GIVEN, /* reply only */
	DDF_DEV_A_STATS, /* reply only */
	__DDF_DEV_A_MAX
};
#define DDF_DEV_A_MAX (__DDF_DEV_A_MAX - 1)

/*
 * XDP. nf_ddf gives XDP programs the kfunc
 *	int bpf_ddf_xdp(struct xdp_md *ctx, __u32 rule_id);
 * which keys the frame in ctx by the rule's key (from its Ethernet
 * header, as at netdev ingress), asks the rule's filter and counts it in
 * the rule's counters (and the device's, when the frame came in on one of
 * the rule's devices). The rule is the one of number rule_id (DDF_A_ID),
 * of family netdev and hook DDF_HOOK_NONE, in the namespace of the device
 * the frame came in on. It returns a ddf_xdp_verdict, or a negative errno
 * when it did nothing: -ENOENT, no such rule there (deleted, say);
 * -EINVAL, the rule is not of family netdev and hook none. A multi-buffer
 * frame (a program loaded with XDP frags, BPF_F_XDP_HAS_FRAGS: a jumbo
 * frame) is keyed whole, as at netdev ingress. A frame it cannot key (an
 * unusable IP header, a fragment whose memory it cannot read) is counted
 * as unparsed and gets DDF_XDP_PASS, as at netdev ingress.
 */
enum ddf_xdp_verdict {
	DDF_XDP_PASS, /* not seen within the window, or not a frame it keys */
	DDF_XDP_DUP, /* a duplicate of a rule with action count */
	DDF_XDP_DROP, /* a duplicate of a rule with action drop */
	DDF_XDP_MARK, /* a duplicate of a rule with action mark */
};

#define DDF_RESET_F_FILTER 0x1u
#define __DDF_RESET_F_ALL DDF_RESET_F_FILTER

enum ddf_key_type {
	DDF_KEY_TYPE_PACKET, /* the whole L3 packet, ignored fields masked */
	DDF_KEY_TYPE_FIELDS, /* the fields in DDF_KEY_A_FIELDS */
	DDF_KEY_TYPE_FRAME, /* family netdev: every byte from the MAC header */
	__DDF_KEY_TYPE_MAX
};

#define DDF_KEY_FIELD_SADDR (1u << 0)
#define DDF_KEY_FIELD_DADDR (1u << 1)
#define DDF_KEY_FIELD_PROTO (1u << 2)
#define DDF_KEY_FIELD_SPORT (1u << 3)
#define DDF_KEY_FIELD_DPORT (1u << 4)
#define DDF_KEY_FIELD_IPID (1u << 5)
#define DDF_KEY_FIELD_TCPSEQ (1u << 6)
#define DDF_KEY_FIELD_TCPACK (1u << 7)
#define DDF_KEY_FIELD_ICMPID (1u << 8)
#define DDF_KEY_FIELD_PAYLOAD (1u << 9)
#define __DDF_KEY_FIELD_ALL ((1u << 10) - 1)

#define DDF_KEY_IGNORE_TTL (1u << 0) /* IPv4 TTL, IPv6 hop limit */
#define DDF_KEY_IGNORE_IPV4CSUM (1u << 1)
#define DDF_KEY_IGNORE_DSCP (1u << 2)
#define DDF_KEY_IGNORE_ECN (1u << 3)
#define DDF_KEY_IGNORE_IPID (1u << 4)
#define DDF_KEY_IGNORE_FLOWLABEL (1u << 5)
#define DDF_KEY_IGNORE_L4CSUM (1u << 6)
#define DDF_KEY_IGNORE_VLAN (1u << 7) /* VLAN tags (IDs in key packet) */
#define DDF_KEY_IGNORE_MAC (1u << 8) /* MAC addresses of a hashed frame */
#define __DDF_KEY_IGNORE_ALL ((1u << 9) - 1)

#define DDF_KEY_DECAP_VXLAN (1u << 0)
#define DDF_KEY_DECAP_GENEVE (1u << 1)
#define DDF_KEY_DECAP_GRE (1u << 2) /* IP or Ethernet over GRE */
#define DDF_KEY_DECAP_ERSPAN (1u << 3) /* type I, II, III over GRE */
#define DDF_KEY_DECAP_GTPU (1u << 4)
#define __DDF_KEY_DECAP_ALL ((1u << 5) - 1)

enum ddf_key_attr {
	DDF_KEY_A_UNSPEC,
	DDF_KEY_A_FORM,
	DDF_KEY_A_FIELDS,
	DDF_KEY_A_IGNORE,
	DDF_KEY_A_MAX_BYTES,
	DDF_KEY_A_PAYLOAD_OFF,
	DDF_KEY_A_PAYLOAD_LEN,
	DDF_KEY_A_DECAP,
	DDF_KEY_A_VXLAN_PORT,
	DDF_KEY_A_GENEVE_PORT,
	__DDF_KEY_A_MAX
};
#define DDF_KEY_A_MAX (__DDF_KEY_A_MAX - 1)

/* The same numbers as the core's enum ddf_kind. */
enum ddf_filter_kind {
	DDF_FILTER_NONE,
	DDF_FILTER_APBF,
	DDF_FILTER_APBBF,
	DDF_FILTER_QHT,
	DDF_FILTER_QHTD,
	DDF_FILTER_QQHTD,
	DDF_FILTER_SQF,
	DDF_FILTER_SBF,
	DDF_FILTER_A2,
	DDF_FILTER_BDBF,
	DDF_FILTER_CUCKOO,
	DDF_FILTER_RSBF,
	DDF_FILTER_BSBF,
	DDF_FILTER_BSBFSD,
	DDF_FILTER_RLBSBF,
	DDF_FILTER_SHF,
	DDF_FILTER_CSHF,
	DDF_FILTER_EXACT,
	DDF_FILTER_QUEUE,
	__DDF_FILTER_MAX
};

enum ddf_hash_alg {
	DDF_HASH_ALG_SIPHASH13,
	DDF_HASH_ALG_SIPHASH24,
	__DDF_HASH_ALG_MAX
};

enum ddf_filter_attr {
	DDF_FILTER_A_UNSPEC,
	DDF_FILTER_A_PAD,
	DDF_FILTER_A_KIND,
	DDF_FILTER_A_WINDOW,
	DDF_FILTER_A_WINDOW_NS,
	DDF_FILTER_A_K,
	DDF_FILTER_A_L,
	DDF_FILTER_A_M,
	DDF_FILTER_A_BLOCK_BITS,
	DDF_FILTER_A_BLOCK_HASHES,
	DDF_FILTER_A_FP_BITS,
	DDF_FILTER_A_CELL_BITS,
	DDF_FILTER_A_DECREMENTS,
	DDF_FILTER_A_INNER_KIND,
	DDF_FILTER_A_SUBFILTERS,
	DDF_FILTER_A_P_STAR,
	DDF_FILTER_A_SEED,
	DDF_FILTER_A_HASH,
	DDF_FILTER_A_BYTES,
	DDF_FILTER_A_CPUS,
	__DDF_FILTER_A_MAX
};
#define DDF_FILTER_A_MAX (__DDF_FILTER_A_MAX - 1)

enum ddf_action {
	DDF_ACTION_DROP, /* drop the duplicate */
	DDF_ACTION_MARK, /* skb->mark = (mark & ~mask) | value, continue */
	DDF_ACTION_COUNT, /* only count: size a rule before enforcing it */
	__DDF_ACTION_MAX
};

enum ddf_action_attr {
	DDF_ACTION_A_UNSPEC,
	DDF_ACTION_A_TYPE,
	DDF_ACTION_A_MARK,
	DDF_ACTION_A_MASK,
	__DDF_ACTION_A_MAX
};
#define DDF_ACTION_A_MAX (__DDF_ACTION_A_MAX - 1)

enum ddf_stats_attr {
	DDF_STATS_A_UNSPEC,
	DDF_STATS_A_PAD,
	DDF_STATS_A_PACKETS,
	DDF_STATS_A_BYTES,
	DDF_STATS_A_DUPLICATES,
	DDF_STATS_A_DROPPED,
	DDF_STATS_A_MARKED,
	DDF_STATS_A_UNPARSED, /* not IP, malformed, other family */
	DDF_STATS_A_GENERATION,
	DDF_STATS_A_FILL_PPM,
	__DDF_STATS_A_MAX
};
#define DDF_STATS_A_MAX (__DDF_STATS_A_MAX - 1)

#endif /* _UAPI_LINUX_DDF_H */
