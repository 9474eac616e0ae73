/* ptrace_refused: asks, twice, to trace (PTRACE_TRACEME in a child, then
 * PTRACE_SEIZE of a child), as a debugger or strace does first, and prints what
 * each got: "ok", or the error. Alone both work; under systrace, whose tracees
 * cannot be traced by another, the kernel refuses both and systrace says why once
 * (tracer/nested_ptrace.c). Exit 0 either way. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int go[2], status;
	pid_t child;
	char c;

	fflush(stdout);
	if ((child = fork()) == 0) {
		long r = ptrace(PTRACE_TRACEME, 0, 0, 0);

		printf("traceme: %s\n", r == 0 ? "ok" : strerror(errno));
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, &status, 0);
	if (pipe(go) < 0)
		return 1;
	if ((child = fork()) == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(go[0]);
	printf("seize: %s\n", ptrace(PTRACE_SEIZE, child, 0, 0) == 0 ? "ok" : strerror(errno));
	fflush(stdout);
	if (write(go[1], "x", 1) < 0)
		return 1;
	while (waitpid(child, &status, __WALL) == child && !WIFEXITED(status) && !WIFSIGNALED(status))
		ptrace(PTRACE_CONT, child, 0, 0);
	return 0;
}
