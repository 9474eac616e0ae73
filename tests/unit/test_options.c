#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpus_allowed.h"
#include "launch.h"
#include "options.h"
#include "suites.h"
#include "tracer_threads.h"

static enum options_result parse(struct options *o, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	optind = 0; /* getopt_long restarts */
	return options_parse(o, argc, argv);
}

START_TEST(defaults_and_command)
{
	struct options o;
	char *argv[] = { "systrace", "--", "make", "-j2", NULL };

	ck_assert_int_eq(parse(&o, argv), OPTIONS_RUN);
	ck_assert_str_eq(o.output_dir, "systrace-out");
	ck_assert_int_eq(o.patch, PATCH_SAFE);
	ck_assert(!o.show_perf_stats);
	ck_assert(!o.time); /* off by default */
	ck_assert_str_eq(o.command[0], "make");
	ck_assert_str_eq(o.command[1], "-j2");
}
END_TEST

START_TEST(all_options)
{
	struct options o;
	char *argv[] = { "systrace", "-o", "out", "--show-perf-stats", "--patch=off", "ls", "-l", NULL };

	ck_assert_int_eq(parse(&o, argv), OPTIONS_RUN);
	ck_assert_str_eq(o.output_dir, "out");
	ck_assert(o.show_perf_stats);
	ck_assert_int_eq(o.patch, PATCH_OFF);
	/* options after the command belong to it */
	ck_assert_str_eq(o.command[1], "-l");
}
END_TEST

START_TEST(bad_usage_is_refused)
{
	struct options o;
	char *unknown[] = { "systrace", "--frobnicate", "--", "true", NULL };
	char *bad_mode[] = { "systrace", "--patch=fast", "--", "true", NULL };
	char *no_command[] = { "systrace", "-o", "x", NULL };
	char *no_value[] = { "systrace", "-o", NULL };
	char *time_and_log[] = { "systrace", "--time", "--log", "--", "true", NULL };
	char *timed[] = { "systrace", "--time", "--", "true", NULL };

	ck_assert_int_eq(parse(&o, unknown), OPTIONS_USAGE_ERROR);
	ck_assert_int_eq(parse(&o, bad_mode), OPTIONS_USAGE_ERROR);
	ck_assert_int_eq(parse(&o, no_command), OPTIONS_USAGE_ERROR);
	ck_assert_int_eq(parse(&o, no_value), OPTIONS_USAGE_ERROR);
	/* the log routine would make the calls, untimed: refused, not half done */
	ck_assert_int_eq(parse(&o, time_and_log), OPTIONS_USAGE_ERROR);
	ck_assert_int_eq(parse(&o, timed), OPTIONS_RUN);
	ck_assert(o.time);
}
END_TEST

START_TEST(commands_resolve_like_execvp)
{
	int status = 0;
	char *path = launch_resolve("sh", &status);

	ck_assert_ptr_nonnull(path);
	ck_assert_int_eq(path[0], '/');
	free(path);
	ck_assert_ptr_null(launch_resolve("no-such-command-systrace", &status));
	ck_assert_int_eq(status, 127);
	ck_assert_ptr_null(launch_resolve("/etc/passwd", &status)); /* not executable */
	ck_assert_int_eq(status, 126);
	ck_assert_ptr_null(launch_resolve("/", &status));
	ck_assert_int_eq(status, 126);
	ck_assert_ptr_null(launch_resolve("", &status));
	ck_assert_int_eq(status, 127);
}
END_TEST

