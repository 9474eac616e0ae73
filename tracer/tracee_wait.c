#include "tracee_wait.h"

#include <errno.h>
#include <sys/wait.h>

bool tracee_wait(pid_t tid, int *status)
{
	pid_t got;

	while ((got = waitpid(tid, status, __WALL)) < 0 && errno == EINTR)
		;
	return got == tid;
}
