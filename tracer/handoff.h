/* Handing a process image from one tracer thread to another, at its exec event
 * (docs/scaling.md, "Several tracer threads" and "The hand-off point"). Only the
 * thread that attached a tracee may make ptrace requests on it, so the image is let
 * go by one and seized by the other; in between it runs untraced, and a call the
 * filter sends to a tracer would find none and fail with ENOSYS. So it waits at
 * the parking call (park.h), which the filter lets through, with every blockable
 * signal blocked:
 *
 *   sender, at the exec event (handoff_park)      receiver (handoff_take)
 *   GETREGS (the loader's entry), the vDSO's
 *     address from the auxiliary vector
 *   GETSIGMASK, SETSIGMASK: all blocked
 *   SETREGS: rip at the vDSO's `syscall`,
 *     the parking arguments; CONT
 *   ... its seccomp stop: the execve's
 *     return (0, read) made there; orig_rax
 *     set to ppoll, which the filter, run
 *     again on the changed call, lets through
 *   DETACH -> it waits in ppoll, untraced
 *   the message (registers, mask) posted   ---->  SEIZE (the launch's options),
 *                                                  INTERRUPT, its trap
 *                                                  SETREGS: as at the exec event,
 *                                                    orig_rax -1 (no ppoll again)
 *                                                  SETSIGMASK: its own
 *                                                  -> served as an exec event
 *
 * The stops of the hand-off are the tracer's own, not the image's (as borrow.c's).
 * What can come in between, and what is done then:
 * - an interrupt trap the patch protocol asked for before the exec, reported after
 *   it: the image is sent on to the call, as if it had not come;
 * - a status other than the parking call's stop before the detach (SIGSTOP, which
 *   no mask blocks; SIGKILL): the registers and the mask are put back, the status
 *   is held for the event loop, and the image is not handed off (HANDOFF_HELD);
 * - the same after the seize (a group stop, its death): the same, on the
 *   receiver;
 * - SIGKILL while it waits untraced: the seize fails and its real parent reaps it;
 *   the receiver ends it as killed (HANDOFF_GONE). A seize refused for any other
 *   reason kills it too: left parked, it would wait forever.
 * - reaped, and its pid another process's by the seize: the sender took a pidfd of
 *   the process before the detach (pidfd_open); the receiver kills through it
 *   alone, and after a seize that worked asks it whether the process is still
 *   there (a pid is reused only once its process is reaped): if not, the process
 *   seized is another's, let go as it was (HANDOFF_GONE).
 *
 * SYSTRACE_TEST_HANDOFF=every-exec-after-reuse: as every-exec, but the receiver
 * waits until the parked process was reaped and its pid is in use again, then
 * sends that process SIGCONT once it tried (tests/programs/handoff_reuse.c).
 * every-exec-stopped: as every-exec, but the sender stops the parked image
 * (SIGSTOP, and waits for its group stop), so that the seize finds the stop, and
 * the receiver continues it (SIGCONT) once it has (test_handoff).
 * every-exec-slow: as every-exec, but the receiver takes each image 200 ms late,
 * so that a program's attach meets the hand-off (test_attach_other).
 *
 * SYSTRACE_TEST_HANDOFF=every-exec in systrace's environment hands every image that
 * can be handed off to the next serving thread (tracer_threads.h), with one thread
 * back to the same one (detached, then seized again), so that the mechanism runs
 * under every test. */
#ifndef SYSTRACE_HANDOFF_H
#define SYSTRACE_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "tasks.h"

/* What crosses from the sender to the receiver besides the thread's record. */
struct handoff {
	pid_t tid;
	int pidfd;                    /* the process, not whatever takes its pid */
	struct thread *thread;        /* its record, out of the sender's tables */
	struct user_regs_struct regs; /* at the exec event */
	uint64_t mask;
	uint64_t began_ns;
};

enum handoff_result {
	HANDOFF_NONE,   /* not handed off, nothing changed: serve it here */
	HANDOFF_PARKED, /* (the sender's) detached, waiting for the receiver */
	HANDOFF_TAKEN,  /* (the receiver's) stopped as at its exec event: serve it */
	HANDOFF_HELD,   /* a status came on the way, for the event loop to serve; the
	                   registers and mask as at the exec event; not set up */
	HANDOFF_GONE,   /* killed while parked: no status of it will come */
};

/* At start-up: the vDSO's `syscall` and the test mode. */
void handoff_setup(void);
bool handoff_every_exec(void);
/* Whether t, at its exec event, may be handed off: never the command (whose pid is
 * command: systrace's own child stays with the thread that forked it), an image
 * whose own filter may refuse the parking call, one a traced program has
 * ptrace-attached, one whose execve's log entry waits for its result, one with a
 * status held; nor when there is no vDSO to park at. An i386 one is not parked
 * (handoff_park). */
bool handoff_possible(const struct thread *t, pid_t command);
/* The sender's part, at t's exec event. */
enum handoff_result handoff_park(struct thread *t, struct handoff *m);
/* The receiver's part. */
enum handoff_result handoff_take(const struct handoff *m);

/* The calling thread's hand-offs taken so far, and the time they took in all
 * (the sender's part and the receiver's). */
struct handoff_stats {
	uint64_t count, ns;
};
void handoff_get_stats(struct handoff_stats *s);

#endif
