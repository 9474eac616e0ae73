/* Instructions and cycles per process image from perf_event_open, where the hardware
 * counts them (these VMs do not: the columns are then empty). */
#ifndef SYSTRACE_PERF_COUNTERS_H
#define SYSTRACE_PERF_COUNTERS_H

#include <stdint.h>
#include <sys/types.h>

enum { PERF_INSTRUCTIONS, PERF_CYCLES, PERF_COUNTERS };

struct perf_counters {
	int fd[PERF_COUNTERS];        /* -1 where not available */
	int64_t base[PERF_COUNTERS];  /* value when the image started */
};

/* Opens counters that follow the process and its threads. */
void perf_counters_open(struct perf_counters *p, pid_t pid);
/* The counts since the image began (-1 where not available), and starts a new image. */
void perf_counters_take(struct perf_counters *p, int64_t out[PERF_COUNTERS]);
void perf_counters_close(struct perf_counters *p);

#endif
