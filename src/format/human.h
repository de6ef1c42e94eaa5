/*
 * Numbers for people: the units every human sentence in the grammar uses, so
 * that "4.00 GiB", "1.05M" and "851k/s" look the same in every line. Each
 * function writes into a caller buffer and returns it, so calls can sit in
 * a printf argument list.
 */
#ifndef LSC_FORMAT_HUMAN_H
#define LSC_FORMAT_HUMAN_H

#include <stddef.h>
#include <stdint.h>

#define LSC__HBUF 24

/* 0 B, 512 B, 12.0 KiB, 512.0 MiB, 4.00 GiB, 1.20 TiB */
char *lsc__fmt_bytes(char buf[LSC__HBUF], double bytes);
/* 950, 18.3k, 1.05M, 2.10G */
char *lsc__fmt_count(char buf[LSC__HBUF], double n);
/* 0.000 s .. 1.234 s .. 432 s */
char *lsc__fmt_secs(char buf[LSC__HBUF], double s);

#endif
