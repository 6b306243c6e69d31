// SPDX-License-Identifier: GPL-2.0
/*
 * ddfpkt: send exact duplicate packets, and count what a receiver got.
 *
 * The integration scripts need copies of one datagram that are identical
 * at L3. A UDP socket cannot make them: the kernel picks a new IP ID for
 * every send and fragments as the route says. So "send" builds each IPv4 or
 * IPv6 packet itself and hands it to an AF_PACKET SOCK_DGRAM socket, which
 * adds nothing but the Ethernet header. "recv" counts datagrams on a plain
 * UDP socket: the kernel reassembles fragments and drops bad checksums
 * before the socket sees them, so its counts also prove the packets valid.
 * "replay" sends the IP packets of a pcap file's records the same way, so
 * the kernel can be shown a capture that ddfctl replay decides offline;
 * "replay -E" sends each record whole (SOCK_RAW), as a mirror port would
 * deliver it: foreign MAC addresses, VLAN tags, tunnels.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

#define MAX_SPEC	64		/* entries of -c */
#define MAX_COPIES	65535		/* copies of one datagram */
#define MAX_INDEX	65536		/* indices recv tells apart */
#define ENOBUFS_TRIES	1000		/* 1 ms apart: a full receive backlog */

#define IP4_HLEN	20
#define IP6_HLEN	40
#define EXT_HLEN	8		/* destination options and fragment */
#define NH_DSTOPTS	60
#define NH_FRAGMENT	44
#define IP4_DF		0x4000
#define IP4_MF		0x2000
#define TCP_PSH		0x08
#define TCP_ACK		0x10

static const char send_usage[] =
	"usage: ddfpkt send -i IFACE -m MAC -s SRC -d DST [options]\n"
	"  -i IFACE -m MAC  path 0: the interface and the destination MAC\n"
	"  -I IFACE -M MAC  path 1: copy j of a datagram leaves by path j % 2\n"
	"  -T TTL           TTL or hop limit on path 1 (default: -t)\n"
	"  -s SRC -d DST    IPv4 or IPv6 addresses, both of one family\n"
	"  -p udp|tcp|icmp  protocol (default udp; icmp is an echo request)\n"
	"  -S PORT          source port, or the echo id (40000; icmp 0x4444)\n"
	"  -D PORT          destination port (5000)\n"
	"  -n N             datagrams (10), indices FIRST .. FIRST+N-1\n"
	"  -f FIRST         first index (0)\n"
	"  -l LEN           payload bytes: \"ddfpkt INDEX\\n\" padded with 'x' (64)\n"
	"  -X               the tag at the payload's end, behind the padding:\n"
	"                   payloads that differ in their last bytes only\n"
	"                   (recv counts only datagrams that start with it)\n"
	"  -c N[,N...]      copies of datagram i: entry i % count, cycled (1)\n"
	"  -w USEC          sleep between copies of a datagram (0)\n"
	"  -W USEC          sleep between datagrams (with -G: writes) (0)\n"
	"  -t TTL           TTL or hop limit (64)\n"
	"  -q TOS           TOS or traffic class byte (0)\n"
	"  -e               IPv6: a destination options header before L4\n"
	"  -F SIZE          fragments of at most SIZE bytes of data (a multiple\n"
	"                   of 8), IP ID or fragment id 0x1000 + i\n"
	"                   (IPv6 hosts drop a first fragment without L4 header)\n"
	"  -G N             tcp: the datagrams as the segments of one stream\n"
	"                   (sequence number 1000 + i x LEN, flags ACK, LEN at\n"
	"                   least 18), N in a write: one packet that the kernel\n"
	"                   cuts into N segments (GSO) and sends back to back,\n"
	"                   as a burst; the checksum is the kernel's (-c 1, no\n"
	"                   -I -F -e -w -X)\n"
	"Unfragmented IPv4 packets carry DF and IP ID 0x100 + i. Numbers may be\n"
	"given in hex with 0x. Prints \"ddfpkt: sent D datagrams, P packets\".\n";

static const char recv_usage[] =
	"usage: ddfpkt recv [-6] -p PORT -t MSEC [-n MAX] [-r FILE]\n"
	"  -6               IPv6 (in6addr_any, IPV6_V6ONLY); default IPv4\n"
	"  -p PORT          UDP port to bind\n"
	"  -t MSEC          stop when no datagram came for MSEC milliseconds\n"
	"  -n MAX           indices below MAX count as distinct (65536)\n"
	"  -r FILE          create FILE (\"listening\") once the socket is bound\n"
	"Prints \"received R distinct U\": R datagrams, U distinct indices.\n";

