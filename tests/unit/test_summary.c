#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "summary.h"

START_TEST(percent_pairs_add_up_to_100)
{
	static const uint64_t cases[][2] = {
		{ 1, 3 }, { 2, 3 }, { 1, 7 }, { 0, 5 }, { 5, 5 }, { 1, 1000000 },
		{ 999999, 1000000 }, { UINT64_MAX / 3, UINT64_MAX },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned p, rest;

		percent_pair(cases[i][0], cases[i][1], &p, &rest);
		ck_assert_uint_eq(p + rest, 10000);
	}
}
END_TEST

START_TEST(percent_pair_rounds_to_hundredths)
{
	unsigned p, rest;

	percent_pair(1, 3, &p, &rest);
	ck_assert_uint_eq(p, 3333);
	ck_assert_uint_eq(rest, 6667);
	percent_pair(2, 3, &p, &rest);
	ck_assert_uint_eq(p, 6667);
	percent_pair(0, 0, &p, &rest);
	ck_assert_uint_eq(p + rest, 0);
}
END_TEST

START_TEST(totals_sum_rows)
{
	struct totals t = { 0 };
	struct site_record sites[3] = {
		{ .state = SITE_PATCHED }, { .state = SITE_UNPATCHABLE, .reason = "patching-off" }, { .state = SITE_PENDING },
	};
	struct image_record a = { .ptraced = 10, .inprocess = 5, .early = 7, .forks = 2, .threads = 3,
				  .started_by_exec = true, .end = IMAGE_EXITED, .sites = sites, .nsites = 3,
				  .ptrace_stops = 14, .stops_lifecycle = 4, .stops_early = 9, .stops_late = 1,
				  .instrument = 1 };
	struct image_record b = { .ptraced = 1, .end = IMAGE_EXECED, .vforks = 1, .ptrace_stops = 2,
				  .stops_lifecycle = 2 };

	totals_add_image(&t, &a);
	totals_add_image(&t, &b);
	ck_assert_uint_eq(t.syscalls, 16);
	ck_assert_uint_eq(t.syscalls_ptraced + t.syscalls_inprocess, t.syscalls);
	ck_assert_uint_eq(t.syscalls_early, 7);
	ck_assert_uint_eq(t.processes, 2);
	ck_assert_uint_eq(t.forks, 2);
	ck_assert_uint_eq(t.vforks, 1);
	ck_assert_uint_eq(t.threads, 3);
	ck_assert_uint_eq(t.execs, 1);
	ck_assert_uint_eq(t.exits, 1);
	ck_assert_uint_eq(t.sites, 3);
	ck_assert_uint_eq(t.sites_patched, 1);
	ck_assert_uint_eq(t.sites_unpatchable, 1);
	ck_assert_uint_eq(t.ptrace_stops, 16);
	ck_assert_uint_eq(t.ptrace_stops_lifecycle, 6);
	ck_assert_uint_eq(t.ptrace_stops_early, 9);
	ck_assert_uint_eq(t.ptrace_stops_late, 1);
	ck_assert_uint_eq(t.instrument_syscalls, 1);
}
END_TEST

START_TEST(printed_summary_has_every_key_and_percentages)
{
	struct totals t = { .syscalls = 3, .syscalls_ptraced = 1, .syscalls_inprocess = 2, .syscalls_early = 3 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	summary_print(f, &t);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "syscalls: 3\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nsites_unpatchable: 0\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_cpu_ns: 0\n"));
	ck_assert_ptr_nonnull(strstr(buf, "syscalls ptraced (slow): 33.33%\n"));
	ck_assert_ptr_nonnull(strstr(buf, "syscalls in-process (fast): 66.67%\n"));
	ck_assert_ptr_nonnull(strstr(buf, "syscalls late: 0.00%\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nptrace_stops_lifecycle: 0\nptrace_stops_early: 0\nptrace_stops_late: 0\n"));
	free(buf);
}
END_TEST

