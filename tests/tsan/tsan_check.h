/*
 * The one helper the ThreadSanitizer programs share: a check that names
 * the program, the line and what failed, and makes the program fail. They
 * run outside Criterion, whose runner does not start under TSan, so a
 * failed check is an exit status, and a race is TSan's own report (with
 * halt_on_error=1, set by the build's test entries).
 */
#ifndef LSC_TSAN_CHECK_H
#define LSC_TSAN_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                         \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			exit(1);                                                            \
		}                                                                           \
	} while (0)

#endif
