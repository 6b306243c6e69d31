// SPDX-License-Identifier: GPL-2.0
/*
 * pcapng record times (pcapng_time.h). libpcap reads the file through a
 * stream whose reads pass a parser of its blocks on the way: it follows
 * them as libpcap does, by each block's total length, keeps each
 * interface's if_tsresol and if_tsoffset, and queues the timestamp of each
 * packet block (enhanced, simple or obsolete) in the order libpcap hands
 * their records out; libpcap reads ahead, so a few wait. Each if_tsresol
 * reaches libpcap as 10^-9 s, whatever the file's: libpcap's times go
 * unused, and it would refuse the finest the format allows. A block that
 * libpcap refuses (a length not a multiple of 4, too short for its kind, a
 * section of another byte order) ends the parse: libpcap hands out no
 * record after it either.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddfctl.h"
#include "pcapng_time.h"

#define BT_SHB 0x0a0d0d0au /* the same in both byte orders */
#define BT_IDB 1u
#define BT_PB 2u /* packet block, obsolete */
#define BT_SPB 3u
#define BT_EPB 6u
#define BOM 0x1a2b3c4du
#define OPT_ENDOFOPT 0
#define IF_TSRESOL 9
#define IF_TSOFFSET 14
#define NS 1000000000ull
/* 2^64 - 1 ns: 18446744073.709551615 s, 2554-07-21 23:34:33 UTC */
#define MAX_S (UINT64_MAX / NS)
#define MAX_FRAC (UINT64_MAX % NS)

struct ng_if {
	int64_t off; /* if_tsoffset, s */
	uint8_t resol; /* if_tsresol */
};

/* a packet block's time, until libpcap hands its record out */
struct ng_stamp {
	uint64_t t; /* as the block holds it */
	struct ng_if at; /* its interface's */
	uint32_t iface, section;
	bool described; /* its interface has a description block */
};

/* what the bytes in buf are, once want of them are there */
enum step { S_BLOCK, S_OPT, S_RESOL, S_OFF, S_STAMP, S_DONE };

struct ng_time {
	int fd;
	bool pcapng, usec, le, nomem;
	enum step step;
	uint8_t buf[12];
	unsigned int have, want;
	uint64_t skip; /* bytes passed on before buf fills again */
	uint32_t left; /* bytes of the block after those */
	uint32_t iface, section;
	struct ng_if *ifs;
	uint32_t nif, cap_if;
	struct ng_stamp *q; /* a ring of len from head */
	size_t head, len, cap;
};