START_TEST(printed_summary_has_stops_per_process)
{
	struct totals t = { .processes = 4, .ptrace_stops = 190, .ptrace_stops_lifecycle = 12,
			    .ptrace_stops_early = 160, .ptrace_stops_late = 18 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	summary_print(f, &t);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "\nstops per process: 47.5 (lifecycle 3.0, early 40.0, late 4.5)\n"));
	free(buf);
}
END_TEST

/* summary.csv's text then --show-perf-stats', for t (malloc'd); its length in len. */
static char *written_and_printed(const struct totals *t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(f);
	summary_write_csv(f, t);
	summary_print(f, t);
	fclose(f);
	return buf;
}

/* The serving thread's CPU in thousandths of the run, rounded and at most 1000
 * (several threads: their mean); its wait for a CPU empty until known; the line
 * printed says both, and the last what its CPU has beyond the kinds'. */
START_TEST(serving_load_is_a_share_of_the_run)
{
	struct totals t = { .wall_ns = 2000000000, .tracer_serving_cpu_ns = 1234500000 };
	const char *line = "tracer serving thread: busy 61.7% of the run\n  outside the serves (waitpid, placement, start and end): CPU 1234.5 ms\n";
	size_t len;
	char *buf = written_and_printed(&t, &len);

	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_serving_cpu_ns,1234500000\ntracer_busy_permille,617\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_run_delay_ns,\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_run_delay_ns:\n"));
	ck_assert_str_eq(buf + len - strlen(line), line);
	free(buf);

	t.run_delay_known = true;
	t.tracer_run_delay_ns = 999000; /* 0.4995 permille: rounds up */
	t.tracer_serving_cpu_ns = 2000000100; /* read a moment after the wall clock */
	line = "tracer serving thread: busy 100.0% of the run, waiting for a CPU 0.0%\n  outside the serves (waitpid, placement, start and end): CPU 2000.0 ms\n";
	buf = written_and_printed(&t, &len);
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_busy_permille,1000\ntracer_run_delay_ns,999000\n"));
	ck_assert_str_eq(buf + len - strlen(line), line);
	free(buf);

	/* the serving thread's nice value: signed, after its wait */
	t.tracer_nice = -20;
	buf = written_and_printed(&t, &len);
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_run_delay_ns,999000\ntracer_nice,-20\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_run_delay_ns: 999000\ntracer_nice: -20\n"));
	free(buf);
	t.tracer_nice = 0;

	/* four serving threads: their sums, busy as their mean share */
	t.tracer_threads = 4;
	t.tracer_serving_cpu_ns = 4 * 1234500000ull;
	t.tracer_run_delay_ns = 4 * 999000ull;
	line = "tracer serving threads (4): each busy 61.7% of the run on average, waiting for a CPU 0.0%\n"
	       "  outside the serves (waitpid, placement, start and end): CPU 4938.0 ms\n";
	buf = written_and_printed(&t, &len);
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_serving_cpu_ns,4938000000\ntracer_busy_permille,617\n"));
	ck_assert_str_eq(buf + len - strlen(line), line);
	free(buf);
	t.tracer_threads = 0;
	t.tracer_serving_cpu_ns = 2000000100;
	t.tracer_run_delay_ns = 999000;

	t.serve_count[SERVE_EXEC] = 4;
	t.serve_ns[SERVE_EXEC] = 1234567;
	buf = written_and_printed(&t, &len);
	/* every kind in the file and in the key lines; a line of its own where served;
	 * its CPU empty while none of it was sampled */
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_serve_syscall_count,0\ntracer_serve_syscall_ns,0\n"
					  "tracer_serve_exec_count,4\ntracer_serve_exec_ns,1234567\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_serve_reap_count,0\ntracer_serve_reap_ns,0\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_serve_exec_count: 4\ntracer_serve_exec_ns: 1234567\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_serve_reap_ns,0\ntracer_serve_syscall_sampled,0\n"
					  "tracer_serve_syscall_cpu_ns,0\ntracer_serve_exec_sampled,0\n"
					  "tracer_serve_exec_cpu_ns,\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_serve_exec_sampled: 0\ntracer_serve_exec_cpu_ns:\n"));
	line = "waiting for a CPU 0.0%\n  serving exec: 4 in 1.2 ms, 308.6 us each\n"
	       "  outside the serves (waitpid, placement, start and end): CPU 2000.0 ms\n";
	ck_assert_str_eq(buf + len - strlen(line), line);
	ck_assert_ptr_null(strstr(buf, "serving syscall:"));
	free(buf);

	/* sampled: the CPU per serve, and what the kinds leave of the thread's */
	t.serve_sampled[SERVE_EXEC] = 1;
	t.serve_cpu_ns[SERVE_EXEC] = 800000;
	buf = written_and_printed(&t, &len);
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_serve_exec_sampled,1\ntracer_serve_exec_cpu_ns,800000\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ntracer_serve_exec_sampled: 1\ntracer_serve_exec_cpu_ns: 800000\n"));
	line = "  serving exec: 4 in 1.2 ms, 308.6 us each; CPU 200.0 us each (1 sampled)\n"
	       "  outside the serves (waitpid, placement, start and end): CPU 1999.2 ms\n";
	ck_assert_str_eq(buf + len - strlen(line), line);
	free(buf);
	/* an estimate above the thread's CPU leaves the loop none */
	t.serve_cpu_ns[SERVE_EXEC] = 3000000000;
	buf = written_and_printed(&t, &len);
	line = "  outside the serves (waitpid, placement, start and end): CPU 0.0 ms\n";
	ck_assert_str_eq(buf + len - strlen(line), line);
	free(buf);
	t.serve_count[SERVE_EXEC] = 0;
	t.serve_ns[SERVE_EXEC] = 0;
	t.serve_sampled[SERVE_EXEC] = 0;
	t.serve_cpu_ns[SERVE_EXEC] = 0;

	t.tracer_run_delay_ns = 1000000;
	t.wall_ns = 0; /* no run: no share */
	line = "tracer serving thread: busy 0.0% of the run, waiting for a CPU 0.0%\n  outside the serves (waitpid, placement, start and end): CPU 2000.0 ms\n";
	buf = written_and_printed(&t, &len);
	ck_assert_str_eq(buf + len - strlen(line), line);
	free(buf);
}
END_TEST

