/* A process's CPU time from its CPU-time clocks (tracer/cpu_times.c): the split of
 * the scheduler's total as /proc/PID/stat makes it, kept from going backwards
 * against the image's start, and the clocks of a live process and of none. */
#include <check.h>
#include <unistd.h>

#include "cpu_times.h"
#include "suites.h"

static const struct cpu_times zero;

START_TEST(split_as_proc_stat_scales_it)
{
	/* pid 1 of this VM, read both ways: /proc/1/stat said 11.89 s user, 67.37 s system */
	struct cpu_times t = cpu_times_split(79267909977, 74047952358, 11111325115, &zero);

	ck_assert_uint_eq(t.user_ns + t.sys_ns, 79267909977);
	ck_assert_uint_eq(t.sys_ns / 10000000, 6737);
	ck_assert_uint_eq(t.user_ns / 10000000, 1189);
	/* no system tick: all of it user time; no user tick: all of it system time */
	t = cpu_times_split(203822787, 212000000, 212000000, &zero);
	ck_assert_uint_eq(t.user_ns, 203822787);
	ck_assert_uint_eq(t.sys_ns, 0);
	t = cpu_times_split(5000, 4000, 0, &zero);
	ck_assert_uint_eq(t.sys_ns, 5000);
	/* no tick at all (a short process): user time, as the kernel has it */
	t = cpu_times_split(700000, 0, 0, &zero);
	ck_assert_uint_eq(t.user_ns, 700000);
}
END_TEST

START_TEST(never_below_the_start)
{
	/* at the start 3 ms system; the ticks now say less: system stays 3 ms */
	struct cpu_times since = { .user_ns = 1000000, .sys_ns = 3000000 };
	struct cpu_times t = cpu_times_split(10000000, 10000000, 9000000, &since);

	ck_assert_uint_eq(t.sys_ns, 3000000);
	ck_assert_uint_eq(t.user_ns, 7000000);
	/* and user time stays: 8 ms user at the start, the ticks now all system */
	since = (struct cpu_times){ .user_ns = 8000000, .sys_ns = 1000000 };
	t = cpu_times_split(10000000, 10000000, 0, &since);
	ck_assert_uint_eq(t.user_ns, 8000000);
	ck_assert_uint_eq(t.sys_ns, 2000000);
}
END_TEST

START_TEST(clocks_of_a_live_process_and_of_none)
{
	struct cpu_times t;
	volatile unsigned long spin = 0;

	/* a counted amount of work, not a time: the clocks move */
	for (unsigned long i = 0; i < 50000000; i++)
		spin += i;
	ck_assert(cpu_times_of(getpid(), &zero, &t));
	ck_assert_uint_gt(t.user_ns + t.sys_ns, 0);
	/* above PID_MAX_LIMIT: no process has it */
	ck_assert(!cpu_times_of(4194304 + 1, &zero, &t));
}
END_TEST

Suite *cpu_times_suite(void)
{
	return single_case_suite("cpu_times", (const TTest *const[]){ split_as_proc_stat_scales_it, never_below_the_start,
								clocks_of_a_live_process_and_of_none, NULL });
}
