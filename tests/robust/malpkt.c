// SPDX-License-Identifier: GPL-2.0
/*
 * malpkt: the packets of tests/robust/malformed.sh, and what it needs to
 * watch them.
 *
 *   pcap FILE...   the IP packets of captures (pcap and pcapng, the link
 *                  types below), each sent as it was captured
 *   gen KIND       packets built here: truncated and inconsistent headers,
 *                  long IPv6 extension-header chains, fragments, paged
 *                  skbs beside linear copies, TCP trains for GRO
 *   log            an NFLOG listener: every packet an nft "log group" rule
 *                  saw, written as a raw-IP pcap file ddfctl replay reads
 *   feature        an interface's GRO, TSO, GSO or SG (the ethtool ioctl)
 *   sink, bulk     a TCP transfer, the sender's bytes from page-cache
 *                  pages at an odd offset (sendfile), so GSO and GRO
 *                  packets carry their payload across page fragments
 *
 * Packets leave through an AF_PACKET socket: SOCK_DGRAM adds the Ethernet
 * header to whatever bytes it is given, so a header the IP stack would
 * never build goes out as it is. A packet the sending kernel refuses
 * (EINVAL, EMSGSIZE) is counted, not fatal. With -w the packets are also
 * (or, without -i, only) written to a raw-IP pcap file.
 *
 * The paged half of the "big" pairs goes through a SOCK_RAW socket with a
 * virtio-net header: its hdr_len sets how many bytes AF_PACKET puts in the
 * skb's linear part, the rest lands in page fragments (for packets above a
 * page), so the receiver's skb splits exactly there.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

#define PKT_MAX		65535u
/* nflog's payload attribute holds at most this much: send no longer */
#define LOG_MAX		65531u
#define ENOBUFS_TRIES	2000		/* 1 ms apart */

#define P_HOPOPTS	0
#define P_ICMP		1
#define P_TCP		6
#define P_UDP		17
#define P_ROUTING	43
#define P_FRAGMENT	44
#define P_GRE		47
#define P_AH		51
#define P_ICMPV6	58
#define P_NONE		59
#define P_DSTOPTS	60
#define P_SCTP		132
#define P_UDPLITE	136

static const char usage[] =
	"usage: malpkt COMMAND ...\n"
	"  pcap [-i IFACE -m MAC | -R] [-w OUT] [-f] [-q] FILE...\n"
	"      send the IP packet of every record; one line per capture:\n"
	"      \"capture NAME: link L records R sent S fixed F not-ip N refused E\"\n"
	"      or \"capture NAME: skipped: REASON\", then a \"pcap:\" total\n"
	"      -R  through IPPROTO_RAW sockets instead (the output hooks)\n"
	"      -f  also send a copy with the IPv4 header checksum and the IP\n"
	"          length made to agree with the captured bytes, when they do not\n"
	"      -q  only the total line and the skipped captures\n"
	"  gen trunc|ext|frag|big|gro [-i IFACE -m MAC | -R] [-w OUT] [-n N] [-c COPIES]\n"
	"      [-s BASE]  BASE: added to the identifiers, ports and seeds\n"
	"      -n N  size: trunc and frag repeat their set N times (1),\n"
	"            ext builds chains of 0..N headers (40), big and gro\n"
	"            build N pairs or trains per case (1)\n"
	"  log -g GROUP -w OUT [-t IDLE_MS] [-r READY]\n"
	"      the packets of nflog GROUP into OUT until idle, or after\n"
	"      SIGTERM until nothing came for 300 ms; prints\n"
	"      \"log: group G packets P bytes B lost L cut C\" (C: as long as\n"
	"      nflog copies, so perhaps cut); a Linux cooked header names\n"
	"      the hook's family\n"
	"  feature IFACE gro|tso|gso|sg on|off\n"
	"  sink [-6] -p PORT -t IDLE_MS [-r READY]\n"
	"  bulk -d ADDR -p PORT -n BYTES [-o OFFSET]\n";

static const char *cmd = "malpkt";

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
		fputs(" (see malpkt -h)\n", stderr);
	else
		fprintf(stderr, ": %s\n", strerror(err));
	exit(status);
}

#define usage_err(...)	fail(2, __VA_ARGS__)
#define sys_err(...)	fail(1, __VA_ARGS__)

static unsigned long parse_num(int opt, const char *s, unsigned long min,
			       unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		usage_err("-%c wants a number from %lu to %lu, not '%s'", opt,
			  min, max, s);
	return v;
}

static void sleep_us(unsigned long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- the way out: AF_PACKET, and a pcap copy ---- */

/* The addresses of the packets built here; the receiver routes them. */
static const uint8_t src4[4] = { 192, 0, 2, 1 };
static const uint8_t dst4_in[4] = { 10, 9, 0, 1 };	/* delivered */
static const uint8_t dst4_fw[4] = { 198, 51, 100, 1 };	/* forwarded */
static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t dst6_in[16] = { 0xfd, 0x00, 0, 9, [15] = 1 };
static const uint8_t dst6_fw[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };

struct out {
	int dgram;		/* SOCK_DGRAM: the kernel adds Ethernet */
	int raw;		/* SOCK_RAW with a virtio-net header */
	int hdrincl[2];		/* -R: IPPROTO_RAW sockets, IPv4 and IPv6 */
	int ifindex;
	uint8_t mac[ETH_ALEN];
	FILE *pcap;		/* -w */
	unsigned long sent, refused, retries, written;
};

static void pcap_header(FILE *f, uint32_t linktype)
{
	uint8_t h[24] = { 0 };

	put32(h, 0xa1b2c3d4);
	put16(h + 4, 2);
	put16(h + 6, 4);
	put32(h + 16, 262144);
	put32(h + 20, linktype);
	if (fwrite(h, 1, sizeof(h), f) != sizeof(h))
		sys_err("writing a pcap header");
}

/*
 * A record of a big-endian pcap file, numbered as time: @pre bytes of
 * link-layer header (@npre, may be 0), then @len bytes of packet.
 */
static void pcap_record2(FILE *f, unsigned long n, const uint8_t *pre,
			 size_t npre, const uint8_t *p, size_t len)
{
	uint8_t h[16];

	put32(h, 1000000000u + (uint32_t)(n / 1000000));
	put32(h + 4, (uint32_t)(n % 1000000));
	put32(h + 8, (uint32_t)(npre + len));
	put32(h + 12, (uint32_t)(npre + len));
	if (fwrite(h, 1, sizeof(h), f) != sizeof(h) ||
	    fwrite(pre, 1, npre, f) != npre || fwrite(p, 1, len, f) != len)
		sys_err("writing a pcap record");
}

/* A record of a raw-IP (101) pcap file. */
static void pcap_record(FILE *f, unsigned long n, const uint8_t *p,
			size_t len)
{
	pcap_record2(f, n, NULL, 0, p, len);
}

static void out_open(struct out *o, const char *ifname, const char *mac,
		     const char *path, bool hdrincl)
{
	unsigned int b[ETH_ALEN];
	int i, one = 1;

	o->dgram = o->raw = o->hdrincl[0] = o->hdrincl[1] = -1;
	if (hdrincl) {
		/* IPPROTO_RAW: the caller's IP header, IP_HDRINCL implied */
		o->hdrincl[0] = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
		o->hdrincl[1] = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
		if (o->hdrincl[0] < 0 || o->hdrincl[1] < 0)
			sys_err("a raw IP socket (root needed)");
	} else if (ifname) {
		if (!mac)
			usage_err("-i IFACE needs -m MAC");
		o->ifindex = if_nametoindex(ifname);
		if (!o->ifindex)
			usage_err("-i names no interface here: '%s'", ifname);
		if (sscanf(mac, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2],
			   &b[3], &b[4], &b[5]) != 6)
			usage_err("-m wants a MAC address, not '%s'", mac);
		for (i = 0; i < ETH_ALEN; i++)
			o->mac[i] = (uint8_t)b[i];
		/* protocol 0: these sockets only send */
		o->dgram = socket(AF_PACKET, SOCK_DGRAM, 0);
		o->raw = socket(AF_PACKET, SOCK_RAW, 0);
		if (o->dgram < 0 || o->raw < 0)
			sys_err("an AF_PACKET socket (root needed)");
		if (setsockopt(o->raw, SOL_PACKET, PACKET_VNET_HDR, &one,
			       sizeof(one)))
			sys_err("PACKET_VNET_HDR");
	} else if (!path) {
		usage_err("wants -i IFACE -m MAC or -R, or -w OUT, or both");
	}
	if (path) {
		o->pcap = fopen(path, "wb");
		if (!o->pcap)
			sys_err("'%s'", path);
		pcap_header(o->pcap, 101);
	}
}

