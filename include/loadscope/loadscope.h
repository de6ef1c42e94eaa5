/*
 * loadscope: bring model weights into page-locked host memory fast, and make
 * every startup explain itself.
 *
 * The umbrella header. See profiler.h (phases, lines, system snapshot) and
 * loader.h (arena, pinning, io_uring reads, verification).
 */
#ifndef LOADSCOPE_H
#define LOADSCOPE_H

#include <loadscope/version.h>
#include <loadscope/common.h>
#include <loadscope/profiler.h>
#include <loadscope/loader.h>

#endif
