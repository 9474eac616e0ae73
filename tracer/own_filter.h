/* A program's own seccomp filters: installed rewritten (filter_rewrite.h), so that
 * the program runs as alone and every call it makes still stops or is counted;
 * own_filter.c draws how a call is decided. */
#ifndef SYSTRACE_OWN_FILTER_H
#define SYSTRACE_OWN_FILTER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "tasks.h"

/* At the seccomp stop of an x86-64 call nr: a filter's installation (seccomp
 * SECCOMP_SET_MODE_FILTER, prctl PR_SET_SECCOMP with SECCOMP_MODE_FILTER) has its
 * program replaced by the rewritten one before the kernel reads it. */
void own_filter_on_call(struct thread *t, long nr, const uint64_t *args);

/* Whether t's call must be followed to its exit stop (its argument was moved). */
bool own_filter_needs_exit(const struct thread *t);

/* The request with which a call that goes on at rip, not through the pad, is
 * resumed: in an image with a filter of the program's, from the pad's address (the
 * filters decide it there), to its exit stop; else request unchanged. */
int own_filter_recheck(struct thread *t, int request, uint64_t rip);

/* At t's syscall exit stop: the registers the call's decision moved, put back. */
void own_filter_on_exit(struct thread *t);

/* At a new thread's first stop: a child of a call decided from the pad's address
 * continues after its creator's syscall, as the creator does. */
void own_filter_child_starts(struct thread *t);

/* At a signal-delivery stop, once the thread is where the program must see it
 * (regs): a SIGSYS of a filter's TRAP names the program's call site, not the
 * gate page's address where the call was decided. */
void own_filter_on_signal(struct thread *t, int sig, const struct user_regs_struct *regs);

#endif
