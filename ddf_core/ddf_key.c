// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Packet keys (see ddf_key.h for the rules and the byte strings): parse
 * the IP and L4 headers through the caller's reader, then stream the key
 * into SipHash through one small buffer. This runs in the kernel's packet
 * path: no allocation, a few hundred bytes of stack, and every read is
 * checked against the packet's length before the reader sees it.
 */
#include "ddf_key_fast.h"
#include "ddf_key_link.h"
#include "ddf_key_region.h"

void ddf_key_secret_init(struct ddf_key_secret *ks,
			 const struct ddf_sipkey *sip)
{
	ks->sip = *sip;
	ddf_nh_key_derive(&ks->nh, sip);
}

int ddf_key_spec_validate(const struct ddf_key_spec *spec, const char **why)
{
	const char *w = NULL;
	int err = DDF_EINVAL;
	uint32_t fields = spec->fields, ignore = spec->ignore;
	uint32_t v4hdr = DDF_KI_TTL | DDF_KI_DSCP | DDF_KI_ECN | DDF_KI_IPID;

	if (spec->match & ~__DDF_KM_ALL)
		w = "unknown match bits of the key spec";
	else if (spec->l4proto && !(spec->match & DDF_KM_L4PROTO))
		w = "a protocol needs the protocol match bit";
	else if (spec->family != 0 && spec->family != 4 && spec->family != 6)
		w = "family must be 4, 6 or 0 (both)";
	else if (spec->form >= __DDF_KEY_FORM_MAX)
		w = "key form must be packet, fields or frame";
	else if (spec->decap & ~__DDF_KD_ALL)
		w = "unknown tunnel bits of the key spec";
	else if (spec->vxlan_port && !(spec->decap & DDF_KD_VXLAN))
		w = "a VXLAN port needs decap vxlan";
	else if (spec->geneve_port && !(spec->decap & DDF_KD_GENEVE))
		w = "a Geneve port needs decap geneve";
	else if (fields & ~__DDF_KF_ALL)
		w = "unknown key field bits";
	else if (ignore & ~__DDF_KI_ALL)
		w = "unknown ignore bits";
	else if (spec->max_bytes < 1 || spec->max_bytes > DDF_KEY_MAX_BYTES_MAX)
		err = DDF_ERANGE, w = "max bytes must be 1..65535";
	else if (spec->form == DDF_KEY_PACKET && fields)
		w = "a field list needs the field form; key packet hashes the whole packet";
	else if (spec->form == DDF_KEY_PACKET &&
		 (spec->payload_off || spec->payload_len))
		w = "payload OFFSET:LENGTH belongs to a field list";
	else if (spec->form == DDF_KEY_PACKET && spec->family != 6 &&
		 (ignore & v4hdr) && !(ignore & DDF_KI_IPV4CSUM))
		w = "ignoring an IPv4 header field needs ignore ipv4csum too: the header checksum changes with it";
	else if (spec->form == DDF_KEY_FRAME &&
		 (fields || spec->payload_off || spec->payload_len))
		w = "key frame hashes the whole frame: no field list or payload window";
	else if (spec->form == DDF_KEY_FRAME &&
		 (ignore & ~(DDF_KI_DEFAULT | DDF_KI_L2)))
		w = "key frame hashes every byte of the frame: it ignores only vlan and mac";
	else if (spec->form == DDF_KEY_FRAME && (spec->family || spec->match))
		w = "key frame hashes frames unparsed, IP or not: it takes no family or protocol";
	else if (spec->form == DDF_KEY_FIELDS && !fields)
		w = "a field list needs at least one field";
	else if (spec->form == DDF_KEY_FIELDS &&
		 (ignore & ~(DDF_KI_DEFAULT | DDF_KI_L2)))
		w = "ignore masks bytes of key packet; leave the field out of the list instead";
	else if (!(fields & DDF_KF_PAYLOAD) &&
		 (spec->payload_off || spec->payload_len))
		w = "payload OFFSET:LENGTH given without the payload field";
	else if ((fields & DDF_KF_PAYLOAD) && !spec->payload_len)
		err = DDF_ERANGE, w = "payload LENGTH must be at least 1";
	else if ((uint32_t)spec->payload_off + spec->payload_len >
		 DDF_KEY_PAYLOAD_MAX)
		err = DDF_ERANGE,
		w = "payload OFFSET + LENGTH must be at most 4096 bytes";
	if (!w)
		return 0;
	if (why)
		*why = w;
	return err;
}

/*
 * Walk the extension headers from off with next header nh (IPv6: all of
 * them; IPv4: AH only). Sets proto, l4off and the fragment state in ki.
 */