static const char replay_usage[] =
	"usage: ddfpkt replay -i IFACE -m MAC [-k K] [-S] [-W USEC] FILE\n"
	"       ddfpkt replay -E [-D] -i IFACE [-k K] [-S] [-W USEC] FILE\n"
	"  the IP packet of every record of the pcap FILE, as send sends them\n"
	"  (link types Ethernet, VLAN tags skipped, Linux cooked SLL and SLL2,\n"
	"  raw IP); records with no IP packet are not sent\n"
	"  -E               every record as it is, a whole Ethernet frame (link\n"
	"                   type Ethernet): MAC addresses, tags and all\n"
	"  -D               with -E: a frame refused with ENOBUFS was dropped on\n"
	"                   the way out (a netdev egress rule): counted, not\n"
	"                   sent again (\"K dropped\" with -S)\n"
	"  -i IFACE -m MAC  the interface and the destination MAC\n"
	"  -k K             only record K (from 1)\n"
	"  -S               step: one record per line read on stdin, then\n"
	"                   \"K sent\" or \"K not-ip\" on stdout (EOF stops)\n"
	"  -W USEC          sleep between packets (0)\n"
	"Prints \"ddfpkt: sent P packets, N records not IP\", with -E \"ddfpkt:\n"
	"sent F frames, D dropped on the way out\" (on stderr with -S).\n";

/* A way out: an interface, the next hop's MAC and the TTL used there. */
struct path {
	const char *ifname;
	int ifindex;
	uint8_t mac[ETH_ALEN];
	uint8_t ttl;
};

struct send_opts {
	struct path path[2];
	unsigned int npaths;
	int family;
	uint8_t src[16], dst[16];
	uint8_t proto;			/* IP protocol number of L4 */
	uint16_t sport;
	unsigned long dport, first, count, len, tos;
	unsigned int copies[MAX_SPEC], ncopies;
	unsigned long copy_gap, dgram_gap;	/* microseconds */
	unsigned long frag;		/* data bytes per fragment, 0: none */
	unsigned long gso;		/* -G: segments a write, 0: none */
	bool dstopts;
	bool tag_last;			/* -X */
};

static const char *cmd = "ddfpkt";
static unsigned long enobufs_retries;
/* replay -D: ENOBUFS is a drop on the way out, not a full queue */
static bool enobufs_is_drop;

/*
 * Exit with a sentence on stderr: status 2 for a usage error, which points
 * at the help, 1 for a system error, which ends with errno's sentence.
 */
static void __attribute__((noreturn, format(printf, 2, 3)))
fail(int status, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (status == 2)
		fprintf(stderr, " (see %s -h)\n", cmd);
	else
		fprintf(stderr, ": %s\n", strerror(err));
	exit(status);
}

#define usage_err(...)	fail(2, __VA_ARGS__)
#define sys_err(...)	fail(1, __VA_ARGS__)

/* getopt's own complaint would name "send", not the bad option's use. */
static void __attribute__((noreturn)) bad_option(int opt)
{
	if (opt == ':')
		usage_err("-%c wants a value", optopt);
	usage_err("has no option -%c", optopt);
}

/* Decimal, or hex with 0x: a leading zero must not turn 010 into 8. */
static unsigned long parse_num(int opt, const char *s, unsigned long min,
			       unsigned long max)
{
	int base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, base);
	if (errno || end == s || *end || s[0] == '-' || s[0] == '+' ||
	    s[0] == ' ' || v < min || v > max)
		usage_err("-%c wants a number from %lu to %lu, not '%s'",
			  opt, min, max, s);
	return v;
}

static void parse_mac(int opt, const char *s, uint8_t mac[ETH_ALEN])
{
	unsigned int b[ETH_ALEN];
	int i, n = -1;

	if (strlen(s) != 17 ||
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%n",
		   &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &n) != 6 ||
	    n != 17)
		usage_err("-%c wants a MAC address aa:bb:cc:dd:ee:ff, not '%s'",
			  opt, s);
	for (i = 0; i < ETH_ALEN; i++)
		mac[i] = b[i];
}

static int parse_ifname(int opt, const char *s)
{
	int ifindex = if_nametoindex(s);

	if (!ifindex)
		usage_err("-%c names no interface here: '%s'", opt, s);
	return ifindex;
}

/* Returns the family of @s and fills @addr; 0 when @s is no address. */
static int parse_addr(const char *s, uint8_t addr[16])
{
	return inet_pton(AF_INET, s, addr) == 1 ? AF_INET :
	       inet_pton(AF_INET6, s, addr) == 1 ? AF_INET6 : 0;
}

static void parse_copies(struct send_opts *o, const char *s)
{
	const char *p = s;
	unsigned long v;
	char *end;

	o->ncopies = 0;
	for (;;) {
		if (*p < '0' || *p > '9' || o->ncopies == MAX_SPEC)
			break;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || v > MAX_COPIES)
			break;
		o->copies[o->ncopies++] = v;
		if (!*end)
			return;
		if (*end != ',')
			break;
		p = end + 1;
	}
	usage_err("-c wants up to %d counts from 0 to %d split by commas, not '%s'",
		  MAX_SPEC, MAX_COPIES, s);
}

