/*
 * The loader's LOADSCOPE_* variables: see env.h. One home for their names
 * and their words, so that every variable refuses a bad value the same way
 * (LOADSCOPE_READ_PATH=bogus and LOADSCOPE_READ_FIXED=bogus were once taken
 * silently, as arena and as 1), and one way of matching their words: in
 * ASCII, any case, whatever the engine's locale (under tr_TR strcasecmp
 * took STAGING for something else than staging, and 4K was never 4k).
 */
#include <stdio.h>
#include <stdlib.h>

#include "format/c_locale.h"
#include "loader/env.h"

static const char *const names[LSC__ENV_LOADER_MAX] = {
	[LSC__ENV_READ_PATH] = "LOADSCOPE_READ_PATH",
	[LSC__ENV_READ_FIXED] = "LOADSCOPE_READ_FIXED",
	[LSC__ENV_READ_ASYNC] = "LOADSCOPE_READ_ASYNC",
	[LSC__ENV_ARENA_MEM_CHECK] = "LOADSCOPE_ARENA_MEM_CHECK",
};

static const char *const switch_words[] = {"0", "off", "no", "1", "on", "yes", NULL};

static int match(const char *v, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (!lsc__ascii_casecmp(v, words[i]))
			return i;
	return -1;
}

static void bad(lsc_profiler *p, enum lsc__env_var var, const char *v, const char *words,
		const char *def)
{
	char msg[224];
	snprintf(msg, sizeof msg, "%s=%.40s is not %s; the default, %s, applies", names[var], v,
		 words, def);
	lsc__usage_env(p, var, msg);
}

int lsc__env_switch(lsc_profiler *p, enum lsc__env_var var, int def)
{
	const char *v = getenv(names[var]);
	if (!v || !*v)
		return def;
	int i = match(v, switch_words);
	if (i >= 0)
		return i >= 3;
	if (def < 0 && !lsc__ascii_casecmp(v, "auto"))
		return -1;
	if (def < 0)
		bad(p, var, v, "1, on, yes, 0, off, no or auto", "auto");
	else
		bad(p, var, v, "1, on, yes, 0, off or no", def ? "1" : "0");
	return def;
}

int lsc__env_choice(lsc_profiler *p, enum lsc__env_var var, const char *const *words, int def)
{
	const char *v = getenv(names[var]);
	if (!v || !*v)
		return def;
	int i = match(v, words);
	if (i >= 0)
		return i;
	char list[96] = "";
	size_t at = 0;
	for (int k = 0; words[k] && at < sizeof list; k++)
		at += (size_t)snprintf(list + at, sizeof list - at, "%s%s",
				       k == 0 ? "" : words[k + 1] ? ", " : " or ", words[k]);
	bad(p, var, v, list, words[def]);
	return def;
}

int lsc__env_thp(enum lsc_thp_policy *out, const char **raw)
{
	const char *v = getenv("LOADSCOPE_ARENA_THP");
	*raw = v;
	if (!v || !*v)
		return 0;
	for (int i = LSC_THP_AUTO; i <= LSC_THP_PROCESS_OFF; i++)
		if (!lsc__ascii_casecmp(v, lsc_thp_policy_name((enum lsc_thp_policy)i))) {
			*out = (enum lsc_thp_policy)i;
			return 1;
		}
	return -1;
}
