/* Borrowing a stopped thread for a syscall of the tracer's choosing (as rr makes
 * its remote syscalls), in one wait loop: at the seccomp stop of one of the thread's
 * own calls the call's number and arguments are replaced, the thread is resumed to
 * the call's exit stop and the result read there (patching.c: an mmap of stub
 * memory, the thread then put back on its `syscall` to make its own call again;
 * early.c: the gate unmapped again when a set-up could not have the region).
 * Whatever else the thread reports on the way is dealt with here: an interrupt that
 * another patch asked for is let pass; a signal is held back and sent again when
 * the borrowing ends, so that the event loop sees it as if it came then; a fault
 * ends it; the thread's death is kept for the event loop (held_statuses.h). Each
 * stop is counted in the thread's image as one of the tracer's own (stops.h). Then
 * the thread gets back its registers as borrowed (or as the caller changed them). */
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
	bool faulted;                  /* the code it ran faulted (SIGSEGV, ...) */
};

/* Starts borrowing t, which is stopped; false if its registers cannot be read. */
bool borrow_begin(struct borrowed *b, struct thread *t);
/* At a seccomp stop: the call t stands in is made as nr(args) instead. */
bool borrow_call_instead(struct borrowed *b, long nr, const uint64_t args[6], uint64_t *ret);
/* Gives t back the state saved (which the caller may have changed) and sends the
 * signals held back again; false if t is gone. */
bool borrow_end(struct borrowed *b);

#endif
