// SPDX-License-Identifier: GPL-2.0
/*
 * restore's reader (restore.c) over a file of any bytes, and save's
 * printer (state.c) over what it read:
 *
 * - the lines save writes for the rules and XDP programs read are lines
 *   restore reads (save writes none as a comment: they came from a file)
 *   as the same rules, member by member, and the same programs;
 * - what save writes of those reads back as the same lines (a fixed
 *   point), and a file restore refuses leaves no set behind (ASan's leak
 *   check).
 */
#include <stdlib.h>
#include <string.h>

#include "ddfctl.h"
#include "fuzz_rules.h"
#include "fuzz_tools.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

/* s as save writes it: the text, and the number of lines it refused */
static char *saved(const struct restore_set *s, int *refused)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	*refused = state_print(f, s);
	fclose(f);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct restore_set a, b;
	char *text, *again;
	int refused;

	if (fuzz_restore_read(data, size, &a))
		return 0;
	text = saved(&a, &refused);
	fuzz_assert(!refused, "save refuses %d of the lines of a file restore read:\n%s",
		    refused, text);
	fuzz_assert(!fuzz_restore_read(text, strlen(text), &b),
		    "restore refuses what save wrote:\n%s", text);
	fuzz_assert(a.n == b.n && a.nx == b.nx,
		    "%zu rules and %zu xdp lines read back as %zu and %zu:\n%s",
		    a.n, a.nx, b.n, b.nx, text);
	for (size_t i = 0; i < a.n; i++)
		fuzz_same_rule("restore of save", &a.v[i].rule, &b.v[i].rule);
	for (size_t i = 0; i < a.nx; i++)
		fuzz_assert(!strcmp(a.x[i].dev, b.x[i].dev) &&
			    !strcmp(a.x[i].rule, b.x[i].rule) &&
			    a.x[i].how.exclusive == b.x[i].how.exclusive,
			    "xdp line %zu reads back as another:\n%s", i, text);
	again = saved(&b, &refused);
	fuzz_assert(!refused && !strcmp(text, again),
		    "save's lines, read and saved again, differ:\n%s---\n%s",
		    text, again);
	free(again);
	free(text);
	restore_free(&b);
	restore_free(&a);
	return 0;
}