static void ddf_key_walk(struct ddf_key_pkt *p, uint32_t off, uint8_t nh,
			 bool v6)
{
	struct ddf_key_info *ki = &p->ki;
	const uint8_t *h;
	uint32_t hlen;

	for (;;) {
		bool frag = false;

		switch (nh) {
		case DDF_IPPROTO_HOPOPTS:
		case DDF_IPPROTO_ROUTING:
		case DDF_IPPROTO_DSTOPTS:
			if (!v6)
				goto l4;
			break;
		case DDF_IPPROTO_FRAGMENT:
			if (!v6)
				goto l4;
			frag = true;
			break;
		case DDF_IPPROTO_AH:
			break;
		default:
			goto l4;
		}
		ki->proto = nh; /* where the walk stops, if it does */
		if (ki->exthdrs >= DDF_KEY_MAX_EXTHDRS) {
			ki->flags |= DDF_KEY_F_EXTLIMIT;
			return;
		}
		h = ddf_key_get(p, off, 8);
		if (!h) {
			ki->flags |= DDF_KEY_F_TRUNCATED;
			return;
		}
		ki->exthdrs++;
		if (frag) {
			uint16_t fo = ddf_key_be16(h + 2);

			ki->flags |= DDF_KEY_F_FRAGHDR;
			ki->frag_id = ddf_key_be32(h + 4);
			ki->frag_off = fo >> 3;
			if (fo & 0xfff9)
				ki->flags |= DDF_KEY_F_FRAG;
			if (fo & 1)
				ki->flags |= DDF_KEY_F_MF;
			if (fo >> 3) {
				/* data behind it is the middle of a datagram */
				ki->flags |= DDF_KEY_F_LATER;
				nh = h[0];
				off += 8;
				goto l4;
			}
			hlen = 8;
		} else if (nh == DDF_IPPROTO_AH) {
			hlen = ((uint32_t)h[1] + 2) * 4;
		} else {
			hlen = ((uint32_t)h[1] + 1) * 8;
		}
		if (!ddf_key_has(p, off, hlen)) {
			ki->flags |= DDF_KEY_F_TRUNCATED;
			return;
		}
		nh = h[0];
		off += hlen;
	}
l4:
	ki->flags |= DDF_KEY_F_L4;
	ki->proto = nh;
	ki->l4off = off;
}

static bool ddf_key_icmp_has_id(bool v6, uint8_t type)
{
	if (v6)
		return type == 128 || type == 129; /* echo request, reply */
	/* echo reply, echo, timestamp, information, address mask */
	return type == 0 || type == 8 || (type >= 13 && type <= 18);
}

/* L4 header length of the protocols the key knows, else 0. */
static uint32_t ddf_key_l4_fixed(const struct ddf_key_info *ki)
{
	switch (ki->proto) {
	case DDF_IPPROTO_TCP:
		return 20;
	case DDF_IPPROTO_UDP:
	case DDF_IPPROTO_UDPLITE:
		return 8;
	case DDF_IPPROTO_SCTP:
		return 12;
	case DDF_IPPROTO_ICMP:
		return ki->family == 4 ? 8 : 0;
	case DDF_IPPROTO_ICMPV6:
		return ki->family == 6 ? 8 : 0;
	default:
		return 0;
	}
}

/* Find where the L4 payload starts (DDF_KEY_F_L4HDR, DDF_KEY_F_PAYLOAD). */
static void ddf_key_l4(struct ddf_key_pkt *p)
{
	struct ddf_key_info *ki = &p->ki;
	uint32_t hlen = ddf_key_l4_fixed(ki);
	const uint8_t *h;

	if (!(ki->flags & DDF_KEY_F_L4) || (ki->flags & DDF_KEY_F_LATER))
		return;
	if (!hlen) {
		/* unknown to us: its payload is all behind the IP headers */
		ki->flags |= DDF_KEY_F_PAYLOAD;
		ki->payoff = ki->l4off;
		return;
	}
	if (!ddf_key_has(p, ki->l4off, hlen)) {
		ki->flags |= DDF_KEY_F_TRUNCATED;
		return;
	}
	if (ki->proto == DDF_IPPROTO_TCP) {
		h = ddf_key_get(p, ki->l4off + 12, 1);
		if (!h)
			return;
		hlen = (uint32_t)(h[0] >> 4) * 4;
		if (hlen < 20) {
			ki->flags |= DDF_KEY_F_BADHDR;
			return;
		}
		if (!ddf_key_has(p, ki->l4off, hlen)) {
			ki->flags |= DDF_KEY_F_TRUNCATED;
			return;
		}
	}
	ki->flags |= DDF_KEY_F_L4HDR | DDF_KEY_F_PAYLOAD;
	ki->payoff = ki->l4off + hlen;
}