START_TEST(summary_table_and_its_order)
{
	struct options o;
	char *none[] = { "systrace", "--", "true", NULL };
	char *c[] = { "systrace", "-c", "--", "true", NULL };
	char *s[] = { "systrace", "-S", "name", "--", "true", NULL };
	char *longs[] = { "systrace", "--summary", "--summary-sort-by=errors", "--", "true", NULL };
	char *bad[] = { "systrace", "-S", "fastest", "--", "true", NULL };

	ck_assert_int_eq(parse(&o, none), OPTIONS_RUN);
	ck_assert(!o.summary);
	ck_assert_int_eq(parse(&o, c), OPTIONS_RUN);
	ck_assert(o.summary);
	ck_assert_int_eq(o.summary_sort, SYSCALL_SORT_DEFAULT);
	/* -S alone asks for the table too */
	ck_assert_int_eq(parse(&o, s), OPTIONS_RUN);
	ck_assert(o.summary);
	ck_assert_int_eq(o.summary_sort, SYSCALL_SORT_NAME);
	ck_assert_int_eq(parse(&o, longs), OPTIONS_RUN);
	ck_assert_int_eq(o.summary_sort, SYSCALL_SORT_ERRORS);
	ck_assert_int_eq(parse(&o, bad), OPTIONS_USAGE_ERROR);
}
END_TEST

START_TEST(tracer_threads_auto_by_default)
{
	struct options o;
	char *none[] = { "systrace", "--", "true", NULL };
	char *autos[] = { "systrace", "--tracer-threads=auto", "--", "true", NULL };
	char *three[] = { "systrace", "--tracer-threads=3", "--", "true", NULL };
	char *zero[] = { "systrace", "--tracer-threads=0", "--", "true", NULL };
	char *too_many[] = { "systrace", "--tracer-threads=65", "--", "true", NULL };

	unsetenv("SYSTRACE_TEST_THREADS");
	ck_assert_int_eq(parse(&o, none), OPTIONS_RUN);
	ck_assert_uint_eq(o.tracer_threads, 0); /* auto: main asks tracer_threads_for_cpus */
	ck_assert_int_eq(parse(&o, autos), OPTIONS_RUN);
	ck_assert_uint_eq(o.tracer_threads, 0);
	ck_assert_int_eq(parse(&o, three), OPTIONS_RUN);
	ck_assert_uint_eq(o.tracer_threads, 3);
	ck_assert_int_eq(parse(&o, zero), OPTIONS_USAGE_ERROR);
	ck_assert_int_eq(parse(&o, too_many), OPTIONS_USAGE_ERROR);
	/* one per 8 CPUs, at least one, at most TRACER_THREADS_MAX */
	ck_assert_uint_eq(tracer_threads_for_cpus(0), 1);
	ck_assert_uint_eq(tracer_threads_for_cpus(1), 1);
	ck_assert_uint_eq(tracer_threads_for_cpus(2), 1);
	ck_assert_uint_eq(tracer_threads_for_cpus(8), 1);
	ck_assert_uint_eq(tracer_threads_for_cpus(9), 2);
	ck_assert_uint_eq(tracer_threads_for_cpus(64), 8);
	ck_assert_uint_eq(tracer_threads_for_cpus(128), 16);
	ck_assert_uint_eq(tracer_threads_for_cpus(4096), TRACER_THREADS_MAX);
}
END_TEST

/* A cgroup's CPU quota in whole CPUs, rounded up (tracer/cpus_allowed.h). */
START_TEST(cpu_quotas_in_whole_cpus)
{
	ck_assert_uint_eq(cpu_quota_cpus(400000, 100000), 4);
	ck_assert_uint_eq(cpu_quota_cpus(150000, 100000), 2);
	ck_assert_uint_eq(cpu_quota_cpus(1000, 100000), 1);
	ck_assert_uint_eq(cpu_quota_cpus(-1, 100000), 0); /* v1: none */
	ck_assert_uint_eq(cpu_quota_cpus(400000, 0), 0);
	ck_assert_uint_eq(cpu_max_cpus("max 100000\n"), 0);
	ck_assert_uint_eq(cpu_max_cpus("2000000 100000\n"), 20);
	ck_assert_uint_eq(cpu_max_cpus("250000 100000"), 3);
	ck_assert_uint_eq(cpu_max_cpus(""), 0);
}
END_TEST

Suite *options_suite(void)
{
	return single_case_suite("options", (const TTest *const[]){
		defaults_and_command, all_options, bad_usage_is_refused, commands_resolve_like_execvp,
		summary_table_and_its_order, tracer_threads_auto_by_default, cpu_quotas_in_whole_cpus,
		NULL });
}
