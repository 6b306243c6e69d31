// SPDX-License-Identifier: GPL-2.0
/*
 * Strings in ddfctl's JSON (-j) and Prometheus (-o prometheus) output.
 * Both formats must be UTF-8, and a name from the kernel is any bytes: a
 * device's anything but '/', ':' and spaces, a rule's anything another
 * netlink client gave. A byte that is not part of a UTF-8 character is
 * \u00XX in JSON (the character of that number), and U+FFFD in a label
 * value, which has no escape for it.
 */
#include "ddfctl.h"

int utf8_len(const char *p)
{
	const unsigned char *s = (const unsigned char *)p;
	int n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 :
		s[0] >= 0xe0 && s[0] < 0xf0 ? 3 :
		s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;
	uint32_t c = n > 1 ? s[0] & (0x7f >> n) : s[0];

	/* the NUL ends a sequence as any byte that does not continue it */
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* overlong, a surrogate, beyond U+10FFFF */
	if ((n == 3 && (c < 0x800 || (c >= 0xd800 && c < 0xe000))) ||
	    (n == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return n;
}

void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		int n = utf8_len(s);

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f || !n)
			fprintf(out, "\\u%04x", c);
		else
			fwrite(s, 1, n, out);
		s += n ? n : 1;
	}
	fputc('"', out);
}

void prom_str(FILE *out, const char *s)
{
	fputc('"', out);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		int n = utf8_len(s);

		if (c == '\\' || c == '"')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (n)
			fwrite(s, 1, n, out);
		else
			fputs("\xef\xbf\xbd", out);
		s += n ? n : 1;
	}
	fputc('"', out);
}