/* Parse the IP header and what follows; a DDF_KEY_* result. */
static int ddf_key_parse(struct ddf_key_pkt *p, uint32_t l3len, uint8_t family)
{
	struct ddf_key_info *ki = &p->ki;
	const uint8_t *h;
	uint32_t tot, hlen;

	h = ddf_key_get(p, 0, 1);
	if (!h)
		return l3len ? DDF_KEY_MALFORMED : DDF_KEY_NOT_IP;
	ki->family = h[0] >> 4;
	if (ki->family != 4 && ki->family != 6) {
		ki->family = 0;
		return DDF_KEY_NOT_IP;
	}
	if (family && family != ki->family)
		return DDF_KEY_OTHER_FAMILY;

	if (ki->family == 4) {
		uint16_t fo;

		h = ddf_key_get(p, 0, 20);
		if (!h)
			return DDF_KEY_MALFORMED;
		hlen = (uint32_t)(h[0] & 0x0f) * 4;
		tot = ddf_key_be16(h + 2);
		if (!tot)
			tot = l3len; /* BIG TCP: the length is the buffer's */
		if (hlen < 20 || tot < hlen)
			return DDF_KEY_MALFORMED;
		fo = ddf_key_be16(h + 6);
		ki->frag_id = ddf_key_be16(h + 4);
		ki->frag_off = fo & 0x1fff;
		if (fo & 0x3fff)
			ki->flags |= DDF_KEY_F_FRAG;
		if (fo & 0x2000)
			ki->flags |= DDF_KEY_F_MF;
		if (fo & 0x1fff)
			ki->flags |= DDF_KEY_F_LATER;
		ki->proto = h[9];
	} else {
		h = l3len < 40 ? NULL : ddf_key_get(p, 0, 8);
		if (!h)
			return DDF_KEY_MALFORMED;
		hlen = 40;
		tot = 40 + (uint32_t)ddf_key_be16(h + 4);
		if (tot == 40 && h[6] == DDF_IPPROTO_HOPOPTS)
			tot = l3len; /* jumbogram: the length is the buffer's */
		ki->proto = h[6];
	}
	if (tot > l3len) {
		ki->flags |= DDF_KEY_F_TRUNCATED;
		tot = l3len;
	}
	if (hlen > tot)
		return DDF_KEY_MALFORMED;
	p->len = tot;
	ki->len = tot;

	if (ki->flags & DDF_KEY_F_LATER) {
		/* IPv4 non-first fragment: no header of any kind follows */
		ki->flags |= DDF_KEY_F_L4;
		ki->l4off = hlen;
	} else {
		ddf_key_walk(p, hlen, ki->proto, ki->family == 6);
	}
	ddf_key_l4(p);
	return DDF_KEY_HASHED;
}

/* ---- packet form ---- */

/* Zero the bytes of [zoff, zoff + zlen) that fall in the chunk at off. */
static void ddf_key_zero(uint8_t *b, uint32_t off, uint32_t n, uint32_t zoff,
			 uint32_t zlen)
{
	uint32_t s = zoff > off ? zoff : off;
	uint32_t e = zoff + zlen < off + n ? zoff + zlen : off + n;

	for (; s < e; s++)
		b[s - off] = 0;
}

/* Mask the ignored IP header bytes that fall in the chunk at off. */
static void ddf_key_mask_ip(uint8_t *b, uint32_t off, uint32_t n, uint32_t ig,
			    const struct ddf_key_info *ki)
{
	/* keep-masks of header bytes 0..3 */
	uint8_t keep[4] = { 0xff, 0xff, 0xff, 0xff };

	if (ki->family == 4) {
		if (ig & DDF_KI_DSCP)
			keep[1] &= 0x03;
		if (ig & DDF_KI_ECN)
			keep[1] &= 0xfc;
		if ((ig & DDF_KI_IPID) && !(ki->flags & DDF_KEY_F_FRAG))
			ddf_key_zero(b, off, n, 4, 2);
		if (ig & DDF_KI_TTL)
			ddf_key_zero(b, off, n, 8, 1);
		if (ig & DDF_KI_IPV4CSUM)
			ddf_key_zero(b, off, n, 10, 2);
	} else {
		/* version:4 tclass:8 flow:20; tclass = dscp:6 ecn:2 */
		if (ig & DDF_KI_DSCP) {
			keep[0] &= 0xf0;
			keep[1] &= 0x3f;
		}
		if (ig & DDF_KI_ECN)
			keep[1] &= 0xcf;
		if (ig & DDF_KI_FLOWLABEL) {
			keep[1] &= 0xf0;
			keep[2] = 0;
			keep[3] = 0;
		}
		if (ig & DDF_KI_TTL)
			ddf_key_zero(b, off, n, 7, 1);
	}
	for (uint32_t i = off; i < 4 && i < off + n; i++)
		b[i - off] &= keep[i];
}

