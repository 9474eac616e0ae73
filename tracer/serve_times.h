/* How long the serving thread takes to answer each kind of stop: from the status's
 * arrival (waitpid's return, or its turn among the statuses held) to the end of its
 * dispatch, read with the TSC (two rdtsc a stop, no syscall), summed per kind for
 * summary.csv. A stopped tracee waits for this (and for the stops ahead of it), so
 * it is the tracer's own profile by phase of a process's life, without perf:
 * exec events are the set-up of a new image, create events its birth, exit its
 * accounting, syscall the calls that still stop. It is time, not CPU: a serve that
 * is preempted, or waits for another thread of its tracee (the patch protocol),
 * counts that too; and the tracees that stop most share the tracer's CPU
 * (tracer/placement.c), so a resume often lets one run there before the serve
 * ends (a vfork child until its exec, the parent an exec releases).
 *
 * Its CPU by kind is therefore measured apart, by sampling: one serve in
 * SERVE_SAMPLE_MEAN on average, at random strides, also reads the thread's CPU
 * clock before and after (two clock_gettime syscalls, no vDSO for that clock), and
 * a kind's CPU is its count times the mean of its sampled serves (every serve as
 * likely to be sampled as any: a consistent estimate, closer the more serves). A
 * sampled serve's time holds a clock read more. What the serving thread's CPU has
 * beyond the kinds' is spent outside the serves: the event loop's waitpid,
 * placement's look, the start and the end of the run. */
#ifndef SYSTRACE_SERVE_TIMES_H
#define SYSTRACE_SERVE_TIMES_H

#include <stdbool.h>
#include <stdint.h>

#include "summary.h"

#define SERVE_SAMPLE_MEAN 8

/* One serve: whether it is sampled, and the CPU clock at its start. */
struct serve_sample {
	bool on;
	uint64_t cpu_ns;
};

/* The kind of a waitpid status, as dispatch answers it (pure). */
enum serve_kind serve_kind_of(int status);
/* The strides between sampled serves: 1 to 2 * SERVE_SAMPLE_MEAN - 1, uniform, from
 * a xorshift state (pure). */
uint32_t serve_sample_stride(uint32_t *state);
/* A kind's CPU from count serves, sampled of them timed at sampled_ns in all (pure;
 * 0 when none was sampled). */
uint64_t serve_cpu_estimate(uint64_t count, uint64_t sampled, uint64_t sampled_ns);

/* At start-up, before the first serve: what reading the thread's CPU clock costs. */
void serve_times_setup(void);
/* Before a dispatch; then after it, its kind and the ticks since its arrival. */
void serve_times_begin(struct serve_sample *s);
void serve_times_add(enum serve_kind kind, uint64_t tsc_ticks, const struct serve_sample *s);
/* One serving thread's sums, or several added (main, at the end of the run). */
struct serve_sums {
	uint64_t count[SERVE_KINDS], ticks[SERVE_KINDS], sampled[SERVE_KINDS], sampled_ns[SERVE_KINDS];
};
/* The calling thread's sums so far. */
void serve_times_get(struct serve_sums *s);
void serve_sums_add(struct serve_sums *sum, const struct serve_sums *s);
/* s into the totals' serve_count, serve_ns, serve_sampled and serve_cpu_ns. */
void serve_sums_totals(const struct serve_sums *s, struct totals *t);

#endif