static void sleep_us(unsigned long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * The pseudo-header sum of UDP, TCP and ICMPv6 (RFC 768, RFC 8200 8.1):
 * the addresses, the protocol and the L4 length, which is below 64 KiB, so
 * IPv6's 32-bit length and zero padding add up to the same words as IPv4's.
 */
static uint32_t pseudo_sum(const struct send_opts *o, uint32_t l4len)
{
	size_t alen = o->family == AF_INET ? 4 : 16;

	return csum_add(0, o->src, alen) + csum_add(0, o->dst, alen) +
	       o->proto + l4len;
}

/*
 * Datagram @i as the bytes that follow the IP header of an unfragmented
 * packet: the destination options header when -e asks for one, then the
 * L4 header and payload with their checksum. Fragments cut this in pieces,
 * so it is built once and every copy and fragment reuses it. Returns the
 * length.
 */
static size_t build_datagram(const struct send_opts *o, uint32_t i,
			     uint8_t *buf)
{
	size_t ext = o->dstopts ? EXT_HLEN : 0;
	uint8_t *l4 = buf + ext;
	size_t hlen, csum_off, plen, l4len;
	uint32_t sum = 0;
	uint16_t csum;
	char text[32];
	int n;

	n = snprintf(text, sizeof(text), "ddfpkt %u\n", i);
	plen = o->len > (size_t)n ? o->len : (size_t)n;
	memset(l4, 0, 20);
	switch (o->proto) {
	case IPPROTO_UDP:
		hlen = 8;
		csum_off = 6;
		put16(l4, o->sport);
		put16(l4 + 2, o->dport);
		put16(l4 + 4, hlen + plen);
		break;
	case IPPROTO_TCP:
		hlen = 20;
		csum_off = 16;
		put16(l4, o->sport);
		put16(l4 + 2, o->dport);
		put32(l4 + 4, 1000 + i * 100);
		put32(l4 + 8, 1);
		l4[12] = 5 << 4;	/* data offset: no options */
		l4[13] = TCP_ACK | TCP_PSH;
		put16(l4 + 14, 512);
		break;
	default:		/* ICMP or ICMPv6 echo request */
		hlen = 8;
		csum_off = 2;
		l4[0] = o->family == AF_INET ? 8 : 128;
		put16(l4 + 4, o->sport);
		put16(l4 + 6, i);
		break;
	}
	l4len = hlen + plen;
	if (o->tag_last) {
		memset(l4 + hlen, 'x', plen - n);
		memcpy(l4 + hlen + plen - n, text, n);
	} else {
		memcpy(l4 + hlen, text, n);
		memset(l4 + hlen + n, 'x', plen - n);
	}
	/* ICMP for IPv4 is the one checksum without a pseudo-header. */
	if (o->proto != IPPROTO_ICMP)
		sum = pseudo_sum(o, l4len);
	csum = csum_fold(csum_add(sum, l4, l4len));
	/* UDP sends 0 as "no checksum", which IPv6 forbids: ones' zero. */
	if (o->proto == IPPROTO_UDP && !csum)
		csum = 0xffff;
	put16(l4 + csum_off, csum);

	if (ext) {
		/* Next header, length 0 (8 bytes), PadN of 4 zero bytes. */
		memset(buf, 0, EXT_HLEN);
		buf[0] = o->proto;
		buf[2] = 1;
		buf[3] = 4;
	}
	return ext + l4len;
}

/*
 * -G: datagrams @i .. @i + @m - 1 as the bytes after the IP header of one
 * TCP packet of @m segments of o->len bytes, for the kernel to cut (GSO).
 * Flags ACK alone, so that every segment is the same whatever train it is
 * cut from (the kernel keeps PSH on the last only); the checksum field
 * holds the pseudo-header sum, as checksum offload wants it. Returns the
 * length.
 */
static size_t build_train(const struct send_opts *o, uint32_t i,
			  unsigned long m, uint8_t *buf)
{
	size_t l4len = 20 + m * o->len;
	uint8_t *p = buf + 20;
	unsigned long k;
	char text[32];
	int n;

	memset(buf, 0, 20);
	put16(buf, o->sport);
	put16(buf + 2, o->dport);
	put32(buf + 4, 1000 + i * (uint32_t)o->len);
	put32(buf + 8, 1);
	buf[12] = 5 << 4;
	buf[13] = TCP_ACK;
	put16(buf + 14, 512);
	for (k = 0; k < m; k++, p += o->len) {
		n = snprintf(text, sizeof(text), "ddfpkt %lu\n", i + k);
		memcpy(p, text, n);
		memset(p + n, 'x', o->len - n);
	}
	put16(buf + 16, ~csum_fold(pseudo_sum(o, l4len)) & 0xffff);
	return l4len;
}

/*
 * One packet of datagram @i on a path with @ttl: the IP header, then @len
 * bytes of @data from @off. When @frag, the packet is a fragment (IPv4
 * offset and MF, IPv6 Fragment header), else the whole datagram.
 */
static size_t build_packet(const struct send_opts *o, uint32_t i, uint8_t ttl,
			   const uint8_t *data, size_t off, size_t len,
			   bool frag, bool more, uint8_t *pkt)
{
	uint8_t first_nh = o->dstopts ? NH_DSTOPTS : o->proto;
	uint16_t id;
	size_t hlen;

	if (o->family == AF_INET) {
		/* IP ID 0 means "atomic" to some stacks: keep it non-zero. */
		id = (frag ? 0x1000 : 0x100) + i;
		if (!id)
			id = 1;
		hlen = IP4_HLEN;
		memset(pkt, 0, hlen);
		pkt[0] = 0x45;
		pkt[1] = o->tos;
		put16(pkt + 2, hlen + len);
		put16(pkt + 4, id);
		/* DF on whole datagrams: a router on one path must not cut
		 * its copy into fragments the other copy does not have. */
		put16(pkt + 6, frag ? (more ? IP4_MF : 0) | off / 8 : IP4_DF);
		pkt[8] = ttl;
		pkt[9] = o->proto;
		memcpy(pkt + 12, o->src, 4);
		memcpy(pkt + 16, o->dst, 4);
		put16(pkt + 10, csum_fold(csum_add(0, pkt, hlen)));
	} else {
		hlen = IP6_HLEN + (frag ? EXT_HLEN : 0);
		put32(pkt, 6u << 28 | (uint32_t)o->tos << 20);
		put16(pkt + 4, hlen - IP6_HLEN + len);
		pkt[6] = frag ? NH_FRAGMENT : first_nh;
		pkt[7] = ttl;
		memcpy(pkt + 8, o->src, 16);
		memcpy(pkt + 24, o->dst, 16);
		if (frag) {
			/* The destination options travel in the fragments:
			 * they are for the final destination (RFC 8200 4.1). */
			pkt[40] = first_nh;
			pkt[41] = 0;
			put16(pkt + 42, off | more);
			put32(pkt + 44, 0x1000 + i);
		}
	}
	memcpy(pkt + hlen, data + off, len);
	return hlen + len;
}

/*
 * One write on an AF_PACKET socket to @sll, as many times as ENOBUFS asks;
 * returns false when ENOBUFS is taken for a drop (replay -D).
 */
static bool send_ll(int fd, const struct sockaddr_ll *sll, const char *ifname,
		    const uint8_t *buf, size_t len, const char *hint)
{
	unsigned int tries = 0;

	while (sendto(fd, buf, len, 0, (const struct sockaddr *)sll,
		      sizeof(*sll)) != (ssize_t)len) {
		if (errno == EINTR)
			continue;
		/*
		 * A netdev egress hook that drops the frame makes the send
		 * fail with ENOBUFS too: every try would be dropped again.
		 */
		if (errno == ENOBUFS && enobufs_is_drop)
			return false;
		/*
		 * A veth whose peer's backlog is full drops the packet and
		 * says ENOBUFS: it never left, so sending it again keeps the
		 * number of copies exact.
		 */
		if (errno == ENOBUFS && ++tries < ENOBUFS_TRIES) {
			enobufs_retries++;
			sleep_us(1000);
			continue;
		}
		if (errno == EMSGSIZE)
			sys_err("a packet of %zu bytes does not fit %s%s",
				len, ifname, hint);
		sys_err("sending on %s", ifname);
	}
	return true;
}

static void send_packet(int fd, const struct send_opts *o,
			const struct path *p, const uint8_t *pkt, size_t len)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(o->family == AF_INET ?
				      ETH_P_IP : ETH_P_IPV6),
		.sll_ifindex = p->ifindex,
		.sll_halen = ETH_ALEN,
	};

	memcpy(sll.sll_addr, p->mac, ETH_ALEN);
	send_ll(fd, &sll, p->ifname, pkt, len, " (fragment with -F)");
}

