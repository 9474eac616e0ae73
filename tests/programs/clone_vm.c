/* A raw clone(CLONE_VM | SIGCHLD) child on its own stack (a process sharing the
 * parent's memory, not a thread). The child makes 11 getppid calls, stores a value
 * the parent checks, and returns 0 (glibc's clone then calls exit). The parent makes
 * 2 getppid calls after waiting. Totals: getppid 13, clone 1, exit 1.
 * SIGCHLD is blocked (one rt_sigprocmask) so that no wait4 is interrupted and
 * restarted: under ptrace even an ignored SIGCHLD interrupts a blocked wait4, which
 * would then be counted twice, depending on timing. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[256 * 1024] __attribute__((aligned(16)));
static volatile int shared;

static int child(void *arg)
{
	(void)arg;
	for (int i = 0; i < 11; i++)
		syscall(SYS_getppid);
	shared = 42;
	return 0;
}

int main(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pid_t pid = clone(child, stack + sizeof stack, CLONE_VM | SIGCHLD, NULL);
	if (pid < 0)
		return 2;
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "clone_vm: child status %#x\n", st);
		return 1;
	}
	syscall(SYS_getppid);
	syscall(SYS_getppid);
	if (shared != 42) {
		fprintf(stderr, "clone_vm: child's store not seen\n");
		return 1;
	}
	return 0;
}
