/* systrace-stats report: the analyses of an output folder's CSV files, as aligned
 * text sections or as one CSV table (--csv --table NAME). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses.h"
#include "command_args.h"
#include "commands.h"
#include "csv.h"
#include "run_tables.h"
#include "syscall_report.h"

enum csv_table { TABLE_PROCESSES, TABLE_SITES, TABLE_LIBC, TABLE_KNOWN };

struct report_options {
	const char *dir;
	bool csv;
	enum csv_table table;
	int sort_col;
	bool descending;
	uint64_t short_ns;
	size_t top, limit;
	const char *libc_column;
	bool syscalls;  /* the table of systrace -c instead (syscall_report.h) */
	struct syscall_report_options syscall;
};

static void report_usage(FILE *out)
{
	fprintf(out,
		"usage: systrace-stats report [--csv [--table processes|sites|libc|known]] [--sort COL[:asc|:desc]]\n"
		"                             [--short-ms MS] [--top K] [--limit N] [--libc-function-column NAME] DIR\n"
		"       systrace-stats report --syscalls [--per-process] [-S KEY] [--limit N] DIR\n"
		"  the patches that did not amortize (per process, in total, which sites), the known\n"
		"  sites written at the images' start against the best choice in hindsight (in total\n"
		"  and for the top K executables), the top K functions whose hooking would remove the\n"
		"  most unpaid patches in processes shorter than MS (default 100), and a row per\n"
		"  process with totals checked against summary.csv.\n"
		"  --sort     the process table's order (default syscalls:desc); columns:\n            ");
	for (int c = 0; c < COL_COUNT; c++)
		fprintf(out, "%s%s", c ? " " : "", process_column_names[c]);
	fprintf(out, "\n"
		     "  --top K    functions ranked, executables of the known sites shown (default 10)\n"
		     "  --limit N  rows of the process, site and --csv known tables, tables of\n"
		     "             --per-process (default: all)\n"
		     "  --csv      one table as CSV on stdout: processes (default), sites, libc or known\n"
		     "  --table T  which table --csv prints\n"
		     "  --short-ms MS  processes shorter than MS are short-lived (default 100)\n"
		     "  --libc-function-column NAME  the column of sites.csv naming the libc function\n"
		     "             (default libc_function)\n"
		     "  --syscalls  the table of systrace -c instead: per syscall, strace -c's columns\n"
		     "             (%% time, seconds, usecs/call, calls, errors) and inprocess, ptraced\n"
		     "  --per-process  a table per process image too, most syscalls first (with\n"
		     "             --limit N, the first N), then the run's; implies --syscalls\n"
		     "  -S, --summary-sort-by KEY  the syscalls' order, by %s\n"
		     "             (default: time when the run measured times, else calls); implies --syscalls\n"
		     "  -h, --help  show this help\n", syscall_sort_keys);
}

static int parse_size(const char *s, size_t *v)
{
	char *end;
	unsigned long long n;

	if (*s < '0' || *s > '9')
		return -1;
	n = strtoull(s, &end, 10);
	if (*end)
		return -1;
	*v = (size_t)n;
	return 0;
}

static int parse_sort(const char *arg, struct report_options *o)
{
	char name[64];
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);

	if (len >= sizeof(name))
		return -1;
	memcpy(name, arg, len);
	name[len] = '\0';
	o->sort_col = process_column_find(name);
	if (o->sort_col < 0)
		return -1;
	/* numbers read best largest first, names in alphabetical order */
	o->descending = !process_column_is_text(o->sort_col);
	if (colon && !strcmp(colon, ":asc"))
		o->descending = false;
	else if (colon && !strcmp(colon, ":desc"))
		o->descending = true;
	else if (colon)
		return -1;
	return 0;
}