/* Where the L4 checksum lies, as (offset, length); length 0 if nowhere. */
static uint32_t ddf_key_l4csum(const struct ddf_key_info *ki, uint32_t *off)
{
	uint32_t at, n = 2;

	if (!(ki->flags & DDF_KEY_F_L4) || (ki->flags & DDF_KEY_F_LATER))
		return 0;
	switch (ki->proto) {
	case DDF_IPPROTO_TCP:
		at = 16;
		break;
	case DDF_IPPROTO_UDP:
	case DDF_IPPROTO_UDPLITE:
		at = 6;
		break;
	case DDF_IPPROTO_SCTP:
		at = 8;
		n = 4;
		break;
	case DDF_IPPROTO_ICMP:
	case DDF_IPPROTO_ICMPV6:
		if (!ddf_key_l4_fixed(ki))
			return 0;
		at = 2;
		break;
	default:
		return 0;
	}
	*off = ki->l4off + at;
	return n;
}

/* ---- the key string, built in registers ---- */

/*
 * The and-masks of the packet form's words (8 bytes from the packet's
 * start each): hm for words 0 and 1, where the ignored IP header bytes
 * lie; cm for words cw and cw + 1, where the L4 checksum lies. Made by
 * masking bytes of all ones with the byte maskers above, so that the
 * word path and the byte path cannot differ.
 */
struct ddf_key_wmask {
	uint64_t hm[2], cm[2];
	uint32_t cw;
};

static void ddf_key_wmask(struct ddf_key_wmask *wm, uint32_t ig,
			  const struct ddf_key_info *ki, uint32_t csoff,
			  uint32_t cslen)
{
	uint8_t b[16];

	wm->hm[0] = wm->hm[1] = wm->cm[0] = wm->cm[1] = ~0ull;
	wm->cw = (uint32_t)-2; /* none: j - cw = j + 2, never below 2 */
	if (ig & ~DDF_KI_L4CSUM) {
		memset(b, 0xff, sizeof(b));
		ddf_key_mask_ip(b, 0, sizeof(b), ig, ki);
		wm->hm[0] = ddf_sip_load_le64(b);
		wm->hm[1] = ddf_sip_load_le64(b + 8);
	}
	if (cslen) {
		wm->cw = csoff / 8;
		memset(b, 0xff, sizeof(b));
		ddf_key_zero(b, wm->cw * 8, sizeof(b), csoff, cslen);
		wm->cm[0] = ddf_sip_load_le64(b);
		wm->cm[1] = ddf_sip_load_le64(b + 8);
	}
}

/* Word j of the key (j: counted from the packet's start), masked. */
static DDF_ALWAYS_INLINE uint64_t ddf_key_wmasked(const struct ddf_key_wmask *wm,
						  uint32_t j, uint64_t w)
{
	if (j < 2)
		w &= wm->hm[j];
	if (j - wm->cw < 2)
		w &= wm->cm[j - wm->cw];
	return w;
}

/*
 * Stream the c bytes d at off (a multiple of 8) masked, a word at a time
 * in registers: no copy of the packet, no per-byte loop. The state is a
 * local copy (byte loads from d may alias p, registers may not) with
 * have bytes pending (the stream began with the one-byte tag, after a
 * link layer's bytes if any): each word goes in as the pending bytes with
 * the word's first 8 - have bytes on top, its other bytes pending after it.
 */
static DDF_ALWAYS_INLINE void ddf_key_words(struct ddf_sipstate *st,
					    const struct ddf_key_wmask *wm,
					    const uint8_t *d, uint32_t off,
					    uint32_t c, int rounds)
{
	uint32_t j = off / 8, n = c / 8, sh = 8 * (st->len & 7);
	uint64_t tail = st->tail;

	if (!sh) { /* word-aligned: no pending bytes to merge */
		for (uint32_t i = 0; i < n; i++, j++)
			ddf_sip_push(st, ddf_key_wmasked(wm, j,
						ddf_sip_load_le64(d + 8 * i)),
				     8, rounds);
		goto partial;
	}
	st->len += c & ~7u;
	for (uint32_t i = 0; i < n; i++, j++) {
		uint64_t w = ddf_key_wmasked(wm, j, ddf_sip_load_le64(d + 8 * i));

		ddf_sip_compress(st, tail | w << sh, rounds);
		tail = w >> (64 - sh);
	}
	st->tail = tail;
partial:
	if (c & 7)
		ddf_sip_push(st, ddf_key_wmasked(wm, j,
						 ddf_sip_partial(d + 8 * n, c & 7)),
			     c & 7, rounds);
}

