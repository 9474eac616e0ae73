/* Waiting for one tracee's next status, through the interruptions of systrace's
 * own timer (placement.c's SIGALRM interrupts waitpid; the tracee still comes). */
#ifndef SYSTRACE_TRACEE_WAIT_H
#define SYSTRACE_TRACEE_WAIT_H

#include <stdbool.h>
#include <sys/types.h>

/* waitpid(tid, status, __WALL) until it is not interrupted; false if it failed
 * (errno says why) or reported another pid. */
bool tracee_wait(pid_t tid, int *status);
/* The message of the ptrace event (PTRACE_EVENT_*) tid stopped at, if it is still
 * stopped there: a tracee SIGKILLed since moves on to its exit event, whose message
 * (the exit status) replaces the one the stop reported. */
bool tracee_event_message(pid_t tid, int event, unsigned long *msg);

#endif
