/* A fork tree of depth 3 and fanout 2: 1 + 2 + 4 + 8 = 15 processes. Every process
 * makes exactly GETPPID_EACH getppid calls (15 * 40 = 600 in all), then forks its
 * children (if above the leaves) and waits for each with waitpid. Exits 0 when every
 * child exited 0.
 * SIGCHLD is blocked (one rt_sigprocmask) so that no wait4 is interrupted and
 * restarted: under ptrace even an ignored SIGCHLD interrupts a blocked wait4, which
 * would then be counted twice, depending on timing. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEPTH 3
#define FANOUT 2
#define GETPPID_EACH 40

static int node(int depth)
{
	for (int i = 0; i < GETPPID_EACH; i++)
		syscall(SYS_getppid);
	if (depth == DEPTH)
		return 0;
	pid_t kids[FANOUT];
	for (int i = 0; i < FANOUT; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			_exit(2);
		if (kids[i] == 0)
			_exit(node(depth + 1));
	}
	int bad = 0;
	for (int i = 0; i < FANOUT; i++) {
		int st;
		if (waitpid(kids[i], &st, 0) != kids[i] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	}
	return bad;
}

int main(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int r = node(0);
	if (r)
		fprintf(stderr, "fork_tree: a child failed\n");
	return r;
}
