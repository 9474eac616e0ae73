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
	/* all missing but syscalls; the fixture has none of the optional columns: not checked */
	ck_assert_uint_eq(check_totals(&l.processes, &l.summary, checks), PC_COUNTS);
	ck_assert_int_eq(checks[PC_EARLY].verdict, TOTAL_MISSING);
	ck_assert_int_eq(checks[TOTAL_CHECK_OPTIONAL(PO_KNOWN_UNUSED)].verdict, TOTAL_NO_COLUMN);
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

/* Four images started by an exec and a fork child (its batch not counted), with
 * P = 2000 ns and M = 25000 ns:
 *   /bin/sh   W 10, U 2, X 1     rule 2000 x 10 + 25000 x 1 = 45000, optimum 2000 x 9 = 18000
 *   (fork)    W 3                not counted
 *   /bin/cc   W 20, U 5, X 2
 *   /bin/cc   W 20, U 0, X 0     both: rule 80000 + 50000 = 130000, optimum 2000 x 37 = 74000
 *   /bin/true W 0                rule 0, optimum 0
 *   total     W 50, U 7, X 3     rule 175000, optimum 2000 x 46 = 92000, excess 83000 */
#define KNOWN_PROCESSES                                                                     \
	FIXTURE_PROCESS_HEADER_FIELDS ",patches_known,known_unused,known_missed\n"              \
	"10,1,1,/bin/sh,1000,2000,5,1,2,3,1,exit:0,3,1,1,1,11,2,9000,10,2,1\n"                  \
	"11,0,10,/bin/sh,1100,1200,1,0,1,0,0,exec,1,1,0,0,3,0,600,3,0,0\n"                      \
	"11,1,10,/bin/cc,1200,1900,5,1,2,3,1,exit:0,3,1,1,1,22,4,9000,20,5,2\n"                 \
	"12,1,10,/bin/cc,1300,1800,5,1,2,3,1,exit:0,3,1,1,1,20,4,9000,20,0,0\n"                 \
	"13,1,10,/bin/true,1400,1500,5,1,2,3,1,exit:0,3,1,1,1,0,0,0,0,0,0\n"
#define KNOWN_SUMMARY                                                                                \
	"metric,value\npatches_known,53\nknown_unused,7\nknown_missed,3\nbatch_patch_ns,2000\n"        \
	"miss_ns,25000\nknown_threshold_permille,80\n"

START_TEST(known_sites_against_hindsight)
{
	struct loaded l;
	struct known_choice_analysis k;
	const struct known_choice *c;

	load(&l, KNOWN_PROCESSES, FIXTURE_SITE_HEADER, KNOWN_SUMMARY, "libc_function");
	known_choice_analyse(&k, &l.processes, &l.summary);
	ck_assert(k.available);
	ck_assert_uint_eq(k.p_ns, 2000);
	ck_assert_uint_eq(k.m_ns, 25000);
	ck_assert_uint_eq(k.threshold_permille, 80);
	ck_assert_uint_eq(k.other_images, 1);
	ck_assert_uint_eq(k.other_written, 3);
	c = &k.total;
	ck_assert_uint_eq(c->images, 4);
	ck_assert_uint_eq(c->written, 50);
	ck_assert_uint_eq(c->unused, 7);
	ck_assert_uint_eq(c->missed, 3);
	ck_assert_uint_eq(c->rule_ns, 175000);
	ck_assert_uint_eq(c->optimum_ns, 92000);
	/* the difference: P U + (M - P) X = 14000 + 69000 */
	ck_assert_uint_eq(known_choice_excess(c), 83000);
	/* 175000 / 92000 = 1.90217... */
	ck_assert_uint_eq(known_choice_ratio_permille(c), 1902);
	/* per executable, by excess: cc 56000, sh 27000, true 0 */
	ck_assert_uint_eq(k.nexes, 3);
	ck_assert_str_eq(k.exes[0].exe, "/bin/cc");
	ck_assert_uint_eq(k.exes[0].c.images, 2);
	ck_assert_uint_eq(k.exes[0].c.written, 40);
	ck_assert_uint_eq(k.exes[0].c.unused, 5);
	ck_assert_uint_eq(k.exes[0].c.missed, 2);
	ck_assert_uint_eq(k.exes[0].c.rule_ns, 130000);
	ck_assert_uint_eq(k.exes[0].c.optimum_ns, 74000);
	ck_assert_uint_eq(known_choice_excess(&k.exes[0].c), 56000);
	/* 130000 / 74000 = 1.75676 */
	ck_assert_uint_eq(known_choice_ratio_permille(&k.exes[0].c), 1757);
	ck_assert_str_eq(k.exes[1].exe, "/bin/sh");
	ck_assert_uint_eq(k.exes[1].c.images, 1);
	ck_assert_uint_eq(k.exes[1].c.rule_ns, 45000);
	ck_assert_uint_eq(k.exes[1].c.optimum_ns, 18000);
	ck_assert_uint_eq(known_choice_ratio_permille(&k.exes[1].c), 2500);
	ck_assert_str_eq(k.exes[2].exe, "/bin/true");
	ck_assert_uint_eq(k.exes[2].c.rule_ns, 0);
	ck_assert_uint_eq(known_choice_ratio_permille(&k.exes[2].c), 0);
	known_choice_free(&k);
	unload(&l);
}
END_TEST

