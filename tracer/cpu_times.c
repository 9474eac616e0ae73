#include "cpu_times.h"

#include <time.h>

/* The clock ids of another process's CPU clocks (linux/posix-timers.h) */
#define CPUCLOCK_PROF 0
#define CPUCLOCK_VIRT 1
#define CPUCLOCK_SCHED 2
#define PROCESS_CLOCK(pid, which) ((clockid_t)((~(unsigned)(pid) << 3) | (which)))

static bool read_ns(clockid_t clock, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		return false;
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return true;
}

static bool read_clock(pid_t pid, int which, uint64_t *ns)
{
	return read_ns(PROCESS_CLOCK(pid, which), ns);
}

uint64_t cpu_times_clock_ns(clockid_t clock)
{
	uint64_t ns;

	return read_ns(clock, &ns) ? ns : 0;
}

uint64_t cpu_times_thread_ns(void)
{
	return cpu_times_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

struct cpu_times cpu_times_split(uint64_t total, uint64_t prof, uint64_t virt, const struct cpu_times *since)
{
	uint64_t user = virt <= prof ? virt : prof, sys = prof - user, s;

	if (!sys)
		s = 0;
	else if (!user)
		s = total;
	else
		s = (uint64_t)((unsigned __int128)total * sys / prof);
	/* as the kernel keeps them monotonic: system time first, then user time */
	if (s < since->sys_ns)
		s = since->sys_ns;
	if (s > total)
		s = total;
	if (total - s < since->user_ns)
		s = total > since->user_ns ? total - since->user_ns : 0;
	return (struct cpu_times){ .user_ns = total - s, .sys_ns = s };
}

bool cpu_times_total(pid_t pid, uint64_t *ns)
{
	return read_clock(pid, CPUCLOCK_SCHED, ns);
}

bool cpu_times_of(pid_t pid, const struct cpu_times *since, struct cpu_times *now)
{
	uint64_t prof, virt = 0, total;

	/* (no tick sampled yet, a short process's usual case: all of it is user time
	 * whatever the user clock says, and its read is saved) */
	if (!read_clock(pid, CPUCLOCK_SCHED, &total) || !read_clock(pid, CPUCLOCK_PROF, &prof)
	    || (prof && !read_clock(pid, CPUCLOCK_VIRT, &virt)))
		return false;
	*now = cpu_times_split(total, prof, virt, since);
	return true;
}
