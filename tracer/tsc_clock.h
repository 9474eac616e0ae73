/* CLOCK_MONOTONIC nanoseconds from the TSC, which the log routine reads in traced
 * processes (rdtsc) and the tracer reads for the calls it logs itself: one fixed
 * conversion for the run, so that entries keep the order of their TSC readings. */
#ifndef SYSTRACE_TSC_CLOCK_H
#define SYSTRACE_TSC_CLOCK_H

#include <stdint.h>

/* Takes the conversion: the kernel's own (a perf event's mmap page), or the rate
 * measured over a few milliseconds where that is not offered. */
void tsc_clock_init(void);
uint64_t tsc_clock_ns(uint64_t tsc);
uint64_t tsc_now(void);

#endif