/*
 * -G: the packet @pkt of @m segments behind a virtio_net_hdr that asks the
 * kernel to cut it (one segment: only to fill in the checksum), in a frame
 * from @src, as SOCK_DGRAM would have sent it: a virtio_net_hdr needs
 * SOCK_RAW, and its offsets count from the MAC header.
 */
static void send_train(int fd, const struct send_opts *o,
		       const uint8_t src[ETH_ALEN], const uint8_t *pkt,
		       size_t len, unsigned long m)
{
	static uint8_t buf[sizeof(struct virtio_net_hdr) + ETH_HLEN + IP6_HLEN +
			   65536];
	uint8_t *eth = buf + sizeof(struct virtio_net_hdr);
	size_t iphlen = o->family == AF_INET ? IP4_HLEN : IP6_HLEN;
	struct virtio_net_hdr vh = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = m < 2 ? VIRTIO_NET_HDR_GSO_NONE :
			    o->family == AF_INET ? VIRTIO_NET_HDR_GSO_TCPV4 :
						   VIRTIO_NET_HDR_GSO_TCPV6,
		.hdr_len = htole16(ETH_HLEN + iphlen + 20),
		.gso_size = htole16(o->len),
		.csum_start = htole16(ETH_HLEN + iphlen),
		.csum_offset = htole16(16),
	};
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(o->family == AF_INET ?
				      ETH_P_IP : ETH_P_IPV6),
		.sll_ifindex = o->path[0].ifindex,
	};

	memcpy(buf, &vh, sizeof(vh));
	memcpy(eth, o->path[0].mac, ETH_ALEN);
	memcpy(eth + ETH_ALEN, src, ETH_ALEN);
	memcpy(eth + 2 * ETH_ALEN, &sll.sll_protocol, 2);
	memcpy(eth + ETH_HLEN, pkt, len);
	send_ll(fd, &sll, o->path[0].ifname, buf, sizeof(vh) + ETH_HLEN + len,
		"");
}

