/*
 * `loadscope explain ID`: a finding's documentation, offline, as `rustc
 * --explain` prints an error's. The text is docs/troubleshooting.md's
 * section for the id, embedded in the program at build time
 * (cmake/embed_doc.cmake), so it is the page the program shipped with and
 * needs no network and no installed docs. Every remedy ends by naming this
 * command. `loadscope explain` alone lists the ids.
 *
 * Exit status: 0 printed, 64 usage (an id the page has no section for).
 */
#include <stdio.h>
#include <string.h>

#include "tool.h"

extern const unsigned char lsc_doc_troubleshooting[];
extern const size_t lsc_doc_troubleshooting_len;

const char lsc_cmd_explain_help[] = "print a finding's documentation (its section of troubleshooting.md)";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loadscope explain [ID]\n"
		"Prints the documentation of finding ID (the id a triage finding or a probe\n"
		"warning names: host-refault, thp-direct-compaction, ...), from the\n"
		"troubleshooting page this program was built with; no network needed.\n"
		"Without ID, lists the ids.\n"
		"  -h, --help     this text      -V, --version  version and backends\n"
		"exit: 0 printed, 64 usage error or an unknown id (docs/cli.md)\n");
}

static const struct option longopts[] = {
	LSC_CLI_COMMON_OPTS,
};

/* The next line of the page from @at; its length in *@len (no newline). */
static const char *line_at(size_t *at, size_t *len)
{
	const char *doc = (const char *)lsc_doc_troubleshooting;
	size_t n = lsc_doc_troubleshooting_len;
	if (*at >= n)
		return NULL;
	const char *s = doc + *at, *nl = memchr(s, '\n', n - *at);
	*len = nl ? (size_t)(nl - s) : n - *at;
	*at += *len + 1;
	return s;
}

static int is_section(const char *l, size_t len)
{
	return len > 4 && !strncmp(l, "### ", 4);
}

static int list_ids(void)
{
	size_t at = 0, len;
	printf("findings documented (loadscope explain ID):\n");
	for (const char *l; (l = line_at(&at, &len));)
		if (is_section(l, len))
			printf("  %.*s\n", (int)(len - 4), l + 4);
	return LSC_EXIT_OK;
}

/* The section "### @id", up to the next heading. */
static int print_section(const char *id)
{
	size_t at = 0, len, idl = strlen(id);
	int in = 0;
	for (const char *l; (l = line_at(&at, &len));) {
		if (len >= 3 && (l[0] == '#') && in)
			break;
		if (is_section(l, len) && len - 4 == idl && !strncmp(l + 4, id, idl))
			in = 1;
		if (in)
			printf("%.*s\n", (int)len, l);
	}
	if (!in)
		return lsc_cli_usage("%s: no such finding (loadscope explain lists them)", id);
	return LSC_EXIT_OK;
}

int lsc_cmd_explain(int argc, char **argv)
{
	struct lsc_cli cli = {argc, argv, "hV", longopts, 0, 0};
	int c;
	while ((c = lsc_cli_next(&cli)) != -1)
		return lsc_cli_common(c, usage);
	if (cli.nops > 1)
		return lsc_cli_usage("one ID at a time");
	return cli.nops ? print_section(argv[1]) : list_ids();
}