START_TEST(known_sites_totals_are_checked)
{
	struct loaded l;
	struct total_check checks[TOTAL_CHECKS];

	/* the fork child's patches_known count here: the column's sum is the summary's */
	load(&l, KNOWN_PROCESSES, FIXTURE_SITE_HEADER, KNOWN_SUMMARY, "libc_function");
	check_totals(&l.processes, &l.summary, checks);
	ck_assert_int_eq(checks[TOTAL_CHECK_OPTIONAL(PO_PATCHES_KNOWN)].verdict, TOTAL_EQUAL);
	ck_assert_uint_eq(checks[TOTAL_CHECK_OPTIONAL(PO_PATCHES_KNOWN)].rows_sum, 53);
	ck_assert_int_eq(checks[TOTAL_CHECK_OPTIONAL(PO_KNOWN_UNUSED)].verdict, TOTAL_EQUAL);
	ck_assert_str_eq(checks[TOTAL_CHECK_OPTIONAL(PO_KNOWN_MISSED)].key, "known_missed");
	ck_assert_uint_eq(checks[TOTAL_CHECK_OPTIONAL(PO_KNOWN_MISSED)].rows_sum, 3);
	ck_assert_int_eq(checks[TOTAL_CHECK_OPTIONAL(PO_KNOWN_MISSED)].verdict, TOTAL_EQUAL);
	unload(&l);
	load(&l, KNOWN_PROCESSES, FIXTURE_SITE_HEADER,
	     "metric,value\npatches_known,53\nknown_unused,8\nknown_missed,3\n", "libc_function");
	check_totals(&l.processes, &l.summary, checks);
	ck_assert_int_eq(checks[TOTAL_CHECK_OPTIONAL(PO_KNOWN_UNUSED)].verdict, TOTAL_DIFFERS);
	ck_assert_uint_eq(checks[TOTAL_CHECK_OPTIONAL(PO_KNOWN_UNUSED)].rows_sum, 7);
	ck_assert_uint_eq(checks[TOTAL_CHECK_OPTIONAL(PO_KNOWN_UNUSED)].summary, 8);
	unload(&l);
}
END_TEST

/* The best in hindsight leaves a site to its trap when that is cheaper (M < P), and
 * never counts more unused sites than were written. */
START_TEST(known_sites_costs_by_construction)
{
	struct known_choice c = { .written = 10, .unused = 4, .missed = 2 };

	known_choice_cost(&c, 3000, 1000);
	ck_assert_uint_eq(c.rule_ns, 3000 * 10 + 1000 * 2);
	ck_assert_uint_eq(c.optimum_ns, 1000 * (10 - 4 + 2));
	ck_assert_uint_eq(known_choice_excess(&c), 32000 - 8000);
	known_choice_cost(&c, 2000, 25000);
	ck_assert_uint_eq(c.optimum_ns, 2000 * 8);
	ck_assert_uint_eq(known_choice_excess(&c), 2000 * 4 + (25000 - 2000) * 2);
	c = (struct known_choice){ .written = 2, .unused = 5, .missed = 1 };
	known_choice_cost(&c, 2000, 25000);
	ck_assert_uint_eq(c.optimum_ns, 2000);
	c = (struct known_choice){ .written = 0 };
	known_choice_cost(&c, 2000, 25000);
	ck_assert_uint_eq(known_choice_excess(&c), 0);
	ck_assert_uint_eq(known_choice_ratio_permille(&c), 0);
}
END_TEST

/* An older run's files: the section says what is missing. */
START_TEST(known_sites_not_available_in_an_older_run)
{
	struct loaded l;
	struct known_choice_analysis k;

	load(&l, NULL, NULL, NULL, "libc_function");
	known_choice_analyse(&k, &l.processes, &l.summary);
	ck_assert(!k.available);
	ck_assert_str_eq(k.why_not, "processes.csv has no column 'patches_known'");
	ck_assert_uint_eq(k.nexes, 0);
	known_choice_free(&k);
	unload(&l);
	load(&l, KNOWN_PROCESSES, FIXTURE_SITE_HEADER, "metric,value\nbatch_patch_ns,2000\nmiss_ns,\n", "libc_function");
	known_choice_analyse(&k, &l.processes, &l.summary);
	ck_assert(!k.available);
	ck_assert_str_eq(k.why_not, "summary.csv has no count for miss_ns");
	known_choice_free(&k);
	unload(&l);
	load(&l, KNOWN_PROCESSES, FIXTURE_SITE_HEADER, "metric,value\nbatch_patch_ns,2000\nmiss_ns,1\n", "libc_function");
	known_choice_analyse(&k, &l.processes, &l.summary);
	ck_assert_str_eq(k.why_not, "summary.csv has no known_threshold_permille");
	known_choice_free(&k);
	unload(&l);
}
END_TEST

Suite *analyses_suite(void)
{
	return single_case_suite("analyses", (const TTest *const[]){
		processes_are_read_with_quoted_names, non_amortized_sites_per_process_and_in_total,
		top_functions_in_short_lived_processes, ranking_falls_back_to_the_symbol,
		symbol_names_lose_offset_and_version, sorting_by_any_column_keeps_ties_in_file_order,
		rows_sum_to_the_summary, a_summary_that_disagrees_is_found, bad_files_are_named_with_their_problem,
		known_sites_against_hindsight, known_sites_totals_are_checked, known_sites_costs_by_construction,
		known_sites_not_available_in_an_older_run, NULL });
}