/*
 * A whole Ethernet frame as captured, MAC addresses and tags included
 * (SOCK_RAW): the receiving side sees exactly these bytes.
 */
static bool send_frame(int fd, const struct path *p, const uint8_t *frame,
		       size_t len)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(get16(frame + 12)),
		.sll_ifindex = p->ifindex,
	};

	return send_ll(fd, &sll, p->ifname, frame, len, "");
}

/* All packets of one copy of a datagram on path @p; returns how many. */
static unsigned long send_copy(int fd, const struct send_opts *o,
			       const struct path *p, uint32_t i,
			       const uint8_t *data, size_t dlen)
{
	static uint8_t pkt[IP6_HLEN + EXT_HLEN + 65536];
	size_t step = o->frag ? o->frag : dlen, off, len;
	unsigned long n = 0;

	for (off = 0; off < dlen; off += step, n++) {
		len = dlen - off < step ? dlen - off : step;
		len = build_packet(o, i, p->ttl, data, off, len, o->frag,
				   off + len < dlen, pkt);
		send_packet(fd, o, p, pkt, len);
	}
	return n;
}

/* A numeric option of send: where its value goes and its range. */
struct num_opt {
	int opt;
	unsigned long min, max, *val;
};

static void parse_send(int argc, char **argv, struct send_opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	/* ~0ul: not given; the default depends on other options. */
	unsigned long ttl = 64, ttl2 = ~0ul, sport = ~0ul;
	const struct num_opt nums[] = {
		{ 't', 0, 255, &ttl },		{ 'T', 0, 255, &ttl2 },
		{ 'S', 0, 65535, &sport },	{ 'D', 0, 65535, &o->dport },
		{ 'n', 0, UINT32_MAX, &o->count },
		{ 'f', 0, UINT32_MAX, &o->first },
		{ 'l', 0, 65535, &o->len },	{ 'q', 0, 255, &o->tos },
		{ 'w', 0, 60000000, &o->copy_gap },
		{ 'W', 0, 60000000, &o->dgram_gap },
		{ 'F', 8, 65528, &o->frag },
		{ 'G', 1, 65535, &o->gso },
	};
	const char *proto = "udp", *src = NULL, *dst = NULL;
	unsigned int mac_set = 0;	/* bit 0: -m, bit 1: -M */
	size_t n, max_data;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv,
				":i:m:I:M:s:d:p:c:eXht:T:S:D:n:f:l:q:w:W:F:G:",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
		case 'I':
			o->path[c == 'I'].ifname = optarg;
			o->path[c == 'I'].ifindex = parse_ifname(c, optarg);
			break;
		case 'm':
		case 'M':
			parse_mac(c, optarg, o->path[c == 'M'].mac);
			mac_set |= c == 'M' ? 2 : 1;
			break;
		case 's':
			src = optarg;
			break;
		case 'd':
			dst = optarg;
			break;
		case 'p':
			proto = optarg;
			break;
		case 'c':
			parse_copies(o, optarg);
			break;
		case 'e':
			o->dstopts = true;
			break;
		case 'X':
			o->tag_last = true;
			break;
		case 'h':
			fputs(send_usage, stdout);
			exit(0);
		default:
			for (n = 0; n < sizeof(nums) / sizeof(nums[0]); n++)
				if (nums[n].opt == c)
					break;
			if (n == sizeof(nums) / sizeof(nums[0]))
				bad_option(c);
			*nums[n].val = parse_num(c, optarg, nums[n].min,
						 nums[n].max);
		}
	}
	if (optind < argc)
		usage_err("takes no argument like '%s'", argv[optind]);
	if (!o->path[0].ifname || !(mac_set & 1))
		usage_err("-i IFACE and -m MAC are required");
	if (!o->path[1].ifname != !(mac_set & 2))
		usage_err("-I IFACE and -M MAC go together");
	if (ttl2 != ~0ul && !o->path[1].ifname)
		usage_err("-T sets the TTL of path 1 (-I), which is not given");
	o->npaths = o->path[1].ifname ? 2 : 1;
	o->path[0].ttl = ttl;
	o->path[1].ttl = ttl2 != ~0ul ? ttl2 : ttl;

	if (!src || !dst)
		usage_err("-s SRC and -d DST are required");
	o->family = parse_addr(src, o->src);
	if (!o->family)
		usage_err("-s wants an IPv4 or IPv6 address, not '%s'", src);
	if (parse_addr(dst, o->dst) != o->family)
		usage_err("-d wants an address of the family of -s, not '%s'",
			  dst);
	if (!strcmp(proto, "udp"))
		o->proto = IPPROTO_UDP;
	else if (!strcmp(proto, "tcp"))
		o->proto = IPPROTO_TCP;
	else if (!strcmp(proto, "icmp"))
		o->proto = o->family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
	else
		usage_err("-p wants udp, tcp or icmp, not '%s'", proto);
	if (sport == ~0ul)
		sport = o->proto == IPPROTO_UDP || o->proto == IPPROTO_TCP ?
			40000 : 0x4444;
	o->sport = sport;
	if (o->dstopts && o->family != AF_INET6)
		usage_err("-e adds an IPv6 extension header; -s and -d are IPv4");
	if (o->frag % 8)
		usage_err("-F wants a multiple of 8, not %lu", o->frag);
	if ((uint64_t)o->first + o->count > (uint64_t)UINT32_MAX + 1)
		usage_err("-f FIRST plus -n N runs past index %u", UINT32_MAX);
	if (o->gso) {
		if (o->proto != IPPROTO_TCP)
			usage_err("-G cuts TCP segments: give -p tcp");
		if (o->ncopies != 1 || o->copies[0] != 1 || o->npaths != 1 ||
		    o->frag || o->dstopts || o->copy_gap || o->tag_last)
			usage_err("-G sends each datagram once on one path: no -c, -I, -F, -e, -w or -X");
		if (o->len < 18)
			usage_err("-G wants -l of at least 18, the longest text");
		if (o->gso * o->len > 65535 - IP6_HLEN - 20)
			usage_err("-G %lu segments of -l %lu bytes are longer than IP allows",
				  o->gso, o->len);
	}
	/* What the IPv4 total length or the IPv6 payload length can say. */
	max_data = o->family == AF_INET ? 65535 - IP4_HLEN : 65535 - EXT_HLEN;
	if ((o->dstopts ? EXT_HLEN : 0) + 20 + o->len > max_data)
		usage_err("-l %lu makes datagrams longer than IP allows",
			  o->len);
}

