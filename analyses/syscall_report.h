/* systrace-stats report --syscalls: the table of `systrace -c` (strace -c's, with the
 * calls in-process and ptraced) from syscalls.csv, for the run or per process
 * (--per-process, as perf trace -s gives one per thread). */
#ifndef SYSTRACE_SYSCALL_REPORT_H
#define SYSTRACE_SYSCALL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "syscall_table.h"

struct syscall_report_options {
	const char *dir;
	bool per_process;
	enum syscall_sort sort;
	size_t limit;  /* processes shown with per_process (SIZE_MAX: all) */
};

/* Prints the tables to out and what disagrees with summary.csv to warn. 0, or -1
 * with a message naming the file and line in err. */
int syscall_report(FILE *out, FILE *warn, const struct syscall_report_options *o, char *err, size_t errlen);

#endif
