/* New threads and processes. The creator's fork/vfork/clone event and the child's
 * first stop arrive in either order, and either may never come (the creator killed
 * between making the child and reporting it; the child killed before its first
 * stop). Whichever comes first places the child; the creator's event also counts it. */
#ifndef SYSTRACE_CHILDREN_H
#define SYSTRACE_CHILDREN_H

#include <stdint.h>
#include <sys/types.h>

#include "tasks.h"

/* The creator's event; flags are the clone flags of the call it is in; landing,
 * for a vfork through the gate's stackless entry, where the child goes on once out
 * of the gate (else 0). False when
 * the creator was killed since it stopped there (the child is placed at its own
 * first stop). */
bool children_on_creator_event(struct thread *creator, int event, uint64_t flags, uint64_t landing);
/* The first stop of a tid the tracer does not know: placed at once from
 * /proc/<tid>/status, never held waiting for its creator's event. */
struct thread *children_on_unknown_stop(pid_t tid);
/* The death of a tid never seen stopped: kept for its creator's event. */
void children_on_unknown_death(pid_t tid, int status);

#endif
