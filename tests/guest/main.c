/*
 * The guest project's program: it links loadscope built by
 * add_subdirectory and prints one start's lines, so that
 * scripts/test-install.sh sees the library work inside another build.
 */
#include <stdio.h>

#include <loadscope/profiler.h>

int main(void)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.mode = LSC_MODE_ON;
	o.stream = stdout;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	lsc_profiler *p;
	if (lsc_profiler_create(&o, &p) != 0)
		return 1;
	lsc_start_begin(p, "guest");
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	printf("guest: loadscope %s\n", lsc_version_string());
	return 0;
}
