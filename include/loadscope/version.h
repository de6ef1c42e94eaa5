/*
 * loadscope version: the one place the version is written. CMake reads the
 * three numbers below out of this file, so the library, its SONAME, the CMake
 * package and the pkg-config file can never disagree.
 */
#ifndef LOADSCOPE_VERSION_H
#define LOADSCOPE_VERSION_H

#define LSC_VERSION_MAJOR 0
#define LSC_VERSION_MINOR 2
#define LSC_VERSION_PATCH 0

#define LSC__STR2(x) #x
#define LSC__STR(x) LSC__STR2(x)
#define LSC_VERSION_STRING \
	LSC__STR(LSC_VERSION_MAJOR) "." LSC__STR(LSC_VERSION_MINOR) "." LSC__STR(LSC_VERSION_PATCH)
#define LSC_VERSION_NUMBER \
	(LSC_VERSION_MAJOR * 10000 + LSC_VERSION_MINOR * 100 + LSC_VERSION_PATCH)

/* Version of the log-line grammar (docs/log-format.md). Bumped only when a
 * field changes meaning or a line changes shape; adding a field does not. */
#define LSC_LINE_FORMAT_VERSION 1

#endif
