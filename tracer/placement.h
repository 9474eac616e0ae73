/* Where tracees run. A ptrace stop costs about 3.5 us when tracer and tracee share a
 * CPU and about 10 us when they do not (measured here, bench/), so systrace keeps the
 * command on the tracer's CPU, and moves a thread that computes for a while between
 * stops to the other CPUs when others need the tracer's (a parallel build), as it
 * would run without a tracer. */
#ifndef SYSTRACE_PLACEMENT_H
#define SYSTRACE_PLACEMENT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "tasks.h"

/* Pins the first serving thread to the CPU it runs on (the command, started after
 * this, inherits it) and starts its periodic check, a SIGALRM to it alone; when
 * only one CPU is allowed nothing is pinned, and the tick runs only if
 * tick_anyway (several serving threads: it also bounds the wait of a hand-off
 * whose wake-up came just before the receiver's waitpid). */
void placement_start(bool tick_anyway);
/* The command, started after placement_start: pinned with this thread. */
void placement_launched(struct thread *root);
/* In each other serving thread, numbered index from 1: pinned to the index-th
 * allowed CPU after the first's, with its own tick. */
void placement_thread_start(unsigned index);
/* A serving thread's end: its tick stops. */
void placement_thread_end(void);
/* At every stop of t, with the time: a thread that stops in quick succession is
 * brought back to the tracer's CPU. */
void placement_note_stop(struct thread *t, uint64_t now_ns);
/* An image handed to this serving thread (tracer_threads.h): pinned to its CPU
 * where it was pinned to the sender's. */
void placement_adopt(struct thread *t);
/* A new thread or process, placed as its creator. */
void placement_inherit(struct thread *child, const struct thread *creator);
/* The placement must not show: at the entry of sched_getaffinity of tid (this
 * serving thread's tracee or another's, tid_marks.h) returns true if the result must
 * be rewritten at the exit stop. A thread that has set its affinity itself (a
 * successful sched_setaffinity of tid, whoever made it: begin at its entry, end at
 * its exit) is left as it chose. */
bool placement_hides_mask(pid_t tid);
void placement_own_affinity_begin(pid_t tid);
void placement_own_affinity_end(pid_t tid, bool done);
/* At the exit of such a sched_getaffinity: the mask the thread would see without
 * systrace, written over the first len bytes of the caller's buffer. */
void placement_rewrite_mask(struct thread *caller, uint64_t buf, long len);
/* Called from the event loop when the periodic check is due (placement_due set). */
void placement_check(void);

extern _Thread_local volatile sig_atomic_t placement_due;

#endif
