#include "held_statuses.h"

#include <stdlib.h>
#include <sys/ptrace.h>

#include "grow_array.h"
#include "tasks.h"

static _Thread_local struct held { pid_t tid; int status; } *held;
static _Thread_local size_t nheld, cap_held, next_held;

void held_status_push(pid_t tid, int status)
{
	struct thread *u = thread_find(tid);

	held = grow_array(held, &cap_held, nheld, sizeof(*held));
	held[nheld++] = (struct held){ tid, status };
	if (u)
		u->held = true;
}

bool held_status_pop(pid_t *tid, int *status)
{
	struct thread *u;

	if (next_held == nheld) {
		next_held = nheld = 0;
		return false;
	}
	*tid = held[next_held].tid;
	*status = held[next_held].status;
	next_held++;
	if ((u = thread_find(*tid)))
		u->held = false;
	return true;
}

bool held_status_creation_waits(void)
{
	for (size_t i = next_held; i < nheld; i++) {
		int event = (unsigned)held[i].status >> 16;

		if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE)
			return true;
	}
	return false;
}

void held_statuses_free(void)
{
	free(held);
	held = NULL;
	nheld = cap_held = next_held = 0;
}
