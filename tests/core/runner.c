// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace runner for the ddf_core tests: runs every registered suite (or
 * those whose name matches argv[1..]) and ends with "N passed, N failed".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ddf_test.h"

struct ddf_alloc {
	struct ddf_alloc *next;
};

struct ddf_test {
	const char *suite, *name;
	int failures;
	struct ddf_alloc *allocs;
};

static struct ddf_test_suite *suites;

void ddf_test_register(struct ddf_test_suite *s)
{
	struct ddf_test_suite **pp = &suites;

	/* keep registration order stable: append */
	while (*pp)
		pp = &(*pp)->next;
	s->next = NULL;
	*pp = s;
}

void ddf_test_fail(struct ddf_test *t, const char *file, int line,
		   const char *fmt, ...)
{
	va_list ap;

	t->failures++;
	if (t->failures > 20)
		return; /* one broken loop must not flood the log */
	fprintf(stdout, "    # %s.%s: FAIL at %s:%d: ", t->suite, t->name,
		file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

void ddf_test_log(struct ddf_test *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "    # %s.%s: ", t->suite, t->name);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

void *ddf_test_alloc(struct ddf_test *t, size_t size)
{
	/* header padded to a cache line so the payload is 64-byte aligned */
	size_t hdr = 64;
	struct ddf_alloc *a = aligned_alloc(64, (hdr + size + 63) & ~(size_t)63);

	if (!a)
		return NULL;
	memset(a, 0, hdr + size);
	a->next = t->allocs;
	t->allocs = a;
	return (char *)a + hdr;
}

static bool selected(const char *suite, int argc, char **argv)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], suite))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (struct ddf_test_suite *s = suites; s; s = s->next) {
		if (!selected(s->name, argc, argv))
			continue;
		printf("# suite %s\n", s->name);
		for (const struct ddf_test_case *c = s->cases; c->fn; c++) {
			struct ddf_test t = { s->name, c->name, 0, NULL };
			struct timespec a, b;

			clock_gettime(CLOCK_MONOTONIC, &a);
			c->fn(&t);
			clock_gettime(CLOCK_MONOTONIC, &b);
			while (t.allocs) {
				struct ddf_alloc *n = t.allocs->next;

				free(t.allocs);
				t.allocs = n;
			}
			printf("%s %s.%s (%.2fs)\n", t.failures ? "not ok" : "ok",
			       s->name, c->name,
			       (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
			if (t.failures)
				failed++;
			else
				passed++;
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