/*
 * "P", the packet's first n bytes with the ignored ones zeroed, its length
 * (4 bytes, big-endian), streamed as words: the words where ignored bytes
 * may lie are masked, up to the first word of the stream behind the last
 * of them; the rest goes in as plain words (ddf_key_plain()), or, for a
 * long packet, its first DDF_KEY_HEAD bytes do and the rest is its region
 * (ddf_key_region(): NH digests, the checksum zeroed if it lies there).
 */
static DDF_ALWAYS_INLINE bool ddf_key_packet_c(struct ddf_key_pkt *p,
					       const struct ddf_key_spec *s,
					       int rounds)
{
	struct ddf_key_info *ki = &p->ki;
	uint32_t ig = s->ignore, n = p->len, csoff = 0, cslen = 0, m, head;
	struct ddf_sipstate st = p->st;
	struct ddf_key_wmask wm;

	if (n > s->max_bytes) {
		ki->flags |= DDF_KEY_F_CUT;
		n = s->max_bytes;
	}
	head = n > DDF_KEY_HEAD + DDF_KEY_NH_OVER ?
		       DDF_KEY_HEAD : n;
	if (ig & DDF_KI_L4CSUM)
		cslen = ddf_key_l4csum(ki, &csoff);
	ddf_key_wmask(&wm, ig, ki, csoff, cslen);
	ddf_sip_push(&st, 'P', 1, rounds);
	/* the masks' reach: words 0 and 1 (hm), the checksum's (cm) */
	m = ig & ~DDF_KI_L4CSUM ? 16 : 0;
	if (cslen && csoff + cslen > m)
		m = csoff + cslen;
	m += (8 - ((st.len + m) & 7)) & 7;
	if (m > head)
		m = head;
	for (uint32_t off = 0; off < m; off += DDF_KEY_READ_MAX) {
		uint32_t c = m - off < DDF_KEY_READ_MAX ? m - off :
							  DDF_KEY_READ_MAX;
		const uint8_t *d = ddf_key_get(p, off, c);

		if (!d)
			return false;
		ddf_key_words(&st, &wm, d, off, c, rounds);
	}
	if (!ddf_key_plain(p, &st, p->base + m, p->base + head, rounds))
		return false;
	if (head < n && !ddf_key_region(p, &st, p->base + head, p->base + n,
					p->base + csoff, cslen, rounds))
		return false;
	ddf_key_push_be(&st, p->len, 4, rounds);
	p->st = st;
	return true;
}

/* ---- field form ---- */

/*
 * Append 0x01 and the n (at most 16) bytes at off when present and inside
 * the packet, else 0x00. False when the reader fails inside the packet.
 */
static DDF_ALWAYS_INLINE bool ddf_key_field(struct ddf_key_pkt *p,
					    struct ddf_key_fbuf *kb,
					    bool present, uint32_t off,
					    uint32_t n)
{
	const uint8_t *d;

	if (!present || !ddf_key_has(p, off, n)) {
		ddf_fbuf_put(kb, 0, 1);
		return true;
	}
	d = ddf_key_get(p, off, n);
	if (!d)
		return false;
	ddf_fbuf_put(kb, 1, 1);
	ddf_fbuf_copy(kb, d, n);
	return true;
}

static DDF_ALWAYS_INLINE bool ddf_key_payload(struct ddf_key_pkt *p,
					      struct ddf_sipstate *st,
					      struct ddf_key_fbuf *kb,
					      const struct ddf_key_spec *s,
					      int rounds)
{
	const struct ddf_key_info *ki = &p->ki;
	uint32_t avail, start, n;
	const uint8_t *d;

	if (!(ki->flags & DDF_KEY_F_PAYLOAD)) {
		ddf_fbuf_put(kb, 0, 1);
		return true;
	}
	avail = p->len - ki->payoff;
	start = ki->payoff + s->payload_off;
	n = 0;
	if (s->payload_off < avail)
		n = avail - s->payload_off;
	if (n > s->payload_len)
		n = s->payload_len;
	/* 1, the length in 2 bytes big-endian */
	ddf_fbuf_put(kb, 1 | (uint64_t)(n >> 8 & 0xff) << 8 |
			 (uint64_t)(n & 0xff) << 16, 3);
	if (n <= DDF_KEY_READ_MAX && n <= DDF_KEY_NH_OVER) {
		if (n) {
			d = ddf_key_get(p, start, n);
			if (!d)
				return false;
			ddf_fbuf_copy(kb, d, n);
		}
		return true;
	}
	ddf_fbuf_flush(kb, st, rounds);
	/* inside the packet: n stops at its end */
	if (n > DDF_KEY_NH_OVER ?
		    !ddf_key_region(p, st, p->base + start, p->base + start + n,
				    0, 0, rounds) :
		    !ddf_key_plain(p, st, p->base + start, p->base + start + n,
				   rounds))
		return false;
	/* the trailer goes behind the bytes the payload left pending */
	ddf_fbuf_begin(kb, st);
	return true;
}

