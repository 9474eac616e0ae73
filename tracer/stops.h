/* Every ptrace stop the tracer handles is counted in its image (ptrace_stops) as
 * exactly one of: lifecycle (what creating, replacing and ending processes and
 * threads costs under any tracer), early (any other stop before the image's
 * in-process path was up: patching could not have saved it) or late (the rest: what patching
 * is there to remove). */
#ifndef SYSTRACE_STOPS_H
#define SYSTRACE_STOPS_H

#include <stdbool.h>

#include "tasks.h"

enum stop_kind {
	/* a fork, vfork, clone, exec or exit event; a new thread's first stop; a stop
	 * of a lifecycle call (see stop_call_is_lifecycle) */
	STOP_LIFECYCLE,
	/* anything else: early or late as the image's phase is at the stop */
	STOP_OTHER,
};

/* The kind of a stop that is not a seccomp one (those are counted once their call is
 * known): ptrace's event (0 for a signal or syscall stop) and signal; first_stop:
 * the thread's attach stop; in_execve: the thread is in an execve (its exit stop,
 * of a failed one, belongs to it). */
enum stop_kind stop_kind_of(int event, int sig, bool first_stop, bool in_execve);

/* Counts one stop of img: ptrace_stops and the one part of its split. */
void count_stop(struct image *img, enum stop_kind kind);

/* Whether a counter index (syscall_index) is fork, vfork, clone, clone3, execve,
 * execveat, exit or exit_group, in its ABI; from the table stops_setup builds. */
void stops_setup(void);
bool stop_call_is_lifecycle(int idx);

#endif
