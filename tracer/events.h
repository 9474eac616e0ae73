/* The event loop: every ptrace stop of every tracee, until none is left. */
#ifndef SYSTRACE_EVENTS_H
#define SYSTRACE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct run_result {
	bool root_started;     /* the command's execve succeeded */
	int root_exec_errno;   /* why it failed, when it did */
	int root_status;       /* wait status of the command's last image */
	bool root_status_known;
};

/* At start-up: the numbers of the calls the loop treats specially. */
void events_setup(void);
/* Before any serving thread serves: root (seized by the calling thread, about to
 * execve the command) is the command, whose end goes into *result. */
void events_begin(pid_t root, struct run_result *result);
/* Each serving thread's loop (tracer_threads.h): the command and all it starts, as
 * far as they are the calling thread's; returns when none is left anywhere, or the
 * run gives up. */
void events_run(void);

#endif