/*
 * The field form's string (see ddf_key.h), in a buffer (above) compressed
 * into a local copy of the stream.
 */
static DDF_ALWAYS_INLINE bool
ddf_key_walk_fields_c(struct ddf_key_pkt *p, const struct ddf_key_spec *s,
		      int rounds)
{
	const struct ddf_key_info *ki = &p->ki;
	uint32_t f = s->fields, l4 = ki->l4off, fl = ki->flags;
	bool v6 = ki->family == 6;
	uint32_t alen = v6 ? 16 : 4;
	bool l4hdr = (fl & DDF_KEY_F_L4) && !(fl & DDF_KEY_F_LATER);
	bool ports = false, tcp = false, icmp = false;
	struct ddf_sipstate st = p->st;
	uint8_t buf[DDF_KEY_FBUF] DDF_NOINIT; /* every byte read is written first */
	struct ddf_key_fbuf kb = { buf, 0 };
	bool ok = true;

	if (l4hdr) {
		uint8_t pr = ki->proto;

		tcp = pr == DDF_IPPROTO_TCP;
		ports = tcp || pr == DDF_IPPROTO_UDP ||
			pr == DDF_IPPROTO_UDPLITE || pr == DDF_IPPROTO_SCTP;
		if (ddf_key_l4_fixed(ki) &&
		    (pr == DDF_IPPROTO_ICMP || pr == DDF_IPPROTO_ICMPV6)) {
			const uint8_t *h = ddf_key_get(p, l4, 1);

			icmp = h && ddf_key_icmp_has_id(v6, h[0]);
		}
	}

	/* 'F', the family, the field mask in 4 bytes big-endian */
	ddf_fbuf_begin(&kb, &st);
	ddf_fbuf_put(&kb, 'F' | (uint64_t)ki->family << 8, 2);
	ddf_key_put_be32(kb.b + kb.n, f);
	kb.n += 4;
	if (f & DDF_KF_SADDR)
		ok &= ddf_key_field(p, &kb, true, v6 ? 8 : 12, alen);
	if (f & DDF_KF_DADDR)
		ok &= ddf_key_field(p, &kb, true, v6 ? 24 : 16, alen);
	if (f & DDF_KF_PROTO) {
		if (fl & DDF_KEY_F_L4)
			ddf_fbuf_put(&kb, 1 | (uint64_t)ki->proto << 8, 2);
		else
			ddf_fbuf_put(&kb, 0, 1);
	}
	if (f & DDF_KF_SPORT)
		ok &= ddf_key_field(p, &kb, ports, l4, 2);
	if (f & DDF_KF_DPORT)
		ok &= ddf_key_field(p, &kb, ports, l4 + 2, 2);
	if (f & DDF_KF_IPID) {
		if (!v6) {
			ok &= ddf_key_field(p, &kb, true, 4, 2);
		} else if (fl & DDF_KEY_F_FRAGHDR) {
			kb.b[kb.n] = 1;
			ddf_key_put_be32(kb.b + kb.n + 1, ki->frag_id);
			kb.n += 5;
		} else {
			ddf_fbuf_put(&kb, 0, 1);
		}
	}
	if (f & DDF_KF_TCPSEQ)
		ok &= ddf_key_field(p, &kb, tcp, l4 + 4, 4);
	if (f & DDF_KF_TCPACK)
		ok &= ddf_key_field(p, &kb, tcp, l4 + 8, 4);
	if (f & DDF_KF_ICMPID)
		ok &= ddf_key_field(p, &kb, icmp, l4 + 4, 2);
	if (f & DDF_KF_PAYLOAD)
		ok &= ddf_key_payload(p, &st, &kb, s, rounds);

	/* the fragment trailer: 1, id (4), offset (2), MF (1); or 0 */
	if (fl & DDF_KEY_F_LATER) {
		kb.b[kb.n] = 1;
		ddf_key_put_be32(kb.b + kb.n + 1, ki->frag_id);
		kb.b[kb.n + 5] = (uint8_t)(ki->frag_off >> 8);
		kb.b[kb.n + 6] = (uint8_t)ki->frag_off;
		kb.b[kb.n + 7] = fl & DDF_KEY_F_MF ? 1 : 0;
		kb.n += 8;
	} else {
		ddf_fbuf_put(&kb, 0, 1);
	}
	ddf_fbuf_flush(&kb, &st, rounds);
	p->st = st;
	return ok;
}

/*
 * Run a form's string builder with the stream's compression rounds as a
 * constant for the hashes in use (SipHash-1-3 and 2-4), so that their
 * rounds unroll; each form is its own function.
 */