static int cmd_send(int argc, char **argv)
{
	static uint8_t data[EXT_HLEN + 65536];
	struct send_opts o = {
		.dport = 5000, .count = 10, .len = 64,
		.copies = { 1 }, .ncopies = 1,
	};
	unsigned long k, j, datagrams = 0, packets = 0;
	uint8_t src_mac[ETH_ALEN];
	int fd;

	cmd = "ddfpkt send";
	parse_send(argc, argv, &o);
	/* Protocol 0: this socket only sends, so nothing queues on it. */
	fd = socket(AF_PACKET, SOCK_DGRAM, 0);
	if (fd < 0)
		sys_err("an AF_PACKET socket (root or CAP_NET_RAW needed)");
	if (o.gso) {
		struct ifreq ifr = { 0 };
		int one = 1;

		close(fd);
		fd = socket(AF_PACKET, SOCK_RAW, 0);
		if (fd < 0)
			sys_err("an AF_PACKET socket (root or CAP_NET_RAW needed)");
		if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one,
			       sizeof(one)))
			sys_err("PACKET_VNET_HDR");
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s",
			 o.path[0].ifname);
		if (ioctl(fd, SIOCGIFHWADDR, &ifr))
			sys_err("the MAC address of %s", o.path[0].ifname);
		memcpy(src_mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	}
	for (k = 0; o.gso && k < o.count; k += j) {
		static uint8_t pkt[IP6_HLEN + 65536];
		uint32_t i = o.first + k;
		size_t dlen, len;

		j = o.count - k < o.gso ? o.count - k : o.gso;
		if (k && o.dgram_gap)
			sleep_us(o.dgram_gap);
		dlen = build_train(&o, i, j, data);
		len = build_packet(&o, i, o.path[0].ttl, data, 0, dlen, false,
				   false, pkt);
		send_train(fd, &o, src_mac, pkt, len, j);
		datagrams += j;
		packets += j;
	}
	for (k = 0; !o.gso && k < o.count; k++) {
		uint32_t i = o.first + k;
		unsigned int copies = o.copies[i % o.ncopies];
		size_t dlen = build_datagram(&o, i, data);

		if (k && o.dgram_gap)
			sleep_us(o.dgram_gap);
		for (j = 0; j < copies; j++) {
			if (j && o.copy_gap)
				sleep_us(o.copy_gap);
			packets += send_copy(fd, &o, &o.path[j % o.npaths], i,
					     data, dlen);
		}
		datagrams += copies > 0;
	}
	close(fd);
	if (enobufs_retries)
		fprintf(stderr, "%s: %lu sends retried after ENOBUFS\n", cmd,
			enobufs_retries);
	printf("ddfpkt: sent %lu datagrams, %lu packets\n", datagrams, packets);
	return 0;
}

/* A pcap file in memory: the header's byte order, precision, link type. */
struct pcap_file {
	uint8_t *data;
	size_t len, off;
	bool swap;
	uint32_t linktype;
};

static uint32_t pcap_u32(const struct pcap_file *f, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return f->swap ? __builtin_bswap32(v) : v;
}

static void pcap_open(struct pcap_file *f, const char *path)
{
	FILE *in = fopen(path, "rb");
	size_t cap = 1 << 16, n;
	uint32_t magic;

	if (!in)
		sys_err("'%s'", path);
	f->data = malloc(cap);
	f->len = 0;
	while (f->data && (n = fread(f->data + f->len, 1, cap - f->len, in))) {
		f->len += n;
		if (f->len == cap)
			f->data = realloc(f->data, cap *= 2);
	}
	if (!f->data || ferror(in))
		sys_err("reading '%s'", path);
	fclose(in);
	if (f->len < 24)
		usage_err("'%s' is not a pcap file", path);
	memcpy(&magic, f->data, 4);
	f->swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
	magic = pcap_u32(f, f->data);
	if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d)
		usage_err("'%s' is not a pcap file (pcapng is not read here)",
			  path);
	f->linktype = pcap_u32(f, f->data + 20) & 0x0fffffff;
	f->off = 24;
}

