// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl's command lines: the input's first byte picks the parser, the
 * rest split at NUL bytes is its argv.
 *
 * 0  rule add's words (parse_rule_add(), the words after "rule add"):
 *    a rule taken is one save writes as a line restore reads back as the
 *    same rule, member by member;
 * 1  replay's rule words (parse_rule_words());
 * 2  xdp attach, detach and show's words (parse_xdp_words());
 * 3  size's words (cmd_size(), the sizing of every filter kind).
 */
#include <stdlib.h>
#include <string.h>

#include "ddfctl.h"
#include "fuzz_rules.h"
#include "fuzz_tools.h"

#define ARGS_MAX 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static void rule_add(int argc, char **argv)
{
	static struct ddf_rule_spec r;
	struct restore_set s = { 0 };
	const char *line;

	memset(&r, 0, sizeof(r));
	if (parse_rule_add(argc, argv, &r))
		return;
	line = fuzz_rule_line(&r);
	fuzz_assert(!restore_add_line("restore", line, 1, &s),
		    "a rule rule add takes is saved as a line restore refuses: %s",
		    line);
	fuzz_assert(s.n == 1, "%s read as %zu rules", line, s.n);
	fuzz_same_rule("rule add, saved and restored", &r, &s.v[0].rule);
	restore_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ddf_rule_spec r;
	char *buf, *argv[ARGS_MAX + 1], dev[16], name[DDF_NAME_MAX];
	static const char *const xdp_what[] = { "attach", "detach", "show" };
	struct xdp_how how;
	int argc = 0;

	if (!size)
		return 0;
	buf = malloc(size);
	if (!buf)
		return 0;
	/* the words after the first byte, each ending at a NUL or the end */
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	for (size_t i = 0; i < size - 1 && argc < ARGS_MAX;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	switch (data[0] & 3) {
	case 0:
		rule_add(argc, argv);
		break;
	case 1:
		memset(&r, 0, sizeof(r));
		parse_rule_words(argc, argv, &r);
		break;
	case 2:
		parse_xdp_words(xdp_what[(data[0] >> 2) % 3], argc, argv, dev,
				name, &how);
		break;
	default:
		cmd_size(argc, argv);
		break;
	}
	free(buf);
	return 0;
}
