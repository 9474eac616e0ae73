/* The table `strace -c` prints, per syscall: % time, seconds, usecs/call, calls,
 * errors and the name, with systrace's two paths after them (in-process, ptraced).
 * The tracer fills it as images end (systrace -c), systrace-stats from syscalls.csv
 * (report --syscalls); both print it here, the same way. */
#ifndef SYSTRACE_SYSCALL_TABLE_H
#define SYSTRACE_SYSCALL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "syscall_names.h"

/* One syscall (counter index: ABI * SYSCALL_NR_SPAN + number) over some images. */
struct syscall_count {
	int index;
	uint64_t calls, ptraced;  /* in-process: calls - ptraced */
	/* errors among the calls whose results were seen (the rows of syscalls.csv
	 * whose errors field is not empty): errors_known of the calls */
	uint64_t errors, errors_known;
	uint64_t time_ns;         /* spent in the calls, when times were measured */
};

/* Adds b's counts to a's (of the same index). */
void syscall_count_add(struct syscall_count *a, const struct syscall_count *b);

enum syscall_sort {
	SYSCALL_SORT_DEFAULT, /* by time when times were measured, else by calls */
	SYSCALL_SORT_TIME, SYSCALL_SORT_CALLS, SYSCALL_SORT_NAME, SYSCALL_SORT_ERRORS,
	SYSCALL_SORT_INPROCESS, SYSCALL_SORT_PTRACED,
	SYSCALL_SORT_COUNT
};

/* The keys of -S, "time calls name errors inprocess ptraced" (for messages). */
extern const char syscall_sort_keys[];
/* A key of -S as a sort; -1 when it is none. */
int syscall_sort_parse(const char *key, enum syscall_sort *sort);

struct syscall_table_options {
	enum syscall_sort sort;
	bool timed;        /* the times were measured (else the time columns are 0) */
	bool paths_known;  /* ptraced is known (syscalls.csv of an older systrace lacks it) */
	bool notes;        /* the notes on what is not known, after the table */
};

/* Prints the table of counts[0..n) (entries with no calls are left out; an index
 * appears once): a table per ABI as strace -f -c prints one per personality (x86_64
 * always, headed `System call usage summary for 32 bit mode:` and `for x32 mode:`
 * the others), sorted by the key, ties in syscall number order, each with its
 * total line. Returns the calls in all. */
uint64_t syscall_table_print(FILE *f, const struct syscall_count *counts, size_t n,
			     const struct syscall_table_options *o);

#endif
