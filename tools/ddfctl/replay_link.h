/* SPDX-License-Identifier: GPL-2.0 */
/* The IP packet behind a record's link layer, for ddfctl replay. */
#ifndef DDFCTL_REPLAY_LINK_H
#define DDFCTL_REPLAY_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <pcap/pcap.h>

#include "ddf_key.h"

/* The link types replay finds an IP packet in. */
bool replay_link_known(int dlt);
/*
 * Where the IP packet of a record of link type dlt starts (*l3), and the
 * version its link layer names (*ver; 0: the packet's own version nibble
 * decides, raw IP). False when the record carries no IPv4 or IPv6 packet.
 */
bool replay_record_l3(int dlt, const uint8_t *d, uint32_t n, uint32_t *l3,
		      uint8_t *ver);

/* replay_key()'s verdicts, as the module counts a packet */
enum replay_key_result {
	RK_HASHED, /* *hash is the packet's key */
	RK_UNPARSED, /* IP, but unusable: the module's unparsed */
	RK_SKIPPED, /* another family or protocol: not the rule's */
	RK_NOT_IP, /* no IP packet behind the link layer (not netdev) */
};

/*
 * The key of one record of link type dlt as a rule with key spec and hash
 * algorithm alg keys it: netdev, the whole Ethernet frame as a netdev hook
 * hands it over (the caller checks dlt is Ethernet); otherwise the IP
 * packet behind the link layer, or every byte with key frame. ddfctl
 * replay and ddfctl advise key records through it alone, so they agree.
 */
enum replay_key_result replay_key(const struct ddf_key_spec *spec,
				  bool netdev, uint8_t alg,
				  const struct ddf_key_secret *key, int dlt,
				  const uint8_t *d, uint32_t caplen,
				  struct ddf_hash *hash,
				  struct ddf_key_info *ki);

#endif
