// SPDX-License-Identifier: GPL-2.0
/*
 * The policies of the generic netlink family "ddf": every attribute's type,
 * range, mask and length, checked before a handler runs. Apart from the
 * handlers so that the KUnit suite can feed them bad attribute sets.
 */
#include <linux/netfilter.h>
#include <net/netlink.h>

#include "nf_ddf.h"

static struct netlink_range_validation nf_ddf_max_bytes_range = {
	.min = 1,
	.max = DDF_KEY_MAX_BYTES_MAX,
};

/* 0: a kind without a window (SBF family); resolve() says which may */
static struct netlink_range_validation nf_ddf_window_range = {
	.min = 0,
	.max = DDF_MAX_WINDOW,
};

static struct netlink_range_validation nf_ddf_window_ns_range = {
	.min = DDF_MIN_WINDOW_NS,
	.max = DDF_MAX_WINDOW_NS,
};

static struct netlink_range_validation nf_ddf_port_range = {
	.min = 1,
	.max = 65535,
};

const struct nla_policy nf_ddf_key_policy[DDF_KEY_A_MAX + 1] = {
	[DDF_KEY_A_FORM] = NLA_POLICY_MAX(NLA_U8, __DDF_KEY_TYPE_MAX - 1),
	[DDF_KEY_A_FIELDS] = NLA_POLICY_MASK(NLA_U32, __DDF_KEY_FIELD_ALL),
	[DDF_KEY_A_IGNORE] = NLA_POLICY_MASK(NLA_U32, __DDF_KEY_IGNORE_ALL),
	[DDF_KEY_A_MAX_BYTES] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &nf_ddf_max_bytes_range),
	[DDF_KEY_A_PAYLOAD_OFF] =
		NLA_POLICY_MAX(NLA_U16, DDF_KEY_PAYLOAD_LIMIT - 1),
	[DDF_KEY_A_PAYLOAD_LEN] =
		NLA_POLICY_RANGE(NLA_U16, 1, DDF_KEY_PAYLOAD_LIMIT),
	[DDF_KEY_A_DECAP] = NLA_POLICY_MASK(NLA_U32, __DDF_KEY_DECAP_ALL),
	[DDF_KEY_A_VXLAN_PORT] =
		NLA_POLICY_FULL_RANGE(NLA_U16, &nf_ddf_port_range),
	[DDF_KEY_A_GENEVE_PORT] =
		NLA_POLICY_FULL_RANGE(NLA_U16, &nf_ddf_port_range),
};

const struct nla_policy nf_ddf_filter_policy[DDF_FILTER_A_MAX + 1] = {
	[DDF_FILTER_A_PAD] = { .type = NLA_REJECT },
	[DDF_FILTER_A_KIND] = NLA_POLICY_RANGE(NLA_U32, 1, __DDF_FILTER_MAX - 1),
	[DDF_FILTER_A_WINDOW] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &nf_ddf_window_range),
	[DDF_FILTER_A_WINDOW_NS] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &nf_ddf_window_ns_range),
	[DDF_FILTER_A_K] = NLA_POLICY_MAX(NLA_U32, DDF_MAX_K),
	[DDF_FILTER_A_L] = NLA_POLICY_MAX(NLA_U32, DDF_MAX_L),
	[DDF_FILTER_A_M] = { .type = NLA_U64 },
	[DDF_FILTER_A_BLOCK_BITS] = NLA_POLICY_MAX(NLA_U32, 512),
	[DDF_FILTER_A_BLOCK_HASHES] = NLA_POLICY_MAX(NLA_U32, 64),
	[DDF_FILTER_A_FP_BITS] = NLA_POLICY_MAX(NLA_U32, 64),
	[DDF_FILTER_A_CELL_BITS] = NLA_POLICY_MAX(NLA_U32, 64),
	[DDF_FILTER_A_DECREMENTS] = { .type = NLA_U32 },
	[DDF_FILTER_A_INNER_KIND] =
		NLA_POLICY_MAX(NLA_U32, __DDF_FILTER_MAX - 1),
	[DDF_FILTER_A_SUBFILTERS] = NLA_POLICY_MAX(NLA_U32, DDF_MAX_L),
	[DDF_FILTER_A_P_STAR] = { .type = NLA_U32 },
	[DDF_FILTER_A_SEED] = NLA_POLICY_EXACT_LEN(DDF_SEED_LEN),
	[DDF_FILTER_A_HASH] = NLA_POLICY_MAX(NLA_U8, __DDF_HASH_ALG_MAX - 1),
	[DDF_FILTER_A_BYTES] = { .type = NLA_REJECT }, /* reply only */
	[DDF_FILTER_A_CPUS] = NLA_POLICY_MAX(NLA_U32, DDF_MAX_CPUS),
};

