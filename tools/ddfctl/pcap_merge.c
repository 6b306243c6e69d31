// SPDX-License-Identifier: GPL-2.0
/*
 * Several captures merged by time: see pcap_merge.h. A binary heap holds
 * the files that have a record waiting, ordered by that record's time and
 * then the file's index; libpcap keeps each file's waiting record in its
 * own buffer, so a record handed out stays valid until the next call, when
 * its file is read on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddfctl.h"
#include "pcap_merge.h"
#include "pcapng_time.h"

struct head {
	uint64_t ns;
	unsigned int file;
};

struct pcap_merge {
	const char *cmd;
	unsigned int n, nheap;
	int handed; /* the file of the record handed out last, or -1 */
	struct head *heap;
	/* each file's waiting record, from libpcap's buffer */
	const struct pcap_pkthdr **h;
	const u_char **d;
	struct pcap_pkthdr *ng_h; /* a pcapng record's, stamped from the file */
	struct pcap_merge_file *f;
};

static bool earlier(const struct head *a, const struct head *b)
{
	/* equal times: the later file's first, as mergecap takes them */
	return a->ns < b->ns || (a->ns == b->ns && a->file > b->file);
}

static void heap_push(struct pcap_merge *m, struct head x)
{
	unsigned int i = m->nheap++;

	while (i && earlier(&x, &m->heap[(i - 1) / 2])) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = x;
}

static struct head heap_pop(struct pcap_merge *m)
{
	struct head top = m->heap[0], x = m->heap[--m->nheap];
	unsigned int i = 0;

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap && earlier(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!earlier(&m->heap[c], &x))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = x;
	return top;
}

/*
 * A pcap file's record's time in ns. Its seconds and fraction are unsigned
 * 32-bit fields, but libpcap sign-extends them where the file is in the
 * host's byte order and not where it swaps them: a file stamped past 2038
 * (or with a fraction past 2^31) would be stamped differently on a little-
 * and a big-endian host, and replay would decide differently. Taken as the
 * format defines them. At most 2^32 s: no wrap in 64 bits of ns.
 */
static uint64_t rec_ns(const struct pcap_merge_file *f,
		       const struct pcap_pkthdr *h)
{
	uint64_t s = (uint64_t)h->ts.tv_sec, frac = (uint64_t)h->ts.tv_usec;

	if (h->ts.tv_sec < 0)
		s = (uint32_t)h->ts.tv_sec;
	if (h->ts.tv_usec < 0) /* in ns: a file's microseconds times 1000 */
		frac = f->usec ?
			(uint64_t)(uint32_t)(h->ts.tv_usec / 1000) * 1000 :
			(uint32_t)h->ts.tv_usec;
	return s * 1000000000ull + frac;
}

/* Read file i's next record onto the heap: 0, or -1 after a sentence. */
static int read_on(struct pcap_merge *m, unsigned int i)
{
	struct pcap_merge_file *f = &m->f[i];
	struct pcap_pkthdr *h;
	const u_char *d;
	int ret = pcap_next_ex(f->pcap, &h, &d);

	if (ret == 1) {
		uint64_t ns;

		if (ng_time_pcapng(f->times)) {
			/* the file's own time (pcapng_time.h), not libpcap's */
			if (ng_time_next(f->times, m->cmd, f->path,
					 f->records + 1, &ns))
				return -1;
			m->ng_h[i] = *h;
			m->ng_h[i].ts.tv_sec = (time_t)(ns / 1000000000);
			m->ng_h[i].ts.tv_usec = (suseconds_t)(ns % 1000000000);
			h = &m->ng_h[i];
		} else {
			ns = rec_ns(f, h);
		}
		m->h[i] = h;
		m->d[i] = d;
		/* read in ns precision: tv_usec holds nanoseconds */
		heap_push(m, (struct head){ ns, i });
		return 0;
	}
	if (ret == PCAP_ERROR_BREAK)
		return 0; /* the end of the file */
	return pcapng_read_error(m->cmd, f->path,
				 (unsigned long long)f->records,
				 pcap_geterr(f->pcap));
}

