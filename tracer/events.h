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
/* Traces root (seized, about to execve the command) and all it starts. */
void events_run(pid_t root, struct run_result *result);

#endif
