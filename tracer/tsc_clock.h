/* CLOCK_MONOTONIC nanoseconds from the TSC, which the log and time routines read in
 * traced processes (rdtsc) and the tracer reads for the calls it logs or times
 * itself: one fixed conversion for the run, so that entries keep the order of their
 * TSC readings. */
#ifndef SYSTRACE_TSC_CLOCK_H
#define SYSTRACE_TSC_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* Takes the conversion: the kernel's own (a perf event's mmap page), or the rate
 * measured over a few milliseconds where that is not offered; once a run, at
 * start-up, before any reading is converted. */
void tsc_clock_init(void);
uint64_t tsc_clock_ns(uint64_t tsc);
/* A difference of two readings, in nanoseconds: never smaller for more ticks;
 * rounded down, or up. */
uint64_t tsc_ticks_ns(uint64_t ticks);
uint64_t tsc_ticks_ns_up(uint64_t ticks);
/* The kernel's conversion of ticks (ns = ticks * m / 2^s), rounded down or up. */
uint64_t tsc_scale_ns(uint64_t ticks, uint32_t m, uint16_t s, bool up);
uint64_t tsc_now(void);

#endif