static void out_close(struct out *o)
{
	if (o->pcap && fclose(o->pcap))
		sys_err("writing the pcap file");
	if (o->dgram >= 0)
		close(o->dgram);
	if (o->raw >= 0)
		close(o->raw);
	for (int i = 0; i < 2; i++)
		if (o->hdrincl[i] >= 0)
			close(o->hdrincl[i]);
	if (o->retries)
		fprintf(stderr, "%s: %lu sends retried after ENOBUFS\n", cmd,
			o->retries);
}

/*
 * Through an IPPROTO_RAW socket of the family: the bytes reach the output
 * hooks as they are, bar what raw_send_hdrinc() sets in an IPv4 header
 * (total length, checksum, and a zero source or ID). The route is the
 * socket address's, not the header's: the forwarded ranges below.
 */
static bool out_hdrincl(struct out *o, bool v6, const uint8_t *pkt,
			size_t len)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} a = { 0 };
	socklen_t alen;

	if (v6) {
		a.in6.sin6_family = AF_INET6;
		memcpy(&a.in6.sin6_addr, dst6_fw, 16);
		alen = sizeof(a.in6);
	} else {
		a.in.sin_family = AF_INET;
		memcpy(&a.in.sin_addr, dst4_fw, 4);
		alen = sizeof(a.in);
	}
	while (sendto(o->hdrincl[v6], pkt, len, 0, &a.sa, alen) != (ssize_t)len) {
		if (errno == EINTR)
			continue;
		/* what raw_send_hdrinc() refuses, or no route there */
		if (errno == EINVAL || errno == EMSGSIZE || errno == ENETUNREACH ||
		    errno == EHOSTUNREACH || errno == EACCES || errno == EPERM ||
		    errno == ENOBUFS) {
			o->refused++;
			return false;
		}
		sys_err("sending %zu bytes through a raw IP socket", len);
	}
	o->sent++;
	return true;
}

/*
 * Send @len bytes of IP packet as Ethernet type IPv4 (@v6 false) or IPv6.
 * @linear: 0 for the SOCK_DGRAM socket (the kernel decides the skb's
 * shape: linear below a page, else 14 bytes linear and the rest paged),
 * else the frame's linear bytes through the virtio-net header. True when
 * the packet left.
 */
static bool out_send(struct out *o, bool v6, const uint8_t *pkt, size_t len,
		     unsigned int linear)
{
	static uint8_t frame[sizeof(struct virtio_net_hdr) + ETH_HLEN + PKT_MAX];
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(v6 ? ETH_P_IPV6 : ETH_P_IP),
		.sll_ifindex = o->ifindex,
		.sll_halen = ETH_ALEN,
	};
	unsigned int tries = 0;
	const void *buf = pkt;
	size_t n = len;
	int fd = o->dgram;

	if (o->pcap)
		pcap_record(o->pcap, ++o->written, pkt, len);
	if (o->hdrincl[0] >= 0)
		return out_hdrincl(o, v6, pkt, len);
	if (o->dgram < 0) {
		o->sent++;	/* written only */
		return true;
	}
	memcpy(sll.sll_addr, o->mac, ETH_ALEN);
	if (linear) {
		struct virtio_net_hdr vh = { .hdr_len = (uint16_t)linear };
		uint8_t *e = frame + sizeof(vh);

		if (len > PKT_MAX)
			return false;
		memcpy(frame, &vh, sizeof(vh));
		memcpy(e, o->mac, ETH_ALEN);
		/* a locally administered source: nobody's */
		memcpy(e + ETH_ALEN, "\x02\x00\x00\x00\x00\x01", ETH_ALEN);
		put16(e + 2 * ETH_ALEN, v6 ? ETH_P_IPV6 : ETH_P_IP);
		memcpy(e + ETH_HLEN, pkt, len);
		buf = frame;
		n = sizeof(vh) + ETH_HLEN + len;
		fd = o->raw;
	}
	while (sendto(fd, buf, n, 0, (struct sockaddr *)&sll,
		      sizeof(sll)) != (ssize_t)n) {
		if (errno == EINTR)
			continue;
		/* a full backlog or ring dropped it: it never arrived */
		if (errno == ENOBUFS && ++tries < ENOBUFS_TRIES) {
			o->retries++;
			sleep_us(1000);
			continue;
		}
		if (errno == EINVAL || errno == EMSGSIZE) {
			o->refused++;
			return false;
		}
		sys_err("sending %zu bytes", n);
	}
	o->sent++;
	return true;
}

/* ---- captures: pcap and pcapng in memory ---- */

struct cap {
	const char *name;
	uint8_t *d;
	size_t len, off;
	bool ng, swap;
	uint32_t linktype;		/* pcap: the file's */
	uint32_t iflink[64];		/* pcapng: per interface */
	uint32_t ifsnap[64];
	unsigned int nif;
	const char *bad;		/* why reading stopped early */
};

static uint32_t cap32(const struct cap *c, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return c->swap ? __builtin_bswap32(v) : v;
}

static uint16_t cap16(const struct cap *c, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return c->swap ? __builtin_bswap16(v) : v;
}

/* NULL when the file is read, else why it is skipped. */
static const char *cap_open(struct cap *c, const char *path)
{
	struct stat st;
	uint32_t magic;
	int fd;

	memset(c, 0, sizeof(*c));
	c->name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return "cannot be opened";
	c->len = st.st_size;
	c->d = malloc(c->len ? c->len : 1);
	if (!c->d || read(fd, c->d, c->len) != (ssize_t)c->len) {
		close(fd);
		return "cannot be read";
	}
	close(fd);
	if (c->len < 24)
		return "shorter than a file header";
	memcpy(&magic, c->d, 4);
	if (magic == 0x0a0d0d0a) {
		c->ng = true;
		c->off = 0;
		return NULL;
	}
	c->swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
	magic = cap32(c, c->d);
	if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d)
		return "neither pcap nor pcapng";
	/* the upper bits may carry FCS information */
	c->linktype = cap32(c, c->d + 20) & 0x03ffffff;
	c->off = 24;
	return NULL;
}

/* The next packet record: its link type, bytes and length. */
static bool cap_next(struct cap *c, uint32_t *lt, const uint8_t **p,
		     uint32_t *n)
{
	if (!c->ng) {
		if (c->off + 16 > c->len) {
			if (c->off != c->len)
				c->bad = "ends inside a record header";
			return false;
		}
		*n = cap32(c, c->d + c->off + 8);
		if (*n > c->len - c->off - 16) {
			c->bad = "a record runs past the end of the file";
			return false;
		}
		*p = c->d + c->off + 16;
		*lt = c->linktype;
		c->off += 16 + *n;
		return true;
	}
	for (;;) {
		const uint8_t *b = c->d + c->off;
		uint32_t type, blen, ifid, caplen;

		if (c->off + 12 > c->len) {
			if (c->off != c->len)
				c->bad = "ends inside a block header";
			return false;
		}
		memcpy(&type, b, 4);
		if (type == 0x0a0d0d0a) {	/* section header */
			uint32_t bom;

			if (c->off + 28 > c->len) {
				c->bad = "a section header is cut";
				return false;
			}
			memcpy(&bom, b + 8, 4);
			if (bom != 0x1a2b3c4d && bom != 0x4d3c2b1a) {
				c->bad = "a section header has no byte-order magic";
				return false;
			}
			c->swap = bom == 0x4d3c2b1a;
			c->nif = 0;
		}
		type = cap32(c, b);
		blen = cap32(c, b + 4);
		if (blen < 12 || blen % 4 || blen > c->len - c->off) {
			c->bad = "a block length is wrong";
			return false;
		}
		c->off += blen;
		switch (type) {
		case 1:			/* interface description */
			if (blen < 20 || c->nif == 64) {
				c->bad = "an interface block is wrong";
				return false;
			}
			c->iflink[c->nif] = cap16(c, b + 8);
			c->ifsnap[c->nif++] = cap32(c, b + 12);
			continue;
		case 6:			/* enhanced packet */
			if (blen < 32)
				break;
			ifid = cap32(c, b + 8);
			caplen = cap32(c, b + 20);
			if (ifid >= c->nif || caplen > blen - 32)
				break;
			*lt = c->iflink[ifid];
			*p = b + 28;
			*n = caplen;
			return true;
		case 3:			/* simple packet: interface 0 */
			if (blen < 16 || !c->nif)
				break;
			caplen = cap32(c, b + 8);
			if (caplen > blen - 16)
				caplen = blen - 16;
			if (c->ifsnap[0] && caplen > c->ifsnap[0])
				caplen = c->ifsnap[0];
			*lt = c->iflink[0];
			*p = b + 12;
			*n = caplen;
			return true;
		case 2:			/* packet (obsolete) */
			if (blen < 32)
				break;
			ifid = cap16(c, b + 8);
			caplen = cap32(c, b + 20);
			if (ifid >= c->nif || caplen > blen - 32)
				break;
			*lt = c->iflink[ifid];
			*p = b + 28;
			*n = caplen;
			return true;
		default:
			continue;
		}
		c->bad = "a packet block is wrong";
		return false;
	}
}

