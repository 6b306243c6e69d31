/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GET replies as the kernel writes them, for the printers' tests: a rule
 * as rule add's words, and what only replies carry (its name as given,
 * counters, devices and their names as given).
 */
#ifndef RULE_REPLY_H
#define RULE_REPLY_H

#include <stdint.h>
#include <linux/ddf.h>

/* packets bytes duplicates dropped marked unparsed */
#define NCTR 6

struct dev_reply {
	const char *name, *given;
	uint32_t ifindex;
	uint64_t c[NCTR];
};

struct rule_reply {
	const char *words; /* rule add's, after the name */
	const char *name;
	uint64_t bytes; /* the filter's memory */
	uint64_t c[NCTR];
	uint64_t generation;
	uint32_t fill_ppm;
	unsigned int ndevs;
	struct dev_reply devs[DDF_DEVS_MAX];
};

/* r's reply (a dump's: NLM_F_MULTI) in buf of 16 KiB; NULL: bad words */
struct nlmsghdr *rule_reply(const struct rule_reply *r, char *buf);

/*
 * A GET reply made of rule add's request rq, whose attributes the kernel
 * reports back: reply_start() writes rq's headers into buf, then
 * reply_put_request() rq's attributes but those of the types in skip
 * (1u << DDF_A_*), and in the filter's nest the hash, which a reply always
 * carries and a request may leave out, and the bytes the filter holds.
 */
struct nlmsghdr *reply_start(const struct nlmsghdr *rq, char *buf);
void reply_put_request(struct nlmsghdr *nlh, const struct nlmsghdr *rq,
		       uint8_t hash_alg, uint64_t bytes, uint32_t skip);

/*
 * Netdev rules named with every byte the kernel takes in a rule's name
 * (printable ASCII without space), and their ports' names every byte a
 * device's may (dev_valid_name()),
 * with ports whose names differ in bytes that are not UTF-8 only, and
 * ports of the same name beside one whose name is that and "#2". Into v,
 * ODD_RULES of them; the names are static.
 */
#define ODD_RULES 11
void odd_rules(struct rule_reply *v);

#endif /* RULE_REPLY_H */
