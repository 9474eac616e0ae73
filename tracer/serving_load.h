/* How loaded the tracer's serving thread (the one that answers every stop) was over
 * the command's run: the share of the run it spent on a CPU, and the time it spent
 * runnable but waiting for one (the run queue, /proc/thread-self/schedstat). The
 * first says how close the tracer came to setting the run's pace (docs/scaling.md:
 * one thread saturates when it is busy all the time); the second whether it was
 * slow or starved: a stopped tracee waits for both. summary.csv's
 * tracer_busy_permille and tracer_run_delay_ns. */
#ifndef SYSTRACE_SERVING_LOAD_H
#define SYSTRACE_SERVING_LOAD_H

#include <stdbool.h>
#include <stdint.h>

struct serving_load {
	uint64_t cpu_ns, run_delay_ns;
	bool run_delay_known; /* false where the kernel has no schedstat */
};

/* The calling thread's figures so far. */
struct serving_load serving_load_now(void);
/* What the thread spent from since to now. */
struct serving_load serving_load_since(const struct serving_load *since, const struct serving_load *now);
/* run_delay, the second of a schedstat file's three numbers ("on-CPU wait count");
 * false if text is not such a line. */
bool serving_load_parse_schedstat(const char *text, uint64_t *run_delay_ns);

#endif
