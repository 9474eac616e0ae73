#define _GNU_SOURCE
/* A raw clone(CLONE_UNTRACED | SIGCHLD) with fork semantics: a tracer that does not
 * override CLONE_UNTRACED loses the child, which then runs untraced under the
 * inherited seccomp filter and gets ENOSYS from every traced syscall (strace #303).
 * The child makes 9 getppid calls and exits 0 only when every one returned the
 * parent's pid (1 on ENOSYS or a wrong result); the parent makes 2 getppid calls
 * and exits 0 when the child did. Totals: getppid 11, clone 1. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);

	long parent = syscall(SYS_getpid);
	long pid = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0L, 0L, 0L, 0L);
	if (pid < 0)
		return 2;
	if (pid == 0) {
		int bad = 0;
		for (int i = 0; i < 9; i++)
			if (syscall(SYS_getppid) != parent)
				bad = 1;
		syscall(SYS_exit_group, bad);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "clone_untraced: child status %#x (1: its syscalls failed)\n", st);
		return 1;
	}
	syscall(SYS_getppid);
	syscall(SYS_getppid);
	return 0;
}
