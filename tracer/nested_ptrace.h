/* A traced program's ptrace of threads that systrace traces, emulated by the tracer
 * (rr does the same for its tracees). LeakSanitizer, at a sanitized program's exit,
 * stops the world from a helper task (clone with CLONE_UNTRACED, which systrace
 * takes out: a task with the filter and no tracer gets ENOSYS for every call) that
 * PTRACE_ATTACHes every thread of the process, waits for each to stop, reads its
 * registers and scans its stack, then detaches. The kernel refuses the attach (the
 * threads have a tracer already: systrace), so the tracer answers these calls
 * itself, without the kernel:
 *   PTRACE_ATTACH   the thread is stopped by systrace (PTRACE_INTERRUPT) and its
 *                   next stop kept, not handled, while the program has it
 *   wait4(tid)      that stop, as the kernel reports an attach's: stopped by
 *                   SIGSTOP (the caller kept at its seccomp stop until it comes)
 *   PTRACE_GETREGS, PTRACE_GETFPREGS, PTRACE_GETREGSET   read from the stopped
 *                   thread, written into the caller's memory
 *   PTRACE_DETACH   the kept stop is handled as if it had just come, and the
 *                   thread goes on (with the signal given, if any)
 *   PTRACE_KILL     SIGKILL
 * Any other request on such a thread fails with EIO; a request on a thread systrace
 * does not trace, and a wait for anything else, go to the kernel. Thread ids are the
 * caller's (its pid namespace). The attach is refused (EPERM) as the kernel would:
 * the caller's own thread group, a thread another has attached, or another user's
 * (unless the caller's effective uid is 0). So that its waits reach the tracer, the
 * caller's memory has its wait sites (and those whose number varies) stop from its
 * first attach on (library_waits_stop); ptrace calls always stop (must_stop.h).
 * When the caller's thread ends, its threads are detached, as the kernel does. */
#ifndef SYSTRACE_NESTED_PTRACE_H
#define SYSTRACE_NESTED_PTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tasks.h"

/* How the event loop resumes a thread (events.c: the log may need its exit stop). */
void nested_setup(void (*resume)(pid_t tid, int request, int sig));
/* At the seccomp stop of an x86-64 call nr (counted already): true if it was one of
 * the calls above, answered (t resumed) or waiting (t kept stopped). */
bool nested_on_call(struct thread *t, long nr, const uint64_t *args);
/* Before the event loop handles a status of t: true if it is kept for the program
 * that attached t (t stays stopped; a wait for it is answered). */
bool nested_holds(struct thread *t, int status);
/* When a thread leaves its image (tasks.h hook): the threads it attached go on, and
 * a wait for it fails (ECHILD). */
void nested_thread_leaves(struct thread *t);

#endif
