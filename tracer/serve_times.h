/* How long the serving thread takes to answer each kind of stop: from the status's
 * arrival (waitpid's return, or its turn among the statuses held) to the end of its
 * dispatch, read with the TSC (two rdtsc a stop, no syscall), summed per kind for
 * summary.csv. A stopped tracee waits for this (and for the stops ahead of it), so
 * it is the tracer's own profile by phase of a process's life, without perf:
 * exec events are the set-up of a new image, create events its birth, exit its
 * accounting, syscall the calls that still stop. It is time, not CPU: a serve that
 * is preempted, or waits for another thread of its tracee (the patch protocol),
 * counts that too. */
#ifndef SYSTRACE_SERVE_TIMES_H
#define SYSTRACE_SERVE_TIMES_H

#include <stdint.h>

#include "summary.h"

/* The kind of a waitpid status, as dispatch answers it (pure). */
enum serve_kind serve_kind_of(int status);
void serve_times_add(enum serve_kind kind, uint64_t tsc_ticks);
/* The sums so far, into the totals' serve_count and serve_ns. */
void serve_times_totals(struct totals *t);

#endif
