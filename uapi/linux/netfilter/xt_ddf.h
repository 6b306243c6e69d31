/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The xtables match "ddf", revision 0: whether a packet is a duplicate for
 * the filter of a named ddf rule of the namespace (see linux/ddf.h; the
 * rule may have hook none, so that only matches use it).
 *
 *   iptables -m ddf [!] --ddf-rule NAME [--ddf-mode test|test-and-insert]
 *
 * The match is true for a duplicate (false with XT_DDF_F_INVERT). It hashes
 * the packet's key with the rule's key, selectors and filter as the rule's
 * own hook would, and counts the packet, its bytes and a duplicate in the
 * rule's counters; it does not apply the rule's action (drop, mark): the
 * iptables rule's target decides. In XT_DDF_MODE_TEST_AND_INSERT (the
 * default) the key is inserted into the filter; in XT_DDF_MODE_TEST it is
 * only looked up, so that one iptables rule can ask without changing what
 * another one, or the rule's hook, will see.
 *
 * The rule must exist in the namespace when the iptables rule is added
 * (checkentry fails with ENOENT otherwise, and says why in the kernel log).
 * A rule of family ip serves only iptables, one of family ip6 only
 * ip6tables, one of family inet both (EINVAL otherwise).
 *
 * A match holds its rule: while any match uses a rule, deleting it or
 * flushing the namespace's rules over generic netlink fails with EBUSY
 * ("the rule is used by N iptables matches") and changes nothing, and the
 * module cannot be unloaded; remove the iptables rules first. (Deleting it
 * from under the matches instead would leave iptables tables that cannot
 * be replaced: iptables-legacy checks every entry again on each change.)
 * A namespace going away frees its rules once its matches are gone.
 *
 * The struct is fixed: a new field means a revision 1 with its own struct.
 * reserved must be zero; rule is the kernel's and not copied to userspace
 * (usersize = offsetof(struct xt_ddf_mtinfo, rule); iptables compares
 * rules on the bytes before it too).
 */
#ifndef _XT_DDF_H
#define _XT_DDF_H

#include <linux/types.h>
#include <linux/ddf.h>

enum xt_ddf_mode {
	XT_DDF_MODE_TEST_AND_INSERT, /* a duplicate; remember this packet */
	XT_DDF_MODE_TEST, /* a duplicate; the filter stays as it is */
	__XT_DDF_MODE_MAX
};

#define XT_DDF_MODE_MAX (__XT_DDF_MODE_MAX - 1)

enum xt_ddf_flags {
	XT_DDF_F_INVERT = 1 << 0, /* true when not a duplicate */
	__XT_DDF_F_ALL = XT_DDF_F_INVERT
};

struct nf_ddf_rule;

struct xt_ddf_mtinfo {
	char name[DDF_NAME_MAX]; /* the rule's name, NUL-terminated */
	__u8 mode; /* enum xt_ddf_mode */
	__u8 flags; /* enum xt_ddf_flags */
	__u8 reserved[6]; /* zero */

	/*
	 * kernel-private: the rule, held while the match exists; 8 bytes,
	 * 8-aligned on 32-bit systems too, so that 32-bit iptables on a
	 * 64-bit kernel needs no translation (48 bytes in all)
	 */
	union {
		struct nf_ddf_rule *rule;
		__aligned_u64 rule_space;
	};
};

#endif /* _XT_DDF_H */