static DDF_ALWAYS_INLINE bool
ddf_key_rounds(struct ddf_key_pkt *p, const struct ddf_key_spec *s,
	       bool (*form)(struct ddf_key_pkt *p,
			    const struct ddf_key_spec *s, int rounds))
{
	if (p->st.c == 1)
		return form(p, s, 1);
	if (p->st.c == 2)
		return form(p, s, 2);
	return form(p, s, p->st.c);
}

static bool ddf_key_packet(struct ddf_key_pkt *p, const struct ddf_key_spec *s)
{
	return ddf_key_rounds(p, s, ddf_key_packet_c);
}

static bool ddf_key_walk_fields(struct ddf_key_pkt *p,
				const struct ddf_key_spec *s)
{
	return ddf_key_rounds(p, s, ddf_key_walk_fields_c);
}

/* ---- levels: the link layer, the IP packet, tunnels ---- */

/*
 * Parse the frame or packet of lv: its link layer (an Ethernet level) and
 * its IP packet, which becomes p's (base, len, ki). A frame with no IP
 * packet is DDF_KEY_HASHED with lv->ip false: it is keyed whole.
 */
static int ddf_key_level(struct ddf_key_pkt *p, const struct ddf_key_spec *s,
			 struct ddf_key_level *lv)
{
	const uint8_t *h;

	memset(&p->ki, 0, sizeof(p->ki));
	if (lv->ether) {
		ddf_link_walk(p, lv);
		if (!lv->ip) {
			p->base = lv->start;
			p->len = lv->end - lv->start;
			p->ki.flags |= DDF_KEY_F_NONIP;
			return DDF_KEY_HASHED;
		}
	} else {
		lv->ip = true;
		lv->l3 = lv->start;
		lv->ver = 0;
		lv->nvlan = 0;
		lv->inframe = 0;
	}
	p->base = lv->l3;
	p->len = lv->end - lv->l3;
	if (lv->ver) {
		/* the ethertype's version against the packet's own */
		h = ddf_key_get(p, 0, 1);
		if (!h || h[0] >> 4 != lv->ver)
			return DDF_KEY_MALFORMED;
	}
	return ddf_key_parse(p, p->len, s->family);
}

/*
 * Open the tunnels s asks for, one inside the other, while the packet in
 * lv is one: lv becomes the innermost packet that can be keyed. A tunnel
 * whose header or inner packet is unusable leaves lv (and p) as they were.
 */
static int ddf_key_decap(struct ddf_key_pkt *p, const struct ddf_key_spec *s,
			 struct ddf_key_level *lv, int ret)
{
	struct ddf_key_level in;
	struct ddf_key_info ki;
	uint32_t base, len;
	int t, r;

	for (uint8_t d = 0; d < DDF_KEY_MAX_DECAP; d++) {
		if (ret != DDF_KEY_HASHED || !lv->ip)
			break;
		t = ddf_link_tunnel(p, s, &in);
		if (t == DDF_TUN_NONE)
			break;
		if (t == DDF_TUN_OPEN) {
			ki = p->ki;
			base = p->base;
			len = p->len;
			r = ddf_key_level(p, s, &in);
			if (p->failed)
				return DDF_KEY_MALFORMED;
			if (r == DDF_KEY_HASHED || r == DDF_KEY_OTHER_FAMILY) {
				*lv = in;
				ret = r;
				p->ki.decaps = d + 1;
				continue;
			}
			p->ki = ki;
			p->base = base;
			p->len = len;
		}
		p->ki.flags |= DDF_KEY_F_BADTUNNEL;
		break;
	}
	return ret;
}

int ddf_key_general(const struct ddf_key_spec *spec,
		    const struct ddf_key_link *lk, ddf_key_read_t read,
		    void *ctx, uint32_t len, const struct ddf_key_secret *key,
		    uint32_t hashfn, struct ddf_hash *out,
		    struct ddf_key_info *info)
{
	struct ddf_key_level lv DDF_NOINIT;
	struct ddf_key_pkt p DDF_NOINIT;
	uint32_t outer = 0;
	uint64_t h[2];
	bool ok;
	int ret;

