#include "perf_counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd_limit.h"

/* Cleared at the first failure: on a machine without the counters, do not pay for
 * a failing syscall per process. */
static atomic_int hardware_available = 1;

void perf_counters_open(struct perf_counters *p, pid_t pid)
{
	static const uint64_t configs[PERF_COUNTERS] = { PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES };

	for (int i = 0; i < PERF_COUNTERS; i++) {
		struct perf_event_attr attr;

		p->fd[i] = -1;
		p->base[i] = 0;
		if (!hardware_available)
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = configs[i];
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		attr.inherit = 1;        /* count the process's threads too ... */
		attr.inherit_thread = 1; /* ... but not its child processes */
		p->fd[i] = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (p->fd[i] < 0 && fd_limit_retry(errno))
			p->fd[i] = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		/* out of descriptors is this image's problem only */
		if (p->fd[i] < 0 && errno != EMFILE && errno != ENFILE)
			hardware_available = 0;
	}
}

void perf_counters_take(struct perf_counters *p, int64_t out[PERF_COUNTERS])
{
	for (int i = 0; i < PERF_COUNTERS; i++) {
		uint64_t value;

		out[i] = -1;
		if (p->fd[i] >= 0 && read(p->fd[i], &value, sizeof(value)) == sizeof(value)) {
			out[i] = (int64_t)value - p->base[i];
			p->base[i] = (int64_t)value;
		}
	}
}

void perf_counters_close(struct perf_counters *p)
{
	for (int i = 0; i < PERF_COUNTERS; i++) {
		if (p->fd[i] >= 0)
			close(p->fd[i]);
		p->fd[i] = -1;
	}
}
