/* A process's CPU time, user and system, from its CPU-time clocks (and the calling
 * thread's, from its own): three
 * clock_gettime calls (under a microsecond) where /proc/PID/stat took an open, a
 * read the kernel formats 52 fields for, and a close (7 us), at every exec and exit.
 * The clocks are in nanoseconds; the user/system split comes from the tick-sampled
 * clocks, scaled to the scheduler's exact total as /proc/PID/stat scales it
 * (cputime_adjust in the kernel). */
#ifndef SYSTRACE_CPU_TIMES_H
#define SYSTRACE_CPU_TIMES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cpu_times {
	uint64_t user_ns, sys_ns;
};

/* The thread group of pid's CPU time so far, split so that neither part falls
 * below since's (an earlier reading of the same group: the image's start); false if
 * pid is gone. */
bool cpu_times_of(pid_t pid, const struct cpu_times *since, struct cpu_times *now);
/* The thread group of pid's CPU time so far, as the scheduler counts it (one call);
 * false if pid is gone. */
bool cpu_times_total(pid_t pid, uint64_t *ns);
/* The calling thread's CPU so far, 0 if unread (a syscall: no vDSO for a thread's
 * clock); and any CPU clock's (another thread's: pthread_getcpuclockid). */
uint64_t cpu_times_thread_ns(void);
uint64_t cpu_times_clock_ns(clockid_t clock);
/* The split (pure): total the scheduler's runtime, prof the sampled user+system,
 * virt the sampled user. */
struct cpu_times cpu_times_split(uint64_t total, uint64_t prof, uint64_t virt, const struct cpu_times *since);

#endif
