// SPDX-License-Identifier: GPL-2.0
/*
 * Where the IP packet of a capture's record starts, by its link type, for
 * ddfctl replay (see replay.c for which link types and why).
 */
#include "replay_link.h"

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * Behind an ethertype whose payload starts at pay: skip VLAN tags (each
 * 2 bytes of TCI and the inner ethertype), then IPv4 or IPv6. The IP
 * version the link layer names goes to *ver; false when it names neither.
 */
static bool ether_l3(const uint8_t *d, uint32_t n, uint16_t type,
		     uint32_t pay, uint32_t *l3, uint8_t *ver)
{
	while (type == 0x8100 || type == 0x88a8 || type == 0x9100) {
		if (pay + 4 > n)
			return false;
		type = be16(d + pay + 2);
		pay += 4;
	}
	if (type == 0x0800)
		*ver = 4;
	else if (type == 0x86dd)
		*ver = 6;
	else
		return false;
	*l3 = pay;
	return true;
}

/* BSD loopback: an address family, in either byte order for DLT_NULL */
static bool loop_l3(const uint8_t *d, uint32_t n, bool any_order,
		    uint8_t *ver)
{
	uint32_t be, le;

	if (n < 4)
		return false;
	be = (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
	     (uint32_t)d[2] << 8 | d[3];
	le = (uint32_t)d[3] << 24 | (uint32_t)d[2] << 16 |
	     (uint32_t)d[1] << 8 | d[0];
	for (int i = 0; i < (any_order ? 2 : 1); i++) {
		uint32_t af = i ? le : be;

		if (af == 2) {
			*ver = 4;
			return true;
		}
		/* AF_INET6: Linux, NetBSD/OpenBSD, FreeBSD, Darwin */
		if (af == 10 || af == 24 || af == 28 || af == 30) {
			*ver = 6;
			return true;
		}
	}
	return false;
}

bool replay_link_known(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_NULL:
	case DLT_LOOP:
		return true;
	}
	return false;
}

bool replay_record_l3(int dlt, const uint8_t *d, uint32_t n, uint32_t *l3,
		      uint8_t *ver)
{
	*ver = 0;
	switch (dlt) {
	case DLT_EN10MB:
		return n >= 14 && ether_l3(d, n, be16(d + 12), 14, l3, ver);
	case DLT_LINUX_SLL: /* 16 bytes, the protocol at 14 */
		return n >= 16 && ether_l3(d, n, be16(d + 14), 16, l3, ver);
	case DLT_LINUX_SLL2: /* 20 bytes, the protocol at 0 */
		return n >= 20 && ether_l3(d, n, be16(d), 20, l3, ver);
	case DLT_NULL:
	case DLT_LOOP:
		*l3 = 4;
		return loop_l3(d, n, dlt == DLT_NULL, ver);
	case DLT_IPV4:
		*ver = 4;
		*l3 = 0;
		return true;
	case DLT_IPV6:
		*ver = 6;
		*l3 = 0;
		return true;
	case DLT_RAW:
		*l3 = 0;
		return true;
	}
	return false;
}

enum replay_key_result replay_key(const struct ddf_key_spec *spec,
				  bool netdev, uint8_t alg,
				  const struct ddf_key_secret *key, int dlt,
				  const uint8_t *d, uint32_t caplen,
				  struct ddf_hash *hash, struct ddf_key_info *ki)
{
	struct ddf_key_flat flat = { d, caplen };
	uint32_t l3 = 0;
	uint8_t ver = 0;
	int ret;

	if (netdev) {
		/* the frame as a netdev hook has it, no tag taken out */
		const struct ddf_key_link lk = { DDF_LINK_ETHER, 0, 0 };

		ret = ddf_key_hash_link(spec, &lk, NULL, &flat, flat.len, key,
					alg, hash, ki);
		goto hashed;
	}
	if (spec->form != DDF_KEY_FRAME) {
		if (!replay_record_l3(dlt, d, caplen, &l3, &ver))
			return RK_NOT_IP;
		flat.data = d + l3;
		flat.len = caplen - l3;
		/*
		 * The link layer names the hook's family: a rule of the other
		 * family never sees the packet; one of this family counts a
		 * packet of another version unparsed, as the module does.
		 */
		if (ver && spec->family && spec->family != ver)
			return RK_SKIPPED;
		if (ver && flat.len && flat.data[0] >> 4 != ver)
			return RK_UNPARSED;
	}
	ret = ddf_key_hash(spec, NULL, &flat, flat.len, key, alg, hash, ki);
hashed:
	switch (ret) {
	case DDF_KEY_HASHED:
		return RK_HASHED;
	case DDF_KEY_NOT_IP:
	case DDF_KEY_MALFORMED:
		return RK_UNPARSED;
	default: /* another family or protocol: not this rule's */
		return RK_SKIPPED;
	}
}
