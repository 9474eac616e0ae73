/* Runs every unit suite (Check). */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	SRunner *runner = srunner_create(csv_suite());
	int failed;

	srunner_add_suite(runner, grow_array_suite());
	srunner_add_suite(runner, csv_read_suite());
	srunner_add_suite(runner, analyses_suite());
	srunner_add_suite(runner, trace_export_suite());
	srunner_add_suite(runner, summary_suite());
	srunner_add_suite(runner, syscall_names_suite());
	srunner_add_suite(runner, site_table_suite());
	srunner_add_suite(runner, maps_suite());
	srunner_add_suite(runner, elf_object_suite());
	srunner_add_suite(runner, filter_suite());
	srunner_add_suite(runner, park_suite());
	srunner_add_suite(runner, filter_rewrite_suite());
	srunner_add_suite(runner, options_suite());
	srunner_add_suite(runner, proc_maps_suite());
	srunner_add_suite(runner, code_scan_suite());
	srunner_add_suite(runner, patch_plan_suite());
	srunner_add_suite(runner, stub_suite());
	srunner_add_suite(runner, time_fixups_suite());
	srunner_add_suite(runner, time_sums_suite());
	srunner_add_suite(runner, cpu_times_suite());
	srunner_add_suite(runner, scan_cache_suite());
	srunner_add_suite(runner, amortization_suite());
	srunner_add_suite(runner, calibrate_suite());
	srunner_add_suite(runner, log_file_suite());
	srunner_add_suite(runner, log_sites_suite());
	srunner_add_suite(runner, log2csv_suite());
	srunner_add_suite(runner, log2csv_command_suite());
	srunner_add_suite(runner, progress_bar_suite());
	srunner_add_suite(runner, libc_calls_suite());
	srunner_add_suite(runner, addr_space_suite());
	srunner_add_suite(runner, byte_runs_suite());
	srunner_add_suite(runner, restarts_suite());
	srunner_add_suite(runner, stops_suite());
	srunner_add_suite(runner, counting_suite());
	srunner_add_suite(runner, site_history_suite());
	srunner_add_suite(runner, syscall_table_suite());
	srunner_add_suite(runner, remote_read_suite());
	srunner_add_suite(runner, procfs_suite());
	srunner_add_suite(runner, layouts_suite());
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