/* Open one file in ns precision; 0, or -1 after a sentence. */
static int open_file(const char *cmd, struct pcap_merge_file *f)
{
	char err[PCAP_ERRBUF_SIZE] = "";
	int fd = STDIN_FILENO;
	FILE *in;

	if (strcmp(f->path, "-")) {
		if (pcapng_check_ifaces(cmd, f->path))
			return -1;
		fd = open(f->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return ddfctl_err("%s: '%s': %s", cmd, f->path,
					  strerror(errno));
	}
	/* libpcap reads through it: closing it closes fd */
	in = ng_time_open(fd, &f->times);
	if (!in) {
		if (fd != STDIN_FILENO)
			close(fd);
		return ddfctl_err("%s: '%s': no memory", cmd, f->path);
	}
	f->pcap = pcap_fopen_offline_with_tstamp_precision(
		in, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!f->pcap) {
		fclose(in);
		ng_time_free(f->times);
		f->times = NULL;
		return ddfctl_err("%s: '%s' is not a capture libpcap reads: %s",
				  cmd, f->path, err);
	}
	f->usec = ng_time_pcap_usec(f->times);
	f->dlt = pcap_datalink(f->pcap);
	f->snaplen = pcap_snapshot(f->pcap);
	return 0;
}

struct pcap_merge *pcap_merge_open(const char *cmd, unsigned int n,
				   const char *const *paths)
{
	struct pcap_merge *m = calloc(1, sizeof(*m));
	bool stdin_used = false;

	if (!m || !(m->heap = calloc(n, sizeof(*m->heap))) ||
	    !(m->h = calloc(n, sizeof(*m->h))) ||
	    !(m->d = calloc(n, sizeof(*m->d))) ||
	    !(m->ng_h = calloc(n, sizeof(*m->ng_h))) ||
	    !(m->f = calloc(n, sizeof(*m->f)))) {
		ddfctl_err("%s: no memory for %u captures", cmd, n);
		pcap_merge_close(m);
		return NULL;
	}
	m->cmd = cmd;
	m->handed = -1;
	for (unsigned int i = 0; i < n; i++) {
		m->f[i].path = paths[i];
		if (!strcmp(paths[i], "-")) {
			if (stdin_used) {
				ddfctl_err("%s: standard input ('-') is given twice",
					   cmd);
				goto fail;
			}
			stdin_used = true;
		}
	}
	for (unsigned int i = 0; i < n; i++, m->n++)
		if (open_file(cmd, &m->f[i]))
			goto fail;
	/* every file's first record, so that a file unread fails here */
	for (unsigned int i = 0; i < n; i++)
		if (read_on(m, i))
			goto fail;
	return m;
fail:
	pcap_merge_close(m);
	return NULL;
}

int pcap_merge_next(struct pcap_merge *m, struct pcap_merge_rec *rec)
{
	struct head top;

	/* the record handed out last is done with: its file reads on */
	if (m->handed >= 0) {
		unsigned int i = (unsigned int)m->handed;

		m->handed = -1;
		if (read_on(m, i))
			return -1;
	}
	if (!m->nheap)
		return 0;
	top = heap_pop(m);
	m->handed = (int)top.file;
	rec->file = top.file;
	rec->record = ++m->f[top.file].records;
	rec->ns = top.ns;
	rec->h = m->h[top.file];
	rec->data = m->d[top.file];
	return 1;
}

unsigned int pcap_merge_nfiles(const struct pcap_merge *m)
{
	return m->n;
}

const struct pcap_merge_file *pcap_merge_file(const struct pcap_merge *m,
					      unsigned int i)
{
	return &m->f[i];
}

void pcap_merge_close(struct pcap_merge *m)
{
	if (!m)
		return;
	for (unsigned int i = 0; m->f && i < m->n; i++) {
		if (m->f[i].pcap)
			pcap_close(m->f[i].pcap);
		ng_time_free(m->f[i].times);
	}
	free(m->f);
	free(m->ng_h);
	free(m->d);
	free(m->h);
	free(m->heap);
	free(m);
}
