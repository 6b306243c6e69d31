// SPDX-License-Identifier: GPL-2.0
/*
 * Device names in ddfctl's words (dev, iif, oif, xdp ... dev) and in
 * save's lines. Linux takes any byte in a name but '/', ':' and its
 * spaces, so a name may hold the ',' that separates the devices of a
 * rule, or bytes a text file should not carry: in a word, "\\" is a
 * backslash, "\," a comma and "\xHH" any byte, and save writes a name so
 * that the same words read it back.
 */
#include <string.h>

#include "ddfctl.h"

#define IFNAME_MAX 15 /* IFNAMSIZ - 1 */

/* the bytes the kernel's isspace() counts: 0xa0 too (lib/ctype.c) */
static bool kernel_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* the byte of the escape at *p (a backslash), *p left on its last char */
static int unescape(const char *kw, const char *s, const char **p)
{
	const char *e = *p;
	int hi, lo;

	if (e[1] == '\\' || e[1] == ',') {
		*p = e + 1;
		return (unsigned char)e[1];
	}
	if (e[1] == 'x' && (hi = hex_digit(e[2])) >= 0 &&
	    (lo = hex_digit(e[3])) >= 0 && (hi || lo)) {
		*p = e + 3;
		return hi << 4 | lo;
	}
	return ddfctl_err("%s: '%s': a backslash starts \\\\, \\, or \\xHH (a byte from 01 to ff)",
			  kw, s);
}

/*
 * iif, oif, dev: a name the kernel takes for a device (dev_valid_name()),
 * escapes read.
 */
int parse_ifname(const char *kw, const char *s, char *out)
{
	char name[IFNAME_MAX + 1];
	size_t n = 0;

	for (const char *p = s; *p; p++) {
		int c = (unsigned char)*p;

		if (c == '\\' && (c = unescape(kw, s, &p)) < 0)
			return -1;
		if (n == IFNAME_MAX || kernel_space(c) || c == '/' || c == ':')
			return ddfctl_err("%s: '%s' is not an interface name (1 to 15 bytes, no '/', ':' or space)",
					  kw, s);
		name[n++] = (char)c;
	}
	name[n] = '\0';
	if (!n || !strcmp(name, ".") || !strcmp(name, ".."))
		return ddfctl_err("%s: '%s' is not an interface name (1 to 15 bytes, not . or ..)",
				  kw, s);
	memcpy(out, name, n + 1);
	return 0;
}

/* the length of the device of s up to a ',' that is not escaped */
static size_t dev_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != ',')
		n += s[n] == '\\' && s[n + 1] ? 2 : 1;
	return n;
}

int parse_devs(const char *s, struct ddf_rule_spec *r)
{
	const char *p = s;
	/* room for a name of 15 bytes, each escaped in 4 */
	char word[4 * IFNAME_MAX + 1];

	r->ndevs = 0;
	for (;;) {
		size_t n = dev_len(p);

		if (r->ndevs == DDF_DEVS_MAX)
			return ddfctl_err("dev: '%s' names more than %d devices, the most one rule takes",
					  s, DDF_DEVS_MAX);
		if (n >= sizeof(word))
			return ddfctl_err("dev: '%s' names a device of more than 15 bytes",
					  s);
		memcpy(word, p, n);
		word[n] = '\0';
		if (parse_ifname("dev", word, r->devs[r->ndevs]))
			return -1;
		for (unsigned int i = 0; i < r->ndevs; i++)
			if (!strcmp(r->devs[i], r->devs[r->ndevs]))
				return ddfctl_err("dev: '%s' names %s twice", s,
						  word);
		r->ndevs++;
		p += dev_len(p);
		if (!*p)
			return 0;
		p++;
	}
}

/* name as a word parse_ifname() reads back: printable ASCII but \ and , */
void print_ifname(FILE *out, const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p == '\\' || *p == ',')
			fprintf(out, "\\%c", *p);
		else if (*p <= ' ' || *p >= 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
}
