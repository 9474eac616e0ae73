#include "command_args.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

int command_dir_operand(const char *command, int argc, char **argv, void (*usage)(FILE *out), const char **dir)
{
	if (optind != argc - 1) {
		fprintf(stderr, "systrace-stats %s: %s\n", command, optind == argc ? "no DIR given" : "one DIR only");
		usage(stderr);
		return 2;
	}
	*dir = argv[optind];
	return -1;
}
