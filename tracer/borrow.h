/* Borrowing a stopped thread to make a syscall of the tracer's choosing (as rr makes
 * its remote syscalls): the thread's registers are set for the call at a `syscall`
 * instruction, it is single-stepped over exactly that instruction, and the result is
 * read at the step's trap; then it gets back the registers it had. Two places use it:
 *   - at an exec event (tracer/early.c), the calls that map the gate, the region and
 *     stub memory before the new image's first instruction (borrow_call, with rip set
 *     to a `syscall` of the loader, or the gate's once it is mapped);
 *   - at the seccomp stop of one of the thread's own calls (tracer/patching.c), an
 *     mmap of stub memory in its place (borrow_call_instead); the thread is then put
 *     back on its `syscall` to make its own call again.
 * Whatever else the thread reports on the way is dealt with here, in one wait loop:
 * a seccomp stop (a call made at an ordinary instruction stops before it runs) and an
 * interrupt another patch asked for are stepped through; a signal is held back and
 * sent again when the borrowing ends, so that the event loop sees it as if it came
 * then; the thread's death is kept for the event loop (held_statuses.h). Each stop is
 * counted in the thread's image as one of the tracer's own (stops.h). */
#ifndef SYSTRACE_BORROW_H
#define SYSTRACE_BORROW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "tasks.h"

struct borrowed {
	struct thread *t;
	struct user_regs_struct saved; /* what it gets back at borrow_end */
	int signals[8];                /* that came meanwhile, sent again at the end */
	unsigned nsignals;
	bool gone;                     /* it died meanwhile: its status is held */
};

/* Starts borrowing t, which is stopped; false if its registers cannot be read. */
bool borrow_begin(struct borrowed *b, struct thread *t);
/* Lets t run to its next instruction (at an exec event: out of the execve, to the
 * image's first instruction); what it reaches becomes the state saved. */
bool borrow_step(struct borrowed *b);
/* Makes t run the `syscall` instruction at `at` as nr(args), from the state saved;
 * true if it returned a result (in *ret) that is not an error. */
bool borrow_call(struct borrowed *b, uint64_t at, long nr, const uint64_t args[6], uint64_t *ret);
/* At a seccomp stop: the call t stands in is made as nr(args) instead. */
bool borrow_call_instead(struct borrowed *b, long nr, const uint64_t args[6], uint64_t *ret);
/* Gives t back the state saved (which the caller may have changed) and sends the
 * signals held back again; false if t is gone. */
bool borrow_end(struct borrowed *b);

#endif
