// SPDX-License-Identifier: GPL-2.0
/*
 * The interfaces of a pcapng file, for ddfctl replay (pcap_merge.c).
 * libpcap gives a pcapng file one link type and one snap length, those of
 * its first interface, and fails on an interface description block that
 * differs, wherever the block is: often before the first record, which
 * replay then reported as an error at "record 1". So the blocks of a pcapng file are
 * walked before anything is read (headers only, skipping the bodies) and
 * the first interface that differs is named, with its values and the
 * first interface's, before a record is replayed or an output written.
 * When the input cannot be walked ahead (standard input), libpcap's own
 * error is explained where it happens: see pcapng_read_error().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <pcap/pcap.h>

#include "ddfctl.h"

#define BT_SHB 0x0a0d0d0au /* section header: the same in both orders */
#define BT_IDB 0x00000001u /* interface description */
#define BOM 0x1a2b3c4du
#define SNAP_MAX 262144u /* libpcap's largest snap length for most types */

static const char why[] =
	"libpcap reads a pcapng file only when all its interfaces have one link type and one snap length; split the file per interface first (e.g. with tshark's frame.interface_id) and give each part as a FILE";

struct iface {
	unsigned int section, id;
	uint32_t linktype, snaplen;
};

static uint32_t get32(const uint8_t *p, bool swap)
{
	return swap ? (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
			      (uint32_t)p[1] << 8 | p[0] :
		      (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			      (uint32_t)p[2] << 8 | p[3];
}

/* libpcap's reading of a snap length: 0 or too large is the largest */
static uint32_t snap(uint32_t s)
{
	return s && s <= SNAP_MAX ? s : SNAP_MAX;
}

static void link_word(char *buf, size_t size, uint32_t linktype)
{
	const char *name = pcap_datalink_val_to_name((int)linktype);

	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%u", linktype);
}

/* "interface 1" or, in a file of several sections, "interface 1 of section 2" */
static void iface_word(char *buf, size_t size, const struct iface *i,
		       bool sections)
{
	if (sections)
		snprintf(buf, size, "interface %u of section %u", i->id,
			 i->section);
	else
		snprintf(buf, size, "interface %u", i->id);
}

static int differ(const char *cmd, const char *path,
		  const struct iface *first,
		  const struct iface *i)
{
	char a[64], b[64], la[32], lb[32];
	bool sections = i->section > 1;

	iface_word(a, sizeof(a), i, sections);
	iface_word(b, sizeof(b), first, sections);
	if (i->linktype != first->linktype) {
		link_word(la, sizeof(la), i->linktype);
		link_word(lb, sizeof(lb), first->linktype);
		return ddfctl_err("%s: '%s': %s has link type %s, %s %s: %s",
				  cmd, path, a, la, b, lb, why);
	}
	return ddfctl_err("%s: '%s': %s has snap length %u, %s %u: %s",
			  cmd, path, a, i->snaplen, b, first->snaplen, why);
}

/*
 * 0 when path is no pcapng file, or one whose interfaces agree, or one
 * that cannot be walked (libpcap then says what is wrong); -1 after a
 * sentence naming the first interface that differs from the first one.
 */
int pcapng_check_ifaces(const char *cmd, const char *path)
{
	struct iface first = { 0 }, cur = { 0 };
	bool have = false, swap = false;
	uint8_t h[16];
	off_t at = 0;
	FILE *f;
	int ret = 0;

	if (!strcmp(path, "-") || !(f = fopen(path, "rb")))
		return 0;
	for (;;) {
		uint32_t type, len;

		if (fseeko(f, at, SEEK_SET) || fread(h, 1, 12, f) != 12)
			break;
		type = get32(h, false);
		if (type == BT_SHB) {
			if (get32(h + 8, false) == BOM)
				swap = false;
			else if (get32(h + 8, true) == BOM)
				swap = true;
			else
				break;
			cur.section++;
			cur.id = 0;
		} else if (!cur.section) {
			break; /* not pcapng */
		}
		type = get32(h, swap);
		len = get32(h + 4, swap);
		if (len < 12 || len % 4)
			break;
		if (type == BT_IDB) {
			if (len < 20 || fread(h + 12, 1, 4, f) != 4)
				break;
			/* link type (16 bits), reserved, snap length */
			cur.linktype = swap ? (uint32_t)(h[9] << 8 | h[8]) :
					      (uint32_t)(h[8] << 8 | h[9]);
			cur.snaplen = get32(h + 12, swap);
			if (!have) {
				first = cur;
				have = true;
			} else if (cur.linktype != first.linktype ||
				   snap(cur.snaplen) != snap(first.snaplen)) {
				ret = differ(cmd, path, &first, &cur);
				break;
			}
			cur.id++;
		}
		at += len;
	}
	fclose(f);
	return ret;
}

/*
 * libpcap's error after records were read: when it is about an interface
 * that differs (input that could not be walked ahead), say which rule of
 * libpcap's it broke; -1 after the sentence.
 */
int pcapng_read_error(const char *cmd, const char *path,
		      unsigned long long records, const char *msg)
{
	if (!strncmp(msg, "an interface has ", 17)) {
		if (records)
			return ddfctl_err("%s: '%s': after record %llu: %s: %s",
					  cmd, path, records, msg, why);
		return ddfctl_err("%s: '%s': before the first record: %s: %s",
				  cmd, path, msg, why);
	}
	return ddfctl_err("%s: '%s': record %llu: %s", cmd, path, records + 1,
			  msg);
}
