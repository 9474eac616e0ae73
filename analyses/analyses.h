/* The arithmetic of `systrace-stats report`: which patches did not amortize, which
 * libc functions would remove the most of them in short-lived processes if hooked,
 * and the per-process table with its totals checked against summary.csv. */
#ifndef SYSTRACE_ANALYSES_H
#define SYSTRACE_ANALYSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run_tables.h"
#include "string_map.h"

/* A site (object, offset) whose patch did not pay for itself, summed over the
 * images where it did not. */
struct unpaid_site {
	char *object, *offset, *symbol, *syscall;
	uint64_t images, inprocess, break_even, patch_ns;
};

/* A function whose hooking would remove non-amortized patch sites. */
struct hook_candidate {
	char *function;
	uint64_t sites, images, patch_ns;
	size_t last_process;  /* to count each image once */
};

struct candidate_table {
	struct hook_candidate *rows;
	size_t n, cap;
	struct string_map index;
};

struct amortization_analysis {
	const struct process_table *table;
	uint64_t short_ns;          /* a process shorter than this is short-lived */
	uint64_t *unpaid_rows;      /* per process: its rows of sites.csv with amortized = no */
	uint64_t unpaid_rows_total;
	struct unpaid_site *sites;
	size_t nsites, sites_cap;
	struct string_map site_index;
	/* the non-amortized sites of short-lived processes, by libc function (when the
	 * tracer named them) and by the function containing the site */
	struct candidate_table by_libc_function, by_symbol;
	bool libc_function_named;   /* some row of sites.csv names one */
	size_t short_processes;
	uint64_t short_unpaid_rows;
};

void amortization_init(struct amortization_analysis *a, const struct process_table *t, uint64_t short_ns);
/* Adds one row of sites.csv (a site_row_fn; ctx is the analysis). */
void amortization_add_site(const struct site_row *site, void *ctx);
/* Sorts the sites (most images first) and the candidates (most sites first). */
void amortization_finish(struct amortization_analysis *a);
/* The ranking to show: by libc function if any row named one, else by symbol. */
const struct candidate_table *amortization_ranking(const struct amortization_analysis *a);
void amortization_free(struct amortization_analysis *a);

/* The function a symbol names: "read@@GLIBC_2.2.5+0x12" in libc.so.6 gives
 * "read (libc.so.6)"; into buf. */
void symbol_function(const char *symbol, const char *object, char *buf, size_t len);

/* The per-process table's columns: the sort keys of --sort and the header names. */
enum process_column {
	COL_PID, COL_IMAGE, COL_PPID, COL_WALL_MS,
	COL_COUNT_FIRST,  /* then one per enum process_count */
	COL_UNPAID_SITES = COL_COUNT_FIRST + PC_COUNTS,
	COL_EXIT, COL_EXE, COL_COUNT
};
extern const char *const process_column_names[COL_COUNT + 1]; /* NULL-terminated */
int process_column_find(const char *name);
bool process_column_is_text(int col);
/* A numeric column's value (wall_ms in ns). */
uint64_t process_number(const struct process_table *t, const uint64_t *unpaid_rows, size_t row, int col);
const char *process_text(const struct process_table *t, size_t row, int col);
/* Orders the rows by col, ties in file order. */
void sort_processes(size_t *order, const struct process_table *t, const uint64_t *unpaid_rows, int col,
		    bool descending);

/* A total over the rows against its summary.csv value. */
enum total_verdict { TOTAL_EQUAL, TOTAL_DIFFERS, TOTAL_MISSING, TOTAL_EMPTY, TOTAL_NOT_A_COUNT };
struct total_check {
	const char *key;         /* in summary.csv */
	uint64_t rows_sum, summary;
	enum total_verdict verdict;
};
#define TOTAL_CHECKS (PC_COUNTS + 1)
/* The sums of the counted columns (and the row count as processes); returns how
 * many differ from summary.csv. An empty summary value is no mismatch (a figure not
 * measured), a missing one is. */
size_t check_totals(const struct process_table *t, const struct summary_table *s,
		    struct total_check out[TOTAL_CHECKS]);

#endif