START_TEST(summary_csv_has_header_and_rows)
{
	struct totals t = { .processes = 4 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	summary_write_csv(f, &t);
	fclose(f);
	ck_assert_int_eq(strncmp(buf, "metric,value\nsyscalls,0\n", 24), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\nprocesses,4\n"));
	free(buf);
}
END_TEST

START_TEST(costs_are_empty_until_measured)
{
	struct totals t = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	summary_write_csv(f, &t);
	summary_print(f, &t);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "\nstop_cost_ns,\ninprocess_cost_ns,\nsaving_per_call_ns,\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nstop_cost_ns:\ninprocess_cost_ns:\nsaving_per_call_ns:\n"));
	free(buf);
}
END_TEST

START_TEST(saving_is_the_difference_and_at_least_1)
{
	struct totals t = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	totals_set_costs(&t, 100, 100, 5);
	ck_assert_uint_eq(t.saving_per_call_ns, 1);
	totals_set_costs(&t, 90, 100, 5);
	ck_assert_uint_eq(t.saving_per_call_ns, 1);
	totals_set_costs(&t, 4200, 150, 5000000);
	ck_assert_uint_eq(t.saving_per_call_ns, 4050);
	f = open_memstream(&buf, &len);
	summary_write_csv(f, &t);
	summary_print(f, &t);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "\nstop_cost_ns,4200\ninprocess_cost_ns,150\nsaving_per_call_ns,4050\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nstop_cost_ns: 4200\ninprocess_cost_ns: 150\nsaving_per_call_ns: 4050\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ncalibration_ns: 5000000\n"));
	free(buf);
}
END_TEST

/* systrace -c's sums: per syscall, both paths, the errors (every call's result is
 * seen), and the times when the image has them. */
