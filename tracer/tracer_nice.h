/* The serving thread's nice value (--tracer-nice).
 *
 * Every ptrace stop of every tracee waits for the one serving thread, and the
 * processes it serves are the ones it competes with for a CPU: in a glibc build
 * on this project's 2-CPU machine the thread was runnable but waiting for a CPU
 * for 23 s of a 325 s make (tracer_run_delay_ns), more than the 16 s of CPU it
 * used, while its tracees waited for it. At nice -20 the scheduler runs it as
 * soon as it wakes: 6.6-7.6 s of waiting in the same build, and builds 3-5% faster
 * (docs/benchmarks.md, "The tracer's nice value": glibc 1.097x and 1.104x native
 * against 1.15x, libiberty faster in 10 of 14 interleaved rounds; a loop of short
 * processes with nothing else to run, 2-4% slower).
 *
 * Linux's nice is per thread: only the serving thread changes (the writer thread,
 * tracer/offload.h, keeps systrace's), and only after the command has been forked,
 * so that no traced process inherits it: a program sees the nice it was started
 * with. A value below the current one needs CAP_SYS_NICE or RLIMIT_NICE; where the
 * system refuses, the run goes on at the nice the thread has, and summary.csv's
 * tracer_nice says which it had (its value after the start: a traced program's
 * setpriority of its process group or user, PRIO_PGRP or PRIO_USER, changes it
 * too, and its getpriority of either sees it, systrace being in the command's
 * process group). Under a real-time policy (chrt) the nice value has no effect. */
#ifndef SYSTRACE_TRACER_NICE_H
#define SYSTRACE_TRACER_NICE_H

#include <stdbool.h>

/* What --tracer-nice is when not given: twenty below systrace's own nice, as nice(1)
 * takes an adjustment (a run started under `nice -n 19` serves its stops at -1
 * while its processes stay at 19). */
#define TRACER_NICE_DEFAULT (-20)
#define TRACER_NICE_MAX 39 /* either way: the nice values span -20 to 19 */

/* Adds adjustment to the calling thread's nice value (within -20 to 19), or goes as
 * far down as RLIMIT_NICE allows; the value it has then in *nice, and whether that
 * is the one asked for. */
bool tracer_nice_apply(int adjustment, int *nice);

#endif