const struct nla_policy nf_ddf_action_policy[DDF_ACTION_A_MAX + 1] = {
	[DDF_ACTION_A_TYPE] = NLA_POLICY_MAX(NLA_U8, __DDF_ACTION_MAX - 1),
	[DDF_ACTION_A_MARK] = { .type = NLA_U32 },
	[DDF_ACTION_A_MASK] = { .type = NLA_U32 },
};

const struct nla_policy nf_ddf_dev_policy[DDF_DEV_A_MAX + 1] = {
	[DDF_DEV_A_NAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[DDF_DEV_A_IFINDEX] = { .type = NLA_REJECT }, /* reply only */
	[DDF_DEV_A_GIVEN] = { .type = NLA_REJECT }, /* reply only */
	[DDF_DEV_A_STATS] = { .type = NLA_REJECT }, /* reply only */
};

/* a device per attribute type, 1 .. DDF_DEVS_MAX: more is refused here */
static const struct nla_policy nf_ddf_devs_policy[DDF_DEVS_MAX + 1] = {
	[1 ... DDF_DEVS_MAX] = NLA_POLICY_NESTED(nf_ddf_dev_policy),
};

/*
 * Rule names are printable ASCII without space (0x21-0x7e), so that every
 * output (text, JSON, Prometheus labels, save files) carries them as they
 * are: two names that differ only in bytes outside UTF-8 would otherwise
 * print alike. The policy has found the NUL within DDF_NAME_MAX bytes.
 */
static int nf_ddf_name_validate(const struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	const u8 *p = nla_data(attr);

	if (!*p) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "empty rule name");
		return -EINVAL;
	}
	for (; *p; p++) {
		if (*p < 0x21 || *p > 0x7e) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "a rule name is printable ASCII without space (0x21-0x7e)");
			return -EINVAL;
		}
	}
	return 0;
}

const struct nla_policy nf_ddf_policy[DDF_A_MAX + 1] = {
	[DDF_A_PAD] = { .type = NLA_REJECT },
	[DDF_A_NAME] = NLA_POLICY_VALIDATE_FN(NLA_NUL_STRING,
					      nf_ddf_name_validate,
					      DDF_NAME_MAX - 1),
	/*
	 * Values checked by nf_ddf_rule_parse(): a validation function on an
	 * integer breaks the policy dump of an extended ack (a wrong length),
	 * which 6.12 reads as a range and warns about.
	 */
	[DDF_A_FAMILY] = { .type = NLA_U8 },
	[DDF_A_HOOK] = { .type = NLA_U8 },
	[DDF_A_PRIORITY] = { .type = NLA_S32 },
	[DDF_A_IIFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[DDF_A_OIFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[DDF_A_L4PROTO] = { .type = NLA_U8 },
	[DDF_A_KEY] = NLA_POLICY_NESTED(nf_ddf_key_policy),
	[DDF_A_FILTER] = NLA_POLICY_NESTED(nf_ddf_filter_policy),
	[DDF_A_ACTION] = NLA_POLICY_NESTED(nf_ddf_action_policy),
	[DDF_A_STATS] = { .type = NLA_REJECT }, /* reply only */
	[DDF_A_RESET_FLAGS] = NLA_POLICY_MASK(NLA_U32, __DDF_RESET_F_ALL),
	[DDF_A_DEV] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[DDF_A_DEV_IFINDEX] = { .type = NLA_REJECT }, /* reply only */
	[DDF_A_ID] = { .type = NLA_REJECT }, /* reply only */
	[DDF_A_DEVS] = NLA_POLICY_NESTED(nf_ddf_devs_policy),
};
