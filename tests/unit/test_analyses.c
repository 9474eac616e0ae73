#include <stdlib.h>
#include <string.h>

#include "analyses.h"
#include "analysis_fixture.h"
#include "run_dir.h"
#include "suites.h"

struct loaded {
	char *dir;
	struct process_table processes;
	struct summary_table summary;
	struct amortization_analysis amortization;
	struct site_columns_present present;
};

/* Loads a folder of the given files (NULL: the fixture's) and analyses it. */
static void load(struct loaded *l, const char *processes, const char *sites, const char *summary, const char *libc_column)
{
	char err[512];

	memset(l, 0, sizeof(*l));
	l->dir = run_dir_new();
	run_dir_write(l->dir, "processes.csv", processes ? processes : FIXTURE_PROCESSES);
	run_dir_write(l->dir, "sites.csv", sites ? sites : FIXTURE_SITES);
	run_dir_write(l->dir, "summary.csv", summary ? summary : FIXTURE_SUMMARY);
	ck_assert_msg(process_table_load(&l->processes, l->dir, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(summary_table_load(&l->summary, l->dir, err, sizeof(err)) == 0, "%s", err);
	amortization_init(&l->amortization, &l->processes, 100000000);
	ck_assert_msg(sites_scan(l->dir, &l->processes, libc_column, &l->present, amortization_add_site,
				 &l->amortization, err, sizeof(err)) == 0, "%s", err);
	amortization_finish(&l->amortization);
}

static void unload(struct loaded *l)
{
	amortization_free(&l->amortization);
	summary_table_free(&l->summary);
	process_table_free(&l->processes);
	run_dir_remove(l->dir);
}

START_TEST(processes_are_read_with_quoted_names)
{
	struct loaded l;

	load(&l, NULL, NULL, NULL, "libc_function");
	ck_assert_uint_eq(l.processes.n, 5);
	ck_assert_str_eq(l.processes.rows[2].exe, "/bin/we,ird \"x\"");
	ck_assert_int_eq(l.processes.rows[2].pid, 101);
	ck_assert_uint_eq(l.processes.rows[2].count[PC_STOPS_EARLY], 12);
	ck_assert_uint_eq(l.processes.earliest_start_ns, 1000000000);
	ck_assert_uint_eq(l.processes.latest_end_ns, 1500000000);
	ck_assert_str_eq(summary_value(&l.summary, "break_even_calls"), "2");
	ck_assert_ptr_null(summary_value(&l.summary, "nope"));
	unload(&l);
}
END_TEST

/* The site rows of a reused pid and image go to the process row of their block. */
START_TEST(non_amortized_sites_per_process_and_in_total)
{
	struct loaded l;
	const struct unpaid_site *s;

	load(&l, NULL, NULL, NULL, "libc_function");
	ck_assert_uint_eq(l.amortization.unpaid_rows[0], 1);
	ck_assert_uint_eq(l.amortization.unpaid_rows[1], 0);
	ck_assert_uint_eq(l.amortization.unpaid_rows[2], 4);
	ck_assert_uint_eq(l.amortization.unpaid_rows[3], 0);
	ck_assert_uint_eq(l.amortization.unpaid_rows[4], 2);
	ck_assert_uint_eq(l.amortization.unpaid_rows_total, 7);
	/* aggregated over images, most images first, then the costliest */
	ck_assert_uint_eq(l.amortization.nsites, 4);
	s = &l.amortization.sites[0];
	ck_assert_str_eq(s->offset, "0x10");
	ck_assert_uint_eq(s->images, 3);
	ck_assert_uint_eq(s->inprocess, 1);
	ck_assert_uint_eq(s->break_even, 6);
	ck_assert_uint_eq(s->patch_ns, 30000);
	s = &l.amortization.sites[1];
	ck_assert_str_eq(s->offset, "0x30");
	ck_assert_uint_eq(s->images, 2);
	ck_assert_uint_eq(s->patch_ns, 22000);
	ck_assert_str_eq(l.amortization.sites[2].offset, "0x18");
	ck_assert_str_eq(l.amortization.sites[3].object, "/lib/ld.so");
	unload(&l);
}
END_TEST

START_TEST(top_functions_in_short_lived_processes)
{
	struct loaded l;
	const struct candidate_table *c;

	load(&l, NULL, NULL, NULL, "libc_function");
	ck_assert(l.present.libc_function);
	ck_assert(l.amortization.libc_function_named);
	/* the 500 ms process is not short-lived: its unpaid read is left out */
	ck_assert_uint_eq(l.amortization.short_processes, 4);
	ck_assert_uint_eq(l.amortization.short_unpaid_rows, 6);
	c = amortization_ranking(&l.amortization);
	ck_assert_uint_eq(c->n, 3);
	ck_assert_str_eq(c->rows[0].function, "fread");
	ck_assert_uint_eq(c->rows[0].sites, 3);
	ck_assert_uint_eq(c->rows[0].images, 2);
	ck_assert_uint_eq(c->rows[0].patch_ns, 30000);
	ck_assert_str_eq(c->rows[1].function, "fopen");
	ck_assert_uint_eq(c->rows[1].sites, 2);
	ck_assert_str_eq(c->rows[2].function, "(unknown)");
	unload(&l);
}
END_TEST

/* Without the column (here: another name asked for), the containing function ranks. */
START_TEST(ranking_falls_back_to_the_symbol)
{
	struct loaded l;
	const struct candidate_table *c;

	load(&l, NULL, NULL, NULL, "no_such_column");
	ck_assert(!l.present.libc_function);
	ck_assert(!l.amortization.libc_function_named);
	c = amortization_ranking(&l.amortization);
	ck_assert_uint_eq(c->n, 4);
	/* a tie on sites (2 each): the costlier patches first */
	ck_assert_str_eq(c->rows[0].function, "open (libc.so.6)");
	ck_assert_uint_eq(c->rows[0].sites, 2);
	ck_assert_uint_eq(c->rows[0].patch_ns, 22000);
	ck_assert_str_eq(c->rows[1].function, "read (libc.so.6)");
	ck_assert_uint_eq(c->rows[1].sites, 2);
	ck_assert_uint_eq(c->rows[1].patch_ns, 20000);
	ck_assert_str_eq(c->rows[2].function, "__read_nocancel (libc.so.6)");
	ck_assert_str_eq(c->rows[3].function, "_dl_x (ld.so)");
	unload(&l);
}
END_TEST

START_TEST(symbol_names_lose_offset_and_version)
{
	char buf[128];

	symbol_function("open@@GLIBC_2.2.5+0x9", "/lib/x/libc.so.6", buf, sizeof(buf));
	ck_assert_str_eq(buf, "open (libc.so.6)");
	symbol_function("init_tls+0xec", "ld.so", buf, sizeof(buf));
	ck_assert_str_eq(buf, "init_tls (ld.so)");
	symbol_function("", "", buf, sizeof(buf));
	ck_assert_str_eq(buf, "(no symbol) (?)");
}
END_TEST

static void expect_order(const struct loaded *l, int col, bool descending, const size_t *want)
{
	size_t order[5];

	sort_processes(order, &l->processes, l->amortization.unpaid_rows, col, descending);
	for (size_t i = 0; i < 5; i++)
		ck_assert_msg(order[i] == want[i], "sort by %s: position %zu is row %zu, expected %zu",
			      process_column_names[col], i, order[i], want[i]);
}

START_TEST(sorting_by_any_column_keeps_ties_in_file_order)
{
	struct loaded l;

	load(&l, NULL, NULL, NULL, "libc_function");
	expect_order(&l, COL_WALL_MS, true, (const size_t[]){ 0, 4, 2, 1, 3 });
	expect_order(&l, COL_COUNT_FIRST + PC_SYSCALLS, false, (const size_t[]){ 1, 3, 4, 2, 0 });
	expect_order(&l, COL_EXE, false, (const size_t[]){ 4, 0, 1, 3, 2 });
	expect_order(&l, COL_UNPAID_SITES, true, (const size_t[]){ 2, 4, 0, 1, 3 });
	expect_order(&l, COL_COUNT_FIRST + PC_STOPS_LATE, true, (const size_t[]){ 0, 2, 4, 1, 3 });
	ck_assert_int_eq(process_column_find("wall_ms"), COL_WALL_MS);
	ck_assert_int_eq(process_column_find("patches_not_amortized"), COL_COUNT_FIRST + PC_PATCHES_NOT_AMORTIZED);
	ck_assert_int_eq(process_column_find("wall"), -1);
	unload(&l);
}
END_TEST

START_TEST(rows_sum_to_the_summary)
{
	struct loaded l;
	struct total_check checks[TOTAL_CHECKS];

	load(&l, NULL, NULL, NULL, "libc_function");
	ck_assert_uint_eq(check_totals(&l.processes, &l.summary, checks), 0);
	ck_assert_str_eq(checks[PC_SYSCALLS].key, "syscalls");
	ck_assert_uint_eq(checks[PC_SYSCALLS].rows_sum, 112);
	ck_assert_uint_eq(checks[PC_STOPS_LIFECYCLE].rows_sum, 15);
	ck_assert_uint_eq(checks[PC_PATCHES_NOT_AMORTIZED].rows_sum, 10);
	ck_assert_str_eq(checks[PC_COUNTS].key, "processes");
	ck_assert_int_eq(checks[PC_COUNTS].verdict, TOTAL_EQUAL);
	unload(&l);
}
END_TEST

START_TEST(a_summary_that_disagrees_is_found)
{
	struct loaded l;
	struct total_check checks[TOTAL_CHECKS];

	load(&l, NULL, NULL,
	     "metric,value\nsyscalls,113\nsyscalls_early,35\nsyscalls_ptraced,35\nsyscalls_inprocess,77\n"
	     "processes,5\nptrace_stops,57\nptrace_stops_lifecycle,15\nptrace_stops_early,26\n"
	     "ptrace_stops_late,16\npatches_written,18\npatch_ns,180000\npatches_not_amortized,\n",
	     "libc_function");
	/* syscalls differs; patches_not_amortized is empty (not measured): no mismatch */
	ck_assert_uint_eq(check_totals(&l.processes, &l.summary, checks), 1);
	ck_assert_int_eq(checks[PC_SYSCALLS].verdict, TOTAL_DIFFERS);
	ck_assert_uint_eq(checks[PC_SYSCALLS].summary, 113);
	ck_assert_int_eq(checks[PC_PATCHES_NOT_AMORTIZED].verdict, TOTAL_EMPTY);
	unload(&l);
	load(&l, NULL, NULL, "metric,value\nsyscalls,112\n", "libc_function");
	ck_assert_uint_eq(check_totals(&l.processes, &l.summary, checks), TOTAL_CHECKS - 1);
	ck_assert_int_eq(checks[PC_EARLY].verdict, TOTAL_MISSING);
	unload(&l);
}
END_TEST

/* What loading a folder with this processes.csv (and the fixture's other files) says. */
static int load_error(const char *processes, const char *sites, char *err, size_t errlen)
{
	char *dir = run_dir_new();
	struct process_table t;
	struct site_columns_present present;
	struct amortization_analysis a;
	int ret;

	run_dir_write(dir, "processes.csv", processes);
	if (sites)
		run_dir_write(dir, "sites.csv", sites);
	ret = process_table_load(&t, dir, err, errlen);
	if (ret == 0) {
		amortization_init(&a, &t, 1);
		ret = sites_scan(dir, &t, "libc_function", &present, amortization_add_site, &a, err, errlen);
		amortization_free(&a);
		process_table_free(&t);
	}
	/* the folder's name varies: keep what follows it */
	if (ret < 0 && strstr(err, dir))
		memmove(err, strstr(err, dir) + strlen(dir), strlen(strstr(err, dir) + strlen(dir)) + 1);
	run_dir_remove(dir);
	return ret;
}

START_TEST(bad_files_are_named_with_their_problem)
{
	char err[512];

	ck_assert_int_eq(load_error("pid,image\n1,0\n", FIXTURE_SITES, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/processes.csv: no column 'ppid' in the header (a file from another version of systrace?)");
	ck_assert_int_eq(load_error(FIXTURE_PROCESS_HEADER "1,0,0,/x,5,9,x,0,0,0,0,exit:0,0,0,0,0,0,0,0\n", NULL, err,
				    sizeof(err)), -1);
	ck_assert_str_eq(err, "/processes.csv:2: column syscalls: 'x' is not a count");
	ck_assert_int_eq(load_error(FIXTURE_PROCESS_HEADER "1,0,0,/x,5,9,1,0,0,1,0,exit:0,0,0,0,0,0,0\n", NULL, err,
				    sizeof(err)), -1);
	ck_assert_str_eq(err, "/processes.csv:2: 18 fields, the header has 19");
	ck_assert_int_eq(load_error(FIXTURE_PROCESS_HEADER "1,0,0,\"/x,5,9,1,0,0,1,0,exit:0,0,0,0,0,0,0,0\n", NULL, err,
				    sizeof(err)), -1);
	ck_assert_str_eq(err, "/processes.csv:2: malformed CSV: a quoted field is not closed before the end of the file");
	ck_assert_int_eq(load_error(FIXTURE_PROCESSES, NULL, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/sites.csv: No such file or directory");
	ck_assert_int_eq(load_error(FIXTURE_PROCESSES, FIXTURE_SITE_HEADER
				    "102,1,/lib/libc.so.6,0x10,read+0x5,read,patched,1,0,0x7f10,10000,2,no,fread,\n",
				    err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/sites.csv:2: pid 102 image 1 has no row (left) in processes.csv");
	ck_assert_int_eq(load_error(FIXTURE_PROCESSES, FIXTURE_SITE_HEADER
				    "100,1,/lib/libc.so.6,0x10,read+0x5,read,patched,1,0,0x7f10,10000,2,maybe,fread,\n",
				    err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/sites.csv:2: column amortized: 'maybe' is not yes, no or empty");
}
END_TEST

Suite *analyses_suite(void)
{
	return single_case_suite("analyses", (const TTest *const[]){
		processes_are_read_with_quoted_names, non_amortized_sites_per_process_and_in_total,
		top_functions_in_short_lived_processes, ranking_falls_back_to_the_symbol,
		symbol_names_lose_offset_and_version, sorting_by_any_column_keeps_ties_in_file_order,
		rows_sum_to_the_summary, a_summary_that_disagrees_is_found, bad_files_are_named_with_their_problem,
		NULL });
}
