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

/* A total over the rows against its summary.csv value (TOTAL_NO_COLUMN: an optional
 * column processes.csv lacks, a run of an older systrace: not checked). */
enum total_verdict { TOTAL_EQUAL, TOTAL_DIFFERS, TOTAL_MISSING, TOTAL_EMPTY, TOTAL_NOT_A_COUNT, TOTAL_NO_COLUMN };
struct total_check {
	const char *key;         /* in summary.csv */
	uint64_t rows_sum, summary;
	enum total_verdict verdict;
};
/* the counted columns, the row count (processes), then the optional columns */
#define TOTAL_CHECKS (PC_COUNTS + 1 + PO_COUNTS)
#define TOTAL_CHECK_OPTIONAL(c) (PC_COUNTS + 1 + (c))
/* The sums of the counted columns (and the row count as processes, and the optional
 * columns the file has); returns how many differ from summary.csv. An empty summary
 * value is no mismatch (a figure not measured), a missing one is. */
size_t check_totals(const struct process_table *t, const struct summary_table *s,
		    struct total_check out[TOTAL_CHECKS]);

/* The choice of the known sites written at an image's start (docs/patching.md,
 * "Which known sites are written") against the best choice in hindsight, which
 * writes exactly the known sites that will run. Over the images started by an exec,
 * the ones whose start the tracer decides: W sites written at the start
 * (patches_known), U of them never run (known_unused), X known sites left out that
 * ran (known_missed, each a stop and a patch at its trap). With P what a patch
 * written in a batch costs and M what a site left out costs when it runs:
 *   the rule's cost       P W + M X
 *   the best in hindsight min(P, M) (W - U + X)   (each known site that ran: written
 *                         at the start, or left to its trap when that is cheaper;
 *                         P (W - U + X) in any real run, where M > P)
 * Their difference is P U + (M - P) X: what the wasted and the missed sites cost. */
struct known_choice {
	uint64_t images, written, unused, missed;  /* images, W, U, X */
	uint64_t rule_ns, optimum_ns;
};
/* Fills in c's costs from its counts (U above W counts as W). */
void known_choice_cost(struct known_choice *c, uint64_t p_ns, uint64_t m_ns);
/* The rule's cost above the optimum (0 if below, which the formulas exclude). */
uint64_t known_choice_excess(const struct known_choice *c);
/* rule / optimum in thousandths, rounded to the nearest; 0 when the optimum is 0. */
uint64_t known_choice_ratio_permille(const struct known_choice *c);

struct known_choice_exe {
	char *exe;
	struct known_choice c;
};

struct known_choice_analysis {
	bool available;          /* the run has the columns and the costs */
	char why_not[160];       /* what it lacks, when not available */
	uint64_t p_ns, m_ns, threshold_permille;  /* summary.csv's batch_patch_ns, miss_ns,
						   * known_threshold_permille */
	struct known_choice total;
	uint64_t other_images, other_written;  /* images not started by an exec (fork
						* children, image 0), and their patches_known
						* (a batch at a first trap): not in the totals */
	struct known_choice_exe *exes;  /* per executable, most excess first (ties: by name) */
	size_t nexes;
};
/* From the rows of t and the costs of s; a run without them is not available. */
void known_choice_analyse(struct known_choice_analysis *k, const struct process_table *t,
			  const struct summary_table *s);
void known_choice_free(struct known_choice_analysis *k);

#endif
