// SPDX-License-Identifier: GPL-2.0
/* Two rules compared member by member: see fuzz_rules.h. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_rules.h"
#include "fuzz_tools.h"

const char *fuzz_rule_line(const struct ddf_rule_spec *r)
{
	static char *text;
	size_t len = 0;
	FILE *f;

	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	if (!f)
		abort();
	print_rule_line(f, r);
	fclose(f);
	return text;
}

#define SAME(m) fuzz_assert(a->m == b->m, "%s: rule '%s': " #m " %lld, not %lld", \
			    what, a->name, (long long)b->m, (long long)a->m)
#define SAME_BYTES(m) fuzz_assert(!memcmp(&a->m, &b->m, sizeof(a->m)), \
				  "%s: rule '%s': " #m " differs", what, a->name)

void fuzz_same_rule(const char *what, const struct ddf_rule_spec *a,
		    const struct ddf_rule_spec *b)
{
	fuzz_assert(!strcmp(a->name, b->name), "%s: rule '%s' reads as '%s'",
		    what, a->name, b->name);
	SAME(family);
	SAME(hook);
	SAME(priority);
	SAME(ndevs);
	for (unsigned int i = 0; i < a->ndevs; i++)
		fuzz_assert(!strcmp(a->devs[i], b->devs[i]),
			    "%s: rule '%s': dev %u differs", what, a->name, i);
	fuzz_assert(!strcmp(a->iif, b->iif) && !strcmp(a->oif, b->oif),
		    "%s: rule '%s': iif or oif differs", what, a->name);
	SAME(l4proto);
	/* the key's family, l4proto and match follow family and l4proto */
	SAME(key.form);
	SAME(key.fields);
	/*
	 * key fields and frame take ignore's default bits (a request may
	 * carry them) but use only vlan and mac; the bytes hashed are key
	 * packet's: what they do not use is not written, nor compared
	 */
	if (a->key.form == DDF_KEY_PACKET) {
		SAME(key.ignore);
		SAME(key.max_bytes);
	} else {
		fuzz_assert((a->key.ignore & DDF_KI_L2) ==
			    (b->key.ignore & DDF_KI_L2),
			    "%s: rule '%s': ignore vlan or mac differs", what,
			    a->name);
	}
	SAME(key.payload_off);
	SAME(key.payload_len);
	SAME(key.decap);
	SAME(key.vxlan_port);
	SAME(key.geneve_port);
	/* the filter as sized (or given as a shape): its resolved shape */
	SAME(filter.params.kind);
	SAME(filter.params.flags);
	SAME(filter.params.window);
	SAME(filter.params.window_ns);
	SAME(filter.params.k);
	SAME(filter.params.l);
	SAME(filter.params.m);
	SAME(filter.params.block_bits);
	SAME(filter.params.block_hashes);
	SAME(filter.params.fp_bits);
	SAME(filter.params.cell_bits);
	SAME(filter.params.decrements);
	SAME(filter.params.inner_kind);
	SAME(filter.params.subfilters);
	SAME(filter.params.p_star);
	SAME(filter.params.cpus);
	SAME(has_seed);
	if (a->has_seed)
		SAME_BYTES(seed);
	SAME(hash_alg);
	SAME(action);
	if (a->action == DDF_ACTION_MARK) {
		SAME(mark);
		SAME(mask);
	}
}

int fuzz_restore_read(const void *d, size_t n, struct restore_set *s)
{
	FILE *f;
	int err;

	memset(s, 0, sizeof(*s));
	if (!n)
		return 0;
	f = fmemopen((void *)d, n, "r");
	if (!f)
		abort();
	err = restore_read(f, s);
	fclose(f);
	return err;
}
