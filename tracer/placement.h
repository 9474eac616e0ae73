/* Where tracees run. A ptrace stop costs about 3.5 us when tracer and tracee share a
 * CPU and about 10 us when they do not (measured here, bench/), so systrace keeps the
 * command on the tracer's CPU, and moves a thread that computes for a while between
 * stops to the other CPUs when others need the tracer's (a parallel build), as it
 * would run without a tracer. */
#ifndef SYSTRACE_PLACEMENT_H
#define SYSTRACE_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "tasks.h"

/* Pins the tracer to the CPU it runs on (the command, started after this, inherits
 * it) and starts the periodic check. Does nothing when only one CPU is allowed. */
void placement_start(void);
/* At every stop of t, with the time: a thread that stops in quick succession is
 * brought back to the tracer's CPU. */
void placement_note_stop(struct thread *t, uint64_t now_ns);
/* A new thread or process, placed as its creator. */
void placement_inherit(struct thread *child, const struct thread *creator);
/* The placement must not show: at the entry of sched_getaffinity (target: the thread
 * it asks about, or NULL) returns true if the result must be rewritten at the exit
 * stop; a thread that has set its affinity itself (a successful sched_setaffinity)
 * is left as it chose. */
bool placement_hides_mask(const struct thread *target);
void placement_note_own_affinity(struct thread *target);
/* At the exit of such a sched_getaffinity: the mask the thread would see without
 * systrace, written over the first len bytes of the caller's buffer. */
void placement_rewrite_mask(struct thread *caller, uint64_t buf, long len);
/* Called from the event loop when the periodic check is due (placement_due set). */
void placement_check(void);

extern volatile int placement_due;

#endif
