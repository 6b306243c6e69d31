// SPDX-License-Identifier: GPL-2.0
/* What ddfctl's fuzz targets share: see fuzz_tools.h. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_tools.h"

/* ddfctl.c's, which the targets do not link */
bool ddfctl_json;
bool ddfctl_dry_run;

static FILE *report;

void fuzz_quiet(void)
{
	FILE *null;
	int fd;

	/* the reports' own stream: a copy of the descriptor of stderr */
	fd = dup(STDERR_FILENO);
	report = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!report)
		report = stderr;
	if (getenv("DDF_FUZZ_VERBOSE"))
		return;
	null = fopen("/dev/null", "w");
	if (null) {
		stderr = null;
		stdout = null;
	}
}

void fuzz_fail(const char *file, int line, const char *cond,
	       const char *fmt, ...)
{
	FILE *out = report ? report : stderr;
	va_list ap;

	fprintf(out, "%s:%d: invariant broken (%s): ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
	abort();
}

int fuzz_memfd(const uint8_t *d, size_t n)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	while (n) {
		ssize_t w = write(fd, d, n);

		if (w <= 0)
			abort();
		d += w;
		n -= (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET))
		abort();
	return fd;
}