/* LLC/SNAP with an Ethernet type: AA AA 03 00 00 00 TYPE. */
static bool snap_type(const uint8_t *p, uint32_t n, uint32_t at,
		      uint16_t *type)
{
	if (n < at + 8 || memcmp(p + at, "\xaa\xaa\x03\x00\x00\x00", 6))
		return false;
	*type = get16(p + at + 6);
	return true;
}

/* The IP family an Ethernet type names behind VLAN tags; 0 for none. */
static int ether_ip(const uint8_t *p, uint32_t n, uint16_t type,
		    uint32_t *at)
{
	while (type == 0x8100 || type == 0x88a8 || type == 0x9100) {
		if (*at + 4 > n)
			return 0;
		type = get16(p + *at + 2);
		*at += 4;
	}
	if (type < 0x600 && snap_type(p, n, *at, &type))
		*at += 8;	/* 802.3 length, then LLC/SNAP */
	return type == 0x0800 ? 4 : type == 0x86dd ? 6 : 0;
}

/* PPP's protocol field (compressed or not) behind an optional FF 03. */
static int ppp_ip(const uint8_t *p, uint32_t n, uint32_t *at)
{
	uint16_t proto;

	if (n >= *at + 2 && p[*at] == 0xff && p[*at + 1] == 0x03)
		*at += 2;
	if (n < *at + 1)
		return 0;
	if (p[*at] & 1) {
		proto = p[*at];
		*at += 1;
	} else {
		if (n < *at + 2)
			return 0;
		proto = get16(p + *at);
		*at += 2;
	}
	return proto == 0x21 ? 4 : proto == 0x57 ? 6 : 0;
}

/* Frame Relay: a Q.922 address, UI control, NLPID (RFC 2427). */
static int frelay_ip(const uint8_t *p, uint32_t n, uint32_t *at)
{
	uint32_t i;
	uint16_t type;

	for (i = 0; i < 4 && i < n && !(p[i] & 1); i++)
		;
	i++;
	if (i > 4 || n < i + 2 || p[i] != 0x03)
		return 0;
	i++;
	if (p[i] == 0x00 && n > i + 1)
		i++;		/* padding */
	*at = i + 1;
	switch (p[i]) {
	case 0xcc:
		return 4;
	case 0x8e:
		return 6;
	case 0x80:		/* SNAP: OUI 00 00 00, an Ethernet type */
		if (n < i + 6 || p[i + 1] || p[i + 2] || p[i + 3])
			return 0;
		type = get16(p + i + 4);
		*at = i + 6;
		return type == 0x0800 ? 4 : type == 0x86dd ? 6 : 0;
	}
	return 0;
}

/* 802.11 data frames (radiotap first when @radiotap) with LLC/SNAP. */
static int wlan_ip(const uint8_t *p, uint32_t n, bool radiotap, uint32_t *at)
{
	uint32_t h = 0, hl = 24;
	uint16_t type;

	if (radiotap) {
		if (n < 4)
			return 0;
		h = p[2] | p[3] << 8;
	}
	if (n < h + 24 || ((p[h] >> 2) & 3) != 2 || (p[h + 1] & 0x40))
		return 0;	/* not data, or protected */
	if ((p[h + 1] & 3) == 3)
		hl += 6;	/* four addresses */
	if (p[h] & 0x80) {
		hl += 2;	/* QoS */
		if (p[h + 1] & 0x80)
			hl += 4;	/* HT control */
	}
	if (!snap_type(p, n, h + hl, &type))
		return 0;
	*at = h + hl + 8;
	return type == 0x0800 ? 4 : type == 0x86dd ? 6 : 0;
}

/* NFLOG (239): TLVs in host order behind a 4-byte header; the payload. */
static int nflog_ip(const uint8_t *p, uint32_t n, uint32_t *at)
{
	uint32_t i = 4;

	if (n < 4)
		return 0;
	while (i + 4 <= n) {
		uint16_t tl = p[i] | p[i + 1] << 8, tt = p[i + 2] | p[i + 3] << 8;

		if (tl < 4 || tl > n - i)
			return 0;
		if (tt == 9) {		/* NFULA_PAYLOAD */
			*at = i + 4;
			return p[0] == 2 ? 4 : p[0] == 10 ? 6 : 0;
		}
		i += (tl + 3u) & ~3u;
	}
	return 0;
}

/* The loopback header's address family, in either byte order for NULL. */
static int af_ip(const uint8_t *p, uint32_t n, bool any_order)
{
	uint32_t af[2];
	int i;

	if (n < 4)
		return 0;
	af[0] = get32(p);
	af[1] = (uint32_t)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
	for (i = 0; i < (any_order ? 2 : 1); i++) {
		if (af[i] == 2)
			return 4;
		if (af[i] == 10 || af[i] == 24 || af[i] == 28 || af[i] == 30)
			return 6;
	}
	return 0;
}

/*
 * Whether link type @lt is converted at all (else the capture is skipped
 * with the reason returned); for a record, *fam gets the family the link
 * layer names (0: none, the record is not IP; -1: raw IP, the version
 * nibble says) and *at where the IP packet starts.
 */
static const char *link_ip(uint32_t lt, const uint8_t *p, uint32_t n,
			   int *fam, uint32_t *at)
{
	uint16_t type;

	*at = 0;
	*fam = 0;
	switch (lt) {
	case 1:		/* Ethernet */
		if (n >= 14) {
			*at = 14;
			*fam = ether_ip(p, n, get16(p + 12), at);
		}
		return NULL;
	case 113:	/* Linux cooked */
		if (n >= 16) {
			*at = 16;
			*fam = ether_ip(p, n, get16(p + 14), at);
		}
		return NULL;
	case 276:	/* Linux cooked v2 */
		if (n >= 20) {
			*at = 20;
			*fam = ether_ip(p, n, get16(p), at);
		}
		return NULL;
	case 0:		/* BSD loopback, host order */
	case 108:	/* OpenBSD loopback, network order */
		*at = 4;
		*fam = af_ip(p, n, lt == 0);
		return NULL;
	case 12:
	case 14:
	case 101:	/* raw IP */
		*fam = -1;
		return NULL;
	case 228:
		*fam = 4;
		return NULL;
	case 229:
		*fam = 6;
		return NULL;
	case 8:		/* SLIP: libpcap's 16-byte pseudo-header */
		*at = 16;
		*fam = n > 16 ? -1 : 0;
		return NULL;
	case 9:		/* PPP */
	case 50:	/* PPP in HDLC framing */
		*fam = ppp_ip(p, n, at);
		return NULL;
	case 104:	/* Cisco HDLC */
		if (n >= 4) {
			*at = 4;
			*fam = ether_ip(p, n, get16(p + 2), at);
		}
		return NULL;
	case 107:	/* Frame Relay */
		*fam = frelay_ip(p, n, at);
		return NULL;
	case 11:	/* ATM RFC 1483 */
	case 19:	/* Linux ATM CLIP */
		if (snap_type(p, n, 0, &type)) {
			*at = 8;
			*fam = type == 0x0800 ? 4 : type == 0x86dd ? 6 : 0;
		}
		return NULL;
	case 123:	/* SunATM: 4-byte pseudo-header, then LLC/SNAP */
		if (snap_type(p, n, 4, &type)) {
			*at = 12;
			*fam = type == 0x0800 ? 4 : type == 0x86dd ? 6 : 0;
		}
		return NULL;
	case 105:	/* 802.11 */
	case 127:	/* radiotap + 802.11 */
		*fam = wlan_ip(p, n, lt == 127, at);
		return NULL;
	case 226:	/* Solaris ipnet: 24 bytes, family at 1 */
		if (n > 24) {
			*at = 24;
			*fam = p[1] == 2 ? 4 : p[1] == 26 ? 6 : 0;
		}
		return NULL;
	case 239:	/* NFLOG */
		*fam = nflog_ip(p, n, at);
		return NULL;
	}
	return "no IP payload this converter knows how to find in the link type";
}

/*
 * A copy of the IP packet whose length field and IPv4 header checksum
 * agree with the @n captured bytes: a capture cut at its snap length, or
 * fuzzed, otherwise never passes ip_rcv() and never reaches a hook. Its
 * length, or 0 when no such copy differs from the packet.
 */
