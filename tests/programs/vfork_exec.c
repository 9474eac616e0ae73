/* vfork + execve of getppid_loop (argv[1], default: the getppid_loop beside this
 * program) with count 77, then vfork + _exit(5), then one vfork child that makes
 * 3 getppid calls and _exit(0). Every child is waited for; exits 0 when all ended as
 * expected.
 * SIGCHLD is blocked (one rt_sigprocmask) so that no wait4 is interrupted and
 * restarted: under ptrace even an ignored SIGCHLD interrupts a blocked wait4, which
 * would then be counted twice, depending on timing. */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char path[PATH_MAX];

static int wait_for(pid_t pid, int expect)
{
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != expect) {
		fprintf(stderr, "vfork_exec: child %d: status %#x, expected exit %d\n", (int)pid, st, expect);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		snprintf(path, sizeof path, "%s", argv[1]);
	} else {
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
		if (n < 0)
			return 2;
		path[n] = 0;
		char *slash = strrchr(path, '/');
		strcpy(slash + 1, "getppid_loop");
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);

	char *args[] = { path, "77", NULL };
	char *envp[] = { NULL };
	int bad = 0;

	pid_t pid = vfork();
	if (pid == 0) {
		execve(path, args, envp);
		_exit(127);
	}
	bad |= wait_for(pid, 0);

	pid = vfork();
	if (pid == 0)
		_exit(5);
	bad |= wait_for(pid, 5);

	pid = vfork();
	if (pid == 0) {
		syscall(SYS_getppid);
		syscall(SYS_getppid);
		syscall(SYS_getppid);
		_exit(0);
	}
	bad |= wait_for(pid, 0);
	return bad;
}
