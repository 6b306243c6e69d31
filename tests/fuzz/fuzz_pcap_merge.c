// SPDX-License-Identifier: GPL-2.0
/*
 * replay's and advise's capture reader (pcap_merge.c, pcapng_time.c,
 * replay_pcapng.c, libpcap behind them) over one to three captures of
 * any bytes: the input split at each SEP, each part a file.
 *
 * Each file is first read alone, then the files merged; the merge
 * - opens when each file alone opens (its first record read);
 * - hands out every record of every file, each file's in its own order,
 *   with the time, length and bytes it has alone: none lost, none made;
 * - hands out the earliest of the records waiting, on a tie the later
 *   file's (mergecap's order);
 * - ends when every file has ended, or fails where a file alone fails,
 *   once that file's records before the failure are handed out.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddfctl.h"
#include "pcap_merge.h"
#include "fuzz_tools.h"

#define SEP "\xdd\xf0\x0d\xfe" /* between two files of the input */
#define FILES_MAX 3
#define RECORDS_MAX 4096

struct rec {
	uint64_t ns;
	uint32_t caplen, len;
	uint8_t *data;
};

struct alone {
	bool opened, failed; /* failed: after its records, a record unread */
	size_t n, next; /* records; the next to be handed out by the merge */
	struct rec r[RECORDS_MAX];
};

static struct alone files[FILES_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static void read_alone(const char *path, struct alone *a)
{
	struct pcap_merge *m = pcap_merge_open("replay", 1, &path);
	struct pcap_merge_rec rec;
	int ret;

	a->opened = !!m;
	a->failed = false;
	a->n = a->next = 0;
	if (!m)
		return;
	while ((ret = pcap_merge_next(m, &rec)) == 1 && a->n < RECORDS_MAX) {
		struct rec *r = &a->r[a->n++];

		fuzz_assert(rec.file == 0 && rec.record == a->n,
			    "record %zu of a file alone is file %u's record %llu",
			    a->n, rec.file, (unsigned long long)rec.record);
		r->ns = rec.ns;
		r->caplen = rec.h->caplen;
		r->len = rec.h->len;
		r->data = malloc(r->caplen ? r->caplen : 1);
		if (!r->data)
			abort();
		memcpy(r->data, rec.data, r->caplen);
	}
	a->failed = ret < 0;
	pcap_merge_close(m);
}

static void merge(unsigned int n, const char *const *paths)
{
	struct pcap_merge *m = pcap_merge_open("replay", n, paths);
	struct pcap_merge_rec rec;
	bool all = true;
	int ret;

	for (unsigned int i = 0; i < n; i++)
		all &= files[i].opened;
	fuzz_assert(!!m == all, "the merge %s, yet %s",
		    m ? "opens" : "does not open",
		    all ? "each file opens alone" : "a file alone does not");
	if (!m)
		return;
	while ((ret = pcap_merge_next(m, &rec)) == 1) {
		struct alone *a;
		const struct rec *r;

		fuzz_assert(rec.file < n, "a record of file %u of %u",
			    rec.file, n);
		a = &files[rec.file];
		if (a->next == RECORDS_MAX)
			break; /* beyond what was read alone */
		fuzz_assert(a->next < a->n,
			    "file %u hands out record %llu, alone it has %zu",
			    rec.file, (unsigned long long)rec.record, a->n);
		r = &a->r[a->next++];
		fuzz_assert(rec.record == a->next,
			    "file %u's record %zu is numbered %llu", rec.file,
			    a->next, (unsigned long long)rec.record);
		fuzz_assert(rec.ns == r->ns && rec.h->caplen == r->caplen &&
			    rec.h->len == r->len &&
			    !memcmp(rec.data, r->data, r->caplen),
			    "file %u's record %zu is not as it is alone (ns %llu, alone %llu)",
			    rec.file, a->next, (unsigned long long)rec.ns,
			    (unsigned long long)r->ns);
		/* the records waiting in the other files come after it */
		for (unsigned int g = 0; g < n; g++) {
			const struct alone *o = &files[g];

			if (g == rec.file || o->next >= o->n)
				continue;
			fuzz_assert(o->r[o->next].ns > rec.ns ||
				    (o->r[o->next].ns == rec.ns && g < rec.file),
				    "file %u's record %zu (ns %llu) handed out before file %u's record %zu (ns %llu)",
				    rec.file, a->next, (unsigned long long)rec.ns,
				    g, o->next + 1,
				    (unsigned long long)o->r[o->next].ns);
		}
	}
	if (ret == 0) {
		for (unsigned int i = 0; i < n; i++)
			fuzz_assert(files[i].next == files[i].n &&
				    !files[i].failed,
				    "the merge ends with file %u at record %zu of %zu%s",
				    i, files[i].next, files[i].n,
				    files[i].failed ? ", which fails alone" : "");
	} else if (ret < 0) {
		bool why = false;

		for (unsigned int i = 0; i < n; i++)
			why |= files[i].failed && files[i].next == files[i].n;
		fuzz_assert(why, "the merge fails where no file alone does");
	}
	pcap_merge_close(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[FILES_MAX][32];
	const char *paths[FILES_MAX];
	int fd[FILES_MAX];
	unsigned int n = 0;
	const uint8_t *p = data, *end = data + size;

	while (n < FILES_MAX) {
		const uint8_t *sep = memmem(p, (size_t)(end - p), SEP, 4);
		const uint8_t *e = sep && n + 1 < FILES_MAX ? sep : end;

		fd[n] = fuzz_memfd(p, (size_t)(e - p));
		snprintf(path[n], sizeof(path[n]), "/proc/self/fd/%d", fd[n]);
		paths[n] = path[n];
		n++;
		if (e == end)
			break;
		p = e + 4;
	}
	for (unsigned int i = 0; i < n; i++)
		read_alone(paths[i], &files[i]);
	merge(n, paths);
	for (unsigned int i = 0; i < n; i++) {
		for (size_t j = 0; j < files[i].n; j++)
			free(files[i].r[j].data);
		close(fd[i]);
	}
	return 0;
}
