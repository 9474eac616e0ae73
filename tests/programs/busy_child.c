/* busy_child MARKER: forks a child that ignores SIGTSTP and checks for MARKER in a
 * loop (a syscall each time) until it exists, then exits 0. The parent keeps
 * SIGTSTP's default action, prints "child started", waits for the child, prints
 * "busy_child done" and exits 0 (1 if the child failed). For job control: under
 * --patch=off the child's calls keep the tracer busy while the parent is stopped.
 * The child inherits SIG_IGN at the fork itself: set after it, a Ctrl-Z sent on
 * "child started" could reach a child that has not yet run, and stop it too. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status;
	pid_t child;

	if (argc != 2)
		return 2;
	signal(SIGTSTP, SIG_IGN);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		while (access(argv[1], F_OK) != 0)
			;
		_exit(0);
	}
	signal(SIGTSTP, SIG_DFL);
	printf("child started\n");
	fflush(stdout);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	printf("busy_child done\n");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