static int parse_report_options(int argc, char **argv, struct report_options *o)
{
	static const struct option longs[] = {
		{ "csv", no_argument, NULL, 'c' },   { "table", required_argument, NULL, 't' },
		{ "sort", required_argument, NULL, 's' }, { "short-ms", required_argument, NULL, 'm' },
		{ "top", required_argument, NULL, 'k' }, { "limit", required_argument, NULL, 'l' },
		{ "libc-function-column", required_argument, NULL, 'f' }, { "help", no_argument, NULL, 'h' },
		{ "syscalls", no_argument, NULL, 'y' }, { "per-process", no_argument, NULL, 'p' },
		{ "summary-sort-by", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	size_t ms;
	int c;

	*o = (struct report_options){ .sort_col = COL_COUNT_FIRST + PC_SYSCALLS, .descending = true,
				      .short_ns = 100000000, .top = 10, .limit = SIZE_MAX,
				      .libc_column = "libc_function" };
	optind = 1;
	while ((c = getopt_long(argc, argv, "hS:", longs, NULL)) != -1) {
		switch (c) {
		case 'y':
			o->syscalls = true;
			break;
		case 'p':
			o->syscalls = o->syscall.per_process = true;
			break;
		case 'S':
			if (syscall_sort_parse(optarg, &o->syscall.sort) < 0) {
				fprintf(stderr, "systrace-stats report: -S '%s': sort by %s\n", optarg, syscall_sort_keys);
				return 2;
			}
			o->syscalls = true;
			break;
		case 'c':
			o->csv = true;
			break;
		case 't':
			if (!strcmp(optarg, "processes"))
				o->table = TABLE_PROCESSES;
			else if (!strcmp(optarg, "sites"))
				o->table = TABLE_SITES;
			else if (!strcmp(optarg, "libc"))
				o->table = TABLE_LIBC;
			else if (!strcmp(optarg, "known"))
				o->table = TABLE_KNOWN;
			else {
				fprintf(stderr, "systrace-stats report: --table is processes, sites, libc or known, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			if (parse_sort(optarg, o) < 0) {
				fprintf(stderr, "systrace-stats report: --sort '%s': not COLUMN[:asc|:desc] with a column of the process table\n", optarg);
				report_usage(stderr);
				return 2;
			}
			break;
		case 'm':
			if (parse_size(optarg, &ms) < 0) {
				fprintf(stderr, "systrace-stats report: --short-ms '%s' is not a number of milliseconds\n", optarg);
				return 2;
			}
			o->short_ns = (uint64_t)ms * 1000000;
			break;
		case 'k':
		case 'l':
			if (parse_size(optarg, c == 'k' ? &o->top : &o->limit) < 0) {
				fprintf(stderr, "systrace-stats report: --%s '%s' is not a count\n", c == 'k' ? "top" : "limit", optarg);
				return 2;
			}
			break;
		case 'f':
			o->libc_column = optarg;
			break;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			report_usage(stderr);
			return 2;
		}
	}
	if (o->syscalls && o->csv) {
		fprintf(stderr, "systrace-stats report: --syscalls prints a text table; it does not go with --csv\n");
		return 2;
	}
	o->syscall.limit = o->limit;
	c = command_dir_operand("report", argc, argv, report_usage, &o->dir);
	o->syscall.dir = o->dir;
	return c;
}

/* One cell of the process table as text (row SIZE_MAX: the totals, which sum the
 * counts and wall times and leave pid, image, ppid and the names out). */
static void process_cell(char *buf, size_t len, const struct process_table *t, const uint64_t *unpaid, size_t row,
			 int col, const uint64_t *totals)
{
	uint64_t v;

	if (row == SIZE_MAX && col < COL_WALL_MS) {
		snprintf(buf, len, "%s", col == COL_PID ? "TOTAL" : "");
		return;
	}
	if (process_column_is_text(col)) {
		snprintf(buf, len, "%s", row == SIZE_MAX ? "" : process_text(t, row, col));
		return;
	}
	v = row == SIZE_MAX ? totals[col] : process_number(t, unpaid, row, col);
	if (col == COL_WALL_MS)
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, v / 1000000, v / 1000 % 1000);
	else if (col == COL_PID || col == COL_PPID)
		snprintf(buf, len, "%" PRId64, (int64_t)v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

struct loaded_run {
	struct process_table processes;
	struct summary_table summary;
	struct amortization_analysis amortization;
	struct known_choice_analysis known;
	struct site_columns_present site_columns;
	size_t *order;
	size_t shown;
	uint64_t totals[COL_COUNT];  /* by column: the sums of the numeric ones */
	struct total_check checks[TOTAL_CHECKS];
	size_t mismatches;
};

/* A cell in its column: exe last and unpadded, text left-aligned, numbers right. */
static void print_aligned(const char *cell, int col, size_t width, bool left)
{
	if (col == COL_EXE)
		printf("%s\n", cell);
	else if (left || process_column_is_text(col))
		printf("%-*s  ", (int)width, cell);
	else
		printf("%*s  ", (int)width, cell);
}

static void print_process_table_text(const struct loaded_run *r)
{
	size_t width[COL_COUNT];
	char cell[4096];

	for (int c = 0; c < COL_COUNT; c++)
		width[c] = strlen(process_column_names[c]);
	for (size_t i = 0; i <= r->shown; i++) {
		size_t row = i < r->shown ? r->order[i] : SIZE_MAX;

		for (int c = 0; c < COL_EXE; c++) {
			process_cell(cell, sizeof(cell), &r->processes, r->amortization.unpaid_rows, row, c, r->totals);
			if (strlen(cell) > width[c])
				width[c] = strlen(cell);
		}
	}
	for (int c = 0; c < COL_COUNT; c++)
		print_aligned(process_column_names[c], c, width[c], false);
	for (size_t i = 0; i <= r->shown; i++) {
		size_t row = i < r->shown ? r->order[i] : SIZE_MAX;

		for (int c = 0; c < COL_COUNT; c++) {
			process_cell(cell, sizeof(cell), &r->processes, r->amortization.unpaid_rows, row, c, r->totals);
			print_aligned(cell, c, width[c], row == SIZE_MAX && c == COL_PID);
		}
	}
}

static const char *figure(const struct summary_table *s, const char *key)
{
	const char *v = summary_value(s, key);

	return v && *v ? v : "?";
}

static void print_run_text(const struct loaded_run *r, const char *dir)
{
	const struct summary_table *s = &r->summary;
	uint64_t wall_ns = 0;

	parse_count(figure(s, "wall_ns"), &wall_ns);
	printf("systrace report of %s\n\n== Run\n", dir);
	printf("processes %zu, syscalls %s (ptraced %s, in-process %s; early %s), ptrace stops %s "
	       "(lifecycle %s, early %s, late %s), wall %" PRIu64 ".%03" PRIu64 " ms\n",
	       r->processes.n, figure(s, "syscalls"), figure(s, "syscalls_ptraced"), figure(s, "syscalls_inprocess"),
	       figure(s, "syscalls_early"), figure(s, "ptrace_stops"), figure(s, "ptrace_stops_lifecycle"),
	       figure(s, "ptrace_stops_early"), figure(s, "ptrace_stops_late"), wall_ns / 1000000, wall_ns / 1000 % 1000);
	if (!summary_value(s, "saving_per_call_ns") || !*summary_value(s, "saving_per_call_ns")) {
		printf("measured costs: none in this run (--patch=off, or the measurement failed)\n");
		return;
	}
	printf("measured costs: a stop %s ns, an in-process call %s ns, saving per call %s ns; "
	       "mean patch %s ns, break-even %s calls\n",
	       figure(s, "stop_cost_ns"), figure(s, "inprocess_cost_ns"), figure(s, "saving_per_call_ns"),
	       figure(s, "patch_cost_ns"), figure(s, "break_even_calls"));
}

static void print_amortization_text(const struct report_options *o, const struct loaded_run *r)
{
	const struct amortization_analysis *a = &r->amortization;
	const char *measured = summary_value(&r->summary, "saving_per_call_ns");
	uint64_t written = r->totals[COL_COUNT_FIRST + PC_PATCHES_WRITTEN];
	uint64_t unpaid = r->totals[COL_COUNT_FIRST + PC_PATCHES_NOT_AMORTIZED];
	size_t processes_with = 0, shown = a->nsites < o->limit ? a->nsites : o->limit;

	printf("\n== Patches that did not amortize (fewer in-process calls after the patch than its break-even)\n");
	if (!measured || !*measured) {
		printf("not known: the costs were not measured in this run (--patch=off, or the measurement failed)\n");
		return;
	}
	for (size_t i = 0; i < r->processes.n; i++)
		processes_with += r->processes.rows[i].count[PC_PATCHES_NOT_AMORTIZED] > 0;
	printf("%" PRIu64 " of %" PRIu64 " patches written (%.1f%%), in %zu of %zu processes "
	       "(per process: column patches_not_amortized below)\n",
	       unpaid, written, written ? 100.0 * (double)unpaid / (double)written : 0.0, processes_with,
	       r->processes.n);
	printf("%" PRIu64 " of them at sites that ran (sites.csv amortized=no), %" PRIu64
	       " written at start at sites that never ran\n",
	       a->unpaid_rows_total, unpaid >= a->unpaid_rows_total ? unpaid - a->unpaid_rows_total : 0);
	if (!a->nsites)
		return;
	printf("\nthe sites that ran and did not amortize, over the images where they did not (%zu sites%s):\n",
	       a->nsites, shown < a->nsites ? ", --limit" : "");
	printf("%6s %10s %10s %10s  %-18s %-14s %-36s %s\n", "images", "inprocess", "break_even", "patch_ns",
	       "offset", "syscall", "symbol", "object");
	for (size_t i = 0; i < shown; i++) {
		const struct unpaid_site *u = &a->sites[i];

		printf("%6" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "  %-18s %-14s %-36s %s\n", u->images,
		       u->inprocess, u->break_even, u->patch_ns, u->offset, u->syscall, u->symbol[0] ? u->symbol : "-",
		       u->object[0] ? u->object : "-");
	}
}

/* ns as milliseconds, to the microsecond: "16.759 ms" */
static const char *ms_text(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 " ms", ns / 1000000, ns / 1000 % 1000);
	return buf;
}

/* rule / optimum as "1.418", or "-" when there is no optimum to divide by */
static const char *ratio_text(char *buf, size_t len, const struct known_choice *c)
{
	uint64_t r = known_choice_ratio_permille(c);

	if (!c->optimum_ns)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, r / 1000, r % 1000);
	return buf;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The executables whose rule costs the most above hindsight, the top K. */
static void print_known_exes_text(const struct report_options *o, const struct known_choice_analysis *k)
{
	char ratio[32];
	size_t shown = 0;

	for (size_t i = 0; i < k->nexes && shown < o->top; i++)
		shown += k->exes[i].c.rule_ns > 0;
	if (!shown)
		return;
	printf("\nper executable, the %zu (of %zu) whose rule costs the most above hindsight (all: --csv --table "
	       "known):\n", shown, k->nexes);
	printf("%6s %8s %8s %8s %12s %12s %12s %7s  %s\n", "images", "written", "unused", "missed", "rule_ns",
	       "optimum_ns", "excess_ns", "ratio", "exe");
	for (size_t i = 0, n = 0; i < k->nexes && n < shown; i++) {
		const struct known_choice *x = &k->exes[i].c;

		if (!x->rule_ns)
			continue;
		n++;
		printf("%6" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
		       " %7s  %s\n", x->images, x->written, x->unused, x->missed, x->rule_ns, x->optimum_ns,
		       known_choice_excess(x), ratio_text(ratio, sizeof(ratio), x), k->exes[i].exe);
	}
}

static void print_known_text(const struct report_options *o, const struct loaded_run *r)
{
	const struct known_choice_analysis *k = &r->known;
	const struct known_choice *t = &k->total;
	uint64_t ran = t->written - (t->unused < t->written ? t->unused : t->written);
	bool m_above_p = k->m_ns >= k->p_ns;
	char a[32], b[32], c[32], d[32], e[32];

	printf("\n== Known sites written at start (the rule against the best choice in hindsight)\n");
	if (!k->available) {
		printf("not available for this run: %s (a run of an older systrace)\n", k->why_not);
		return;
	}
	printf("P, a patch written in a batch: %" PRIu64 " ns; M, a site left out that runs (a stop, a patch at "
	       "its trap): %" PRIu64 " ns; a known site is written when it ran in at least %u.%u%% of the "
	       "earlier images (P/M: known_threshold_permille %" PRIu64 ")\n",
	       k->p_ns, k->m_ns, (unsigned)(k->threshold_permille / 10), (unsigned)(k->threshold_permille % 10),
	       k->threshold_permille);
	printf("over the %" PRIu64 " images started by an exec", t->images);
	if (k->other_written)
		printf(" (not counted: the %" PRIu64 " fork children, which start with their parent's patches; "
		       "they wrote %" PRIu64 " known sites in batches later, at traps)", k->other_images, k->other_written);
	printf("\n");
	if (!t->written && !t->missed) {
		printf("nothing to compare: no known site was written at an image's start, or left out and run "
		       "(W = U = X = 0)\n");
		return;
	}
	printf("written at start %" PRIu64 " (W): %" PRIu64 " ran, %" PRIu64 " never ran (wasted, U: %.1f%% of W); "
	       "left out and run %" PRIu64 " (missed, X: %.1f%% of the %" PRIu64 " known sites that ran)\n",
	       t->written, ran, t->unused, share(t->unused, t->written), t->missed, share(t->missed, ran + t->missed),
	       ran + t->missed);
	printf("the rule P x W + M x X = %s; best in hindsight %s x (W - U + X) = %s; ratio %s",
	       ms_text(a, sizeof(a), t->rule_ns), m_above_p ? "P" : "M", ms_text(b, sizeof(b), t->optimum_ns),
	       ratio_text(c, sizeof(c), t));
	if (m_above_p)
		printf("; above it by %s: wasted P x U = %s, missed (M - P) x X = %s\n",
		       ms_text(d, sizeof(d), known_choice_excess(t)), ms_text(e, sizeof(e), k->p_ns * t->unused),
		       ms_text(a, sizeof(a), (k->m_ns - k->p_ns) * t->missed));
	else
		printf("; above it by %s\n", ms_text(d, sizeof(d), known_choice_excess(t)));
	print_known_exes_text(o, k);
}

static void print_ranking_text(const struct report_options *o, const struct loaded_run *r)
{
	const struct amortization_analysis *a = &r->amortization;
	const struct candidate_table *c = amortization_ranking(a);
	size_t shown = c->n < o->top ? c->n : o->top;
	bool unknown_shown = false;

	printf("\n== Top %zu functions to hook in short-lived processes (wall < %" PRIu64 " ms: %zu of %zu)\n", o->top,
	       a->short_ns / 1000000, a->short_processes, r->processes.n);
	if (!a->libc_function_named)
		printf("sites.csv %s column '%s': ranked by the function that contains the site (its symbol), "
		       "not by the libc entry point that led to it (systrace --libc-calls names those)\n",
		       r->site_columns.libc_function ? "has an empty" : "has no", o->libc_column);
	printf("%" PRIu64 " non-amortized sites in them; hooking a function removes its sites\n", a->short_unpaid_rows);
	if (!shown)
		return;
	printf("%4s %6s %6s %12s  %s\n", "rank", "sites", "images", "patch_ns",
	       a->libc_function_named ? "libc function" : "function containing the site (object)");
	for (size_t i = 0; i < shown; i++) {
		printf("%4zu %6" PRIu64 " %6" PRIu64 " %12" PRIu64 "  %s\n", i + 1, c->rows[i].sites, c->rows[i].images,
		       c->rows[i].patch_ns, c->rows[i].function);
		unknown_shown |= a->libc_function_named && !strcmp(c->rows[i].function, "(unknown)");
	}
	if (unknown_shown)
		printf("(unknown): sites whose row names no libc function (the loader's own calls, or none found "
		       "on the stack)\n");
}

static void warn_totals(const struct loaded_run *r, FILE *out, const char *prefix)
{
	for (int c = 0; c < TOTAL_CHECKS; c++) {
		const struct total_check *k = &r->checks[c];

		if (k->verdict == TOTAL_EQUAL || k->verdict == TOTAL_EMPTY || k->verdict == TOTAL_NO_COLUMN)
			continue;
		if (k->verdict == TOTAL_DIFFERS)
			fprintf(out, "%s%s: the rows of processes.csv sum to %" PRIu64 ", summary.csv says %" PRIu64 "\n",
				prefix, k->key, k->rows_sum, k->summary);
		else
			fprintf(out, "%s%s: %s (the rows of processes.csv sum to %" PRIu64 ")\n", prefix, k->key,
				k->verdict == TOTAL_MISSING ? "missing from summary.csv" : "not a count in summary.csv",
				k->rows_sum);
	}
}

static void print_processes_text(const struct report_options *o, const struct loaded_run *r)
{
	printf("\n== Processes (%zu rows%s, by %s %s; TOTAL sums every row)\n", r->processes.n,
	       r->shown < r->processes.n ? ", --limit" : "", process_column_names[o->sort_col],
	       o->descending ? "descending" : "ascending");
	print_process_table_text(r);
	if (r->mismatches)
		warn_totals(r, stdout, "WARNING: ");
	else
		printf("totals: equal to summary.csv (processes, syscalls, early, ptraced, inprocess, stops, patches)\n");
}

static void write_process_csv(const struct loaded_run *r)
{
	struct csv_writer w = { stdout, 0 };
	char cell[64];

	csv_header(&w, process_column_names);
	for (size_t i = 0; i < r->shown; i++) {
		size_t row = r->order[i];

		for (int c = 0; c < COL_COUNT; c++) {
			if (process_column_is_text(c)) {
				csv_str(&w, process_text(&r->processes, row, c));
				continue;
			}
			process_cell(cell, sizeof(cell), &r->processes, r->amortization.unpaid_rows, row, c, r->totals);
			csv_str(&w, cell);
		}
		csv_end_row(&w);
	}
}

static void write_sites_csv(const struct report_options *o, const struct loaded_run *r)
{
	static const char *const header[] = { "object", "offset", "symbol", "syscall", "images", "inprocess",
					      "break_even", "patch_ns", NULL };
	const struct amortization_analysis *a = &r->amortization;
	struct csv_writer w = { stdout, 0 };

	csv_header(&w, header);
	for (size_t i = 0; i < a->nsites && i < o->limit; i++) {
		csv_str(&w, a->sites[i].object);
		csv_str(&w, a->sites[i].offset);
		csv_str(&w, a->sites[i].symbol);
		csv_str(&w, a->sites[i].syscall);
		csv_u64(&w, a->sites[i].images);
		csv_u64(&w, a->sites[i].inprocess);
		csv_u64(&w, a->sites[i].break_even);
		csv_u64(&w, a->sites[i].patch_ns);
		csv_end_row(&w);
	}
}

static void write_libc_csv(const struct report_options *o, const struct loaded_run *r)
{
	static const char *const header[] = { "rank", "function", "named_by", "sites", "images", "patch_ns", NULL };
	const struct candidate_table *c = amortization_ranking(&r->amortization);
	struct csv_writer w = { stdout, 0 };

	csv_header(&w, header);
	for (size_t i = 0; i < c->n && i < o->top; i++) {
		csv_u64(&w, i + 1);
		csv_str(&w, c->rows[i].function);
		csv_str(&w, r->amortization.libc_function_named ? o->libc_column : "symbol");
		csv_u64(&w, c->rows[i].sites);
		csv_u64(&w, c->rows[i].images);
		csv_u64(&w, c->rows[i].patch_ns);
		csv_end_row(&w);
	}
}

static void write_known_csv(const struct report_options *o, const struct loaded_run *r)
{
	static const char *const header[] = { "exe", "images", "written", "unused", "missed", "rule_ns",
					      "optimum_ns", "excess_ns", "ratio", NULL };
	const struct known_choice_analysis *k = &r->known;
	struct csv_writer w = { stdout, 0 };
	char ratio[32];

	csv_header(&w, header);
	for (size_t i = 0; i < k->nexes && i < o->limit; i++) {
		const struct known_choice *c = &k->exes[i].c;

		csv_str(&w, k->exes[i].exe);
		csv_u64(&w, c->images);
		csv_u64(&w, c->written);
		csv_u64(&w, c->unused);
		csv_u64(&w, c->missed);
		csv_u64(&w, c->rule_ns);
		csv_u64(&w, c->optimum_ns);
		csv_u64(&w, known_choice_excess(c));
		csv_str(&w, c->optimum_ns ? ratio_text(ratio, sizeof(ratio), c) : "");
		csv_end_row(&w);
	}
}

static int load_run(const struct report_options *o, struct loaded_run *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	if (process_table_load(&r->processes, o->dir, err, errlen) < 0)
		return -1;
	if (summary_table_load(&r->summary, o->dir, err, errlen) < 0)
		return -1;
	amortization_init(&r->amortization, &r->processes, o->short_ns);
	if (sites_scan(o->dir, &r->processes, o->libc_column, &r->site_columns, amortization_add_site,
		       &r->amortization, err, errlen) < 0)
		return -1;
	amortization_finish(&r->amortization);
	known_choice_analyse(&r->known, &r->processes, &r->summary);
	r->order = malloc((r->processes.n + 1) * sizeof(*r->order));
	if (!r->order)
		abort();
	sort_processes(r->order, &r->processes, r->amortization.unpaid_rows, o->sort_col, o->descending);
	r->shown = r->processes.n < o->limit ? r->processes.n : o->limit;
	for (size_t i = 0; i < r->processes.n; i++) {
		const struct process_row *p = &r->processes.rows[i];

		for (int c = 0; c < PC_COUNTS; c++)
			r->totals[COL_COUNT_FIRST + c] += p->count[c];
		r->totals[COL_UNPAID_SITES] += r->amortization.unpaid_rows[i];
		r->totals[COL_WALL_MS] += p->end_ns - p->start_ns;
	}
	r->mismatches = check_totals(&r->processes, &r->summary, r->checks);
	return 0;
}

static void free_run(struct loaded_run *r)
{
	free(r->order);
	amortization_free(&r->amortization);
	known_choice_free(&r->known);
	summary_table_free(&r->summary);
	process_table_free(&r->processes);
}

int report_main(int argc, char **argv)
{
	struct report_options o;
	struct loaded_run r;
	char err[4096];
	int status = parse_report_options(argc, argv, &o);

	if (status >= 0)
		return status;
	if (o.syscalls) {
		status = syscall_report(stdout, stderr, &o.syscall, err, sizeof(err));
		if (status < 0)
			fprintf(stderr, "systrace-stats report: %s\n", err);
		return status < 0 ? 1 : 0;
	}
	if (load_run(&o, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "systrace-stats report: %s\n", err);
		free_run(&r);
		return 1;
	}
	warn_totals(&r, stderr, "systrace-stats report: warning: ");
	if (!o.csv) {
		print_run_text(&r, o.dir);
		print_amortization_text(&o, &r);
		print_known_text(&o, &r);
		print_ranking_text(&o, &r);
		print_processes_text(&o, &r);
	} else if (o.table == TABLE_PROCESSES) {
		write_process_csv(&r);
	} else if (o.table == TABLE_SITES) {
		write_sites_csv(&o, &r);
	} else if (o.table == TABLE_KNOWN) {
		if (!r.known.available) {
			fprintf(stderr, "systrace-stats report: --table known is not available for %s: %s (a run of an "
					"older systrace)\n", o.dir, r.known.why_not);
			free_run(&r);
			return 1;
		}
		write_known_csv(&o, &r);
	} else {
		write_libc_csv(&o, &r);
	}
	free_run(&r);
	return 0;
}
