/* CLOCK_MONOTONIC nanoseconds from the TSC, which the log and time routines read in
 * traced processes (rdtsc) and the tracer reads for the calls it logs or times
 * itself: one fixed conversion for the run, so that entries keep the order of their
 * TSC readings. */
#ifndef SYSTRACE_TSC_CLOCK_H
#define SYSTRACE_TSC_CLOCK_H

#include <stdint.h>

/* Takes the conversion: the kernel's own (a perf event's mmap page), or the rate
 * measured over a few milliseconds where that is not offered; once a run. */
void tsc_clock_init(void);
uint64_t tsc_clock_ns(uint64_t tsc);
/* A difference of two readings, in nanoseconds: never smaller for more ticks. */
uint64_t tsc_ticks_ns(uint64_t ticks);
uint64_t tsc_now(void);

#endif