static size_t fix_ip(const uint8_t *p, uint32_t n, uint8_t *q)
{
	if (!n || n > PKT_MAX)
		return 0;
	memcpy(q, p, n);
	if (p[0] >> 4 == 4 && n >= 20) {
		uint32_t ihl = (p[0] & 15) * 4;

		if (ihl < 20 || ihl > n)
			return 0;
		if (get16(q + 2) > n || get16(q + 2) < ihl)
			put16(q + 2, n);
		put16(q + 10, 0);
		put16(q + 10, csum_fold(csum_add(0, q, ihl)));
	} else if (p[0] >> 4 == 6 && n >= 40) {
		if (get16(q + 4) + 40u > n)
			put16(q + 4, n - 40);
	} else {
		return 0;
	}
	return memcmp(p, q, n) ? n : 0;
}

static int cmd_pcap(int argc, char **argv)
{
	static uint8_t fixed[PKT_MAX];
	const char *ifname = NULL, *mac = NULL, *path = NULL;
	unsigned long caps = 0, used = 0, skipped = 0, records = 0, notip = 0;
	unsigned long sent0, fixes = 0, refused0, toolong = 0;
	bool fix = false, quiet = false, hdrincl = false;
	struct out o = { 0 };
	int c;

	cmd = "malpkt pcap";
	while ((c = getopt(argc, argv, "i:m:w:fqRh")) != -1) {
		switch (c) {
		case 'R':
			hdrincl = true;
			break;
		case 'i':
			ifname = optarg;
			break;
		case 'm':
			mac = optarg;
			break;
		case 'w':
			path = optarg;
			break;
		case 'f':
			fix = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			usage_err("bad option");
		}
	}
	out_open(&o, ifname, mac, path, hdrincl);
	for (; optind < argc; optind++) {
		unsigned long r = 0, s = 0, f = 0, ni = 0, e = 0, unk = 0;
		const char *why, *unkwhy = NULL;
		uint32_t unklt = 0;
		struct cap cp;
		const uint8_t *p;
		uint32_t lt = 0, n;

		caps++;
		why = cap_open(&cp, argv[optind]);
		if (!why) {
			sent0 = o.sent;
			refused0 = o.refused;
			while (cap_next(&cp, &lt, &p, &n)) {
				uint32_t at;
				int fam;
				size_t fl;

				r++;
				unkwhy = link_ip(lt, p, n, &fam, &at);
				if (unkwhy) {
					/* pcapng: other interfaces may be known */
					unk++;
					unklt = lt;
					ni++;
					continue;
				}
				if (!fam || at >= n) {
					ni++;
					continue;
				}
				p += at;
				n -= at;
				if (fam < 0)
					fam = p[0] >> 4 == 6 ? 6 : 4;
				if (n > LOG_MAX) {
					toolong++;
					e++;
					continue;
				}
				out_send(&o, fam == 6, p, n, 0);
				fl = fix ? fix_ip(p, n, fixed) : 0;
				if (fl) {
					out_send(&o, fam == 6, fixed, fl, 0);
					f++;
				}
			}
			s = o.sent - sent0;
			e += o.refused - refused0;
			if (!why && !r && cp.bad)
				why = cp.bad;
			if (!why && r && unk == r) {
				why = unkwhy;
				lt = unklt;
			}
			if (!why && !r)
				why = "no packet records";
		}
		if (why) {
			char lts[32] = "";

			if (lt)
				snprintf(lts, sizeof(lts), "link type %u: ",
					 (unsigned int)lt);
			printf("capture %s: skipped: %s%s\n", cp.name, lts, why);
			skipped++;
		} else {
			used++;
			records += r;
			notip += ni;
			fixes += f;
			if (!quiet)
				printf("capture %s: link %u records %lu sent %lu fixed %lu not-ip %lu refused %lu%s%s%s\n",
				       cp.name, (unsigned int)lt, r, s, f, ni,
				       e, cp.bad ? " (read up to: " : "",
				       cp.bad ? cp.bad : "", cp.bad ? ")" : "");
		}
		free(cp.d);
	}
	printf("pcap: captures %lu used %lu skipped %lu records %lu sent %lu fixed %lu not-ip %lu refused %lu too-long %lu\n",
	       caps, used, skipped, records, o.sent, fixes, notip, o.refused,
	       toolong);
	out_close(&o);
	return 0;
}

/* ---- packets built here ---- */

struct pkt {
	uint8_t b[PKT_MAX];
	size_t len;
	bool v6;
};


/* Some payload bytes that differ with @seed and position. */
static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345;
		p[i] = (uint8_t)(x >> 16);
	}
}

/* The pseudo-header sum of TCP, UDP, UDP-Lite and ICMPv6. */
static uint32_t pseudo(const struct pkt *k, uint8_t proto, uint32_t l4len)
{
	const uint8_t *ip = k->b;

	if (k->v6)
		return csum_add(0, ip + 8, 32) + proto + l4len;
	return csum_add(0, ip + 12, 8) + proto + l4len;
}

/* The IP header of @k; its length. @dst: one of the addresses above. */
static size_t ip_hdr(struct pkt *k, bool v6, const uint8_t *dst, uint8_t nh,
		     uint8_t ttl)
{
	k->v6 = v6;
	if (v6) {
		memset(k->b, 0, 40);
		put32(k->b, 6u << 28 | 0x12345);
		k->b[6] = nh;
		k->b[7] = ttl;
		memcpy(k->b + 8, src6, 16);
		memcpy(k->b + 24, dst, 16);
		return 40;
	}
	memset(k->b, 0, 20);
	k->b[0] = 0x45;
	put16(k->b + 4, 0x100);
	put16(k->b + 6, 0x4000);	/* DF */
	k->b[8] = ttl;
	k->b[9] = nh;
	memcpy(k->b + 12, src4, 4);
	memcpy(k->b + 16, dst, 4);
	return 20;
}

/* Set the IP length field to cover @len bytes and the IPv4 checksum. */
static void ip_finish(struct pkt *k, size_t len)
{
	k->len = len;
	if (k->v6) {
		put16(k->b + 4, len - 40);
		return;
	}
	put16(k->b + 2, len);
	put16(k->b + 10, 0);
	put16(k->b + 10, csum_fold(csum_add(0, k->b, (k->b[0] & 15) * 4)));
}

static void ip4_csum(struct pkt *k)
{
	uint32_t ihl = (k->b[0] & 15) * 4;

	put16(k->b + 10, 0);
	if (ihl <= k->len)
		put16(k->b + 10, csum_fold(csum_add(0, k->b, ihl)));
}

/*
 * An L4 header of @proto at @off with @pay payload bytes (@seed), the
 * checksum right; the end. TCP gets 12 bytes of options (NOPs and a
 * timestamp), so its data offset can lie.
 */
static size_t l4(struct pkt *k, size_t off, uint8_t proto, uint16_t sport,
		 uint32_t seq, size_t pay, uint32_t seed)
{
	uint8_t *h = k->b + off;
	size_t hl = 8, cs = 6;
	bool ps = true;

	switch (proto) {
	case P_TCP:
		hl = 32;
		memset(h, 0, hl);
		put16(h, sport);
		put16(h + 2, 80);
		put32(h + 4, seq);
		put32(h + 8, 7);
		h[12] = 8 << 4;
		h[13] = 0x18;			/* ACK PSH */
		put16(h + 14, 4096);
		h[20] = 1;
		h[21] = 1;
		h[22] = 8;			/* timestamp */
		h[23] = 10;
		put32(h + 24, seed);
		cs = 16;
		break;
	case P_UDP:
	case P_UDPLITE:
		memset(h, 0, hl);
		put16(h, sport);
		put16(h + 2, 53);
		/* UDP-Lite: coverage 0 is the whole datagram */
		put16(h + 4, proto == P_UDP ? hl + pay : 0);
		break;
	case P_SCTP:			/* common header, a DATA chunk */
		hl = 28;
		memset(h, 0, hl);
		put16(h, sport);
		put16(h + 2, 9);
		put32(h + 4, seed);
		h[12] = 0;
		put16(h + 14, 16 + pay);
		put32(h + 16, seq);
		ps = false;
		cs = 0;		/* CRC32c: nobody checks it before the hooks */
		break;
	case P_ICMP:
	case P_ICMPV6:
		memset(h, 0, hl);
		h[0] = proto == P_ICMP ? 8 : 128;	/* echo request */
		put16(h + 4, sport);
		put16(h + 6, seq);
		ps = proto == P_ICMPV6;
		cs = 2;
		break;
	default:
		hl = 0;
		break;
	}
	fill(h + hl, pay, seed);
	if (cs) {
		uint32_t sum = ps ? pseudo(k, proto, hl + pay) : 0;
		uint16_t v;

		put16(h + cs, 0);
		v = csum_fold(csum_add(sum, h, hl + pay));
		if (!v && proto == P_UDP)
			v = 0xffff;
		put16(h + cs, v);
	}
	return off + hl + pay;
}

