/* What a signal must not see of the in-process path, put right at the stops the
 * tracer gets before every delivery and at every rt_sigreturn:
 *   - a thread between a stub's counter load and store goes back to the load, so a
 *     handler's call at the same site is not overwritten by the stale store (the
 *     stubs count without a lock, each thread in its own slot: patcher/stub.h);
 *   - a thread in the gate about to run a handler is given the state of the site's
 *     own syscall, so that its frame unwinds through the program's code
 *     (pthread_cancel, exceptions, backtraces); one the kernel will make enter its
 *     call again with no handler is moved to the stub's traced syscall, so that
 *     the restart is seen (and counted in `restarted`) as on the ptrace path;
 *   - under --log, a thread inside the log routine's windows is moved back to their
 *     start (gate_code.S says why each is safe to re-run);
 *   - a signal frame saved before a patch that returns into the patched bytes
 *     returns into the stub instead. */
#ifndef SYSTRACE_SIGNAL_FIXUPS_H
#define SYSTRACE_SIGNAL_FIXUPS_H

#include <stdint.h>
#include <sys/user.h>

#include "procfs.h"

#include "tasks.h"

/* At a signal-delivery stop of t (d), with its registers, which are changed here
 * (and in the thread) where the thread is moved. */
void fixups_on_signal(struct thread *t, struct delivery *d, struct user_regs_struct *regs);
/* At a group-stop of t (a thread that had no delivery stop of its own): a call in
 * the gate that the kernel will enter again is moved to where the tracer sees its
 * restart, as at a delivery without a handler. */
void fixups_on_group_stop(struct thread *t);
/* At t's rt_sigreturn, with its stack pointer (where the frame lies). */
void fixups_on_sigreturn(struct thread *t, uint64_t stack_pointer);

#endif
