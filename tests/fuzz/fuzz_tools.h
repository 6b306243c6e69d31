/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ddfctl's fuzz targets share (fuzz_tools.c): ddfctl.c's globals,
 * ddfctl's sentences kept off the terminal, and the checks that make a
 * finding of a broken invariant as of a crash.
 */
#ifndef FUZZ_TOOLS_H
#define FUZZ_TOOLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * ddfctl's sentences (stderr) and output (stdout) go to /dev/null unless
 * DDF_FUZZ_VERBOSE is set: libFuzzer and the sanitizers keep their own
 * descriptor for their reports. Called by LLVMFuzzerInitialize().
 */
void fuzz_quiet(void);

/* An invariant broken: the message on the reports' stream, then abort. */
#define fuzz_assert(cond, ...)                                         \
	do {                                                           \
		if (!(cond))                                           \
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)
void fuzz_fail(const char *file, int line, const char *cond,
	       const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));

/* A file descriptor of memory holding n bytes of d, read from offset 0 */
int fuzz_memfd(const uint8_t *d, size_t n);

#endif
