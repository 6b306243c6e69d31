/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pcapng file's record times, read from its bytes on their way to
 * libpcap (pcapng_time.c). libpcap converts a pcapng timestamp itself, and
 * not for every resolution the format allows (if_tsresol 10^-n or 2^-n s,
 * n up to 127): it refuses one finer than 10^-19 or 2^-63 s, and the
 * fraction of a second it makes of a 2^-35 s or finer stamp wraps in 64
 * bits. Here each packet block's timestamp is taken as the file holds it
 * and made nanoseconds since 1970 exactly; libpcap's times of a pcapng
 * file go unused.
 */
#ifndef DDFCTL_PCAPNG_TIME_H
#define DDFCTL_PCAPNG_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ng_time;

/*
 * The stream libpcap is to read: every byte of fd, passed on. Closing it
 * closes fd, unless fd is standard input; *t outlives it and is freed by
 * ng_time_free(). NULL when there is no memory.
 */
FILE *ng_time_open(int fd, struct ng_time **t);
/* What the stream is (known once libpcap has opened it). */
bool ng_time_pcapng(const struct ng_time *t);
bool ng_time_pcap_usec(const struct ng_time *t); /* pcap in microseconds */
/*
 * The time of the record libpcap handed out last (record, from 1, of the
 * file at path), in ns since 1970: 0, or -1 after a sentence (cmd begins
 * it) when that time is before 1970 or after what 64 bits of nanoseconds
 * hold (2554-07-21 23:34:33 UTC).
 */
int ng_time_next(struct ng_time *t, const char *cmd, const char *path,
		 uint64_t record, uint64_t *ns);
void ng_time_free(struct ng_time *t);

#endif