	p.read = read;
	p.ctx = ctx;
	p.nh = &key->nh;
	p.flen = len;
	p.base = 0;
	p.len = len;
	p.failed = false;
	memset(&p.ki, 0, sizeof(p.ki));
	lv.start = 0;
	lv.end = len;
	lv.ether = lk && lk->type == DDF_LINK_ETHER;
	lv.tag_proto = lv.ether ? lk->vlan_proto : 0;
	lv.tag_tci = lv.ether ? lk->vlan_tci : 0;
	lv.ip = false;
	lv.nvlan = 0;
	lv.inframe = 0;
	if (spec->form == DDF_KEY_FRAME && !spec->decap) {
		/* unparsed: only the tags, for ignore vlan */
		if (lv.ether)
			ddf_link_walk(&p, &lv);
		ret = DDF_KEY_HASHED;
	} else {
		ret = ddf_key_level(&p, spec, &lv);
		outer = p.ki.len; /* a tunnel's packet is IP: its length */
		if (spec->decap)
			ret = ddf_key_decap(&p, spec, &lv, ret);
	}
	if (p.failed)
		ret = DDF_KEY_MALFORMED;
	if (ret == DDF_KEY_HASHED && spec->form != DDF_KEY_FRAME && lv.ether &&
	    !lv.ip && (spec->family || spec->match))
		ret = DDF_KEY_SKIPPED; /* IP asked for, and this is none */
	else if (ret == DDF_KEY_HASHED && (spec->match & DDF_KM_L4PROTO) &&
		 (!(p.ki.flags & DDF_KEY_F_L4) || p.ki.proto != spec->l4proto))
		ret = DDF_KEY_SKIPPED;
	p.ki.vlans = lv.nvlan;
	p.ki.l3off = p.base;
	if (ret != DDF_KEY_HASHED)
		goto out;

	if (hashfn == DDF_HASH_SIP24)
		ddf_sip_init(&p.st, &key->sip, 2, 4, true);
	else
		ddf_sip_init(&p.st, &key->sip, 1, 3, true);
	if (spec->form == DDF_KEY_FRAME || (lv.ether && !lv.ip)) {
		ok = ddf_link_frame(&p, &lv, spec->ignore);
	} else {
		if (lv.nvlan && !(spec->ignore & DDF_KI_VLAN))
			ddf_link_vlans(&p, &lv);
		ok = spec->form == DDF_KEY_FIELDS ? ddf_key_walk_fields(&p, spec) :
						    ddf_key_packet(&p, spec);
	}
	if (!ok || p.failed) {
		ret = DDF_KEY_MALFORMED;
		goto out;
	}
	ddf_sip_final128(&p.st, h);
	out->h1 = h[0];
	out->h2 = h[1];
	/* the counters count the packet, not its cargo */
	if (p.ki.decaps)
		p.ki.len = outer;
out:
	if (info)
		*info = p.ki;
	return ret;
}

/*
 * The fast path, then (unless alone) the general walk for a frame it does
 * not take: one function, out of line, so that the common frame pays one
 * call and the other frames none of the fast path's stack.
 */
static DDF_NOINLINE int
ddf_key_fast_or_walk(const struct ddf_key_spec *spec,
		     const struct ddf_key_link *lk, ddf_key_read_t read,
		     void *ctx, uint32_t len, const struct ddf_key_secret *key,
		     uint32_t hashfn, struct ddf_hash *out,
		     struct ddf_key_info *info, bool alone)
{
	int ret = ddf_fast_hash(spec, lk, read, ctx, len, key, hashfn, out,
				info);

	if (ret != DDF_KEY_FAST_NONE || alone)
		return ret;
	return ddf_key_general(spec, lk, read, ctx, len, key, hashfn, out,
			       info);
}

int ddf_key_fast(const struct ddf_key_spec *spec,
		 const struct ddf_key_link *lk, ddf_key_read_t read, void *ctx,
		 uint32_t len, const struct ddf_key_secret *key, uint32_t hashfn,
		 struct ddf_hash *out, struct ddf_key_info *info)
{
	if (!ddf_fast_may(spec, lk, read))
		return DDF_KEY_FAST_NONE;
	return ddf_key_fast_or_walk(spec, lk, read, ctx, len, key, hashfn,
				    out, info, true);
}

/*
 * The common frame (untagged Ethernet or bare IP, IPv4 without options
 * or IPv6 without extension headers, whole, not a fragment, TCP or UDP,
 * no tunnel) takes the fast path of ddf_key_fast.h, which gives the same
 * answer; every other frame the general walk above.
 */
int ddf_key_hash_link(const struct ddf_key_spec *spec,
		      const struct ddf_key_link *lk, ddf_key_read_t read,
		      void *ctx, uint32_t len, const struct ddf_key_secret *key,
		      uint32_t hashfn, struct ddf_hash *out,
		      struct ddf_key_info *info)
{
	if (!ddf_fast_may(spec, lk, read))
		return ddf_key_general(spec, lk, read, ctx, len, key, hashfn,
				       out, info);
	return ddf_key_fast_or_walk(spec, lk, read, ctx, len, key, hashfn,
				    out, info, false);
}

int ddf_key_hash(const struct ddf_key_spec *spec, ddf_key_read_t read,
		 void *ctx, uint32_t l3len, const struct ddf_key_secret *key,
		 uint32_t hashfn, struct ddf_hash *out,
		 struct ddf_key_info *info)
{
	return ddf_key_hash_link(spec, NULL, read, ctx, l3len, key, hashfn,
				 out, info);
}
