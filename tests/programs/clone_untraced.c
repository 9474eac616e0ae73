/* A child started with CLONE_UNTRACED: if it escaped the tracer, every syscall it
 * makes would fail with ENOSYS (the filter is inherited). Exits 0 when the child's
 * 10 getppid calls all succeeded. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int child(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		if (syscall(SYS_getppid) < 0)
			return 9;
	return 0;
}

int main(void)
{
	char *stack = malloc(65536);
	int status;
	pid_t pid = clone(child, stack + 65536, CLONE_UNTRACED | SIGCHLD, NULL);

	if (pid < 0)
		return 2;
	if (waitpid(pid, &status, 0) != pid)
		return 3;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}