/*
 * An IPv6 extension header of @type at @off with next header @nh; its
 * length. Options are PadN of at most 5 bytes (ip6_parse_tlv() takes no
 * longer padding), longer ones an unknown skippable option.
 */
static size_t ext6(struct pkt *k, size_t off, uint8_t type, uint8_t nh,
		   uint32_t n)
{
	uint8_t *h = k->b + off;
	size_t len = 8;

	memset(h, 0, 8);
	h[0] = nh;
	switch (type) {
	case P_HOPOPTS:
	case P_DSTOPTS:
		if (type == P_DSTOPTS && n % 3 == 2) {
			len = 24;	/* an unknown option of 20 bytes */
			memset(h, 0, len);
			h[0] = nh;
			h[1] = 2;
			h[2] = 0x1e;
			h[3] = 20;
		} else {
			h[2] = 1;	/* PadN, 4 bytes */
			h[3] = 4;
		}
		break;
	case P_ROUTING:			/* type 253, nothing left to visit */
		len = 24;
		memset(h, 0, len);
		h[0] = nh;
		h[1] = 2;
		h[2] = 253;
		break;
	case P_FRAGMENT:		/* an atomic fragment */
		put32(h + 4, 0xa000 + n);
		break;
	case P_AH:			/* 12 bytes of ICV: (6 - 2) words */
		len = 24;
		memset(h, 0, len);
		h[0] = nh;
		h[1] = 4;
		put32(h + 4, 0x100 + n);
		put32(h + 8, n);
		break;
	}
	return off + len;
}

struct gen {
	struct out *o;
	unsigned long n, copies, base;
	unsigned long pkts;		/* what was emitted */
};

static void emit(struct gen *g, const struct pkt *k)
{
	for (unsigned long c = 0; c < g->copies; c++)
		out_send(g->o, k->v6, k->b, k->len, 0);
	g->pkts += g->copies;
}

/* A whole packet: IP, optional IPv4 options or IPv6 chain, L4. */
struct spec {
	bool v6;
	uint8_t proto;
	uint8_t chain[4];		/* IPv6 headers, or AH in IPv4 */
	unsigned int nchain;
	unsigned int ihl;		/* IPv4: 5 or more (options) */
	size_t pay;
};

static size_t build(struct pkt *k, const struct spec *s, uint32_t id,
		    const uint8_t *dst)
{
	uint8_t first = s->nchain ? s->chain[0] : s->proto;
	size_t off = ip_hdr(k, s->v6, dst, first, 64);
	unsigned int i;

	if (!s->v6 && s->ihl > 5) {
		k->b[0] = 0x40 | s->ihl;
		memset(k->b + 20, 1, (s->ihl - 5) * 4 - 1);	/* NOPs */
		k->b[s->ihl * 4 - 1] = 0;			/* EOL */
		off = s->ihl * 4;
	}
	if (!s->v6)
		put16(k->b + 4, 0x100 + (id & 0xfff));
	for (i = 0; i < s->nchain; i++)
		off = ext6(k, off, s->chain[i],
			   i + 1 < s->nchain ? s->chain[i + 1] : s->proto, i);
	off = l4(k, off, s->proto, 1000 + (id & 0x7fff), id * 1000, s->pay,
		 id);
	ip_finish(k, off);
	return off;
}

static const struct spec trunc_specs[] = {
	{ .proto = P_TCP, .pay = 40 },
	{ .proto = P_UDP, .pay = 30 },
	{ .proto = P_ICMP, .pay = 20 },
	{ .proto = P_SCTP, .pay = 16 },
	{ .proto = P_UDPLITE, .pay = 12 },
	{ .proto = P_GRE, .pay = 24 },
	{ .proto = P_TCP, .chain = { P_AH }, .nchain = 1, .pay = 8 },
	{ .proto = P_UDP, .ihl = 9, .pay = 10 },
	{ .v6 = true, .proto = P_TCP, .pay = 40 },
	{ .v6 = true, .proto = P_UDP, .pay = 30 },
	{ .v6 = true, .proto = P_ICMPV6, .pay = 20 },
	{ .v6 = true, .proto = P_SCTP, .pay = 16 },
	{ .v6 = true, .proto = P_UDPLITE, .pay = 12 },
	{ .v6 = true, .proto = P_UDP, .chain = { P_HOPOPTS }, .nchain = 1,
	  .pay = 6 },
	{ .v6 = true, .proto = P_TCP, .chain = { P_DSTOPTS, P_ROUTING },
	  .nchain = 2, .pay = 6 },
	{ .v6 = true, .proto = P_UDP, .chain = { P_AH }, .nchain = 1,
	  .pay = 4 },
	{ .v6 = true, .proto = P_UDP, .chain = { P_FRAGMENT }, .nchain = 1,
	  .pay = 4 },
	{ .v6 = true, .proto = P_NONE, .pay = 9 },
};

/*
 * Truncated and inconsistent headers, for every spec above: the IP
 * header cut at every length (and a little beyond); the length field
 * made to end the packet at every byte of the L4 header, so it arrives
 * cut there; every IHL; lying total and payload lengths; every TCP data
 * offset; lying UDP lengths. Most of the first kind never pass ip_rcv();
 * the rest reach the hooks with their L4 headers cut or wrong.
 */
static void gen_trunc(struct gen *g)
{
	static struct pkt k, w;
	static const uint32_t lies4[] = { 0, 1, 19, 20, 21, 27, 28, 65535 };
	static const uint32_t lies6[] = { 0, 1, 7, 8, 65535 };
	uint32_t id = g->base;

	for (unsigned long rep = 0; rep < g->n; rep++) {
		for (size_t i = 0; i < sizeof(trunc_specs) / sizeof(trunc_specs[0]); i++) {
			const struct spec *s = &trunc_specs[i];
			const uint8_t *dst = s->v6 ? (i % 2 ? dst6_in : dst6_fw) :
					     (i % 2 ? dst4_in : dst4_fw);
			size_t full = build(&k, s, id++, dst);
			size_t hl = s->v6 ? 40 : (k.b[0] & 15) * 4;

			emit(g, &k);
			/* the header and a little more, cut, fields as they were */
			for (size_t l = 0; l < hl + 8 && l < full; l++) {
				w = k;
				w.len = l;
				emit(g, &w);
			}
			/* the length field ends the packet at every byte */
			for (size_t l = hl; l < full; l++) {
				w = k;
				ip_finish(&w, l);
				emit(g, &w);
			}
			if (!s->v6) {
				for (unsigned int ihl = 0; ihl < 16; ihl++) {
					w = k;
					w.b[0] = 0x40 | ihl;
					ip4_csum(&w);
					emit(g, &w);
				}
				for (size_t j = 0; j < sizeof(lies4) / sizeof(lies4[0]); j++) {
					w = k;
					put16(w.b + 2, lies4[j]);
					ip4_csum(&w);
					emit(g, &w);
				}
				/* a version nibble that is not 4 */
				w = k;
				w.b[0] = 0x65;
				emit(g, &w);
			} else {
				for (size_t j = 0; j < sizeof(lies6) / sizeof(lies6[0]); j++) {
					w = k;
					put16(w.b + 4, lies6[j]);
					emit(g, &w);
				}
				/* payload length 0 and trailing bytes */
				w = k;
				put16(w.b + 4, 0);
				emit(g, &w);
				w = k;
				w.b[0] = 0x45;
				emit(g, &w);
			}
			if (s->proto == P_TCP && !s->nchain) {
				for (unsigned int d = 0; d < 16; d++) {
					w = k;
					w.b[hl + 12] = d << 4;
					emit(g, &w);
				}
			}
			if (s->proto == P_UDP && !s->nchain) {
				static const uint32_t ul[] = { 0, 1, 7, 8, 9, 65535 };

				for (size_t j = 0; j < sizeof(ul) / sizeof(ul[0]); j++) {
					w = k;
					put16(w.b + hl + 4, ul[j]);
					emit(g, &w);
				}
			}
		}
	}
	printf("trunc: %lu packets (%zu kinds of packet, %lu rounds, %lu copies)\n",
	       g->pkts, sizeof(trunc_specs) / sizeof(trunc_specs[0]), g->n,
	       g->copies);
}