START_TEST(per_syscall_totals_follow_syscalls_csv)
{
	struct syscall_count *by = calloc(SYSCALL_INDEX_COUNT, sizeof(*by));
	struct image_record *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint64_t times[SYSCALL_INDEX_COUNT] = { 0 };

	ck_assert(by && a && b);
	a->calls[0] = 10; /* read: 4 stopped */
	a->ptraced_calls[0] = 4;
	a->calls[59] = 2; /* execve: 1 failed */
	a->ptraced_calls[59] = 2;
	a->errors[59] = 1;
	b->calls[0] = 5;
	times[0] = 700;
	b->time_ns = times;
	for (int i = 0; i < SYSCALL_INDEX_COUNT; i++) {
		if (a->calls[i])
			totals_add_syscall(by, a, i);
		if (b->calls[i])
			totals_add_syscall(by, b, i);
	}
	ck_assert_int_eq(by[0].index, 0);
	ck_assert_uint_eq(by[0].calls, 15);
	ck_assert_uint_eq(by[0].ptraced, 4);
	ck_assert_uint_eq(by[0].errors_known, 15); /* every call's result is seen */
	ck_assert_uint_eq(by[0].time_ns, 700);
	ck_assert_int_eq(by[59].index, 59);
	ck_assert_uint_eq(by[59].errors, 1);
	ck_assert_uint_eq(by[59].errors_known, 2);
	ck_assert_uint_eq(by[1].calls, 0);
	free(by);
	free(a);
	free(b);
}
END_TEST

/* An image's end walks the indexes counted in, in order, and only them. */
START_TEST(used_indexes_are_walked_in_order)
{
	struct image_record *r = calloc(1, sizeof(*r));
	const int marked[] = { 0, 59, 63, 64, 1023, 1024, SYSCALL_INDEX_COUNT - 1 };
	size_t k = 0;

	ck_assert(r);
	ck_assert_int_eq(image_next_used(r, 0), SYSCALL_INDEX_COUNT);
	for (size_t i = 0; i < sizeof(marked) / sizeof(marked[0]); i++) {
		image_record_counts(r, marked[i]);
		r->errors[marked[i]] = 1;
	}
	for (int i = image_next_used(r, 0); i < SYSCALL_INDEX_COUNT; i = image_next_used(r, i + 1))
		ck_assert_int_eq(i, marked[k++]);
	ck_assert_uint_eq(k, sizeof(marked) / sizeof(marked[0]));
	ck_assert_uint_eq(image_errors(r), k);
	free(r);
}
END_TEST

/* A record cleared over memory an earlier image used (image_new reuses the heap's)
 * counts from zero at each index's first count, and keeps what it counted after. */
START_TEST(a_cleared_record_counts_from_zero)
{
	struct image_record *r = malloc(sizeof(*r));

	ck_assert(r);
	memset(r, 0xa5, sizeof(*r));
	image_record_clear(r);
	ck_assert_int_eq(image_next_used(r, 0), SYSCALL_INDEX_COUNT);
	ck_assert_ptr_null(r->time_ns);
	ck_assert_uint_eq(r->ptraced + r->inprocess + r->nsites, 0);
	ck_assert(!image_record_counted(r, 59));
	image_record_counts(r, 59);
	ck_assert(image_record_counted(r, 59) && !image_record_counted(r, 58) && !image_record_counted(r, 60));
	ck_assert_uint_eq(r->calls[59] + r->ptraced_calls[59] + r->errors[59], 0);
	r->calls[59] = 3;
	r->errors[59] = 1;
	image_record_counts(r, 59); /* counted in already: kept */
	ck_assert_uint_eq(r->calls[59], 3);
	ck_assert_uint_eq(image_errors(r), 1);
	free(r);
}
END_TEST

Suite *summary_suite(void)
{
	return single_case_suite("summary", (const TTest *const[]){
		percent_pairs_add_up_to_100, percent_pair_rounds_to_hundredths, totals_sum_rows,
		printed_summary_has_every_key_and_percentages, printed_summary_has_stops_per_process,
		serving_load_is_a_share_of_the_run,
		summary_csv_has_header_and_rows, costs_are_empty_until_measured,
		saving_is_the_difference_and_at_least_1, per_syscall_totals_follow_syscalls_csv,
		used_indexes_are_walked_in_order, a_cleared_record_counts_from_zero, NULL });
}
