/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A packet reader (ddf_key_read_t) over a packet held in pieces: a
 * multi-buffer XDP frame, whose linear part is followed by page fragments.
 * A read inside one piece is answered in place, one across pieces is
 * copied into the caller's buffer, and one that reaches past the packet's
 * length, or past the last piece that can be read, gets NULL (which the
 * key takes for a reader that failed inside the packet).
 *
 * The pieces come one at a time from the caller's function, so a frame
 * of many fragments costs neither an array nor a walk before the first
 * read. The reader remembers the piece it stands on: the key reads mostly
 * forwards, and starts over from the first piece when it goes back.
 */
#ifndef DDF_KEY_SEGS_H
#define DDF_KEY_SEGS_H

#include "ddf_env.h"

/*
 * Piece i of pkt (0: the first): its bytes, and their count in *len; NULL
 * when pkt has no piece i or its bytes cannot be read.
 */
typedef const uint8_t *(*ddf_key_seg_t)(void *pkt, uint32_t i, uint32_t *len);

struct ddf_key_segs {
	ddf_key_seg_t seg;
	void *pkt;
	uint32_t len; /* the packet's length: no read goes past it */
	/* the piece the reader stands on: its index, first offset, bytes */
	uint32_t i, off, n;
	const uint8_t *data; /* NULL: none to stand on */
};

static inline void ddf_key_segs_first(struct ddf_key_segs *s)
{
	s->i = 0;
	s->off = 0;
	s->n = 0;
	s->data = s->seg(s->pkt, 0, &s->n);
	if (!s->data)
		s->n = 0;
}

/* A reader over the len bytes of pkt that seg cuts in pieces. */
static inline void ddf_key_segs_init(struct ddf_key_segs *s,
				     ddf_key_seg_t seg, void *pkt,
				     uint32_t len)
{
	s->seg = seg;
	s->pkt = pkt;
	s->len = len;
	ddf_key_segs_first(s);
}

/* To the next piece; false (staying) when there is none to read. */
static inline bool ddf_key_segs_next(struct ddf_key_segs *s)
{
	const uint8_t *d;
	uint32_t n = 0;

	if (!s->data)
		return false;
	d = s->seg(s->pkt, s->i + 1, &n);
	if (!d)
		return false;
	s->i++;
	s->off += s->n;
	s->n = n;
	s->data = d;
	return true;
}

/*
 * The reader: ctx is a ddf_key_segs. It steps only over pieces that end
 * at or before a byte it must return, all below len, so the offsets it
 * adds up never wrap.
 */
static inline const void *ddf_key_read_segs(void *ctx, uint32_t off,
					    uint32_t len, void *buf)
{
	struct ddf_key_segs *s = ctx;
	uint8_t *out = buf;
	uint32_t at, c;

	if (off > s->len || len > s->len - off)
		return NULL;
	if (!len)
		return buf;
	if (off < s->off)
		ddf_key_segs_first(s);
	while (off - s->off >= s->n)
		if (!ddf_key_segs_next(s))
			return NULL;
	at = off - s->off;
	if (len <= s->n - at)
		return s->data + at;
	for (;;) {
		c = s->n - at < len ? s->n - at : len;
		memcpy(out, s->data + at, c);
		out += c;
		len -= c;
		if (!len)
			return buf;
		if (!ddf_key_segs_next(s))
			return NULL;
		at = 0;
	}
}

#endif /* DDF_KEY_SEGS_H */