/*
 * IPv6 extension-header chains of 0 to n headers (hop-by-hop first, then
 * destination options, routing, AH and atomic fragment headers in turn),
 * ending in UDP, TCP or nothing known, each chain with its own ports. The
 * key walks at most DDF_KEY_MAX_EXTHDRS (16) headers: a chain of up to 16
 * reaches its L4 header, a longer one stops at the limit and has neither
 * protocol nor ports. Also each chain cut inside its last header.
 */
static void gen_ext(struct gen *g)
{
	static const uint8_t cycle[] = { P_DSTOPTS, P_ROUTING, P_AH, P_FRAGMENT };
	static const uint8_t ends[] = { P_UDP, P_TCP, P_GRE };
	static struct pkt k, w;
	unsigned long udp_in = 0, udp_over = 0, cut = 0;
	uint32_t id = g->base;

	for (unsigned long n = 0; n <= g->n; n++) {
		for (size_t e = 0; e < sizeof(ends); e++) {
			uint8_t types[1024];
			size_t off, last = 40;
			unsigned int i, nt = n < sizeof(types) ? n : sizeof(types);

			for (i = 0; i < nt; i++)
				types[i] = i == 0 && n % 2 ? P_HOPOPTS :
					   cycle[(i + e) % sizeof(cycle)];
			off = ip_hdr(&k, true, id % 2 ? dst6_in : dst6_fw,
				     nt ? types[0] : ends[e], 64);
			for (i = 0; i < nt && off + 64 < PKT_MAX; i++) {
				last = off;
				off = ext6(&k, off, types[i],
					   i + 1 < nt ? types[i + 1] : ends[e], id + i);
			}
			if (i < nt)
				break;	/* longer than a packet */
			off = l4(&k, off, ends[e], 2000 + (id & 0x7fff), id, 16, id);
			ip_finish(&k, off);
			emit(g, &k);
			if (ends[e] == P_UDP) {
				if (n <= 16)
					udp_in += g->copies;
				else
					udp_over += g->copies;
			}
			if (nt) {
				/* the packet ends inside its last header */
				w = k;
				ip_finish(&w, last + 4);
				emit(g, &w);
				cut += g->copies;
			}
			id++;
		}
	}
	printf("ext: %lu packets, chains of 0..%lu headers; ending in UDP: %lu within 16 headers, %lu beyond; %lu cut in their last header\n",
	       g->pkts, g->n, udp_in, udp_over, cut);
}

/* One fragment of datagram @d (bytes behind the IP header) at @off. */
static void frag(struct gen *g, const struct pkt *d, size_t dhl, bool v6,
		 uint32_t id, size_t off, size_t len, bool more, uint8_t proto,
		 unsigned long *distinct)
{
	static struct pkt k;
	size_t hl = ip_hdr(&k, v6, d->b + (v6 ? 24 : 16), proto, 64);

	if (v6) {
		k.b[6] = P_FRAGMENT;
		k.b[40] = proto;
		put16(k.b + 42, (uint32_t)(off & ~7u) | more);
		put32(k.b + 44, id);
		hl += 8;
	} else {
		put16(k.b + 4, id);
		put16(k.b + 6, (more ? 0x2000 : 0) | (uint32_t)(off / 8));
	}
	if (off < d->len - dhl)
		memcpy(k.b + hl, d->b + dhl + off,
		       len < d->len - dhl - off ? len : d->len - dhl - off);
	else
		fill(k.b + hl, len, id + off);
	ip_finish(&k, hl + len);
	emit(g, &k);
	(*distinct)++;
}

/*
 * Fragments: datagrams cut in order, overlapping, in 8-byte pieces (the
 * first without a whole L4 header), a first fragment with no L4 byte at
 * all (IPv6: one whose L4 header follows a destination options header in
 * the next fragment), offsets past 64 KiB, a not-last fragment whose
 * length is no multiple of 8. Each distinct, sent -c times.
 */
static void gen_frag(struct gen *g)
{
	static struct pkt d;
	unsigned long distinct = 0;
	uint32_t id = 0x3000 + g->base;

	for (unsigned long rep = 0; rep < g->n; rep++) {
		for (int v6 = 0; v6 < 2; v6++) {
			for (int pr = 0; pr < 3; pr++) {
				static const uint8_t protos[] = { P_UDP, P_TCP, P_ICMP };
				struct spec s = { .v6 = v6, .pay = 200 };
				uint8_t proto = protos[pr];
				const uint8_t *dst;
				size_t dhl, dl;

				if (proto == P_ICMP && v6)
					proto = P_ICMPV6;
				s.proto = proto;
				dst = id % 2 ? (v6 ? dst6_in : dst4_in) :
					       (v6 ? dst6_fw : dst4_fw);
				build(&d, &s, id, dst);
				dhl = v6 ? 40 : 20;
				dl = d.len - dhl;
				/* in order: 64 + 64 + the rest */
				frag(g, &d, dhl, v6, id, 0, 64, true, proto, &distinct);
				frag(g, &d, dhl, v6, id, 64, 64, true, proto, &distinct);
				frag(g, &d, dhl, v6, id, 128, dl - 128, false, proto, &distinct);
				id++;
				/* overlapping */
				frag(g, &d, dhl, v6, id, 0, 64, true, proto, &distinct);
				frag(g, &d, dhl, v6, id, 32, 64, true, proto, &distinct);
				frag(g, &d, dhl, v6, id, 48, dl - 48, false, proto, &distinct);
				id++;
				/* tiny: 8 bytes each, the L4 header in pieces */
				for (size_t o = 0; o < 48; o += 8)
					frag(g, &d, dhl, v6, id, o, 8, true, proto, &distinct);
				frag(g, &d, dhl, v6, id, 48, dl - 48, false, proto, &distinct);
				id++;
				/* a first fragment with no byte behind the IP headers */
				frag(g, &d, dhl, v6, id, 0, 0, true, proto, &distinct);
				frag(g, &d, dhl, v6, id, 0, 16, true, proto, &distinct);
				id++;
				/* past 64 KiB, and a ragged middle fragment */
				frag(g, &d, dhl, v6, id, 65528, 64, false, proto, &distinct);
				frag(g, &d, dhl, v6, id, 8, 13, true, proto, &distinct);
				id++;
			}
			if (v6) {
				/* the UDP header behind a destination options header
				 * in the second fragment */
				static struct pkt k;
				size_t hl = ip_hdr(&k, true, dst6_in, P_FRAGMENT, 64);

				k.b[hl] = P_DSTOPTS;
				put16(k.b + hl + 2, 1);
				put32(k.b + hl + 4, id);
				hl += 8;
				hl = ext6(&k, hl, P_DSTOPTS, P_UDP, 0);
				ip_finish(&k, hl);
				emit(g, &k);
				distinct++;
				hl = ip_hdr(&k, true, dst6_in, P_FRAGMENT, 64);
				k.b[hl] = P_DSTOPTS;
				put16(k.b + hl + 2, 8);
				put32(k.b + hl + 4, id);
				hl = l4(&k, hl + 8, P_UDP, 7, 1, 16, id);
				ip_finish(&k, hl);
				emit(g, &k);
				distinct++;
				id++;
			}
		}
	}
	printf("frag: %lu packets, %lu distinct fragments, %lu copies each\n",
	       g->pkts, distinct, g->copies);
}

/*
 * Pairs of one datagram: a paged packet (6000 to 9000 bytes, the skb's
 * linear part cut at a chosen byte of the frame) and a linear one that
 * carries only its first 3000 payload bytes, same addresses and ports.
 * A key on the ports and payload 0:64, 0:2000 or 1000:3000 finds the
 * second a duplicate of the first whatever the cut, if the key reads the
 * paged bytes right. Half the pairs send the linear one first.
 */
static void gen_big(struct gen *g)
{
	static const unsigned int cuts[] = {
		14, 15, 20, 33, 34, 35, 41, 42, 43, 53, 54, 55, 61, 62, 63, 64,
		65, 66, 100, 1000, 1041, 1042, 1043, 1054, 1055, 2041, 2042,
		2043, 2054, 3041, 3042, 3054, 3055, 4000,
	};
	static struct pkt p, l;
	unsigned long pairs = 0, tcp = 0, udp = 0;
	uint32_t id = 0x5000 + g->base;

	for (unsigned long rep = 0; rep < g->n; rep++) {
		for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			for (int v = 0; v < 4; v++) {
				bool v6 = v & 1, is_tcp = v & 2;
				struct spec s = { .v6 = v6,
					.proto = is_tcp ? P_TCP : P_UDP,
					.pay = 6000 + (c * 97) % 3000 };
				const uint8_t *dst = v6 ? dst6_in : dst4_in;
				unsigned int cut = cuts[c] + (v6 ? 20 : 0);

				build(&p, &s, id, dst);
				s.pay = 3000;
				build(&l, &s, id, dst);
				if ((c + rep) % 2) {
					out_send(g->o, v6, l.b, l.len, 0);
					out_send(g->o, v6, p.b, p.len, cut);
				} else {
					out_send(g->o, v6, p.b, p.len, cut);
					out_send(g->o, v6, l.b, l.len, 0);
				}
				g->pkts += 2;
				pairs++;
				if (is_tcp)
					tcp++;
				else
					udp++;
				id++;
			}
		}
	}
	printf("big: %lu packets, %lu pairs (%lu TCP, %lu UDP), %zu cuts\n",
	       g->pkts, pairs, tcp, udp, sizeof(cuts) / sizeof(cuts[0]));
}

