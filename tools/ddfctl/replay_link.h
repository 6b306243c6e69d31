/* SPDX-License-Identifier: GPL-2.0 */
/* The IP packet behind a record's link layer, for ddfctl replay. */
#ifndef DDFCTL_REPLAY_LINK_H
#define DDFCTL_REPLAY_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <pcap/pcap.h>

/* The link types replay finds an IP packet in. */
bool replay_link_known(int dlt);
/*
 * Where the IP packet of a record of link type dlt starts (*l3), and the
 * version its link layer names (*ver; 0: the packet's own version nibble
 * decides, raw IP). False when the record carries no IPv4 or IPv6 packet.
 */
bool replay_record_l3(int dlt, const uint8_t *d, uint32_t n, uint32_t *l3,
		      uint8_t *ver);

#endif
