/* systrace-stats report --syscalls: the table of `systrace -c` (strace -c's, with the
 * calls in-process and ptraced) from syscalls.csv, for the run or per process
 * (--per-process, as perf trace -s gives one per thread). */
#ifndef SYSTRACE_SYSCALL_REPORT_H
#define SYSTRACE_SYSCALL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "run_tables.h"
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

/* The run's calls of each syscall: the rows of DIR/syscalls.csv summed per counter
 * index, as the table of report --syscalls sums them (for the HTML page's). */
struct syscall_totals {
	struct syscall_count *all;               /* SYSCALL_INDEX_COUNT entries */
	struct syscall_columns_present present;  /* which optional columns the file has */
};

/* 0, or -1 with a message naming the file and line in err; free it either way. */
int syscall_totals_load(struct syscall_totals *t, const char *dir, char *err, size_t errlen);
void syscall_totals_free(struct syscall_totals *t);

#endif