/* The next record: its bytes and captured length; false at the end. */
static bool pcap_next(struct pcap_file *f, const uint8_t **rec, uint32_t *len)
{
	if (f->off + 16 > f->len)
		return false;
	*len = pcap_u32(f, f->data + f->off + 8);
	if (*len > f->len - f->off - 16)
		usage_err("the capture ends inside a record");
	*rec = f->data + f->off + 16;
	f->off += 16 + *len;
	return true;
}

/* Where the IP packet of a record starts, or -1 when it has none. */
static long record_l3(uint32_t linktype, const uint8_t *r, uint32_t len)
{
	uint32_t pay;
	uint16_t type;

	switch (linktype) {
	case 1: /* Ethernet */
		if (len < 14)
			return -1;
		type = get16(r + 12);
		pay = 14;
		break;
	case 113: /* Linux cooked */
		if (len < 16)
			return -1;
		type = get16(r + 14);
		pay = 16;
		break;
	case 276: /* Linux cooked v2 */
		if (len < 20)
			return -1;
		type = get16(r);
		pay = 20;
		break;
	case 101: /* raw IP */
	case 228: /* IPv4 */
	case 229: /* IPv6 */
		return 0;
	default:
		return -1;
	}
	while (type == 0x8100 || type == 0x88a8 || type == 0x9100) {
		if (pay + 4 > len)
			return -1;
		type = get16(r + pay + 2);
		pay += 4;
	}
	return type == 0x0800 || type == 0x86dd ? (long)pay : -1;
}

static int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct send_opts o = { .npaths = 1 };
	unsigned long only = 0, gap = 0, index = 0, sent = 0, not_ip = 0;
	unsigned long dropped = 0;
	struct pcap_file f;
	const uint8_t *rec;
	bool mac_set = false, step = false, frames = false;
	char line[64];
	uint32_t len;
	int c, fd;

	cmd = "ddfpkt replay";
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":DEi:m:k:SW:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'D':
			enobufs_is_drop = true;
			break;
		case 'E':
			frames = true;
			break;
		case 'i':
			o.path[0].ifname = optarg;
			o.path[0].ifindex = parse_ifname(c, optarg);
			break;
		case 'm':
			parse_mac(c, optarg, o.path[0].mac);
			mac_set = true;
			break;
		case 'k':
			only = parse_num(c, optarg, 1, UINT32_MAX);
			break;
		case 'S':
			step = true;
			break;
		case 'W':
			gap = parse_num(c, optarg, 0, 60000000);
			break;
		case 'h':
			fputs(replay_usage, stdout);
			exit(0);
		default:
			bad_option(c);
		}
	}
	if (optind + 1 != argc)
		usage_err("wants one pcap FILE");
	if (frames && mac_set)
		usage_err("-E sends the frames' own MAC addresses: no -m");
	if (enobufs_is_drop && !frames)
		usage_err("-D goes with -E");
	if (frames && !o.path[0].ifname)
		usage_err("-i IFACE is required");
	if (!o.path[0].ifname || (!mac_set && !frames))
		usage_err("-i IFACE and -m MAC are required");
	pcap_open(&f, argv[optind]);
	if (frames && f.linktype != 1)
		usage_err("-E sends Ethernet frames: '%s' has link type %u",
			  argv[optind], f.linktype);
	fd = socket(AF_PACKET, frames ? SOCK_RAW : SOCK_DGRAM, 0);
	if (fd < 0)
		sys_err("an AF_PACKET socket (root or CAP_NET_RAW needed)");
	while (pcap_next(&f, &rec, &len)) {
		long l3;

		if (++index != only && only)
			continue;
		if (step && !fgets(line, sizeof(line), stdin))
			break;
		l3 = frames ? 0 : record_l3(f.linktype, rec, len);
		if (frames && len < ETH_HLEN) {
			usage_err("record %lu is shorter than an Ethernet header",
				  index);
		} else if (frames) {
			if (sent + dropped && gap)
				sleep_us(gap);
			if (send_frame(fd, &o.path[0], rec, len)) {
				sent++;
				if (step)
					printf("%lu sent\n", index);
			} else {
				dropped++;
				if (step)
					printf("%lu dropped\n", index);
			}
		} else if (l3 < 0 || (uint32_t)l3 >= len ||
		    (rec[l3] >> 4 != 4 && rec[l3] >> 4 != 6)) {
			not_ip++;
			if (step)
				printf("%lu not-ip\n", index);
		} else {
			if (sent && gap)
				sleep_us(gap);
			o.family = rec[l3] >> 4 == 4 ? AF_INET : AF_INET6;
			send_packet(fd, &o, &o.path[0], rec + l3, len - l3);
			sent++;
			if (step)
				printf("%lu sent\n", index);
		}
		if (step)
			fflush(stdout);
	}
	close(fd);
	free(f.data);
	if (only && index < only)
		usage_err("the capture has no record %lu", only);
	if (frames)
		fprintf(step ? stderr : stdout,
			"ddfpkt: sent %lu frames, %lu dropped on the way out\n",
			sent, dropped);
	else
		fprintf(step ? stderr : stdout,
			"ddfpkt: sent %lu packets, %lu records not IP\n", sent,
			not_ip);
	return 0;
}

