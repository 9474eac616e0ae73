/* What a signal must not see of the gate's time routine (--time; tracer/gate_code.S
 * draws it and says why each move is safe), what leave_gate needs of its frame, and
 * how a call's ticks go into a thread's time counters as the routine adds them.
 * Pure (registers and memory in, registers and memory out), so that the unit tests
 * run it against the real routine, from a SIGTRAP handler. */
#ifndef SYSTRACE_TIME_FIXUPS_H
#define SYSTRACE_TIME_FIXUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#include "region.h"

/* Reads the 8 bytes at addr of the stopped thread's memory; false if it cannot. */
typedef bool time_word_reader(void *ctx, uint64_t addr, uint64_t *word);

/* At a signal-delivery stop, with the thread's registers: moves a thread inside the
 * routine's windows where it must resume (back to a start or a compare, or past the
 * end's reading with now, the tracer's TSC, as that reading). gate: where the gate
 * page is (SYSTRACE_GATE_ADDR in a traced process). True if regs changed. */
bool time_routine_fixup(struct user_regs_struct *regs, uint64_t gate, uint64_t now, time_word_reader *read,
			void *ctx);

/* The routine's frame, from the gate's return address up, of a thread in the gate
 * (blocked in, or just back from, the call): that address, the start, the number,
 * rdx, the stub's return address, the site's ticks displacement. */
#define TIME_FRAME_WORDS 6
struct time_frame {
	uint64_t start;       /* the TSC before the call */
	uint64_t nr;          /* the number the routine was called with */
	uint64_t stub_return; /* where the routine returns to, in the stub */
};

/* Whether words (TIME_FRAME_WORDS from the stack pointer) are the routine's frame;
 * if so, f is filled. */
bool time_routine_frame(const uint64_t *words, uint64_t gate, struct time_frame *f);

/* Adds a call of ticks at site counter site with number nr, as the routine does (it
 * adds nothing for a number past the counters). */
void time_counters_add(struct region_time *rt, size_t site, uint64_t nr, uint64_t ticks);

#endif
