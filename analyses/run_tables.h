/* The CSV files of an output folder loaded for the analyses (systrace-stats):
 * processes.csv and summary.csv in memory, sites.csv streamed a row at a time (it
 * can hold millions of rows). Every error names the file, the line and the problem. */
#ifndef SYSTRACE_RUN_TABLES_H
#define SYSTRACE_RUN_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "syscall_table.h"

/* The counted columns of processes.csv that the analyses use; each has its total in
 * summary.csv under summary_key. */
enum process_count {
	PC_SYSCALLS, PC_EARLY, PC_PTRACED, PC_INPROCESS,
	PC_STOPS, PC_STOPS_LIFECYCLE, PC_STOPS_EARLY, PC_STOPS_LATE,
	PC_PATCHES_WRITTEN, PC_PATCHES_NOT_AMORTIZED, PC_PATCH_NS,
	PC_COUNTS
};

struct process_count_column {
	const char *csv_name;    /* in processes.csv */
	const char *summary_key; /* in summary.csv */
};
extern const struct process_count_column process_count_columns[PC_COUNTS];

/* Counted columns that a run of an older systrace lacks: the known sites written at
 * an image's start (docs/patching.md, "Which known sites are written"). */
enum process_optional {
	PO_PATCHES_KNOWN, PO_KNOWN_UNUSED, PO_KNOWN_MISSED,
	PO_COUNTS
};
extern const struct process_count_column process_optional_columns[PO_COUNTS];

struct process_row {
	int64_t pid, ppid;
	uint64_t image, start_ns, end_ns;
	char *exe, *exit;
	uint64_t count[PC_COUNTS];  /* an empty field is 0 */
	uint64_t optional[PO_COUNTS]; /* 0 where the file has no such column */
	unsigned long line;         /* in processes.csv */
};

struct process_table {
	struct process_row *rows;
	size_t n;
	uint64_t earliest_start_ns, latest_end_ns;
	bool has_optional[PO_COUNTS]; /* which of the optional columns the file has */
};

/* summary.csv: metric -> value as written (empty when not measured). */
struct summary_entry {
	char *key, *value;
};

struct summary_table {
	struct summary_entry *entries;
	size_t n;
};

/* One row of sites.csv; the strings live until the next row is read. */
struct site_row {
	size_t process;             /* index in the process table */
	unsigned long line;
	const char *object, *offset, *symbol, *syscall, *state;
	const char *libc_function;  /* the libc entry point that led to the site: "" when
				     * unknown or when the column is absent */
	uint64_t ptraced, inprocess;
	bool patched_by_image;      /* patch_ns not empty: this image wrote the patch */
	uint64_t patch_ns, break_even;
	bool not_amortized;         /* amortized = no */
	bool has_patched_ns;
	uint64_t patched_ns;        /* CLOCK_MONOTONIC when written (the column's, if any) */
};

/* Which optional columns sites.csv has (the libc function's name is an option). */
struct site_columns_present {
	bool libc_function, patched_ns;
};

/* The last part of a path ("/usr/bin/ls" gives "ls"). */
const char *run_base_name(const char *path);
/* DIR/NAME as a new string. */
char *run_file_path(const char *dir, const char *name);

int process_table_load(struct process_table *t, const char *dir, char *err, size_t errlen);
void process_table_free(struct process_table *t);

int summary_table_load(struct summary_table *s, const char *dir, char *err, size_t errlen);
/* The value of key: NULL when the key is missing, "" when it is empty. */
const char *summary_value(const struct summary_table *s, const char *key);
void summary_table_free(struct summary_table *s);

/* Calls fn for each row of DIR/sites.csv, matched to its row of processes (the
 * tracer writes an image's process row and its site rows together, in the same
 * order, so the k-th block of rows of a pid and image belongs to its k-th process
 * row). -1 with a message on a bad file or row. */
typedef void site_row_fn(const struct site_row *site, void *ctx);
int sites_scan(const char *dir, const struct process_table *t, const char *libc_function_column,
	       struct site_columns_present *present, site_row_fn *fn, void *ctx, char *err, size_t errlen);

/* One row of syscalls.csv: its image's calls of one syscall. */
struct syscall_file_row {
	size_t process;             /* index in the process table; (size_t)-1 without one */
	unsigned long line;
	struct syscall_count count; /* errors_known: calls when its errors field is not empty */
};

/* Which optional columns syscalls.csv has: ptraced and inprocess (a run of an older
 * systrace has neither), time_ns with values (a run that measured the calls' times,
 * --time; without it the column is there, empty). Known once the scan is done. */
struct syscall_columns_present {
	bool paths, time;
};

/* Calls fn for each row of DIR/syscalls.csv; with a process table, matched to its
 * row there as sites_scan matches sites. -1 with a message on a bad file or row (a
 * syscall name this build does not know included). */
typedef void syscall_row_fn(const struct syscall_file_row *row, void *ctx);
int syscalls_scan(const char *dir, const struct process_table *t, struct syscall_columns_present *present,
		  syscall_row_fn *fn, void *ctx, char *err, size_t errlen);

/* A decimal field: 0 for "", -1 for anything but digits. */
int parse_count(const char *s, uint64_t *v);

#endif
