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
Suite *options_suite(void);
Suite *proc_maps_suite(void);
Suite *code_scan_suite(void);
Suite *patch_plan_suite(void);
Suite *stub_suite(void);
Suite *scan_cache_suite(void);
Suite *amortization_suite(void);
Suite *calibrate_suite(void);
Suite *log_file_suite(void);
Suite *log_sites_suite(void);
Suite *log2csv_suite(void);
Suite *log2csv_command_suite(void);
Suite *progress_bar_suite(void);
Suite *libc_calls_suite(void);

/* A one-test-case suite, the common shape here. */
Suite *single_case_suite(const char *name, const TTest *const *tests);

#endif