/* "ddfpkt INDEX\n" at the start of @buf; returns false for anything else. */
static bool parse_index(const char *buf, size_t len, uint32_t *index)
{
	static const char tag[] = "ddfpkt ";
	uint64_t v = 0;
	size_t p = sizeof(tag) - 1;

	if (len <= p || memcmp(buf, tag, p) || buf[p] < '0' || buf[p] > '9')
		return false;
	for (; p < len && buf[p] >= '0' && buf[p] <= '9'; p++) {
		v = v * 10 + (buf[p] - '0');
		if (v > UINT32_MAX)
			return false;
	}
	if (p == len || buf[p] != '\n')
		return false;
	*index = v;
	return true;
}

/* A UDP socket bound to @port on every address of @family. */
static int recv_socket(int family, unsigned long port)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in sin;
		struct sockaddr_in6 sin6;
	} a = { 0 };
	int fd, one = 1, rcvbuf = 8 << 20;

	fd = socket(family, SOCK_DGRAM, 0);
	if (fd < 0)
		sys_err("a UDP socket");
	if (family == AF_INET6) {
		/* IPv4 datagrams must not count on an IPv6 receiver. */
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			       sizeof(one)))
			sys_err("IPV6_V6ONLY");
		a.sin6.sin6_family = AF_INET6;
		a.sin6.sin6_addr = in6addr_any;
		a.sin6.sin6_port = htons(port);
	} else {
		a.sin.sin_family = AF_INET;
		a.sin.sin_addr.s_addr = htonl(INADDR_ANY);
		a.sin.sin_port = htons(port);
	}
	/*
	 * A burst of copies must not overflow the default receive buffer
	 * (each small datagram costs ~1 KiB of it): a lost datagram would
	 * read as a duplicate removed. FORCE needs CAP_NET_ADMIN; without
	 * it, net.core.rmem_max caps the size.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, &a.sa, family == AF_INET6 ? sizeof(a.sin6) :
		 sizeof(a.sin)))
		sys_err("binding UDP port %lu", port);
	return fd;
}

static int cmd_recv(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static uint8_t seen[MAX_INDEX / 8];
	static char buf[65536];
	unsigned long port = 0, msec = 0, max = MAX_INDEX;
	unsigned long received = 0, distinct = 0, other = 0;
	struct pollfd pfd = { .events = POLLIN };
	int family = AF_INET, c, r;
	const char *ready = NULL;
	uint32_t index;
	ssize_t n;
	FILE *f;

	cmd = "ddfpkt recv";
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":6p:t:n:r:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case '6':
			family = AF_INET6;
			break;
		case 'p':
			port = parse_num(c, optarg, 1, 65535);
			break;
		case 't':
			msec = parse_num(c, optarg, 1, 3600000);
			break;
		case 'n':
			max = parse_num(c, optarg, 1, MAX_INDEX);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'h':
			fputs(recv_usage, stdout);
			return 0;
		default:
			bad_option(c);
		}
	}
	if (optind < argc)
		usage_err("takes no argument like '%s'", argv[optind]);
	if (!port || !msec)
		usage_err("-p PORT and -t MSEC are required");

	pfd.fd = recv_socket(family, port);
	/* Datagrams sent from now on are queued: the script may send. */
	if (ready) {
		f = fopen(ready, "w");
		if (!f || fputs("listening\n", f) < 0 || fclose(f))
			sys_err("creating the ready file %s", ready);
	}
	/* The timeout restarts with each datagram: it ends when idle. */
	while ((r = poll(&pfd, 1, msec))) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			sys_err("poll");
		n = recv(pfd.fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			sys_err("receiving on UDP port %lu", port);
		received++;
		if (!parse_index(buf, n, &index) || index >= max) {
			other++;
			continue;
		}
		if (!(seen[index / 8] & 1u << index % 8)) {
			seen[index / 8] |= 1u << index % 8;
			distinct++;
		}
	}
	close(pfd.fd);
	if (other)
		fprintf(stderr, "%s: %lu datagrams without an index below %lu\n",
			cmd, other, max);
	printf("received %lu distinct %lu\n", received, distinct);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "%s\n%s\n%s", send_usage, recv_usage,
			replay_usage);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		printf("%s\n%s\n%s", send_usage, recv_usage, replay_usage);
		return 0;
	}
	if (!strcmp(argv[1], "send"))
		return cmd_send(argc - 1, argv + 1);
	if (!strcmp(argv[1], "recv"))
		return cmd_recv(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replay"))
		return cmd_replay(argc - 1, argv + 1);
	usage_err("no command '%s'; the commands are send, recv and replay",
		  argv[1]);
}
