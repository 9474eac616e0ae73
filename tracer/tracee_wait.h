/* Waiting for one tracee's next status, through the interruptions of systrace's
 * own timer (placement.c's SIGALRM interrupts waitpid; the tracee still comes). */
#ifndef SYSTRACE_TRACEE_WAIT_H
#define SYSTRACE_TRACEE_WAIT_H

#include <stdbool.h>
#include <sys/types.h>

/* waitpid(tid, status, __WALL) until it is not interrupted; false if it failed
 * (errno says why) or reported another pid. */
bool tracee_wait(pid_t tid, int *status);

#endif
