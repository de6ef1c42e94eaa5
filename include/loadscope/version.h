/*
 * loadscope version: the one place the version is written. CMake reads the
 * three numbers below out of this file, so the library, its SONAME, the CMake
 * package and the pkg-config file can never disagree.
 */
#ifndef LOADSCOPE_VERSION_H
#define LOADSCOPE_VERSION_H

#define LSC_VERSION_MAJOR 0
#define LSC_VERSION_MINOR 3
#define LSC_VERSION_PATCH 0

/* Helpers for LSC_VERSION_STRING. No double underscore: in C++ every name
 * that contains one is reserved to the implementation. */
#define LSC_VERSION_STR_(x) #x
#define LSC_VERSION_XSTR_(x) LSC_VERSION_STR_(x)
#define LSC_VERSION_STRING \
	LSC_VERSION_XSTR_(LSC_VERSION_MAJOR) "." LSC_VERSION_XSTR_(LSC_VERSION_MINOR) "." \
	LSC_VERSION_XSTR_(LSC_VERSION_PATCH)
#define LSC_VERSION_NUMBER \
	(LSC_VERSION_MAJOR * 10000 + LSC_VERSION_MINOR * 100 + LSC_VERSION_PATCH)

/* Version of the log-line grammar (docs/log-format.md). Bumped only when a
 * field changes meaning or a line changes shape; adding a field does not.
 * 2: brief default lines, whose human sentence carries every figure. */
#define LSC_LINE_FORMAT_VERSION 2

#endif
