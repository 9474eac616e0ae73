#ifndef SYSTRACE_TEST_SUITES_H
#define SYSTRACE_TEST_SUITES_H

#include <check.h>

Suite *grow_array_suite(void);
Suite *csv_suite(void);
Suite *csv_read_suite(void);
Suite *analyses_suite(void);
Suite *trace_export_suite(void);
Suite *summary_suite(void);
Suite *syscall_names_suite(void);
Suite *site_table_suite(void);
Suite *maps_suite(void);
Suite *elf_object_suite(void);
Suite *filter_suite(void);
Suite *park_suite(void);
Suite *filter_rewrite_suite(void);
Suite *options_suite(void);
Suite *proc_maps_suite(void);
Suite *code_scan_suite(void);
Suite *patch_plan_suite(void);
Suite *stub_suite(void);
Suite *time_fixups_suite(void);
Suite *time_sums_suite(void);
Suite *cpu_times_suite(void);
Suite *scan_cache_suite(void);
Suite *amortization_suite(void);
Suite *calibrate_suite(void);
Suite *log_file_suite(void);
Suite *log_sites_suite(void);
Suite *log2csv_suite(void);
Suite *log2csv_command_suite(void);
Suite *progress_bar_suite(void);
Suite *libc_calls_suite(void);
Suite *addr_space_suite(void);
Suite *byte_runs_suite(void);
Suite *restarts_suite(void);
Suite *stops_suite(void);
Suite *counting_suite(void);
Suite *site_history_suite(void);
Suite *syscall_table_suite(void);
Suite *remote_read_suite(void);
Suite *procfs_suite(void);
Suite *layouts_suite(void);

/* A one-test-case suite, the common shape here. */
Suite *single_case_suite(const char *name, const TTest *const *tests);

/* A test run once per row of its table (Check's loop tests: the row is _i). */
struct table_test {
	const TTest *test;
	int rows;
};
#define TABLE_ROWS(table) ((int)(sizeof(table) / sizeof((table)[0])))
/* single_case_suite's, and a second case, "tables", of table tests (ended by one
 * whose test is NULL). */
Suite *tables_suite(const char *name, const TTest *const *tests, const struct table_test *tables);

#endif
