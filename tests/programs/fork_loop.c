/* fork_loop N [exec]: N times, one after another: fork a child that exits 0 at once
 * (or, with "exec", execs the getppid_loop beside this program with count 1) and wait
 * for it. Exits 0 when every child exited 0. For memory-boundedness tests. */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* exit_group at a site of this program's own, which the parent never runs: a site
 * in libc (_exit's) that one child makes the tracer learn could be written into the
 * parent at its next trap there, and the later children would inherit it */
static __attribute__((noreturn, noinline)) void exit_here(int status)
{
	__asm__ volatile("mov $231,%%eax\n\tsyscall" : : "D"(status) : "rax", "rcx", "r11", "memory");
	__builtin_unreachable();
}

int main(int argc, char **argv)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	long n = argc > 1 ? atol(argv[1]) : 100;
	int do_exec = argc > 2 && strcmp(argv[2], "exec") == 0;
	static char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof path - 32);
	if (len < 0)
		return 2;
	path[len] = 0;
	strcpy(strrchr(path, '/') + 1, "getppid_loop");
	char *args[] = { path, "1", NULL };
	char *envp[] = { NULL };

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return 2;
		if (pid == 0) {
			if (do_exec)
				execve(path, args, envp);
			exit_here(do_exec ? 127 : 0);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "fork_loop: child %ld: status %#x\n", i, st);
			return 1;
		}
	}
	return 0;
}
