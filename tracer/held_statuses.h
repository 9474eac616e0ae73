/* Wait statuses that waitpid gave while the tracer waited for one thread in
 * particular (the other threads of a memory stopped for a patch, a thread borrowed
 * for a call that died on the way). The event loop takes them before it waits
 * again, as if waitpid(-1) had just returned them, in the order they came. */
#ifndef SYSTRACE_HELD_STATUSES_H
#define SYSTRACE_HELD_STATUSES_H

#include <stdbool.h>
#include <sys/types.h>

/* Keeps tid's status (its thread's held flag is set until it is taken). */
void held_status_push(pid_t tid, int status);
/* The oldest status kept; false when there is none. */
bool held_status_pop(pid_t *tid, int *status);
/* Whether a status kept is a creation event (fork, vfork, clone) of a thread. */
bool held_status_creation_waits(void);
/* The calling thread's table freed (its end: nothing is held then). */
void held_statuses_free(void);

#endif
