/*
 * The subcommands of the loadscope program. Each lives in tools/cmd_NAME.c
 * and defines lsc_cmd_NAME() and lsc_cmd_NAME_help; the build lists them
 * (gen/commands.h), so adding a command touches no shared file.
 *
 * Exit codes: 0 success; 1 the command ran and found a problem (a warning,
 * a failed load); 2 usage error; 3 unusable input. triage documents its own.
 */
#ifndef LSC_TOOLS_TOOL_H
#define LSC_TOOLS_TOOL_H

#define LSC_CMD(name)                                   \
	int lsc_cmd_##name(int argc, char **argv); \
	extern const char lsc_cmd_##name##_help[];
#include "commands.h"
#undef LSC_CMD

#endif
