/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Several captures read as one stream, in timestamp order: one capture per
 * port of a capture box, the copies of a packet spread over them. Streamed:
 * one open reader per file and a heap of their next records, never a whole
 * file in memory.
 *
 * The order is mergecap's: the record with the earliest timestamp first;
 * of records with equal timestamps, the one of the file given last first
 * (mergecap takes a later file's record on a tie); each file's records in
 * the file's own order (a record stamped earlier than the one before it in
 * the same file is not moved ahead of it). Timestamps are compared in
 * nanoseconds, whatever each file's resolution: pcap in microseconds or
 * nanoseconds, pcapng with any if_tsresol (pcapng_time.h). So
 * replay over A B decides as replay over mergecap's merge of A B.
 *
 * Each file keeps its link type and snap length: a record says which file
 * it came from.
 */
#ifndef DDFCTL_PCAP_MERGE_H
#define DDFCTL_PCAP_MERGE_H

#include <stdbool.h>
#include <stdint.h>
#include <pcap/pcap.h>

struct ng_time;

struct pcap_merge_file {
	const char *path; /* as given; "-" is standard input */
	pcap_t *pcap; /* read in nanoseconds */
	int dlt; /* its link type */
	int snaplen;
	bool usec; /* a pcap file stamped in microseconds */
	struct ng_time *times; /* a pcapng file's times, from its bytes */
	uint64_t records; /* handed out so far */
};

struct pcap_merge_rec {
	unsigned int file; /* index into the paths given */
	uint64_t record; /* its number in that file, from 1 */
	uint64_t ns; /* its timestamp */
	const struct pcap_pkthdr *h; /* ts.tv_usec holds nanoseconds */
	const uint8_t *data; /* h->caplen bytes */
};

struct pcap_merge;

/*
 * Open the n files and read the first record of each; NULL after a
 * sentence naming the file (cmd begins it, as "replay"). "-" may be given
 * once. A pcapng file whose interfaces libpcap cannot read together is
 * refused here, before any record is handed out.
 */
struct pcap_merge *pcap_merge_open(const char *cmd, unsigned int n,
				   const char *const *paths);
/*
 * The next record of the merge into *rec, its header and bytes valid until
 * the next call: 1; 0 when every file is read; -1 after a sentence naming
 * the file and the record in it that could not be read (a file cut short,
 * a read error).
 */
int pcap_merge_next(struct pcap_merge *m, struct pcap_merge_rec *rec);
unsigned int pcap_merge_nfiles(const struct pcap_merge *m);
const struct pcap_merge_file *pcap_merge_file(const struct pcap_merge *m,
					      unsigned int i);
void pcap_merge_close(struct pcap_merge *m);

#endif
