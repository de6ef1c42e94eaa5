/*
 * Process state every test program starts from (test_env.c), and what the
 * tests may ask of it.
 */
#ifndef LSCT_TEST_ENV_H
#define LSCT_TEST_ENV_H

#include <stddef.h>
#include <stdint.h>

/* 1 when this process can mlock @bytes; else 0 with the reason in @why. */
int lsct_can_mlock(uint64_t bytes, char *why, size_t cap);

#endif