/*
 * TCP trains for GRO: 4 segments of 1400 bytes (ACK, the last ACK PSH,
 * IP IDs counting up), then a lone linear packet with the train's first
 * seq and its first 2000 payload bytes (ACK PSH). A receiver that merges
 * the train holds its payload in a frag_list; the lone packet's key on
 * seq and payload 0:2000 must equal the merged packet's.
 */
static void gen_gro(struct gen *g)
{
	static uint8_t data[4 * 1400];
	static struct pkt k;
	unsigned long trains = 0, segs = 0;
	uint32_t id = 0x7000 + g->base;

	for (unsigned long rep = 0; rep < g->n; rep++) {
		for (int v6 = 0; v6 < 2; v6++) {
			uint32_t seq = 100000 * (id & 0xff);
			uint16_t sport = 3000 + (id & 0xfff);

			fill(data, sizeof(data), id);
			for (int s = 0; s <= 4; s++) {
				size_t off, pay = s < 4 ? 1400 : 2000;
				uint8_t *h;
				uint32_t sum;
				uint16_t v;

				off = ip_hdr(&k, v6, v6 ? dst6_in : dst4_in,
					     P_TCP, 64);
				if (!v6)
					put16(k.b + 4, 0x200 + s);
				h = k.b + off;
				off = l4(&k, off, P_TCP, sport,
					 seq + (s < 4 ? s * 1400 : 0), 0, 0);
				memcpy(k.b + off, data + (s < 4 ? s * 1400 : 0), pay);
				h[13] = s == 3 || s == 4 ? 0x18 : 0x10;
				put32(h + 24, id);	/* the same timestamp */
				put16(h + 16, 0);
				sum = pseudo(&k, P_TCP, 32 + pay);
				v = csum_fold(csum_add(sum, h, 32 + pay));
				put16(h + 16, v);
				ip_finish(&k, off + pay);
				out_send(g->o, v6, k.b, k.len, 0);
				g->pkts++;
				segs += s < 4;
			}
			trains++;
			id++;
		}
	}
	printf("gro: %lu packets, %lu trains of 4 segments (%lu), each followed by its lone packet\n",
	       g->pkts, trains, segs);
}

static int cmd_gen(int argc, char **argv)
{
	const char *ifname = NULL, *mac = NULL, *path = NULL, *kind;
	struct out o = { 0 };
	struct gen g = { .o = &o, .n = 0, .copies = 1 };
	bool hdrincl = false;
	int c;

	cmd = "malpkt gen";
	if (argc < 2)
		usage_err("wants a kind: trunc ext frag big gro");
	kind = argv[1];
	argc--;
	argv++;
	while ((c = getopt(argc, argv, "i:m:w:n:c:s:Rh")) != -1) {
		switch (c) {
		case 'R':
			hdrincl = true;
			break;
		case 'i':
			ifname = optarg;
			break;
		case 'm':
			mac = optarg;
			break;
		case 'w':
			path = optarg;
			break;
		case 'n':
			g.n = parse_num(c, optarg, 0, 8000);
			break;
		case 'c':
			g.copies = parse_num(c, optarg, 1, 100);
			break;
		case 's':
			g.base = parse_num(c, optarg, 0, 0x7fffffff);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			usage_err("bad option");
		}
	}
	out_open(&o, ifname, mac, path, hdrincl);
	if (!strcmp(kind, "trunc")) {
		g.n = g.n ? g.n : 1;
		gen_trunc(&g);
	} else if (!strcmp(kind, "ext")) {
		g.n = g.n ? g.n : 40;
		gen_ext(&g);
	} else if (!strcmp(kind, "frag")) {
		g.n = g.n ? g.n : 1;
		gen_frag(&g);
	} else if (!strcmp(kind, "big")) {
		g.n = g.n ? g.n : 1;
		gen_big(&g);
	} else if (!strcmp(kind, "gro")) {
		g.n = g.n ? g.n : 1;
		gen_gro(&g);
	} else {
		usage_err("no kind '%s': trunc ext frag big gro", kind);
	}
	printf("sent %lu refused %lu\n", o.sent, o.refused);
	out_close(&o);
	return 0;
}

/* ---- nflog: what a hook saw ---- */

static volatile sig_atomic_t log_stop;

static void log_term(int sig)
{
	log_stop = 1;
}

struct logstate {
	FILE *f;
	unsigned long packets, bytes, lost, cut;
	uint32_t next_seq;
	bool have_seq;
};

static int log_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, NFULA_MAX) >= 0)
		tb[type] = a;
	return MNL_CB_OK;
}

static int log_msg(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NFULA_MAX + 1] = { 0 };
	const struct nfgenmsg *nfg = mnl_nlmsg_get_payload(nlh);
	uint8_t sll[16] = { 0, 0, 0, 1 };	/* to us, ARPHRD_ETHER */
	struct logstate *s = data;
	const uint8_t *p;
	uint32_t len;

	mnl_attr_parse(nlh, sizeof(struct nfgenmsg), log_attr, tb);
	if (!tb[NFULA_PAYLOAD])
		return MNL_CB_OK;
	if (tb[NFULA_SEQ]) {
		uint32_t seq = ntohl(mnl_attr_get_u32(tb[NFULA_SEQ]));

		if (s->have_seq && seq != s->next_seq)
			s->lost += seq - s->next_seq;
		s->next_seq = seq + 1;
		s->have_seq = true;
	}
	p = mnl_attr_get_payload(tb[NFULA_PAYLOAD]);
	len = mnl_attr_get_payload_len(tb[NFULA_PAYLOAD]);
	/* nflog copies no more: a packet this long may have been longer */
	if (len >= LOG_MAX)
		s->cut++;
	/*
	 * A Linux cooked header names the hook's family, as the version a
	 * packet must have there: ddfctl replay counts a packet of the other
	 * version unparsed, as the rules do.
	 */
	put16(sll + 14, nfg->nfgen_family == AF_INET6 ? ETH_P_IPV6 : ETH_P_IP);
	pcap_record2(s->f, ++s->packets, sll, sizeof(sll), p, len);
	s->bytes += len;
	return MNL_CB_OK;
}

static void log_config(struct mnl_socket *nl, uint16_t group, uint16_t type,
		       const void *payload, size_t plen)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_CONFIG;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = time(NULL);
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_UNSPEC;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(group);
	mnl_attr_put(nlh, type, plen, payload);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		sys_err("nflog configuration");
	if (mnl_socket_recvfrom(nl, buf, sizeof(buf)) < 0 ||
	    mnl_cb_run(buf, sizeof(buf), nlh->nlmsg_seq,
		       mnl_socket_get_portid(nl), NULL, NULL) < 0)
		sys_err("nflog configuration of group %u (attribute %u)",
			group, type);
}

