/* --time: how long each call spent in the kernel as its thread saw it, summed per
 * image and syscall (with the longest and the shortest) and per site, in TSC ticks
 * while the image lives and in nanoseconds when it is written (syscalls.csv time_ns,
 * min_ns, max_ns; sites.csv time_ns). What a time includes:
 *
 *   in-process (the gate's time routine, tracer/gate_code.S, in the thread):
 *     rdtsc | call gate; syscall: entry, the seccomp filter, the call, any wait or
 *           | preemption in it, the exit; ret | rdtsc
 *   ptraced (resumed from its seccomp stop, which is not included):
 *     the tracer: rdtsc just before PTRACE_CONT | the thread wakes and runs (on the
 *     tracer's CPU, once the tracer waits again), the call as above | the return
 *     pad's rdtsc (gate_time_pad), or where the pad cannot serve, the tracer's at
 *     the call's exit stop (that stop's wake-up included); a clone-family call to
 *     its creator event, a successful execve to its exec event, also the tracer's.
 *   a call the kernel restarts: from its first start to its final return.
 *   a call interrupted by a handler (EINTR): to the handler's signal stop.
 *   none: exit, exit_group (they do not return), rt_sigreturn (it returns into the
 *   frame), a call whose thread was killed in it; they count as calls, not in
 *   min_ns. */
#ifndef SYSTRACE_CALL_TIMES_H
#define SYSTRACE_CALL_TIMES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/user.h>

#include "tasks.h"

void call_times_setup(bool on);
bool call_times_on(void);

/* A ptraced call of t is resumed now: its start (kept when it is the same call
 * entered again, a restart). */
void call_times_resumed(struct thread *t);
/* The same, for a call whose start is not kept from before (execve). */
void call_times_start(struct thread *t);
/* t's next call starts afresh. */
void call_times_forget(struct thread *t);
/* The TSC now when times are measured, else 0 (an end not known). */
uint64_t call_times_now(void);
/* t's ptraced call of index idx at site (an address in its image's table) returned
 * at TSC end (0: its end is not known, so no time). */
void call_times_returned(struct thread *t, int idx, uint64_t site, uint64_t end);

/* At a signal-delivery stop, with t's registers: a call the signal interrupted
 * with a restart code is noted (a ptraced one's start; leave_gate gives an
 * in-process one's), for its restart or its EINTR. */
void call_times_on_signal(struct thread *t, const struct user_regs_struct *regs);
/* leave_gate took t out of the time routine with its call interrupted: its start. */
void call_times_interrupted_start(struct thread *t, uint64_t start);
/* The interrupted call (of index idx at site) returned EINTR after its handler: its
 * time is to the signal's stop. */
void call_times_interrupted(struct thread *t, int idx, uint64_t site);
/* t enters the interrupted call again: its time runs from the first start. */
void call_times_repeat(struct thread *t);

/* The ticks of t's slot into its image (when the slot's counts are taken). */
void call_times_take_slot(struct thread *t);
/* A thread taken out of the time routine while in the call (leave_gate): the call,
 * at the site whose counter is counter, of number nr, started at TSC start and
 * returned; its ticks to now go into the slot as the routine would have added them. */
void call_times_left_gate(struct thread *t, unsigned counter, uint64_t nr, uint64_t start);

/* The image is complete: its ticks become nanoseconds in its record and sites. */
void call_times_complete(struct image *img);

struct call_times_stats {
	uint64_t ptraced_timed;     /* ptraced calls with a time */
	uint64_t interrupted;       /* of all, calls timed to a handler's signal (EINTR) */
	uint64_t restarted;         /* calls whose time spans a restart */
	uint64_t tracer_ns;         /* the tracer's time reading slots and converting */
};
/* The calling thread's; st added into sum (main, at the end of the run). */
void call_times_get_stats(struct call_times_stats *st);
void call_times_stats_add(struct call_times_stats *sum, const struct call_times_stats *st);
/* Under --time, its line for --show-perf-stats. */
void call_times_print(FILE *f, const struct call_times_stats *st);

#endif
