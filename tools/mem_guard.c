/*
 * The subcommands' memory guard (mem_guard.h): the loader's judgement and
 * its sentence, printed the way a subcommand prints a refusal.
 */
#include <stdio.h>

#include "loader/mem_guard.h"
#include "mem_guard.h"

int lsc_cli_mem_guard(FILE *f, const char *prefix, const char *what, uint64_t bytes,
		      int64_t keep_free)
{
	struct lsc__mem_verdict v;
	char why[448];
	lsc__mem_judge(NULL, NULL, keep_free, 0, &v);
	if (!lsc__mem_refusal(&v, what, keep_free >= 0 ? "--keep-free" : NULL, bytes, why, sizeof why))
		return 0;
	fprintf(f, "%s: refusing: %s\n", prefix, why);
	fflush(f);
	return 1;
}

int64_t lsc_cli_mem_may_take(int64_t keep_free)
{
	struct lsc__mem_verdict v;
	lsc__mem_judge(NULL, NULL, keep_free, 0, &v);
	return v.src < 0 ? -1 : v.may_take > INT64_MAX ? INT64_MAX : (int64_t)v.may_take;
}
