/* SPDX-License-Identifier: MIT */
/* sfu_tool.h - what every host tool answers alike: --help and --version.
 *
 *     static const char help[] = "usage: sfu-x [--opt] FILE\n"
 *                                "What it does, its options, its exit status.\n";
 *     int main(int argc, char **argv)
 *     {
 *             sfu_tool_args(argc, argv, "sfu-x", help);
 *             ...
 *
 * An argument --help (anywhere before a "--") prints the help text on
 * standard output and exits 0; --version prints "sfu-x (sfu) 0.1.0", the
 * release of core/sfu.h (SFU_VERSION_STRING), and exits 0, as GNU tools do.
 * Include it after the tool's own include of core/sfu.h, if it has one (a
 * tool that builds the core with SFU_STATIC must include it first: this
 * includes the declarations).
 */
#ifndef SFU_TOOL_H
#define SFU_TOOL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sfu.h"

static void sfu_tool_args(int argc, char **argv, const char *name, const char *help)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			fputs(help, stdout);
			exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2);
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("%s (sfu) %s\n", name, SFU_VERSION_STRING);
			exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2);
		}
	}
}

#endif /* SFU_TOOL_H */
