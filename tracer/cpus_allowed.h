/* The CPUs a run may keep busy, for the serving threads' count
 * (tracer_threads_for_cpus): those of its affinity (taskset's, as nproc counts
 * them), fewer if a cgroup's CPU quota allows less time than that (a container on
 * a 64-CPU machine with a quota of 4 CPUs sees all 64 in its affinity).
 *
 *   cgroup v2   cpu.max, "QUOTA PERIOD" or "max PERIOD", in /sys/fs/cgroup/PATH
 *               and each folder above it (PATH: the "0::" line of /proc/self/cgroup)
 *   cgroup v1   cpu.cfs_quota_us (-1: none) and cpu.cfs_period_us, the same way
 *               under /sys/fs/cgroup/cpu (PATH: the line whose controllers hold cpu)
 *
 * The smallest quota found counts, rounded up to whole CPUs. The tests' way to be
 * a larger machine: SYSTRACE_TEST_CPUS stands for the affinity's count. */
#ifndef SYSTRACE_CPUS_ALLOWED_H
#define SYSTRACE_CPUS_ALLOWED_H

unsigned cpus_allowed(void);
/* A quota of `quota` microseconds of CPU time in each `period`, in whole CPUs
 * (rounded up); 0 when there is none (quota < 0, v1's -1; period <= 0). */
unsigned cpu_quota_cpus(long long quota, long long period);
/* The CPUs' worth that cpu.max's text allows ("max ...": 0, none). */
unsigned cpu_max_cpus(const char *text);

#endif
