/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Packet keys: from an IPv4 or IPv6 packet to the 128-bit hash a filter
 * takes, the same in the kernel (reading an skb) and in userspace (reading
 * a pcap record). The packet is read only through the caller's reader and
 * never past the L3 length; the key bytes are streamed into SipHash and
 * never built whole in memory.
 *
 * Packet length. The key looks at len = min(l3len, the IP header's length):
 * IPv4 total length, IPv6 40 + payload length. Link-layer padding behind
 * the datagram is thus never part of a key. A length of 0 means "as long as
 * the buffer", as Linux reads it: IPv4 total length 0 (BIG TCP) and IPv6
 * payload length 0 behind a hop-by-hop header (jumbogram). A stated length
 * above l3len (a capture cut at its snap length) sets DDF_KEY_F_TRUNCATED
 * and the key covers what is there.
 *
 * Result. ddf_key_hash() returns DDF_KEY_HASHED and the hash, or, without a
 * hash: DDF_KEY_NOT_IP (empty, or the version nibble is neither 4 nor 6),
 * DDF_KEY_OTHER_FAMILY (the spec is for the other family), or
 * DDF_KEY_MALFORMED (the IP header itself is unusable: shorter than its
 * fixed part, IHL below 5, header longer than the packet or than its total
 * length, or the reader failed inside the packet), DDF_KEY_SKIPPED (the
 * spec's protocol selector, spec.match, does not take it). Everything beyond the IP
 * header is parsed as far as it goes: a cut or inconsistent extension or L4
 * header makes fields absent (and sets flags in ddf_key_info), never an
 * error.
 *
 * Parsing. IPv4: IHL and options (skipped), fragments; behind the header,
 * AH headers are skipped as in IPv6. IPv6: hop-by-hop (0), routing (43),
 * destination options (60) ((len + 1) * 8 bytes), fragment (44, 8 bytes)
 * and AH (51, (len + 2) * 4 bytes) are walked, at most DDF_KEY_MAX_EXTHDRS
 * of them; the walk stops at anything else (ESP, no next header, unknown),
 * which is then the L4 protocol. Ports come from TCP, UDP, UDP-Lite and
 * SCTP; the identifier from ICMP echo, timestamp, information and address
 * mask request/reply and ICMPv6 echo request/reply. ICMP counts in IPv4
 * only, ICMPv6 in IPv6 only.
 *
 * Fragments. A first fragment (offset 0) is parsed like a whole packet: it
 * has its ports. A non-first fragment has no L4 header: its L4 fields and
 * payload are absent, its protocol is present (IPv4 header or fragment
 * header), and its fragment identification, offset and more-fragments flag
 * join the field key (the fragment trailer below). So different fragments
 * of one datagram never collide, two copies of one fragment match, and no
 * fragment matches an unfragmented packet.
 *
 * Form "packet" (DDF_KEY_PACKET): the byte string
 *	'P', bytes [0, min(len, max_bytes)) of the L3 packet with the ignored
 *	fields set to zero, len as 4 bytes big-endian.
 * Ignored fields (DDF_KI_*): TTL (IPv4 byte 8) / hop limit (IPv6 byte 7);
 * IPv4 header checksum (bytes 10-11); DSCP (IPv4 byte 1 high 6 bits; IPv6
 * traffic class high 6 bits: byte 0 low nibble, byte 1 0xc0); ECN (IPv4
 * byte 1 low 2 bits; IPv6 byte 1 0x30); IPv4 identification (bytes 4-5,
 * masked only in packets that are not fragments: it is what tells two
 * datagrams' fragments apart); IPv6 flow label (byte 1 low nibble, bytes
 * 2-3); the L4 checksum (TCP at L4 + 16, UDP and UDP-Lite at L4 + 6, SCTP's
 * CRC32c at L4 + 8, ICMP and ICMPv6 at L4 + 2; not in non-first fragments,
 * and only the bytes inside the packet). A bit for the other family is a
 * no-op. IP options and IPv6 extension headers are hashed as they are.
 *
 * Form "fields" (DDF_KEY_FIELDS): a self-delimiting string, so different
 * families, field sets or values never give the same bytes. Integers are
 * big-endian.
 *	'F', family (4 or 6), the spec's fields mask (4 bytes),
 *	then each selected field in bit order (saddr, daddr, proto, sport,
 *	dport, ipid, tcpseq, tcpack, icmpid, payload) as 0x00 when absent,
 *	or 0x01 and its value:
 *	  saddr, daddr	4 bytes (IPv4) or 16 (IPv6); always present
 *	  proto		1 byte: the L4 protocol; absent when the IPv6 walk
 *			or an AH header is cut short or over the limit
 *	  sport, dport	2 bytes: TCP, UDP, UDP-Lite, SCTP
 *	  ipid		IPv4: 2 bytes, always present; IPv6: the fragment
 *			header's 4-byte identification, present with one
 *	  tcpseq, tcpack 4 bytes: TCP
 *	  icmpid	2 bytes: the ICMP types above
 *	  payload	2-byte count n, then n bytes: the bytes of the L4
 *			payload at [OFFSET, OFFSET + LENGTH) that the packet
 *			has (n < LENGTH when it is shorter, 0 when it ends
 *			before OFFSET). The L4 payload starts behind the whole
 *			TCP (data offset), UDP, UDP-Lite (8), SCTP (12) or
 *			ICMP/ICMPv6 (8) header, and right behind the IP
 *			headers for any other protocol; it is absent when
 *			that header is cut short or bad (TCP data offset < 5)
 *			and in non-first fragments.
 *	then the fragment trailer: 0x00, or for a non-first fragment 0x01,
 *	identification (4 bytes; IPv4's 16 bits zero-extended), offset in
 *	8-byte units (2 bytes), more-fragments flag (1 byte).
 * An L4 field is present when the packet's protocol has it and its bytes
 * lie inside the packet (a capture cut inside the TCP header may keep its
 * ports and lose its payload). A field the protocol lacks (tcpseq of a UDP
 * packet) contributes its 0x00 and nothing else: every such packet agrees
 * on it.
 *
 * Form "frame" (DDF_KEY_FRAME): the byte string
 *	'R', the frame's bytes, their count as 4 bytes big-endian.
 * Over a flat reader (ddf_key_hash(): an offline record) the frame is
 * every one of the l3len bytes the reader shows: nothing is parsed, masked
 * or cut (max_bytes does not apply), so any record gives a hash (an empty
 * one too), and two records match exactly when their captured bytes do,
 * as editcap -D compares frames. Over an Ethernet link (ddf_key_hash_link()
 * below) the frame is the Ethernet frame from its MAC header with a tag
 * the link took out (ddf_key_link.vlan_proto) put back behind the MAC
 * addresses, where the wire had it; ignore mac hashes the 12 address
 * bytes as zeros, ignore vlan leaves every VLAN tag out (the bytes and the
 * count). The frame form takes no family and no protocol selector.
 *
 * Link layer (ddf_key_hash_link() with DDF_LINK_ETHER): the frame is
 * walked from the MAC header: a tag the link took out comes first, then
 * 802.1Q (0x8100), 802.1ad (0x88a8) and 0x9100 tags in the frame, at most
 * DDF_KEY_MAX_VLANS in all; then an MPLS label stack (0x8847, 0x8848) is
 * skipped to its bottom label, behind which the version nibble says IPv4
 * or IPv6; ethertypes 0x0800 and 0x86dd are IPv4 and IPv6. The IP packet
 * found there is keyed as above (its length from the frame's end), with
 * the VLAN IDs (12 bits, outermost first) in front of the packet and field
 * forms' bytes, unless ignore vlan or the frame has no tag:
 *	'Q', the number of tags (1 byte), each VLAN ID (2 bytes).
 * An ethertype that names IPv4 over a packet whose version nibble says
 * otherwise (or IPv6 likewise) is DDF_KEY_MALFORMED. A frame with no IP
 * packet (ARP, LLDP, more tags than the limit, an MPLS payload that is not
 * IP, a header cut short) is keyed as in the frame form, with the spec's
 * ignore mac and ignore vlan (DDF_KEY_F_NONIP), unless spec.family or
 * spec.match asks for IP: then DDF_KEY_SKIPPED.
 *
 * Tunnels (spec.decap, both entry points): an IP packet that carries one
 * of the tunnels asked for is keyed by the packet inside it, up to
 * DDF_KEY_MAX_DECAP levels: VXLAN (UDP to vxlan_port, 8-byte header with
 * its I flag; Ethernet inside), Geneve (UDP to geneve_port, version 0,
 * 8 bytes + options; Ethernet or IP inside, by its protocol type), GRE
 * (version 0, with its checksum, key and sequence words; 0x0800 and
 * 0x86dd: IP inside, 0x6558: Ethernet inside), ERSPAN over GRE (0x88be
 * without the sequence bit: type I, Ethernet right behind GRE; 0x88be with
 * it: type II, an 8-byte header; 0x22eb: type III, 12 bytes, 8 more with
 * its O flag), GTP-U (UDP to port 2152, version 1, a G-PDU (type 255) with
 * its optional words and extension headers; IP inside). A tunnel is
 * opened only in a whole, unfragmented packet whose UDP or GRE header is
 * complete. The inner packet is keyed as if it had arrived alone: an inner
 * Ethernet frame by the link layer rules above (its own VLAN tags, never
 * the outer ones), an inner IP packet as a packet. When a tunnel header is
 * cut short or inconsistent, or its inner packet cannot be keyed, the
 * packet around it is keyed instead (DDF_KEY_F_BADTUNNEL); the key
 * never reads outside the outer packet. spec.family and spec.match apply
 * to the packet that is keyed.
 *
 * Long keys. Every byte of a string above counts, but a long stretch of
 * it, the region, reaches SipHash as digests: in the packet and frame
 * forms the region is the packet's (frame's) bytes from the 32nd on,
 * [DDF_KEY_HEAD, n) of the n the string holds, when there are more than
 * DDF_KEY_NH_OVER of them (n > 95); in the field form the payload's n
 * bytes when n > DDF_KEY_NH_OVER. The region is cut into chunks of
 * DDF_NH_CHUNK bytes, the last one shorter, and each chunk is replaced by
 * its 16-byte NH digest (ddf_nh.h: 64-bit words, the chunk's length added,
 * low word first, each word little-endian) under the NH key derived from
 * the SipHash key (ddf_key_secret_init()). Everything else is hashed as
 * it stands: the hash is SipHash of that string. Whether a string has a
 * region, and where its chunks lie, follows from lengths the string
 * states outside the region (the packet's length, the frame's, the
 * payload's count), so two strings that differ give SipHash inputs that
 * differ unless a chunk's digests collide: for a pair of packets,
 * probability at most 2^-64 (NH's bound, ddf_nh.h) beside SipHash's own,
 * which is what a copy has always meant. The head, the first 31 bytes,
 * holds the fields the default key ignores (and an IPv4 packet's UDP
 * header); an ignored byte inside the region (an L4 checksum with ignore
 * l4csum) is zeroed before NH reads it.
 */
#ifndef DDF_KEY_H
#define DDF_KEY_H

#include "ddf_env.h"
#include "ddf_filter.h"
#include "ddf_hash.h"
#include "ddf_nh.h"
#include "ddf_siphash.h"

enum ddf_key_form {
	DDF_KEY_PACKET = 0, /* the whole L3 packet, ignored fields masked */
	DDF_KEY_FIELDS, /* a list of fields */
	DDF_KEY_FRAME, /* a whole frame, link layer included */
	__DDF_KEY_FORM_MAX
};

/* spec.fields: the field form's fields, in hashing order */
#define DDF_KF_SADDR (1u << 0)
#define DDF_KF_DADDR (1u << 1)
#define DDF_KF_PROTO (1u << 2)
#define DDF_KF_SPORT (1u << 3)
#define DDF_KF_DPORT (1u << 4)
#define DDF_KF_IPID (1u << 5)
#define DDF_KF_TCPSEQ (1u << 6)
#define DDF_KF_TCPACK (1u << 7)
#define DDF_KF_ICMPID (1u << 8)
#define DDF_KF_PAYLOAD (1u << 9)
#define __DDF_KF_ALL 0x3ffu

/* spec.ignore: fields the packet form masks */
#define DDF_KI_TTL (1u << 0) /* IPv4 TTL, IPv6 hop limit */
#define DDF_KI_IPV4CSUM (1u << 1)
#define DDF_KI_DSCP (1u << 2)
#define DDF_KI_ECN (1u << 3)
#define DDF_KI_IPID (1u << 4)
#define DDF_KI_FLOWLABEL (1u << 5)
#define DDF_KI_L4CSUM (1u << 6)
#define DDF_KI_VLAN (1u << 7) /* link layer: VLAN tags */
#define DDF_KI_MAC (1u << 8) /* link layer: MAC addresses of a frame */
#define __DDF_KI_ALL 0x1ffu
#define DDF_KI_L2 (DDF_KI_VLAN | DDF_KI_MAC)
#define DDF_KI_DEFAULT (DDF_KI_TTL | DDF_KI_IPV4CSUM)

#define DDF_KEY_MAX_BYTES_DEFAULT 1500u
#define DDF_KEY_MAX_BYTES_MAX 65535u
#define DDF_KEY_PAYLOAD_MAX 4096u /* cap on payload OFFSET + LENGTH */
#define DDF_KEY_MAX_EXTHDRS 16u /* IPv6 extension (and AH) headers */
#define DDF_KEY_READ_MAX 64u /* the longest single read */
#define DDF_KEY_MAX_VLANS 8u /* tags a frame may have and still be IP */
#define DDF_KEY_MAX_MPLS 16u /* labels skipped */
#define DDF_KEY_MAX_DECAP 2u /* tunnels opened, one inside the other */
#define DDF_KEY_HEAD 31u /* a long key's bytes before its region */
/* a region of more bytes than this goes to NH ("Long keys" above) */
#define DDF_KEY_NH_OVER 64u

/* spec.decap: the tunnels whose inner packet is keyed */
#define DDF_KD_VXLAN (1u << 0)
#define DDF_KD_GENEVE (1u << 1)
#define DDF_KD_GRE (1u << 2)
#define DDF_KD_ERSPAN (1u << 3)
#define DDF_KD_GTPU (1u << 4)
#define __DDF_KD_ALL 0x1fu
#define DDF_KEY_VXLAN_PORT 4789u
#define DDF_KEY_GENEVE_PORT 6081u
#define DDF_KEY_GTPU_PORT 2152u

/*
 * What a rule hashes. Fixed-width members only: it travels over netlink.
 * Zero-initialised and then ddf_key_spec_default() for the defaults.
 */
struct ddf_key_spec {
	uint32_t fields; /* DDF_KF_*, field form */
	uint32_t ignore; /* DDF_KI_*, packet form */
	uint32_t max_bytes; /* packet form: bytes hashed, 1..65535 */
	uint16_t payload_off; /* field form, with DDF_KF_PAYLOAD */
	uint16_t payload_len; /* 1..4096 - payload_off */
	uint8_t family; /* 4, 6, or 0 for both */
	uint8_t form; /* enum ddf_key_form */
	uint8_t l4proto; /* with DDF_KM_L4PROTO: only this protocol */
	uint8_t match; /* DDF_KM_*: which packets the spec takes */
	uint16_t vxlan_port; /* with DDF_KD_VXLAN; 0: DDF_KEY_VXLAN_PORT */
	uint16_t geneve_port; /* with DDF_KD_GENEVE; 0: DDF_KEY_GENEVE_PORT */
	uint32_t decap; /* DDF_KD_* */
};

/*
 * spec.match: a packet the spec does not take gives DDF_KEY_SKIPPED, found
 * in the parse, before a byte is hashed. DDF_KM_L4PROTO takes the packets
 * whose walk reached l4proto (ddf_key_info.proto with DDF_KEY_F_L4; a
 * non-first fragment has its protocol), so a rule for one protocol costs
 * other traffic only the header walk.
 */
#define DDF_KM_L4PROTO 0x01u
#define __DDF_KM_ALL 0x01u

/* key packet, both families, ignore ttl and the IPv4 header checksum */
static inline void ddf_key_spec_default(struct ddf_key_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->ignore = DDF_KI_DEFAULT;
	spec->max_bytes = DDF_KEY_MAX_BYTES_DEFAULT;
}

/*
 * 0 if spec can be used; else DDF_EINVAL or DDF_ERANGE and, when why is
 * not NULL, a sentence saying what is wrong. Members of the other form
 * must be zero, except that the field and frame forms tolerate the default
 * ignore bits and any valid max_bytes (so a default spec can switch form);
 * the frame form also needs family 0 and no match. The link-layer ignore
 * bits (DDF_KI_L2) go with every form; a tunnel port needs its tunnel. A
 * packet form that may see IPv4 (family 4 or 0) and ignores ttl, dscp, ecn
 * or ipid must ignore ipv4csum too: the header checksum changes with them,
 * so the mask alone would never make two copies match.
 */
int ddf_key_spec_validate(const struct ddf_key_spec *spec, const char **why);

/*
 * What a rule's keys are hashed under: its SipHash key (from its seed)
 * and the NH key derived from that one. Secret: never exported.
 */
struct ddf_key_secret {
	struct ddf_sipkey sip;
	struct ddf_nh_key nh;
};

/* ks from the SipHash key sip: sip itself, and the NH key derived from it. */
void ddf_key_secret_init(struct ddf_key_secret *ks,
			 const struct ddf_sipkey *sip);

/*
 * The caller's view of the packet, skb_header_pointer()'s contract: a
 * pointer to the len bytes at L3 offset off, either in place or copied
 * into buf (which has room for len bytes), or NULL when [off, off + len)
 * is not inside the packet. ddf_key_hash() asks only for ranges inside
 * [0, l3len), at most DDF_KEY_READ_MAX bytes at a time, and never writes
 * through the returned pointer. A NULL reader means ctx is a ddf_key_flat
 * of l3len bytes or more, read in place without a call per read: the
 * fast path for packets that are whole in memory (a linear skb, an XDP
 * buffer, a pcap record).
 */
typedef const void *(*ddf_key_read_t)(void *ctx, uint32_t off, uint32_t len,
				      void *buf);

/* A reader over a flat buffer (a pcap record): ctx is a ddf_key_flat. */
struct ddf_key_flat {
	const uint8_t *data;
	uint32_t len;
};

static inline const void *ddf_key_read_flat(void *ctx, uint32_t off,
					    uint32_t len, void *buf)
{
	const struct ddf_key_flat *f = ctx;

	if (off > f->len || len > f->len - off)
		return NULL;
	return f->data + off;
}

enum ddf_key_result {
	DDF_KEY_HASHED = 0,
	DDF_KEY_NOT_IP, /* no IPv4 or IPv6 header: no hash */
	DDF_KEY_OTHER_FAMILY, /* the spec is for the other family: no hash */
	DDF_KEY_MALFORMED, /* the IP header is unusable: no hash */
	DDF_KEY_SKIPPED, /* spec.match does not take the packet: no hash */
};

/* info.flags */
#define DDF_KEY_F_L4 0x0001u /* the walk reached proto at l4off */
#define DDF_KEY_F_L4HDR 0x0002u /* proto's header is whole at l4off */
#define DDF_KEY_F_PAYLOAD 0x0004u /* the L4 payload starts at payoff */
#define DDF_KEY_F_FRAG 0x0008u /* a fragment (first or not) */
#define DDF_KEY_F_LATER 0x0010u /* a non-first fragment */
#define DDF_KEY_F_FRAGHDR 0x0020u /* IPv6: a fragment header was seen */
#define DDF_KEY_F_TRUNCATED 0x0040u /* the packet ends before it says */
#define DDF_KEY_F_BADHDR 0x0080u /* an L4 header is inconsistent */
#define DDF_KEY_F_EXTLIMIT 0x0100u /* the walk stopped at the limit */
#define DDF_KEY_F_CUT 0x0200u /* packet form: longer than max_bytes */
#define DDF_KEY_F_MF 0x0400u /* a fragment with more fragments after it */
#define DDF_KEY_F_NONIP 0x0800u /* a frame with no IP packet, keyed whole */
#define DDF_KEY_F_BADTUNNEL 0x1000u /* a tunnel left closed: see above */

/* What the parser found, for counters and the offline tools. */
struct ddf_key_info {
	uint32_t len; /* min(l3len, IP length) of the outermost packet */
	uint32_t l4off; /* with DDF_KEY_F_L4 */
	uint32_t payoff; /* with DDF_KEY_F_PAYLOAD */
	uint32_t frag_id; /* IPv4 identification, IPv6 fragment header's */
	uint16_t frag_off; /* fragment offset, 8-byte units */
	uint16_t flags; /* DDF_KEY_F_* */
	uint8_t family; /* 4 or 6; 0 for DDF_KEY_NOT_IP */
	uint8_t proto; /* the L4 protocol, or the header the walk stopped at */
	uint8_t exthdrs; /* extension and AH headers walked */
	uint8_t vlans; /* tags of the keyed packet's frame */
	uint32_t l3off; /* where the keyed packet starts in the reader */
	uint8_t decaps; /* tunnels opened */
	uint8_t reserved[3];
};

/*
 * Hash the packet of l3len bytes that read(ctx, ...) shows under spec (a
 * validated one; any other still never reads outside the packet) with
 * SipHash (enum ddf_hash_fn, as ddf_hash_key()) under key: *out receives
 * the hash of the byte string described above ("Long keys": the same
 * hash ddf_hash_key() gives for it when it has no region).
 * Returns an enum ddf_key_result; out is written only for DDF_KEY_HASHED.
 * info may be NULL; when given it is filled for every result.
 */
int ddf_key_hash(const struct ddf_key_spec *spec, ddf_key_read_t read,
		 void *ctx, uint32_t l3len, const struct ddf_key_secret *key,
		 uint32_t hashfn, struct ddf_hash *out,
		 struct ddf_key_info *info);

/* The link layer in front of what a reader shows. */
enum ddf_link_type {
	DDF_LINK_NONE = 0, /* the reader starts at the IP header */
	DDF_LINK_ETHER, /* the reader starts at an Ethernet MAC header */
};

struct ddf_key_link {
	uint16_t type; /* enum ddf_link_type */
	/*
	 * A VLAN tag taken out of the frame (a NIC's or the stack's VLAN
	 * acceleration): its TPID, 0 for none, and its TCI.
	 */
	uint16_t vlan_proto;
	uint16_t vlan_tci;
};

/*
 * ddf_key_hash() over what lk says is in front of the packet: len bytes
 * from the MAC header for DDF_LINK_ETHER (see "Link layer" above); with
 * DDF_LINK_NONE and no tag it is ddf_key_hash() itself.
 */
int ddf_key_hash_link(const struct ddf_key_spec *spec,
		      const struct ddf_key_link *lk, ddf_key_read_t read,
		      void *ctx, uint32_t len,
		      const struct ddf_key_secret *key,
		      uint32_t hashfn, struct ddf_hash *out,
		      struct ddf_key_info *info);

#endif /* DDF_KEY_H */
