/* Waiting for a child process that must exit with a given status. */
#ifndef CHILD_H
#define CHILD_H

#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>

/* Waits (waitpid with options) for the child pid, which must exit with status
 * expect; pid <= 0 means that creating it failed. Returns 0, or 1 after saying on
 * stderr "prog: what: " and what went wrong. The children of these programs exit 1
 * when one of their getppid results was wrong, which the message then says. */
static int wait_exit(const char *prog, const char *what, long pid, int options, int expect)
{
	int st = 0;

	if (pid <= 0) {
		fprintf(stderr, "%s: %s: creating the child failed: %ld\n", prog, what, pid);
		return 1;
	}
	if (waitpid((pid_t)pid, &st, options) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != expect) {
		fprintf(stderr, "%s: %s: child status %#x, expected exit %d%s\n", prog, what, st, expect,
			WIFEXITED(st) && WEXITSTATUS(st) == 1 ? " (1: a getppid result in the child was wrong)" : "");
		return 1;
	}
	return 0;
}

#endif
