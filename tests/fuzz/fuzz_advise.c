// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl advise (advise.c, advise_print.c) over one to three captures of
 * any bytes: the input's first byte picks the options (bit 0: -j; bit 1:
 * -c with the second byte plus one), the rest split at each SEP is the
 * files. Every rule advise builds on its way is one replay's and rule
 * add's words take: its own words refused are a defect, not the input's.
 * Its random seed is fixed, so a finding replays.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>

#include "ddfctl.h"
#include "fuzz_tools.h"

#define SEP "\xdd\xf0\x0d\xfe" /* between two files of the input */
#define FILES_MAX 3

int __real_parse_rule_words(int argc, char **argv, struct ddf_rule_spec *r);

int __wrap_parse_rule_words(int argc, char **argv, struct ddf_rule_spec *r)
{
	int err = __real_parse_rule_words(argc, argv, r);

	fuzz_assert(!err, "advise builds a rule its words refuse (%d words, '%s' ...)",
		    argc, argc ? argv[0] : "");
	return err;
}

ssize_t __wrap_getrandom(void *buf, size_t n, unsigned int flags)
{
	memset(buf, 0x5a, n);
	return (ssize_t)n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[FILES_MAX][32], count[8], *argv[FILES_MAX + 4];
	int fd[FILES_MAX], argc = 0;
	unsigned int n = 0;
	const uint8_t *p, *end = data + size;

	if (size < 2)
		return 0;
	ddfctl_json = false;
	if (data[0] & 1)
		argv[argc++] = "-j";
	if (data[0] & 2) {
		snprintf(count, sizeof(count), "%u", data[1] + 1u);
		argv[argc++] = "-c";
		argv[argc++] = count;
	}
	for (p = data + 2; n < FILES_MAX; n++) {
		const uint8_t *sep = memmem(p, (size_t)(end - p), SEP, 4);
		const uint8_t *e = sep && n + 1 < FILES_MAX ? sep : end;

		fd[n] = fuzz_memfd(p, (size_t)(e - p));
		snprintf(path[n], sizeof(path[n]), "/proc/self/fd/%d", fd[n]);
		argv[argc++] = path[n];
		if (e == end) {
			n++;
			break;
		}
		p = e + 4;
	}
	argv[argc] = NULL;
	cmd_advise(argc, argv);
	for (unsigned int i = 0; i < n; i++)
		close(fd[i]);
	return 0;
}
