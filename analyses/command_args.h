/* What every systrace-stats command shares on its command line. */
#ifndef SYSTRACE_COMMAND_ARGS_H
#define SYSTRACE_COMMAND_ARGS_H

#include <stdio.h>

/* After getopt: the one DIR operand in *dir and -1, or 2 (usage printed) when there
 * is none or more than one. */
int command_dir_operand(const char *command, int argc, char **argv, void (*usage)(FILE *out), const char **dir);

#include "grow_array.h"

#endif
