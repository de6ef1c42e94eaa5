/*
 * libFuzzer target: lsc__line_parse (src/format/line.h), the grammar the
 * library writes and the triage reads, on arbitrary bytes: a line in a
 * writable buffer with the one spare byte the contract asks for, then every
 * parsed key looked up as a string, a double and an integer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct lsc__parsed *p = malloc(sizeof *p);
	if (!line || !p) {
		free(line);
		free(p);
		return 0;
	}
	memcpy(line, data, size);
	line[size] = '\0';
	int rc = lsc__line_parse(line, size, p);
	if (rc == 1) {
		for (unsigned i = 0; i < p->n && i < LSC__FIELDS_MAX; i++) {
			double d;
			int64_t v;
			const char *k = p->kv[i].key;
			if (!k)
				continue;
			(void)lsc__parsed_get(p, k);
			(void)lsc__parsed_f64(p, k, &d);
			(void)lsc__parsed_i64(p, k, &v);
		}
		(void)lsc__parsed_get(p, "run");
		if (p->event)
			(void)strlen(p->event);
		if (p->human)
			(void)strlen(p->human);
	} else if (rc != 0 && rc != -EINVAL) {
		abort(); /* outside the documented contract */
	}
	free(p);
	free(line);
	return 0;
}