static uint32_t get32(const uint8_t *p, bool le)
{
	return le ? (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
			    (uint32_t)p[1] << 8 | p[0] :
		    (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			    (uint32_t)p[2] << 8 | p[3];
}

static uint16_t get16(const uint8_t *p, bool le)
{
	return le ? (uint16_t)(p[1] << 8 | p[0]) : (uint16_t)(p[0] << 8 | p[1]);
}

static uint64_t get64(const uint8_t *p, bool le)
{
	return le ? (uint64_t)get32(p + 4, le) << 32 | get32(p, le) :
		    (uint64_t)get32(p, le) << 32 | get32(p + 4, le);
}

static uint64_t pow10u(unsigned int n)
{
	uint64_t v = 1;

	while (n--)
		v *= 10;
	return v;
}

/*
 * Timestamp t in units of if_tsresol resol, plus off s, as ns since 1970:
 * 0; -1 before 1970; 1 after 2^64 - 1 ns. Exact: whole seconds and the
 * fraction's ns as the units divide them, with no product wider than 64
 * bits, so any host (32-bit too) gets the same.
 */
static int stamp_ns(uint8_t resol, int64_t off, uint64_t t, uint64_t *ns)
{
	unsigned int n = resol & 0x7f;
	uint64_t sec, frac, r;

	if (resol & 0x80) {
		/* 2^-n s: the fraction is r * 10^9 >> n, up to 94 bits wide */
		uint64_t lo, mid, hi;

		r = n < 64 ? t & ((1ull << n) - 1) : t;
		lo = (r & 0xffffffff) * NS;
		mid = (r >> 32) * NS + (lo >> 32);
		hi = mid >> 32;
		lo = mid << 32 | (lo & 0xffffffff);
		sec = n < 64 ? t >> n : 0;
		frac = !n ? 0 : n < 64 ? hi << (64 - n) | lo >> n : hi >> (n - 64);
	} else {
		/* 10^-n s: 10^19 is the largest power of 10 in 64 bits */
		sec = n <= 19 ? t / pow10u(n) : 0;
		r = n <= 19 ? t % pow10u(n) : t;
		if (n <= 9)
			frac = r * pow10u(9 - n);
		else
			frac = n <= 9 + 19 ? r / pow10u(n - 9) : 0;
	}
	if (off < 0) {
		uint64_t back = (uint64_t)-(off + 1) + 1;

		if (sec < back)
			return -1;
		sec -= back;
	} else {
		if (sec > MAX_S || (uint64_t)off > MAX_S - sec)
			return 1;
		sec += (uint64_t)off;
	}
	if (sec > MAX_S || (sec == MAX_S && frac > MAX_FRAC))
		return 1;
	*ns = sec * NS + frac;
	return 0;
}

static void next_block(struct ng_time *s)
{
	s->skip += s->left;
	s->left = 0;
	s->step = S_BLOCK;
	s->want = 12; /* header and the first word: every block has them */
}

static void collect(struct ng_time *s, enum step step, unsigned int n)
{
	s->step = step;
	s->want = n;
	s->left -= n;
}

static void pass(struct ng_time *s, uint32_t n)
{
	s->skip += n;
	s->left -= n;
}

/* the next option of an interface description: its header, or done */
static void option(struct ng_time *s)
{
	if (s->left >= 4 + 4) /* and the block's trailer */
		collect(s, S_OPT, 4);
	else
		next_block(s);
}

static bool add_if(struct ng_time *s)
{
	if (s->nif == s->cap_if) {
		uint32_t cap = s->cap_if ? 2 * s->cap_if : 4;
		struct ng_if *ifs = cap > s->cap_if ?
			reallocarray(s->ifs, cap, sizeof(*ifs)) : NULL;

		if (!ifs) {
			s->nomem = true;
			return false;
		}
		s->ifs = ifs;
		s->cap_if = cap;
	}
	/* the format's defaults: microseconds, no offset */
	s->ifs[s->nif++] = (struct ng_if){ .resol = 6 };
	return true;
}

static bool stamp(struct ng_time *s, uint32_t iface, uint64_t t)
{
	struct ng_stamp *e;

	if (s->len == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct ng_stamp *q = reallocarray(NULL, cap, sizeof(*q));

		if (!q) {
			s->nomem = true;
			return false;
		}
		for (size_t i = 0; i < s->len; i++)
			q[i] = s->q[(s->head + i) % s->cap];
		free(s->q);
		s->q = q;
		s->cap = cap;
		s->head = 0;
	}
	e = &s->q[(s->head + s->len++) % s->cap];
	*e = (struct ng_stamp){ .t = t, .iface = iface,
				.section = s->section,
				.described = iface < s->nif };
	if (e->described)
		e->at = s->ifs[iface];
	return true;
}

/* The first 12 bytes of a block: false when the parse ends. */
static bool block(struct ng_time *s)
{
	uint32_t type, len;

	if (!s->section) {
		if (get32(s->buf, true) != BT_SHB) {
			s->usec = get32(s->buf, true) == 0xa1b2c3d4 ||
				  get32(s->buf, false) == 0xa1b2c3d4;
			return false;
		}
		if (get32(s->buf + 8, true) != BOM &&
		    get32(s->buf + 8, false) != BOM)
			return false;
		s->le = get32(s->buf + 8, true) == BOM;
		s->pcapng = true;
	}
	type = get32(s->buf, s->le);
	len = get32(s->buf + 4, s->le);
	if (len < 12 || len % 4)
		return false;
	s->left = len - 12;
	switch (type) {
	case BT_SHB:
		if (len < 28 || get32(s->buf + 8, s->le) != BOM)
			return false;
		s->section++;
		s->nif = 0;
		break;
	case BT_IDB:
		if (len < 20 || !add_if(s))
			return false;
		pass(s, 4); /* the snap length */
		option(s);
		return true;
	case BT_EPB:
	case BT_PB:
		if (len < 32)
			return false;
		s->iface = type == BT_EPB ? get32(s->buf + 8, s->le) :
					    get16(s->buf + 8, s->le);
		collect(s, S_STAMP, 8);
		return true;
	case BT_SPB:
		/* no timestamp: libpcap takes 0 on interface 0 */
		if (len < 16 || !stamp(s, 0, 0))
			return false;
		break;
	}
	next_block(s);
	return true;
}

/* buf holds what s->step waits for: false when the parse ends */
static bool step(struct ng_time *s)
{
	struct ng_if *i = s->nif ? &s->ifs[s->nif - 1] : NULL;
	uint16_t code, len;

	switch (s->step) {
	case S_BLOCK:
		return block(s);
	case S_OPT:
		code = get16(s->buf, s->le);
		len = get16(s->buf + 2, s->le);
		if (code == OPT_ENDOFOPT || ((len + 3u) & ~3u) > s->left - 4) {
			next_block(s);
		} else if (code == IF_TSRESOL && len == 1) {
			collect(s, S_RESOL, 4);
		} else if (code == IF_TSOFFSET && len == 8) {
			collect(s, S_OFF, 8);
		} else {
			pass(s, (len + 3u) & ~3u);
			option(s);
		}
		return true;
	case S_RESOL:
		i->resol = s->buf[0];
		option(s);
		return true;
	case S_OFF:
		i->off = (int64_t)get64(s->buf, s->le);
		option(s);
		return true;
	case S_STAMP:
		/* the high word first, each in the section's byte order */
		if (!stamp(s, s->iface, (uint64_t)get32(s->buf, s->le) << 32 |
						get32(s->buf + 4, s->le)))
			return false;
		next_block(s);
		return true;
	default:
		return false;
	}
}

static void feed(struct ng_time *s, uint8_t *p, size_t n)
{
	while (n && s->step != S_DONE) {
		size_t k;

		if (s->skip) {
			k = n < s->skip ? n : (size_t)s->skip;
			s->skip -= k;
		} else {
			k = s->want - s->have;
			k = n < k ? n : k;
			memcpy(s->buf + s->have, p, k);
			/* libpcap is told ns (see the top): it refuses some */
			if (s->step == S_RESOL && !s->have)
				p[0] = 9;
			s->have += (unsigned int)k;
			if (s->have == s->want) {
				s->have = 0;
				if (!step(s))
					s->step = S_DONE;
			}
		}
		p += k;
		n -= k;
	}
}

static ssize_t ng_read(void *cookie, char *buf, size_t size)
{
	struct ng_time *s = cookie;
	ssize_t n;

	/* one read: what a pipe has reaches libpcap without waiting for more */
	do
		n = read(s->fd, buf, size);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		feed(s, (uint8_t *)buf, (size_t)n);
	return n;
}

static int ng_close(void *cookie)
{
	struct ng_time *s = cookie;

	return s->fd == STDIN_FILENO ? 0 : close(s->fd);
}

FILE *ng_time_open(int fd, struct ng_time **t)
{
	cookie_io_functions_t io = { .read = ng_read, .close = ng_close };
	struct ng_time *s = calloc(1, sizeof(*s));
	FILE *f;

	*t = s;
	if (!s)
		return NULL;
	s->fd = fd;
	s->want = 12;
	f = fopencookie(s, "rb", io);
	if (!f) {
		free(s);
		*t = NULL;
	}
	return f;
}

bool ng_time_pcapng(const struct ng_time *t)
{
	return t->pcapng;
}

bool ng_time_pcap_usec(const struct ng_time *t)
{
	return t->usec;
}

/* "units of 2^-40 s, if_tsoffset -5 s, interface 1 of section 2" */
static void stamp_word(char *buf, size_t size, const struct ng_stamp *e)
{
	unsigned int n = e->at.resol & 0x7f;
	char unit[16], off[40] = "", sec[24] = "";

	if (n)
		snprintf(unit, sizeof(unit), "%s^-%u s",
			 e->at.resol & 0x80 ? "2" : "10", n);
	else
		snprintf(unit, sizeof(unit), "1 s");
	if (e->at.off)
		snprintf(off, sizeof(off), ", if_tsoffset %lld s",
			 (long long)e->at.off);
	if (e->section > 1)
		snprintf(sec, sizeof(sec), " of section %u", e->section);
	snprintf(buf, size, "units of %s%s, interface %u%s", unit, off,
		 e->iface, sec);
}

int ng_time_next(struct ng_time *t, const char *cmd, const char *path,
		 uint64_t record, uint64_t *ns)
{
	struct ng_stamp e;
	char what[128];
	int r;

	if (!t->len)
		return ddfctl_err("%s: '%s': record %llu: %s", cmd, path,
				  (unsigned long long)record,
				  t->nomem ? "no memory for its time" :
					     "its timestamp was not found");
	e = t->q[t->head];
	t->head = (t->head + 1) % t->cap;
	t->len--;
	if (!e.described)
		return ddfctl_err("%s: '%s': record %llu: interface %u has no description block",
				  cmd, path, (unsigned long long)record,
				  e.iface);
	r = stamp_ns(e.at.resol, e.at.off, e.t, ns);
	if (!r)
		return 0;
	stamp_word(what, sizeof(what), &e);
	return ddfctl_err("%s: '%s': record %llu: its timestamp %llu (%s) is %s, the %s time 64 bits of nanoseconds since 1970 hold",
			  cmd, path, (unsigned long long)record,
			  (unsigned long long)e.t, what,
			  r < 0 ? "before 1970" :
				  "after 2554-07-21 23:34:33 UTC",
			  r < 0 ? "first" : "last");
}

void ng_time_free(struct ng_time *t)
{
	if (!t)
		return;
	free(t->ifs);
	free(t->q);
	free(t);
}
