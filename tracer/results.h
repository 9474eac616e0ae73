/* The results of ptraced calls, for their errors, without a second stop per call.
 * (In-process calls count their errors in the stub: patcher/stub.h.) results.c
 * draws the return pad and says where each case is taken. */
#ifndef SYSTRACE_RESULTS_H
#define SYSTRACE_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "tasks.h"

/* What a call's result is learned from (events.c tells by its number). */
enum result_kind {
	RESULT_OF_CALL,     /* its return, through the pad or at its exit stop */
	RESULT_OF_CREATION, /* a clone-family call: failed unless its creator event
	                       comes before t's next stop of another kind */
	RESULT_OF_NOTHING,  /* none to learn (exit, exit_group; execve: events.c) */
};

/* At t's seccomp stop, the call of index idx at site counted: its result is to be
 * learned. again: the call is entered again (a restart, the call patching.c put
 * back), and the result still to come is the first entry's, if it had one. */
void results_expect(struct thread *t, enum result_kind kind, int idx, uint64_t site, bool again);
/* An rt_sigreturn, whose result is the rax its frame (at stack_pointer) restores. */
void results_of_sigreturn(struct thread *t, int idx, uint64_t site, uint64_t stack_pointer);
/* A call the restart logic saw return EINTR after a handler (restarts.h). */
void results_interrupted(struct thread *t, uint64_t site, long raw_nr);

/* The request with which to resume t from the seccomp stop of a call that goes on
 * (rip: where it continues; t->moved_to if the write protocol moved it): the call
 * is sent back through the pad, or followed to its exit stop where the pad cannot
 * serve. decided_again: the call is to be decided by the program's own filters
 * after the stop (all but rt_sigreturn, which sets rip itself: own_filter.h). */
int results_resume(struct thread *t, int request, uint64_t rip, bool decided_again);

/* At each stop of t, before anything else (event: the stop's ptrace event, 0 for
 * a signal or syscall stop): a result the pad left is taken, and a creation that
 * did not report is counted failed. */
void results_on_stop(struct thread *t, int event);
/* At t's syscall exit stop; count: its error is counted here (not when its log
 * entry has it: syscall_log_answer_left). */
void results_on_exit(struct thread *t, int64_t ret, bool count);
/* At a signal-delivery, group or interrupt stop, with t's registers: a thread in
 * the pad is put where the call itself would have left it (rip after its syscall,
 * its result taken unless the kernel will enter the call again); true if regs
 * changed (the caller writes them). A call whose result is taken at such a stop,
 * or at its exit stop (results_on_exit), loses its number from orig_rax when it
 * returned -ENOSYS (results.c, forget_number). */
bool results_leave_pad(struct thread *t, struct user_regs_struct *regs);

/* The address the call at a seccomp stop with this instruction pointer returns to:
 * ip itself, or for a call entered from the pad (a restart no stop saw), the
 * address after its own syscall. */
uint64_t results_call_ip(const struct thread *t, uint64_t ip);
/* Whether a seccomp stop at ip is t's call at site that the pad still serves, made
 * again by the kernel's rewind onto the pad's own syscall with no stop between (it
 * gave up with -ERESTART* for task work, or for an interrupt its entry stop took):
 * the same call, not a new one. */
bool results_pad_rewound(const struct thread *t, uint64_t ip, uint64_t site);
/* For a thread whose user rip is in the pad: the slot word it will return through
 * (to read, or to move it elsewhere); NULL otherwise. */
uint64_t *results_pad_return(const struct thread *t, uint64_t rip);

#endif
