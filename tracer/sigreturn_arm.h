/* When a handler's rt_sigreturn may go in-process.
 *
 * A restorer's `mov $15,%rax; syscall` is patched with a stub that neither moves the
 * stack nor calls (patcher/stub.h): it makes the call through the gate only when
 * the thread's slot word REGION_SLOT_SIGRETURN is armed, and disarms it; otherwise
 * it stops, as every rt_sigreturn did before. The tracer needs such a stop when the
 * frame the call restores is one it must look at (signal_fixups.c: a return into
 * bytes that were patched since, or a restart the kernel would enter at a patched
 * site; restarts.c: a call whose restart or EINTR the frame tells; results.c: a
 * result still to come). It arms the word at a signal's delivery only when none of
 * that can be:
 *
 *   delivery stop of a caught signal          (frames: +1 at each, -1 at each return,
 *                                              ptraced or in-process: an armed word
 *                                              found taken at the next stop)
 *     no other handler's frame may be live    (a frame left by siglongjmp stays
 *                                              counted: arming ends for that thread;
 *                                              so does a longjmp from a nested
 *                                              handler into an outer one, whose
 *                                              return would take a word armed for
 *                                              the inner frame)
 *     nothing awaited of the thread           (a result, a restart, an exec, a set-up)
 *     no restart code in rax                  (the kernel would move rip back)
 *     rip in the program's code, settled:     not in the gate page nor a stub, not
 *                                              inside patched bytes, and every
 *                                              `syscall` within a patch's reach of it
 *                                              a site patched or refused for good:
 *                                              no patch to come can cover it
 *     -> word = 1: this handler's return goes in-process, once
 *
 * Any later stop of the thread clears the word (its handler made a call the tracer
 * saw): the return stops. A signal inside the stub itself finds the word armed
 * (cleared then, and the frame counted as live: the handler's own return stops) or
 * already taken: the frame it was armed for was checked then, and its checks hold
 * for good. */
#ifndef SYSTRACE_SIGRETURN_ARM_H
#define SYSTRACE_SIGRETURN_ARM_H

#include <stdbool.h>
#include <sys/user.h>

#include "procfs.h"
#include "tasks.h"

/* counting_only: no --log, no --time (the stub exists only then). */
void sigreturn_arm_setup(bool counting_only);
/* At each stop of t, before it is handled: its word cleared, and whether it was
 * taken since it was armed (a frame fewer). */
void sigreturn_on_stop(struct thread *t);
/* At an rt_sigreturn that stopped: a frame fewer. */
void sigreturn_on_call(struct thread *t);
/* At a signal's delivery stop, once regs say where the frame will return (the
 * fixups done): arms t's word when the handler's return needs no stop. */
void sigreturn_on_delivery(struct thread *t, const struct user_regs_struct *regs, struct delivery *d);

#endif
