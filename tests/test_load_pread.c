/*
 * Description: the pread reader (the fallback that always works). Files of
 * odd sizes load byte for byte into the arena, through staging buffers and
 * straight into the arena, with the hash of each extent equal to XXH3-64 of
 * the file, and the two summary lines naming the pread reader.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "helpers/load_helpers.h"

static struct lsct_capture cap;

static void teardown(void)
{
	lsct_capture_free(&cap);
	unsetenv("LOADSCOPE_READ_PATH");
}

TestSuite(load_pread, .fini = teardown);

Test(load_pread, into_the_arena)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	setenv("LOADSCOPE_READ_PATH", "arena", 1);
	lsct_load_check(&cap, "pread", lsct_make_file("a.bin", (5u << 20) + 4097, 1), &o, "none");
}

Test(load_pread, through_staging)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.staging_count = 3;
	o.staging_bytes = 1u << 20;
	o.queue_depth = 2;
	lsct_load_check(&cap, "pread", lsct_make_file("s.bin", (7u << 20) + 13, 2), &o, "3x1MiB");
}

Test(load_pread, staging_smaller_than_a_page_rounds_up)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.staging_count = 1;
	o.staging_bytes = 100;
	o.queue_depth = 1;
	lsct_load_check(&cap, "pread", lsct_make_file("p.bin", 100000, 3), &o, "1x4KiB");
}

Test(load_pread, tiny_file)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	lsct_load_check(&cap, "pread", lsct_make_file("t.bin", 1, 4), &o, "none");
}