static int cmd_log(int argc, char **argv)
{
	static char buf[1 << 20];
	const char *path = NULL, *ready = NULL;
	unsigned long group = ~0ul, idle = 0;
	struct logstate s = { 0 };
	struct nfulnl_msg_config_cmd bind = { NFULNL_CFG_CMD_BIND };
	struct nfulnl_msg_config_mode mode = {
		.copy_range = htonl(0xffff), .copy_mode = NFULNL_COPY_PACKET,
	};
	uint16_t flags = htons(NFULNL_CFG_F_SEQ);
	uint32_t qthresh = htonl(32), timeout = htonl(1);
	int c, fd, rcvbuf = 64 << 20;
	struct mnl_socket *nl;
	struct pollfd pfd;
	FILE *rf;

	cmd = "malpkt log";
	while ((c = getopt(argc, argv, "g:w:t:r:h")) != -1) {
		switch (c) {
		case 'g':
			group = parse_num(c, optarg, 0, 65535);
			break;
		case 'w':
			path = optarg;
			break;
		case 't':
			idle = parse_num(c, optarg, 1, 3600000);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			usage_err("bad option");
		}
	}
	if (group == ~0ul || !path)
		usage_err("-g GROUP -w OUT are required");
	signal(SIGTERM, log_term);
	s.f = fopen(path, "wb");
	if (!s.f)
		sys_err("'%s'", path);
	pcap_header(s.f, 113);		/* Linux cooked */
	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		sys_err("a netfilter netlink socket");
	fd = mnl_socket_get_fd(nl);
	/* a burst must not overflow the socket: a lost packet is a gap */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	log_config(nl, group, NFULA_CFG_CMD, &bind, sizeof(bind));
	log_config(nl, group, NFULA_CFG_MODE, &mode, sizeof(mode));
	log_config(nl, group, NFULA_CFG_FLAGS, &flags, sizeof(flags));
	log_config(nl, group, NFULA_CFG_QTHRESH, &qthresh, sizeof(qthresh));
	log_config(nl, group, NFULA_CFG_TIMEOUT, &timeout, sizeof(timeout));
	if (ready) {
		rf = fopen(ready, "w");
		if (!rf || fputs("listening\n", rf) < 0 || fclose(rf))
			sys_err("the ready file '%s'", ready);
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		/* after SIGTERM: what nflog still holds comes within 10 ms */
		int r = poll(&pfd, 1, log_stop ? 300 : idle ? (int)idle : -1);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			sys_err("poll");
		if (!r && (log_stop || idle))
			break;
		if (!r)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == ENOBUFS) {
			s.lost++;	/* at least one; the seq gap says more */
			continue;
		}
		if (n < 0)
			sys_err("receiving from nflog");
		mnl_cb_run(buf, n, 0, 0, log_msg, &s);
	}
	if (fclose(s.f))
		sys_err("writing '%s'", path);
	printf("log: group %lu packets %lu bytes %lu lost %lu cut %lu\n",
	       group, s.packets, s.bytes, s.lost, s.cut);
	mnl_socket_close(nl);
	return 0;
}

/* ---- features, TCP ---- */

static int cmd_feature(int argc, char **argv)
{
	static const struct {
		const char *name;
		uint32_t get, set;
	} feats[] = {
		{ "gro", ETHTOOL_GGRO, ETHTOOL_SGRO },
		{ "tso", ETHTOOL_GTSO, ETHTOOL_STSO },
		{ "gso", ETHTOOL_GGSO, ETHTOOL_SGSO },
		{ "sg", ETHTOOL_GSG, ETHTOOL_SSG },
	};
	struct ethtool_value ev;
	struct ifreq ifr = { 0 };
	size_t i;
	int fd;
	bool on;

	cmd = "malpkt feature";
	if (argc != 4 || (strcmp(argv[3], "on") && strcmp(argv[3], "off")))
		usage_err("wants IFACE gro|tso|gso|sg on|off");
	for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++)
		if (!strcmp(argv[2], feats[i].name))
			break;
	if (i == sizeof(feats) / sizeof(feats[0]))
		usage_err("knows no feature '%s'", argv[2]);
	on = !strcmp(argv[3], "on");
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		sys_err("a socket");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
	ifr.ifr_data = (void *)&ev;
	ev.cmd = feats[i].set;
	ev.data = on;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		sys_err("setting %s %s on %s", argv[2], argv[3], argv[1]);
	ev.cmd = feats[i].get;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		sys_err("reading %s of %s", argv[2], argv[1]);
	close(fd);
	if (!ev.data != !on) {
		errno = EOPNOTSUPP;
		sys_err("%s of %s stays %s", argv[2], argv[1],
			ev.data ? "on" : "off");
	}
	printf("%s %s %s\n", argv[1], argv[2], argv[3]);
	return 0;
}

static int cmd_sink(int argc, char **argv)
{
	static char buf[1 << 16];
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} a = { 0 };
	unsigned long port = 0, idle = 0, total = 0;
	const char *ready = NULL;
	int c, fd, cfd, fam = AF_INET, one = 1;
	struct pollfd pfd;
	FILE *rf;

	cmd = "malpkt sink";
	while ((c = getopt(argc, argv, "6p:t:r:h")) != -1) {
		switch (c) {
		case '6':
			fam = AF_INET6;
			break;
		case 'p':
			port = parse_num(c, optarg, 1, 65535);
			break;
		case 't':
			idle = parse_num(c, optarg, 1, 3600000);
			break;
		case 'r':
			ready = optarg;
			break;
		default:
			usage_err("bad option");
		}
	}
	if (!port || !idle)
		usage_err("-p PORT -t IDLE_MS are required");
	fd = socket(fam, SOCK_STREAM, 0);
	if (fd < 0)
		sys_err("a TCP socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fam == AF_INET6) {
		a.in6.sin6_family = AF_INET6;
		a.in6.sin6_port = htons(port);
		a.in6.sin6_addr = in6addr_any;
	} else {
		a.in.sin_family = AF_INET;
		a.in.sin_port = htons(port);
	}
	if (bind(fd, &a.sa, fam == AF_INET6 ? sizeof(a.in6) : sizeof(a.in)) ||
	    listen(fd, 1))
		sys_err("listening on port %lu", port);
	if (ready) {
		rf = fopen(ready, "w");
		if (!rf || fputs("listening\n", rf) < 0 || fclose(rf))
			sys_err("the ready file '%s'", ready);
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, idle) != 1)
		sys_err("no connection within %lu ms", idle);
	cfd = accept(fd, NULL, NULL);
	if (cfd < 0)
		sys_err("accept");
	pfd.fd = cfd;
	for (;;) {
		ssize_t n;
		int r = poll(&pfd, 1, idle);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n = read(cfd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	printf("sink: received %lu bytes\n", total);
	close(cfd);
	close(fd);
	return 0;
}

static int cmd_bulk(int argc, char **argv)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} a = { 0 };
	unsigned long port = 0, bytes = 0, skew = 1, left;
	const char *addr = NULL;
	static uint8_t chunk[1 << 16];
	off_t off;
	int c, fd, mfd;
	socklen_t alen;

	cmd = "malpkt bulk";
	while ((c = getopt(argc, argv, "d:p:n:o:h")) != -1) {
		switch (c) {
		case 'd':
			addr = optarg;
			break;
		case 'p':
			port = parse_num(c, optarg, 1, 65535);
			break;
		case 'n':
			bytes = parse_num(c, optarg, 1, 1ul << 32);
			break;
		case 'o':
			skew = parse_num(c, optarg, 0, 4095);
			break;
		default:
			usage_err("bad option");
		}
	}
	if (!addr || !port || !bytes)
		usage_err("-d ADDR -p PORT -n BYTES are required");
	if (inet_pton(AF_INET, addr, &a.in.sin_addr) == 1) {
		a.in.sin_family = AF_INET;
		a.in.sin_port = htons(port);
		alen = sizeof(a.in);
	} else if (inet_pton(AF_INET6, addr, &a.in6.sin6_addr) == 1) {
		a.in6.sin6_family = AF_INET6;
		a.in6.sin6_port = htons(port);
		alen = sizeof(a.in6);
	} else {
		usage_err("-d wants an address, not '%s'", addr);
	}
	/* page-cache pages: sendfile hands them to TCP as fragments */
	mfd = memfd_create("malpkt", 0);
	if (mfd < 0)
		sys_err("memfd_create");
	for (left = bytes + skew; left;) {
		size_t n = left < sizeof(chunk) ? left : sizeof(chunk);

		fill(chunk, n, (uint32_t)left);
		if (write(mfd, chunk, n) != (ssize_t)n)
			sys_err("filling the memfd");
		left -= n;
	}
	fd = socket(a.sa.sa_family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, &a.sa, alen))
		sys_err("connecting to %s port %lu", addr, port);
	off = skew;
	for (left = bytes; left;) {
		ssize_t n = sendfile(fd, mfd, &off, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			sys_err("sendfile");
		left -= n;
	}
	close(fd);
	close(mfd);
	printf("bulk: sent %lu bytes from page offset %lu\n", bytes, skew);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "pcap"))
		return cmd_pcap(argc - 1, argv + 1);
	if (!strcmp(argv[1], "gen"))
		return cmd_gen(argc - 1, argv + 1);
	if (!strcmp(argv[1], "log"))
		return cmd_log(argc - 1, argv + 1);
	if (!strcmp(argv[1], "feature"))
		return cmd_feature(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sink"))
		return cmd_sink(argc - 1, argv + 1);
	if (!strcmp(argv[1], "bulk"))
		return cmd_bulk(argc - 1, argv + 1);
	usage_err("no command '%s'", argv[1]);
}
