/*
 * The tables and lookups behind the line vocabulary (vocab.h): every name
 * comes from the X-macro lists there, so writers and the triage cannot
 * spell one differently.
 */
#include <string.h>

#include "format/vocab.h"

#define NAME_ROW(sym, name) name,
const char *const lsc__event_names[LSC__EV_COUNT] = {LSC__EVENT_LIST(NAME_ROW)};
const char *const lsc__key_names[LSC__KEY_COUNT] = {LSC__KEY_LIST(NAME_ROW)};
const char *const lsc__probe_ids[LSC__ID_COUNT] = {LSC__PROBE_ID_LIST(NAME_ROW)};

/* Indexed by the public enum: a counter the list lacks would leave a NULL
 * key, which the count below refuses at compile time. */
#define ONE(sym, name) +1
_Static_assert(0 LSC__VM_LIST(ONE) == LSC_VM_COUNT, "LSC__VM_LIST must name every lsc_vm_counter");
#define VM_KEY_ROW(sym, name) [LSC_VM_##sym] = LSC__VM_KEY_PREFIX name,
#define VM_RATE_ROW(sym, name) [LSC_VM_##sym] = name LSC__VM_RATE_SUFFIX,
const char *const lsc__vm_keys[LSC_VM_COUNT] = {LSC__VM_LIST(VM_KEY_ROW)};
const char *const lsc__vm_rate_keys[LSC_VM_COUNT] = {LSC__VM_LIST(VM_RATE_ROW)};

static int index_of(const char *const *names, int n, const char *s)
{
	if (!s)
		return -1;
	/* the first byte before the call: the triage names every line's event */
	for (int i = 0; i < n; i++)
		if (names[i][0] == s[0] && !strcmp(names[i], s))
			return i;
	return -1;
}

int lsc__event_of(const char *name)
{
	return index_of(lsc__event_names, LSC__EV_COUNT, name);
}

int lsc__probe_id_of(const char *id)
{
	return index_of(lsc__probe_ids, LSC__ID_COUNT, id);
}

void lsc__rec_num(struct lsc__rec *r, const char *key, int64_t v)
{
	if (v == LSC_NA)
		lsc__rec_str(r, key, LSC__WORD_NA);
	else if (v == LSC_UNLIMITED)
		lsc__rec_str(r, key, LSC__WORD_UNLIMITED);
	else
		lsc__rec_i64(r, key, v);
}
