/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks the restore and rule targets share (fuzz_rules.c): two rules
 * read from different words are the same rule.
 */
#ifndef FUZZ_RULES_H
#define FUZZ_RULES_H

#include "ddfctl.h"

/* a rule's line as save writes it; static, valid until the next call */
const char *fuzz_rule_line(const struct ddf_rule_spec *r);
/* b (read from a's line) is a, member by member; what: the sentences' */
void fuzz_same_rule(const char *what, const struct ddf_rule_spec *a,
		    const struct ddf_rule_spec *b);

/* A restore file of n bytes at d (none: the empty set) read into *s */
int fuzz_restore_read(const void *d, size_t n, struct restore_set *s);

#endif
