/* SPDX-License-Identifier: GPL-2.0 */
/* CHECK() of the tools' tests: pass++, or fail++ and a FAIL line of why */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>

static int pass, fail;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (cond) {                                                  \
			pass++;                                              \
		} else {                                                     \
			fail++;                                              \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
			printf(__VA_ARGS__);                                 \
			putchar('\n');                                       \
		}                                                            \
	} while (0)

#endif /* CHECK_H */
