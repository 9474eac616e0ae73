/* Whether a patch paid for itself: writing it cost the tracer (and the stopped
 * process) patch_ns once; each later call through it saves what a stop costs over
 * an in-process call, both measured at the start of the run (tracer/calibrate.c).
 * The break-even call count is the number of calls after which the saving covers
 * the cost; a patch with fewer in-process calls than that did not amortize. */
#ifndef SYSTRACE_AMORTIZATION_H
#define SYSTRACE_AMORTIZATION_H

#include <stdbool.h>
#include <stdint.h>

/* ceil(patch_ns / saving_ns); 0 for a patch that cost nothing here (inherited). A
 * saving of 0 (not measured, or no faster) is taken as 1 ns: a bound, not a guess. */
uint64_t amortization_break_even(uint64_t patch_ns, uint64_t saving_ns);
bool amortization_paid_off(uint64_t patch_ns, uint64_t saving_ns, uint64_t calls);

#endif
