/* What every systrace-stats command shares on its command line. */
#ifndef SYSTRACE_COMMAND_ARGS_H
#define SYSTRACE_COMMAND_ARGS_H

#include <stdio.h>

/* After getopt: the one DIR operand in *dir and -1, or 2 (usage printed) when there
 * is none or more than one. */
int command_dir_operand(const char *command, int argc, char **argv, void (*usage)(FILE *out), const char **dir);

/* realloc that doubles *cap when n has reached it (aborts when memory runs out:
 * the analyses have no use for half a table). */
void *grow_array(void *array, size_t *cap, size_t n, size_t size);
/* strdup that aborts when memory runs out. */
char *copy_string(const char *s);

#endif
