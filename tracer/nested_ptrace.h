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
 * When the caller's thread ends, its threads are detached, as the kernel does, and
 * so they are at its exec (with the tid it had: a non-leader's exec takes the
 * leader's). A wait for a thread that ends while attached fails (ECHILD).
 *
 * With several serving threads (--tracer-threads) the program and the thread it
 * names may be served by two of them, and only the target's may make ptrace
 * requests on it. The caller's thread then posts the call to the target's
 * (tracer_threads_post), keeps the caller at its seccomp stop, and answers it when
 * the answer is posted back:
 *
 *   the caller's serving thread (A)            the target's (B)
 *   PTRACE_ATTACH of a tid not here: its
 *     TracerPid is B's thread: ATTACH  ----->  the kernel's rule, PTRACE_INTERRUPT;
 *                                       <----  ANSWER 0 (or -EPERM)
 *     the caller's list of remote threads
 *     gains it; the call returns
 *   GETREGS, GETFPREGS, GETREGSET, DETACH,
 *     KILL of one on its list: REQUEST ----->  done on the target, the result
 *                                              written into the caller's memory
 *                                       <----  ANSWER
 *   wait4 of one on its process's lists:
 *     WAIT                             ----->  its stop now, or when it comes
 *                                              (nested_holds), written there
 *                                       <----  ANSWER (its tid as named)
 *   the caller's thread leaves: LEFT   ----->  what it attached goes on
 *   an ANSWER that finds the caller gone,      a target no longer attached (let
 *     or past that call (the serving thread's    go, gone): GONE to its tracer's
 *     number for it), is dropped                 thread; gone, ECHILD to a waiter
 *
 * Each serving thread keeps to its own tracees' records; the messages carry tids
 * and the call's arguments. An image moves only at its exec event, and an exec
 * ends its threads' attachments both ways (nested_thread_leaves), so none moves
 * while attached. An attach posted as the target's exec hands it on is answered
 * "not here", and asked again where its TracerPid then says; between the sender's
 * detach and the receiver's seize it is traced by no one (tid_marks.h's
 * TID_PARKED), and neither an attach nor a seize may reach the kernel, which would
 * give the program the process and break the hand-off: an attach then waits, its
 * caller kept at its seccomp stop, until the receiver has the target, and is made
 * again there (a seize is refused, EPERM, as the kernel refuses it for systrace's
 * tracees). Across threads only callers in systrace's own pid namespace are served
 * so (the target's TracerPid is read in it); in another the kernel's EPERM stays. */
#ifndef SYSTRACE_NESTED_PTRACE_H
#define SYSTRACE_NESTED_PTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "nested_msg.h"
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

/* At each turn of the event loop: the attaches that met their target between two
 * serving threads made again once it is not (nested_ptrace.c). */
void nested_look_again(void);
/* After a hand-off's receiver took an image (or found it gone): the serving threads
 * whose attaches wait for one look again now. */
void nested_handoff_taken(void);
/* A message another serving thread posted. */
void nested_on_message(const struct nested_msg *m);

#endif
