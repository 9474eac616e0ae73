/* Signals, with exact syscall counts:
 *  - a SIGUSR1 handler that makes one getppid call;
 *  - 9 kill(getpid(), SIGUSR1) and 10 tgkill(getpid(), tid, SIGUSR1), plus one SIGUSR1
 *    sent while blocked and delivered when rt_sigprocmask unblocks it:
 *    20 handler runs, so 20 rt_sigreturn and 20 getppid from the handler;
 *  - 3 kill(getpid(), SIGUSR2) with SIGUSR2 ignored (a tracer sees them, the
 *    program must not);
 *  - a child that makes 5 getppid calls and exits 3;
 *  - a child that kills itself with SIGKILL (kill).
 * SIGCHLD is blocked before the forks (so no wait4 is interrupted and restarted,
 * which under ptrace would make the wait4 count depend on timing).
 * Totals: rt_sigreturn 20, getppid 25, kill 9+1+3+1 = 14, tgkill 10, gettid 1,
 * rt_sigprocmask 3, exit_group 2 (the SIGKILLed child makes none).
 * Exits 0 when everything happened as expected, 1 otherwise. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	syscall(SYS_getppid);
	handled++;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return 1;
	signal(SIGUSR2, SIG_IGN);

	pid_t me = getpid();
	pid_t tid = syscall(SYS_gettid);
	for (int i = 0; i < 9; i++)
		syscall(SYS_kill, me, SIGUSR1);
	for (int i = 0; i < 10; i++)
		syscall(SYS_tgkill, me, tid, SIGUSR1);

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	syscall(SYS_kill, me, SIGUSR1);
	int before = handled;
	sigprocmask(SIG_UNBLOCK, &set, NULL);

	for (int i = 0; i < 3; i++)
		syscall(SYS_kill, me, SIGUSR2);

	int bad = 0;
	if (before != 19 || handled != 20) {
		fprintf(stderr, "signals: handler ran %d times (%d before unblock), expected 20 (19)\n",
			(int)handled, before);
		bad = 1;
	}

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);

	int st;
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 5; i++)
			syscall(SYS_getppid);
		exit(3);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 3) {
		fprintf(stderr, "signals: child: status %#x, expected exit 3\n", st);
		bad = 1;
	}

	pid = fork();
	if (pid == 0) {
		syscall(SYS_kill, getpid(), SIGKILL);
		_exit(99);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
		fprintf(stderr, "signals: child: status %#x, expected SIGKILL\n", st);
		bad = 1;
	}
	return bad;
}
