/*
 * The loader's public names and defaults: THP policy names (shared by the
 * options, LOADSCOPE_ARENA_THP, `loadscope load --thp` and the log lines, so
 * one spelling serves all four) and lsc_load_options_init().
 *
 * The staging and queue-depth defaults stay 0 here: they mean "the measured
 * default", which the read pipeline owns.
 */
#include <errno.h>
#include <string.h>

#include <loadscope/loader.h>

static const char *const policy_names[] = {
	[LSC_THP_AUTO] = "auto",       [LSC_THP_4K] = "4k", [LSC_THP_THP] = "thp",
	[LSC_THP_HUGETLB] = "hugetlb", [LSC_THP_PROCESS_OFF] = "process-off",
};

LSC_API const char *lsc_thp_policy_name(enum lsc_thp_policy p)
{
	if ((unsigned)p >= sizeof policy_names / sizeof policy_names[0])
		return "?";
	return policy_names[p];
}

LSC_API int lsc_thp_policy_parse(const char *s, enum lsc_thp_policy *out)
{
	if (!s || !out)
		return -EINVAL;
	for (unsigned i = 0; i < sizeof policy_names / sizeof policy_names[0]; i++) {
		if (strcmp(s, policy_names[i]) == 0) {
			*out = (enum lsc_thp_policy)i;
			return 0;
		}
	}
	return -EINVAL;
}

LSC_API void lsc_load_options_init(struct lsc_load_options *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof *o);
	o->thp = LSC_THP_AUTO;
	o->pin = "none";
	o->chunk_bytes = 0;
	o->pin_segment_bytes = 1ull << 30;
	o->prefault_threads = 0;
	o->numa_node = -1;
	o->reader = "auto";
	o->device = -1;
}
