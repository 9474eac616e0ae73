/* systrace-stats: what to do with an output folder of systrace after the run. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const struct command {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *what;
} commands[] = {
	{ "log2csv", log2csv_main, "the temporal log (--log) as CSV, one row per syscall" },
	{ "report", report_main, "amortization, libc functions worth hooking, a row per process;\n"
				 "            the table of strace -c (with --syscalls)" },
	{ "export", export_main, "the run as Chrome/Perfetto trace-event JSON" },
	{ "html", html_main, "a self-contained HTML report" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: systrace-stats COMMAND [OPTIONS] DIR\n"
		     "DIR is an output folder of systrace (-o DIR). Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s  %s\n", commands[i].name, commands[i].what);
	fprintf(out, "  -h, --help  show this help; systrace-stats COMMAND --help shows a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "systrace-stats: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
