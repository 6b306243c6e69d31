// SPDX-License-Identifier: GPL-2.0
/*
 * Device names in ddfctl's words (ifname.c): any bytes as a dev word, and
 * any bytes as a device's name.
 *
 * - a word parse_ifname() takes is a name that print_ifname() writes as a
 *   word that reads back as the same bytes; so are the devices of a dev
 *   list, printed as save prints them (joined by ',');
 * - a name of any bytes the kernel takes (dev_valid_name(): 1 to 15
 *   bytes, no '/', ':' or space, not . or ..) is written as a word that
 *   reads back as the same bytes, and a name it refuses is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "ddfctl.h"
#include "fuzz_tools.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

/* name as save writes it, into buf */
static void escaped(const char *name, char *buf, size_t size)
{
	FILE *f;

	/* fmemopen() writes no NUL when nothing is written */
	memset(buf, 0, size);
	f = fmemopen(buf, size, "w");
	if (!f)
		abort();
	print_ifname(f, name);
	fclose(f);
}

static bool kernel_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

/* dev_valid_name(), as the kernel checks a name */
static bool kernel_takes(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 15 || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '/' || name[i] == ':' ||
		    kernel_space((unsigned char)name[i]))
			return false;
	return true;
}

static void round_trip(const char *name)
{
	char word[4 * 15 + 2], back[16];

	escaped(name, word, sizeof(word));
	fuzz_assert(!parse_ifname("dev", word, back),
		    "'%s' written as '%s' does not read back", name, word);
	fuzz_assert(!strcmp(name, back), "'%s' written as '%s' reads as '%s'",
		    name, word, back);
	fuzz_assert(!strchr(word, ',') || strstr(word, "\\,"),
		    "'%s' written with a bare ','", word);
}

/* the devices of r joined as save writes them, read back as a list */
static void list_round_trip(const struct ddf_rule_spec *r)
{
	static struct ddf_rule_spec back;
	char buf[DDF_DEVS_MAX * 62 + 1] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (!f)
		abort();
	for (unsigned int i = 0; i < r->ndevs; i++) {
		if (i)
			fputc(',', f);
		print_ifname(f, r->devs[i]);
	}
	fclose(f);
	memset(&back, 0, sizeof(back));
	fuzz_assert(!parse_devs(buf, &back), "dev list '%s' does not read back",
		    buf);
	fuzz_assert(back.ndevs == r->ndevs, "'%s': %u devices, not %u", buf,
		    back.ndevs, r->ndevs);
	for (unsigned int i = 0; i < r->ndevs; i++)
		fuzz_assert(!strcmp(back.devs[i], r->devs[i]),
			    "'%s': device %u is '%s', not '%s'", buf, i,
			    back.devs[i], r->devs[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ddf_rule_spec r;
	char *word = malloc(size + 1), name[16], out[16];
	size_t n;

	if (!word)
		return 0;
	memcpy(word, data, size);
	word[size] = '\0';

	/* as a word: what it reads as reads back the same */
	if (!parse_ifname("dev", word, out))
		round_trip(out);
	memset(&r, 0, sizeof(r));
	if (!parse_devs(word, &r))
		list_round_trip(&r);

	/* as a name: the first bytes up to a NUL or the 16th */
	n = strnlen(word, 16);
	memcpy(name, word, n < 15 ? n : 15);
	name[n < 15 ? n : 15] = '\0';
	if (n <= 15 && kernel_takes(name)) {
		round_trip(name);
	} else if (n <= 15) {
		char w[4 * 15 + 2];

		escaped(name, w, sizeof(w));
		fuzz_assert(parse_ifname("dev", w, out),
			    "'%s' is no name the kernel takes, yet '%s' reads as '%s'",
			    name, w, out);
	}
	free(word);
	return 0;
}
