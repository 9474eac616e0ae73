/* Waiting for one tracee's next status, through the interruptions of systrace's
 * own timer (placement.c's SIGALRM interrupts waitpid; the tracee still comes). */
#ifndef SYSTRACE_TRACEE_WAIT_H
#define SYSTRACE_TRACEE_WAIT_H

#include <stdbool.h>
#include <sys/types.h>
#include <sys/wait.h>

/* Every wait for tracees: any kind of child (__WALL), and only the calling thread's
 * (__WNOTHREAD): a tracer thread may act on its own tracees only, and without it a
 * wait would take the statuses of another tracer thread's (docs/scaling.md). */
#define TRACEE_WAIT_FLAGS (__WALL | __WNOTHREAD)

/* waitpid(tid, status, TRACEE_WAIT_FLAGS) until it is not interrupted; false if it failed
 * (errno says why) or reported another pid. */
bool tracee_wait(pid_t tid, int *status);
/* The message of the ptrace event (PTRACE_EVENT_*) tid stopped at, if it is still
 * stopped there: a tracee SIGKILLed since moves on to its exit event, whose message
 * (the exit status) replaces the one the stop reported. */
bool tracee_event_message(pid_t tid, int event, unsigned long *msg);

#endif
