/* What a ptrace stop and an in-process call cost on this machine, measured by
 * systrace itself before the command starts (summary.csv stop_cost_ns,
 * inprocess_cost_ns, saving_per_call_ns): the cost of patching a site is paid back
 * by the saving on each later call there, and both depend on the CPU, the kernel and
 * its mitigations, so they are measured, not assumed.
 *
 * A small child of the tracer, seized like the command and under the same filter,
 * makes getppid batches at an ordinary `syscall` instruction (each a seccomp stop
 * this tracer resumes, reading the call as the event loop does) and through the
 * gate as a fixed-number stub does (counter increment through %gs, red-zone step,
 * call to the gate's `syscall; ret`), timing each batch with the vDSO's clock. The
 * medians over a few batches resist a noisy moment. It runs to its end, in its own
 * wait loop, before the command is started; it takes a few milliseconds. */
#ifndef SYSTRACE_CALIBRATE_H
#define SYSTRACE_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct calibration {
	uint64_t stop_ns;       /* one getppid that stops in the tracer */
	uint64_t inprocess_ns;  /* one getppid through a stub and the gate */
	uint64_t took_ns;       /* the whole calibration, wall time */
};

/* Measures, mapping the gate from gate_fd (the shared region, page 0). False with
 * the reason in err when it could not; the figures are then not to be used. */
bool calibrate(struct calibration *c, int gate_fd, char *err, size_t errlen);

/* The median of n values, which it sorts: the middle one, or for an even n the
 * mean of the two middle ones (rounded down); 0 for none. */
uint64_t calibrate_median(uint64_t *v, size_t n);

#endif
